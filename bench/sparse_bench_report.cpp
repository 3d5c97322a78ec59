// balsa-bench sparse: the records as JSON, the summary and the Markdown
// report (bench/sparse_bench.hpp). Every number here comes from a run that
// was measured: a skipped or failed run counts in no time ratio.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bench_math.hpp"
#include "sparse_bench.hpp"

namespace balsa::bench {

nlohmann::json to_json(const SolverRun& r, bool balsa) {
  nlohmann::json j = {{"status", r.status}, {"ran", r.ran},         {"skipped", r.skipped},
                      {"success", r.success}, {"error", r.error}, {"residual", r.residual},
                      {"seconds", r.seconds}, {"repeats", r.repeats}};
  if (!balsa) {
    j["factor_seconds"] = r.factor_seconds;
    j["solve_seconds"] = r.solve_seconds;
    j["lu_nnz"] = r.lu_nnz;
    j["detail"] = r.detail;
  } else {
    j["reported_solved"] = r.reported_solved;
    j["method"] = r.method;
    j["direct"] = r.direct;
    j["iterations"] = r.iterations;
    j["chain"] = r.chain_json;
    j["message"] = r.message;
    j["device"] = r.device;
    j["backward_error"] = r.backward_error;
    j["componentwise_backward_error"] = r.componentwise_backward_error;
    j["plan_first"] = r.predicted;
    j["plan_first_seconds"] = r.predicted_seconds;
  }
  return j;
}

nlohmann::json to_json(const SystemRecord& s) {
  return {{"name", s.name},
          {"group", s.group},
          {"source", s.source},
          {"kind", s.kind},
          {"spd", s.spd},
          {"n", s.n},
          {"nnz", s.nnz},
          {"cholmod_eligible", s.cholmod_eligible},
          {"time_ratio", time_ratio(s)},
          {"balsa", to_json(s.balsa, true)},
          {"balsa_default", to_json(s.balsa_default, true)},
          {"umfpack", to_json(s.umfpack, false)},
          {"cholmod", to_json(s.cholmod, false)},
          {"superlu", to_json(s.superlu, false)}};
}

double time_ratio(const SystemRecord& s) {
  double best = NAN;
  for (const SolverRun* b : {&s.umfpack, &s.cholmod})
    if (b->success && b->seconds > 0 && !(b->seconds >= best)) best = b->seconds;
  const SolverRun& r = s.balsa_default;
  return r.ran && r.reported_solved && best > 0 ? r.seconds / best : NAN;
}

namespace {

struct Counts {
  int success = 0, failed = 0, skipped = 0;
};
Counts count(const std::vector<SystemRecord>& systems, SolverRun SystemRecord::*which) {
  Counts c;
  for (const SystemRecord& s : systems) {
    const SolverRun& r = s.*which;
    if (r.success) ++c.success;
    else if (r.skipped) ++c.skipped;
    else ++c.failed;
  }
  return c;
}

// log2(T_baseline / T_balsa) over the systems both solved (balsa: its own
// iterative methods), with the systems' names.
std::vector<std::pair<double, std::string>> speedups(const std::vector<SystemRecord>& systems,
                                                     SolverRun SystemRecord::*base) {
  std::vector<std::pair<double, std::string>> out;
  for (const SystemRecord& s : systems) {
    const SolverRun& b = s.*base;
    if (s.balsa.success && b.success && s.balsa.seconds > 0 && b.seconds > 0)
      out.emplace_back(std::log2(b.seconds / s.balsa.seconds), s.name);
  }
  return out;
}

double median_of(const std::vector<std::pair<double, std::string>>& v) {
  std::vector<double> x;
  for (const auto& p : v) x.push_back(p.first);
  return median(x);
}

// Systems UMFPACK solves; balsa's own iterative methods on them (the target: >= 90%).
std::pair<int, int> target(const std::vector<SystemRecord>& systems) {
  int both = 0, umf = 0;
  for (const SystemRecord& s : systems)
    if (s.umfpack.success) {
      ++umf;
      both += s.balsa.success;
    }
  return {both, umf};
}

// The default run's time to the answer on the systems UMFPACK solves,
// against min(UMFPACK, CHOLMOD) (time_ratio); the backward errors of every
// accepted answer of that run.
struct AnswerSummary {
  int systems = 0, answered = 0, within_2x = 0, within_125x = 0;
  double geomean = NAN, worst = NAN;
  std::string worst_system = "-", not_answered;
  double max_backward_error = NAN;  // normwise, over every accepted answer
  std::string max_backward_error_system = "-";
  std::vector<const SystemRecord*> slowest;  // by ratio, largest first
};
AnswerSummary answer_summary(const std::vector<SystemRecord>& systems) {
  AnswerSummary a;
  std::vector<double> ratios;
  for (const SystemRecord& s : systems) {
    const SolverRun& r = s.balsa_default;
    if (r.ran && r.reported_solved && !(r.backward_error <= a.max_backward_error)) {
      a.max_backward_error = r.backward_error;
      a.max_backward_error_system = s.name;
    }
    if (!s.umfpack.success) continue;
    ++a.systems;
    const double t = time_ratio(s);
    if (std::isnan(t)) {
      a.not_answered += (a.not_answered.empty() ? "" : ", ") + s.name + " (" + r.status + ")";
      continue;
    }
    ++a.answered;
    ratios.push_back(t);
    a.within_2x += t <= 2.0;
    a.within_125x += t <= 1.25;
    if (!(t <= a.worst)) {
      a.worst = t;
      a.worst_system = s.name;
    }
    a.slowest.push_back(&s);
  }
  a.geomean = geomean(ratios);
  std::sort(a.slowest.begin(), a.slowest.end(),
            [](const SystemRecord* x, const SystemRecord* y) { return time_ratio(*x) > time_ratio(*y); });
  return a;
}

std::string pct(int a, int b) { return b > 0 ? fmt::format("{:.1f}%", 100.0 * a / b) : "-"; }
std::string num(double v, const char* f = "{:.3g}") { return std::isnan(v) ? "-" : fmt::format(fmt::runtime(f), v); }
// Text for a Markdown table cell: '|' escaped, line breaks as spaces.
std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}
// "yes" / "no" for a run, else why it did not run.
std::string outcome(const SolverRun& r) {
  if (!r.ran) return cell(r.status);
  return r.success ? "yes" : (r.status == "ok" ? "no" : "no (" + cell(r.status) + ")");
}

}  // namespace

