// balsa::solve's plan (solve/plan.hpp): Auto by predicted time to the answer.
#include "solve/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/clock.hpp"
#include "core/instantiate.hpp"
#include "core/memory.hpp"
#include "core/number_text.hpp"

namespace balsa::solve_detail {

namespace {

std::string seconds_text(double s) { return number_text(s, 3) + " s"; }

// The devices an iterative method may run on.
std::vector<Device> devices(const SolveOptions& o, const Machine& m) {
  if (o.device == Device::Cuda) return {Device::Cuda};
  if (o.device == Device::Cpu || !m.gpu) return {Device::Cpu};
  return {Device::Cpu, Device::Cuda};
}

// Method m on its cheaper device.
Step best_step(SolveMethod m, const SolveFeatures& f, const SolveOptions& o, const Machine& machine) {
  Step best{m, Device::Cpu, INFINITY, ""};
  for (const Device d : devices(o, machine)) {
    std::string basis;
    const double t = iterative_seconds(m, d, f, machine, basis);
    if (t < best.predicted || best.basis.empty()) best = {m, d, t, basis};
  }
  return best;
}

// The direct step, analysed when that is cheap enough (see plan.hpp).
template <class T>
Step direct_step(Shared<T>& s, const Machine& machine, int columns, double best_iterative, Plan& plan) {
  Step d{SolveMethod::Auto, Device::Cpu, -1, ""};
  const double analysis = analysis_seconds(s.features, machine);
  if (analysis > std::max(kAnalyseAlways, kAnalyseShare * best_iterative)) {
    d.basis = "not analysed: its analysis alone is predicted " + seconds_text(analysis) + " (fastest iterative " +
              seconds_text(best_iterative) + ")";
    return d;
  }
  DirectOptions o;
  o.device = Device::Cpu;
  o.threads = s.options.threads;
  o.factorize = false;
  try {
    s.analysed = std::make_unique<DirectSolver<T>>(s.A, o);
  } catch (const StructurallySingular&) {
    throw;
  } catch (const Error& e) {
    d.basis = std::string("cannot run: ") + e.what();
    d.predicted = INFINITY;
    return d;
  }
  const DirectStats& a = s.analysed->stats();
  d.method = solve_method_of(a.method);
  plan.direct_reserve = factor_solve_seconds(a, columns, machine, d.basis);
  d.predicted = a.analyse_seconds + plan.direct_reserve;
  if (a.peak_bytes > double(available_memory())) {
    d.basis = "cannot run: its factorisation needs " + format_bytes(std::size_t(a.peak_bytes)) + ", " +
              format_bytes(available_memory()) + " are available";
    d.predicted = INFINITY;
  }
  plan.direct_predicted = d.predicted;
  return d;
}

void add_prediction(Plan& plan, const Step& s) {
  plan.predictions.push_back({s.method, s.device, s.predicted, s.basis});
}

// The last iterative resorts when no direct factorisation is known to fit:
// SaP's sparse pipeline on DB's matrix.
void add_sap(Plan& plan, const SolveOptions& o, const Machine& machine) {
  const Device d = o.device == Device::Cpu || !machine.gpu ? Device::Cpu : Device::Cuda;
  for (const SolveMethod m : {SolveMethod::SapD, SolveMethod::SapC, SolveMethod::SapLu})
    plan.steps.push_back({m, d, -1, "no model: a last resort"});
}

template <class T>
Plan named_plan(Shared<T>& s, const Machine& machine) {
  const SolveOptions& o = s.options;
  Plan plan;
  if (is_direct(o.method)) {
    plan.steps.push_back({o.method, Device::Cpu, -1, "named"});
  } else {
    Step st = best_step(o.method, s.features, o, machine);
    if (!std::isfinite(st.predicted)) st.device = devices(o, machine).back();  // no model (SaP): the GPU when allowed
    plan.steps.push_back(st);
    if (o.direct_fallback) plan.steps.push_back({SolveMethod::Auto, Device::Cpu, -1, "the direct fallback"});
  }
  plan.why = std::string(to_string(o.method)) + " as asked";
  return plan;
}

template <class T>
Plan auto_plan(Shared<T>& s, const Machine& machine, int columns) {
  const SolveOptions& o = s.options;
  Plan plan;
  std::vector<Step> iterative;
  for (const SolveMethod m : {SolveMethod::Cg, SolveMethod::PcgJacobi, SolveMethod::PcgChebyshev, SolveMethod::PcgIc0,
                              SolveMethod::DbBiCgStab2Ilu0}) {
    const Step st = best_step(m, s.features, o, machine);
    if (std::isfinite(st.predicted)) iterative.push_back(st);
  }
  std::sort(iterative.begin(), iterative.end(), [](const Step& a, const Step& b) { return a.predicted < b.predicted; });
  const double best = iterative.empty() ? INFINITY : iterative.front().predicted;
  std::optional<Step> direct;
  if (o.direct_fallback) direct = direct_step(s, machine, columns, best, plan);
  for (const Step& st : iterative) add_prediction(plan, st);
  if (direct) add_prediction(plan, *direct);
  std::stable_sort(plan.predictions.begin(), plan.predictions.end(),
                   [](const SolvePrediction& a, const SolvePrediction& b) {
                     return (a.seconds < 0 ? INFINITY : a.seconds) < (b.seconds < 0 ? INFINITY : b.seconds);
                   });
  const bool known = direct && direct->predicted >= 0 && std::isfinite(direct->predicted);
  if (known) {
    for (const Step& st : iterative)
      if (st.predicted * kIterativeMargin < direct->predicted && direct->predicted >= kDirectFloor)
        plan.steps.push_back(st);
    plan.steps.push_back(*direct);
    plan.why = plan.steps.size() == 1
                   ? std::string(to_string(direct->method)) + ": the direct method is predicted fastest (" +
                         seconds_text(direct->predicted) + ")"
                   : std::string(to_string(plan.steps.front().method)) + " predicted " +
                         seconds_text(plan.steps.front().predicted) + ", at least 3x faster than the direct " +
                         "method's " + seconds_text(direct->predicted);
    return plan;
  }
  plan.steps = iterative;
  add_sap(plan, o, machine);
  if (direct) plan.steps.push_back(*direct);
  plan.why = iterative.empty() ? "no iterative method applies"
                               : std::string(to_string(iterative.front().method)) + " predicted fastest (" +
                                     seconds_text(best) + "); direct " + (direct ? direct->basis : "not allowed");
  return plan;
}

}  // namespace

template <class T>
Plan make_plan(Shared<T>& s, const Machine& machine, int columns, double spent) {
  const SolveOptions& o = s.options;
  Plan plan = o.method == SolveMethod::Auto ? auto_plan(s, machine, columns) : named_plan(s, machine);
  if (o.time_budget) {
    plan.budget = *o.time_budget;
    plan.user_budget = true;
  } else if (plan.direct_predicted > 0 && std::isfinite(plan.direct_predicted) && plan.steps.size() > 1) {
    plan.budget = spent + kBudgetFactor * plan.direct_predicted;
  }
  return plan;
}

#define BALSA_INSTANTIATE(T) template Plan make_plan(Shared<T>&, const Machine&, int, double);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::solve_detail
