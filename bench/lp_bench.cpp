// balsa-bench lp (bench/bench.hpp): the revised simplex on every MPS
// file of a folder against CLP (bench/lp_baselines.hpp) and HiGHS
// (scripts/lp-highs.py's JSON), with the reference statuses and objectives of
// reference.csv when there is one. Targets of the LP issue: every status as
// the reference's, optimal objectives within 1e-6 relative, the geometric
// mean time ratio to CLP over the problems where CLP takes >= 10 ms.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench.hpp"
#include "balsa/cuda.hpp"
#include "balsa/lp.hpp"
#include "balsa/config.hpp"
#include "bench_output.hpp"
#include "core/clock.hpp"
#include "lp/basis/basis_gpu.hpp"
#include "lp_baselines.hpp"
#include "apps/fields_json.hpp"

namespace balsa::bench {

namespace {

namespace fs = std::filesystem;

struct Reference {
  std::string status;  // balsa's names
  double objective = std::nan("");
};

std::string reference_status(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (s == "optimal") return "optimal";
  if (s.find("infeasible") != std::string::npos) return "infeasible";
  if (s.find("unbounded") != std::string::npos) return "unbounded";
  return s;
}

// reference.csv: path, problem, ..., highs_status, highs_objective, ...
std::map<std::string, Reference> read_reference(const std::string& path) {
  std::map<std::string, Reference> out;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  {
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) head.push_back(f);
  }
  auto col = [&](const char* name) { return int(std::find(head.begin(), head.end(), name) - head.begin()); };
  const int c_path = col("path"), c_status = col("highs_status"), c_obj = col("highs_objective");
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (int(f.size()) <= std::max({c_path, c_status, c_obj})) continue;
    Reference r{reference_status(f[c_status]), std::nan("")};
    try {
      r.objective = std::stod(f[c_obj]);
    } catch (const std::exception&) {
    }
    out[fs::path(f[c_path]).filename().string()] = r;
  }
  return out;
}

std::map<std::string, nlohmann::json> read_highs(const std::string& path) {
  std::map<std::string, nlohmann::json> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) throw Error("bench lp: cannot read the HiGHS results '" + path + "'");
  const nlohmann::json j = nlohmann::json::parse(in);
  for (const nlohmann::json& p : j.at("problems")) out[fs::path(p.at("path").get<std::string>()).filename().string()] = p;
  return out;
}

std::vector<fs::path> problems(const LpBenchOptions& o) {
  std::vector<fs::path> files;
  for (const fs::path& dir : {fs::path(o.dir), fs::path(o.dir) / "infeasible"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (!(name.ends_with(".mps") || name.ends_with(".mps.gz"))) continue;
      if (!o.only.empty() &&
          std::none_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return name.find(s) != std::string::npos; }))
        continue;
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error("bench lp: no *.mps or *.mps.gz files in '" + o.dir + "'");
  return files;
}