namespace {
// The runs counted in the success tables, with their JSON and Markdown names.
struct NamedRun {
  const char* json;
  const char* markdown;
  SolverRun SystemRecord::*which;
};
constexpr NamedRun named_runs[] = {{"balsa", "balsa", &SystemRecord::balsa},
                                   {"balsa_default", "balsa (default)", &SystemRecord::balsa_default},
                                   {"umfpack", "UMFPACK", &SystemRecord::umfpack},
                                   {"cholmod", "CHOLMOD", &SystemRecord::cholmod},
                                   {"superlu", "SuperLU", &SystemRecord::superlu}};

// Does the default run answer every nonsingular system (one a direct baseline solved)?
std::string default_answers(const std::vector<SystemRecord>& systems) {
  int nonsingular = 0, answered = 0;
  std::string missed;
  for (const SystemRecord& s : systems)
    if (s.umfpack.success || s.cholmod.success || s.superlu.success) {
      ++nonsingular;
      const SolverRun& r = s.balsa_default;
      if (r.success) ++answered;
      else
        missed += (missed.empty() ? "" : ", ") + s.name + " (" + (r.ran ? "error " + num(r.error, "{:.1e}") : r.status) +
                  ")";
    }
  return fmt::format("balsa (default) solves {} of the {} systems UMFPACK, CHOLMOD or SuperLU solves{}.\n\n", answered,
                     nonsingular, missed.empty() ? "" : "; not: " + cell(missed));
}

// The time-to-the-answer target of issue 37, with the slowest systems.
std::string time_to_answer(const std::vector<SystemRecord>& systems, double tolerance) {
  const AnswerSummary a = answer_summary(systems);
  const bool met = a.systems > 0 && a.geomean <= 1.25 && a.within_2x == a.systems;
  std::string md = fmt::format(
      "### Time to the answer: balsa (default) vs min(UMFPACK, CHOLMOD)\n\n"
      "R = T_balsa(default) / min(T_UMFPACK, T_CHOLMOD) (the baselines that succeeded) on the {} systems UMFPACK "
      "solves; a system balsa does not answer (solved == false) has no R and counts as outside 2x.\n\n"
      "- **geometric mean R: {}** over {} answered (target <= 1.25)\n"
      "- **worst R: {} ({})** (target <= 2)\n"
      "- **within 2x: {} of {}**; within 1.25x: {}{}\n"
      "- **largest normwise backward error of an accepted answer: {} ({})** (tolerance {:g})\n"
      "- target: **{}**\n\n",
      a.systems, num(a.geomean, "{:.3f}"), a.answered, num(a.worst, "{:.2f}"), a.worst_system, a.within_2x, a.systems,
      a.within_125x, a.not_answered.empty() ? "" : "; not answered: " + cell(a.not_answered),
      num(a.max_backward_error, "{:.2e}"), a.max_backward_error_system, tolerance, met ? "met" : "not met");
  if (a.slowest.empty()) return md;
  md += "Slowest (largest R):\n\n| system | R | balsa s | method | UMFPACK s | CHOLMOD s | plan's first prediction |\n"
        "|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(a.slowest.size(), 8); ++i) {
    const SystemRecord& s = *a.slowest[i];
    md += fmt::format("| {} | {:.2f} | {} | {} | {} | {} | {} |\n", s.name, time_ratio(s), num(s.balsa_default.seconds),
                      s.balsa_default.method, num(s.umfpack.seconds), num(s.cholmod.seconds),
                      cell(s.balsa_default.predicted));
  }
  return md + "\n";
}

std::string errors(const SolverRun& r) {
  return r.ran ? num(r.error, "{:.1e}") + " / " + num(r.residual, "{:.1e}") : std::string("-");
}

// Per system: the default run, its backward errors, plan and chain, against the direct baselines.
std::string default_table(const std::vector<SystemRecord>& systems) {
  std::string md =
      "### Per system: balsa (default) and the direct baselines\n\nerror = ||x - x*||_2 / ||x*||_2, residual = "
      "||b - A x||_2 / ||b||_2, s = seconds, R = T_balsa / min(T_UMFPACK, T_CHOLMOD), BE = backward error "
      "(normwise / componentwise).\n\n"
      "| system | n | nnz | SPD | balsa (default) | error / residual | s | method | device | BE | R | UMFPACK | "
      "error / residual | s | CHOLMOD | error / residual | s | plan's first prediction | chain |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const SystemRecord& s : systems) {
    const SolverRun& d = s.balsa_default;
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", s.name,
        s.n, s.nnz, s.spd, outcome(d), errors(d), num(d.seconds), d.method, d.device,
        num(d.backward_error, "{:.1e}") + " / " + num(d.componentwise_backward_error, "{:.1e}"),
        num(time_ratio(s), "{:.2f}"), outcome(s.umfpack), errors(s.umfpack), num(s.umfpack.seconds), outcome(s.cholmod),
        errors(s.cholmod), num(s.cholmod.seconds), cell(d.predicted), cell(d.chain));
  }
  return md + "\n";
}

// Per system: balsa's own iterative methods against UMFPACK and SuperLU (the Fig. 12 runs).
std::string iterative_table(const std::vector<SystemRecord>& systems) {
  std::string md =
      "### Per system: balsa's iterative methods, UMFPACK and SuperLU\n\n"
      "| system | n | nnz | kind | SPD | balsa | error / residual | s | method | UMFPACK | error / residual | s | "
      "SuperLU | error / residual | s | balsa's chain |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const SystemRecord& s : systems)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", s.name,
                      s.n, s.nnz, cell(s.kind), s.spd, outcome(s.balsa), errors(s.balsa), num(s.balsa.seconds),
                      s.balsa.method, outcome(s.umfpack), errors(s.umfpack), num(s.umfpack.seconds),
                      outcome(s.superlu), errors(s.superlu), num(s.superlu.seconds), cell(s.balsa.chain));
  return md;
}

}  // namespace