double relative_difference(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

struct BalsaRun {
  LpSolution solution;
  SimplexStats stats;
  double seconds = 0;
};

BalsaRun run_balsa(const LinearProgram& lp, Device device, int repeat, double time_limit) {
  BalsaRun best;
  std::vector<double> times;
  for (int k = 0; k < std::max(1, repeat); ++k) {
    SimplexSolver s(lp, {.device = device, .time_limit_seconds = time_limit});
    const Clock::time_point t0 = Clock::now();
    LpSolution sol = s.solve();
    times.push_back(seconds_since(t0) + s.stats().presolve_seconds);
    if (k == 0) {
      best.solution = std::move(sol);
      best.stats = s.stats();
    }
  }
  std::sort(times.begin(), times.end());
  best.seconds = times[times.size() / 2];
  return best;
}

void add_split(SimplexStats& sum, const SimplexStats& s) {
  sum.presolve_seconds += s.presolve_seconds;
  sum.factorization_seconds += s.factorization_seconds;
  sum.ftran_seconds += s.ftran_seconds;
  sum.btran_seconds += s.btran_seconds;
  sum.pricing_seconds += s.pricing_seconds;
  sum.update_seconds += s.update_seconds;
  sum.gpu_solve_seconds += s.gpu_solve_seconds;
  sum.total_seconds += s.total_seconds;
  sum.iterations += s.iterations;
}

// Where the time goes, as the thesis' Table 7.1: shares of the total over
// every problem (the rest: presolve, scaling, recomputations, bookkeeping).
std::string split_table(const SimplexStats& cpu, const SimplexStats& gpu, bool with_gpu) {
  auto row = [](const char* name, const SimplexStats& s) {
    const double t = s.total_seconds > 0 ? s.total_seconds : 1;
    const double rest = t - s.presolve_seconds - s.factorization_seconds - s.ftran_seconds - s.btran_seconds -
                        s.pricing_seconds - s.update_seconds;
    return fmt::format("| {} | {:.2f} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n", name,
                       s.total_seconds, s.iterations, 100 * s.factorization_seconds / t, 100 * s.ftran_seconds / t,
                       100 * s.btran_seconds / t, 100 * s.pricing_seconds / t, 100 * s.update_seconds / t,
                       100 * s.gpu_solve_seconds / t, 100 * rest / t);
  };
  std::string t = "Time split (Table 7.1), % of the total over all problems:\n\n| basis solves | total s | iterations | "
                  "factorisation | FTRAN | BTRAN | pricing (CHUZR, PRICE, CHUZC) | update | of FTRAN+BTRAN: GPU solves | "
                  "other |\n|---|---|---|---|---|---|---|---|---|---|\n";
  t += row("CPU", cpu);
  if (with_gpu) t += row("GPU (forced)", gpu);
  return t;
}

// The per-iteration time of the basis solves (FTRAN + BTRAN + the factor's
// update: what the model predicts).
double solve_time_per_iteration(const SimplexStats& s) {
  return s.iterations > 0 ? (s.ftran_seconds + s.btran_seconds + s.update_seconds) / double(s.iterations) : 0.0;
}

// The model's CPU estimate from the last basis alone (no measured time).
double cpu_model(const BasisSolveModel& m) {
  const lp::BasisSolveCoefficients c;
  return c.cpu_fixed + c.cpu_per_edge * m.density * double(m.nnz_L + m.nnz_U) + c.cpu_per_row * double(m.rows);
}

bool within_2x(double predicted, double measured) {
  return measured > 0 && predicted / measured >= 0.5 && predicted / measured <= 2.0;
}

// What the run adds up over the problems.
struct LpTally {
  int total = 0, status_ok = 0, objective_ok = 0, optimal = 0, gpu_ok = 0, gpu_runs = 0;
  SimplexStats split_cpu, split_gpu;  // Table 7.1: the time split summed over the problems
  int gpu_model_ok = 0, cpu_model_ok = 0, modelled = 0, model_chose_gpu = 0;
  std::vector<std::string> gpu_faster;
  std::vector<double> ratios;  // balsa / CLP where CLP takes >= 10 ms and balsa's answer is right
  double geomean() const {
    double log_sum = 0;
    for (double x : ratios) log_sum += std::log(x);
    return ratios.empty() ? std::nan("") : std::exp(log_sum / double(ratios.size()));
  }
};

// The status and objective a problem is judged against: reference.csv's,
// else HiGHS' optimum, else CLP's.
struct LpExpected {
  std::string status;
  double objective = 0;
  std::string highs_status = "-", highs_ms = "-";
};

LpExpected expected_of(const std::string& file, const LpBaselineResult& clp,
                       const std::map<std::string, Reference>& reference,
                       const std::map<std::string, nlohmann::json>& highs, nlohmann::json& r) {
  LpExpected e{clp.status, clp.objective};
  if (auto it = reference.find(file); it != reference.end()) {
    e.status = it->second.status;
    e.objective = it->second.objective;
  }
  if (auto it = highs.find(file); it != highs.end()) {
    r["highs"] = it->second;
    e.highs_status = it->second.value("status", "?");
    e.highs_ms = fmt::format("{:.1f}", 1e3 * it->second.value("seconds", 0.0));
    if (reference.find(file) == reference.end() && e.highs_status == "optimal")
      e.objective = it->second.value("objective", e.objective);
  }
  r["reference"] = {{"status", e.status}, {"objective", e.objective}};
  return e;
}

// The run with the basis solves forced onto the GPU, beside the CPU's run b:
// its JSON in r["gpu"], its table cells (status, ms, GPU/CPU per iteration (model)).
std::array<std::string, 3> run_gpu(const LinearProgram& lp, const BalsaRun& b, const std::string& file,
                                   const LpExpected& e, double time_limit, LpTally& t, nlohmann::json& r) {
  const BalsaRun g = run_balsa(lp, Device::Cuda, 1, time_limit);
  add_split(t.split_gpu, g.stats);
  ++t.gpu_runs;
  const bool g_ok = to_string(g.solution.status) == e.status &&
                    (e.status != "optimal" || relative_difference(g.solution.objective, e.objective) <= 1e-6);
  t.gpu_ok += g_ok;
  const double measured_gpu = solve_time_per_iteration(g.stats), measured_cpu = solve_time_per_iteration(b.stats);
  if (g.stats.iterations > 0 && b.stats.iterations > 0) {
    ++t.modelled;
    t.gpu_model_ok += within_2x(g.stats.model.gpu_seconds, measured_gpu);
    t.cpu_model_ok += within_2x(cpu_model(b.stats.model), measured_cpu);
    t.model_chose_gpu += b.stats.model.chosen == Device::Cuda;
    if (measured_gpu < measured_cpu) t.gpu_faster.push_back(file);
  }
  r["gpu"] = {{"status", to_string(g.solution.status)},
              {"objective", g.solution.objective},
              {"iterations", g.solution.iterations},
              {"seconds", g.seconds},
              {"stats", app::fields_json(g.stats)},
              {"solve_seconds_per_iteration", measured_gpu},
              {"model_gpu_seconds", g.stats.model.gpu_seconds},
              {"model_cpu_seconds_from_the_basis", cpu_model(b.stats.model)},
              {"correct", g_ok}};
  return {std::string(to_string(g.solution.status)) + (g_ok ? "" : " !"), fmt::format("{:.1f}", 1e3 * g.seconds),
          fmt::format("{:.1f} ({:.1f})", measured_cpu > 0 ? measured_gpu / measured_cpu : 0.0,
                      b.stats.model.cpu_seconds > 0 ? b.stats.model.gpu_seconds / b.stats.model.cpu_seconds : 0.0)};
}

// One problem: balsa on the CPU, CLP, HiGHS' results, the GPU run; its JSON
// in r, its Markdown row returned.
std::string bench_problem(const fs::path& f, const LpBenchOptions& o, const std::map<std::string, Reference>& reference,
                          const std::map<std::string, nlohmann::json>& highs, bool gpu, LpTally& t,
                          nlohmann::json& r) {
  const std::string file = f.filename().string();
  const LinearProgram lp = read_mps(f.string());
  r.update({{"name", lp.name}, {"rows", lp.rows()}, {"cols", lp.cols()}, {"nnz", lp.A.nnz()}});
  const BalsaRun b = run_balsa(lp, Device::Cpu, o.repeat, o.time_limit);
  const LpSolution& s = b.solution;
  add_split(t.split_cpu, b.stats);
  r["balsa"] = {{"status", to_string(s.status)},
                {"objective", s.objective},
                {"iterations", s.iterations},
                {"seconds", b.seconds},
                {"max_primal_infeasibility", s.max_primal_infeasibility},
                {"max_dual_infeasibility", s.max_dual_infeasibility},
                {"solve_seconds_per_iteration", solve_time_per_iteration(b.stats)},
                {"stats", app::fields_json(b.stats)}};
  const LpBaselineResult clp = run_clp(lp, o.repeat);
  r["clp"] = {{"status", clp.status}, {"objective", clp.objective}, {"iterations", clp.iterations},
              {"seconds", clp.seconds}, {"error", clp.error}};
  const LpExpected e = expected_of(file, clp, reference, highs, r);
  const bool same_status = to_string(s.status) == e.status;
  const double diff = e.status == "optimal" ? relative_difference(s.objective, e.objective) : 0.0;
  const bool same_objective = same_status && (e.status != "optimal" || diff <= 1e-6);
  t.status_ok += same_status;
  t.objective_ok += same_objective && e.status == "optimal";
  t.optimal += e.status == "optimal";
  r["objective_relative_difference"] = diff;
  const double ratio = clp.seconds > 0 ? b.seconds / clp.seconds : std::nan("");
  // The time ratio only where balsa's answer is right (a fast failure must not help).
  if (clp.status != "not_run" && clp.seconds >= 0.010 && same_objective) t.ratios.push_back(ratio);
  const std::array<std::string, 3> g =
      gpu ? run_gpu(lp, b, file, e, o.time_limit, t, r) : std::array<std::string, 3>{"-", "-", "-"};
  return fmt::format(
      "| {} | {} | {} | {} | {} | {}{}{} | {} | {:.1f} | {} | {} | {:.1f} | {:.2f} | {} | {} | {:.1e} | {} | {} | {} |\n",
      file, lp.rows(), lp.cols(), lp.A.nnz(), e.status, to_string(s.status), same_status ? "" : " !",
      same_objective || !same_status ? "" : " ~", s.iterations, 1e3 * b.seconds, clp.status, clp.iterations,
      1e3 * clp.seconds, ratio, e.highs_status, e.highs_ms, diff, g[0], g[1], g[2]);
}

// The summary line, and the model's line when problems ran both ways.
std::string summary_text(const LpTally& t) {
  return fmt::format(
      "Status as the reference's: {} of {}; objectives within 1e-6 relative of the reference's: {} of the {} "
      "optimal ones. Geometric-mean time balsa/CLP over the {} problems where CLP takes >= 10 ms (and balsa's "
      "answer is right): {:.2f} (target <= 3). GPU basis solves (forced, one run each): {} of {} correct.\n",
      t.status_ok, t.total, t.objective_ok, t.optimal, t.ratios.size(), t.geomean(), t.gpu_ok, t.gpu_runs);
}
std::string model_text(const LpTally& t) {
  if (t.modelled == 0) return "";
  std::string faster;
  for (const std::string& f : t.gpu_faster) faster += (faster.empty() ? "" : ", ") + f;
  return fmt::format(
      "The basis-solve model (lp/basis/basis_gpu.hpp; per iteration FTRAN + BTRAN + update) against the measured times "
      "of the {} problems solved both ways: GPU predicted within 2x on {}, CPU (from the basis alone) within 2x on "
      "{}; the model chose the GPU for {} of them; the GPU's basis solves were faster than the CPU's on: {}.\n",
      t.modelled, t.gpu_model_ok, t.cpu_model_ok, t.model_chose_gpu, faster.empty() ? "none" : faster);
}

nlohmann::json summary_json(const LpTally& t) {
  return {{"total", t.total},
          {"status_as_reference", t.status_ok},
          {"objective_within_1e-6", t.objective_ok},
          {"geomean_time_vs_clp", t.geomean()},
          {"problems_clp_over_10ms", t.ratios.size()},
          {"gpu_correct", t.gpu_ok},
          {"model_problems", t.modelled},
          {"model_gpu_within_2x", t.gpu_model_ok},
          {"model_cpu_within_2x", t.cpu_model_ok},
          {"model_chose_gpu", t.model_chose_gpu},
          {"gpu_faster", t.gpu_faster},
          {"gpu_runs", t.gpu_runs}};
}

}  // namespace