nlohmann::json sparse_summary_json(const std::vector<SystemRecord>& systems) {
  nlohmann::json j = {{"systems", systems.size()}};
  for (const NamedRun& run : named_runs) {
    const Counts c = count(systems, run.which);
    j["success"][run.json] = {{"solved", c.success}, {"failed", c.failed}, {"skipped", c.skipped}};
  }
  const AnswerSummary a = answer_summary(systems);
  j["time_to_answer"] = {{"against", "min(UMFPACK, CHOLMOD) over the baselines that succeeded"},
                         {"systems_umfpack_solved", a.systems},
                         {"answered", a.answered},
                         {"not_answered", a.not_answered},
                         {"geomean_ratio", a.geomean},
                         {"worst_ratio", a.worst},
                         {"worst_system", a.worst_system},
                         {"within_2x", a.within_2x},
                         {"within_1_25x", a.within_125x},
                         {"max_backward_error", a.max_backward_error},
                         {"max_backward_error_system", a.max_backward_error_system},
                         {"target_met", a.systems > 0 && a.geomean <= 1.25 && a.within_2x == a.systems}};
  const auto [both, umf] = target(systems);
  j["balsa_iterative_among_umfpack_solved"] = {{"solved", both}, {"of", umf},
                                              {"fraction", umf > 0 ? double(both) / umf : NAN}};
  for (const auto& [name, which] : {std::pair{"umfpack", &SystemRecord::umfpack}, std::pair{"superlu", &SystemRecord::superlu}}) {
    nlohmann::json v = nlohmann::json::array();
    const auto s = speedups(systems, which);
    for (const auto& [value, system] : s) v.push_back({{"system", system}, {"log2_ratio", value}});
    j["log2_time_ratio"][name] = {{"values", v}, {"median", median_of(s)}};
  }
  return j;
}

std::string sparse_markdown(const nlohmann::json& meta, const std::vector<SystemRecord>& systems,
                            const std::vector<SkippedSystem>& skipped, double success_threshold, std::string& summary) {
  auto m = [&](const char* key) { return meta[key].is_string() ? meta[key].get<std::string>() : meta[key].dump(); };
  std::string md = fmt::format(
      "## balsa-bench sparse\n\n"
      "- date (UTC): {}; host: {}, {} cores, OpenMP threads {}, OpenBLAS threads {}; GPU: {}; balsa's device: {}\n"
      "- host load (1, 5, 15-minute load averages): {} at the start, {} at the end\n"
      "- command: `{}`\n"
      "- the SaP report's sec. 4.3: x* on a parabola (1 at both ends, 400 in the middle), b = A x*, x0 = 0; a solver "
      "succeeds when ||x - x*||_2 / ||x*||_2 <= {:g}.\n"
      "- **balsa**: balsa::solve, method auto, its own iterative methods only (direct_fallback off), residual "
      "tolerance {:g}, at most {} iterations per method; **balsa (default)**: balsa::solve with SolveOptions{{}} "
      "(method auto, direct fallback on, its own time budget), the device and tolerance above. **UMFPACK**: {}. "
      "**CHOLMOD**: {}, on the systems with symmetric values and a positive diagonal. **SuperLU**: {}; all three on a "
      "CSC copy of A (untimed), default settings.\n"
      "- times: wall clock, seconds, set-up + solve (balsa: the whole solve() call; direct: factorisation + solve), "
      "median of up to {} runs within {} s. The direct solvers run in a child process stopped after {} s, and are "
      "skipped above {} rows (\"skipped (size)\").\n\n",
      m("date"), m("host_cpu"), m("host_cores"), m("omp_threads"), m("openblas_threads"), m("gpu"), m("balsa_device"),
      meta.value("load_average_start", "-"), meta.value("load_average_end", "- (running)"), m("command_line"), success_threshold, meta["tolerance"].get<double>(), m("max_iterations"), m("umfpack"),
      m("cholmod"), m("superlu"), m("repeat"), m("budget_seconds"),
      m("timeout_seconds"), m("direct_max_n"));

  md += fmt::format("### Success ({} systems)\n\n| solver | solved | failed | skipped |\n|---|---|---|---|\n",
                    systems.size());
  for (const NamedRun& run : named_runs) {
    const Counts c = count(systems, run.which);
    md += fmt::format("| {} | {} | {} | {} |\n", run.markdown, c.success, c.failed, c.skipped);
  }
  const auto [both, umf] = target(systems);
  md += fmt::format("\n**balsa's own iterative methods solve {} of the {} systems UMFPACK solves ({}; target >= 90%: "
                    "{}).**\n",
                    both, umf, pct(both, umf), umf == 0 ? "no data" : both >= 0.9 * umf ? "met" : "not met");
  md += default_answers(systems) + time_to_answer(systems, meta["tolerance"].get<double>());

  // The report's Fig. 12: log2(T_baseline / T_balsa), integer bins.
  const auto su = speedups(systems, &SystemRecord::umfpack), ss = speedups(systems, &SystemRecord::superlu);
  md += "### Time ratios (the report's Fig. 12): S = log2(T_baseline / T_balsa), systems both solved\n\n"
        "S > 0: balsa (its iterative methods) was faster. Integer bins [k, k+1).\n\n"
        "| S bin | vs UMFPACK | vs SuperLU |\n|---|---|---|\n";
  std::map<int, std::pair<int, int>> bins;
  for (const auto& v : su) ++bins[int(std::floor(v.first))].first;
  for (const auto& v : ss) ++bins[int(std::floor(v.first))].second;
  for (const auto& [k, c] : bins) md += fmt::format("| [{}, {}) | {} | {} |\n", k, k + 1, c.first, c.second);
  auto faster = [](const std::vector<std::pair<double, std::string>>& v) {
    return std::count_if(v.begin(), v.end(), [](const auto& p) { return p.first > 0; });
  };
  md += fmt::format("| systems | {} | {} |\n| balsa faster | {} | {} |\n| median S | {} | {} |\n\n", su.size(),
                    ss.size(), faster(su), faster(ss), num(median_of(su), "{:.3f}"), num(median_of(ss), "{:.3f}"));

  // The generated systems of a million rows and more.
  std::string large;
  for (const SystemRecord& s : systems)
    if (s.group == "generated" && s.n >= 1000000) {
      std::string ratio = "-";
      if (s.balsa.success && s.umfpack.success)
        ratio = fmt::format("{:.2f}", s.umfpack.seconds / s.balsa.seconds);
      else if (s.balsa.success && s.umfpack.status.starts_with("timed out"))  // a bound, not a measured ratio
        ratio = fmt::format("> {:.1f} (UMFPACK stopped)", meta["timeout_seconds"].get<double>() / s.balsa.seconds);
      large += fmt::format("| {} | {} | {} | {} | {} | {} |\n", s.name, s.n, outcome(s.balsa), num(s.balsa.seconds),
                           s.umfpack.ran ? outcome(s.umfpack) + ", " + num(s.umfpack.seconds) + " s" : cell(s.umfpack.status),
                           ratio);
    }
  if (!large.empty())
    md += "### Generated systems with >= 1e6 rows\n\n| system | n | balsa solved | balsa s | UMFPACK | T_UMFPACK / "
          "T_balsa |\n|---|---|---|---|---|---|\n" + large + "\n";
  summary = md;

  md += default_table(systems) + iterative_table(systems);
  if (!skipped.empty()) {
    md += "\nNot benchmarked: ";
    for (std::size_t i = 0; i < skipped.size(); ++i)
      md += fmt::format("{}{} ({})", i ? "; " : "", skipped[i].name, cell(skipped[i].reason));
    md += ".\n";
    summary += fmt::format("{} systems not benchmarked (rectangular, too large or unreadable: see the report).\n",
                           skipped.size());
  }
  return md;
}

}  // namespace balsa::bench