void run_lp_bench(const LpBenchOptions& o, const std::string& command_line) {
  const std::vector<fs::path> files = problems(o);
  const std::string ref_path = !o.reference.empty() ? o.reference : (fs::path(o.dir) / "reference.csv").string();
  const std::map<std::string, Reference> reference = read_reference(ref_path);
  const std::map<std::string, nlohmann::json> highs = read_highs(o.highs_json);
  const bool has_gpu = resolve_device(Device::Auto) == Device::Cuda, gpu = o.gpu && has_gpu;
  const std::string gpu_name = has_gpu ? cuda::device_info().name : "none";
  nlohmann::json rows = nlohmann::json::array();
  std::string md = fmt::format(
      "# balsa-bench lp ({})\n\n`{}`\n\nGPU: {}. {}. Times in ms (balsa: presolve + solve; CLP: its dual simplex "
      "with presolve; HiGHS: run()). Status marks: `!` differs from the reference, `~` objective off by more than "
      "1e-6 relative.\n\n" "| problem | rows | cols | nnz | reference | balsa | iterations | ms | CLP | CLP it | CLP ms "
      "| balsa/CLP | HiGHS | HiGHS ms | rel. diff | GPU status | GPU ms | GPU/CPU basis solves per it. (model) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      utc_now_iso(), command_line, gpu_name, clp_version());
  LpTally t;
  for (const fs::path& f : files) {
    const std::string file = f.filename().string();
    nlohmann::json r = {{"path", fs::relative(f, o.dir).string()}};
    ++t.total;
    try {
      const std::string line = bench_problem(f, o, reference, highs, gpu, t, r);
      md += line;
      fmt::print(stderr, "{}", line);
    } catch (const std::exception& e) {
      r["error"] = e.what();
      md += fmt::format("| {} | error: {} |\n", file, e.what());
      fmt::print(stderr, "{}: error: {}\n", file, e.what());
    }
    rows.push_back(r);
  }
  const std::string summary = summary_text(t);
  md += "\n" + summary + "\n" + model_text(t) + "\n" + split_table(t.split_cpu, t.split_gpu, t.gpu_runs > 0);
  const nlohmann::json json = {{"benchmark", "lp"},       {"date", utc_now_iso()},   {"balsa_version", BALSA_VERSION},   {"command_line", command_line},
                               {"gpu", gpu_name},         {"clp", clp_version()},    {"reference", ref_path},
                               {"highs_json", o.highs_json}, {"repeat", o.repeat}, {"problems", rows},
                               {"summary", summary_json(t)}};
  write_results(o.json_path, json, o.markdown_path, md, summary);
}

}  // namespace balsa::bench
