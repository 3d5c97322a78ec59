// balsa-bench sparse (bench/bench.hpp): the SaP report's sec. 4.3
// general-systems benchmark. For every system: x* on a parabola, b = A x*,
// then in this process balsa::solve (its own iterative methods; then with
// its default options: Auto, direct fallback on), UMFPACK, CHOLMOD (symmetric
// systems with a positive diagonal) and SuperLU (each in a child process with
// a time limit), the error of each x against x*; the report is
// sparse_bench_report.cpp.
#include "bench.hpp"

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <fstream>
#include <thread>

#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/solve.hpp"
#include "bench_math.hpp"
#include "balsa/config.hpp"
#include "bench_output.hpp"
#include "core/clock.hpp"
#include "sparse_baselines.hpp"
#include "sparse_bench.hpp"
#include "apps/fields_json.hpp"

namespace balsa::bench {

namespace {

// The SaP report's x*: a parabola from 1 (first entry) to 400 (middle) to 1 (last).
std::vector<double> parabola(index_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  const double c = 0.5 * double(n - 1);
  for (index_t i = 0; i < n; ++i) {
    const double t = c > 0 ? (double(i) - c) / c : 0.0;
    x[std::size_t(i)] = 1.0 + 399.0 * (1.0 - t * t);
  }
  return x;
}

double error_2norm(std::span<const double> x, std::span<const double> ref) {
  double d = 0, r = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    d += (x[i] - ref[i]) * (x[i] - ref[i]);
    r += ref[i] * ref[i];
  }
  return std::sqrt(d) / std::sqrt(r);  // NaN in x: NaN (not a success)
}

struct Problem {
  const Csr<double>& A;
  std::vector<double> x_star, b;
  double success;
};

void judge(SolverRun& r, const Problem& p, std::span<const double> x) {
  r.error = error_2norm(x, p.x_star);
  r.residual = relative_residual(p.A, x, std::span<const double>(p.b));
  r.success = r.ran && std::isfinite(r.error) && r.error <= p.success;
}

std::string chain_text(const SolveReport& rep, nlohmann::json& j) {
  std::string s;
  for (const SolveAttempt& a : rep.chain) {
    const std::string what = a.solved ? "solved" : a.reason.empty() ? "not solved" : a.reason;
    s += fmt::format("{}{}: {} ({} it, {:.3g} s)", s.empty() ? "" : "; ", to_string(a.method), what, a.iterations,
                     a.setup_seconds + a.solve_seconds);
  }
  j = app::fields_json(rep.chain);
  return s;
}

// The plan's first (fastest predicted) entry as text, and its seconds.
void first_prediction(const SolveReport& rep, SolverRun& r) {
  if (rep.plan.empty()) return;
  const SolvePrediction& p = rep.plan.front();
  r.predicted_seconds = p.seconds;
  r.predicted = fmt::format("{} on {}: {:.3g} s ({})", to_string(p.method), to_string(p.device), p.seconds, p.basis);
}

SolverRun run_balsa(const Problem& p, const SolveOptions& so, int repeat, double budget) {
  SolverRun r;
  std::vector<double> times;
  std::vector<double> x;
  SolveReport rep;
  const auto start = Clock::now();
  try {
    for (int k = 0; k < std::max(1, repeat); ++k) {
      x.assign(p.b.size(), 0.0);
      const auto t0 = Clock::now();
      rep = solve(p.A, std::span<const double>(p.b), std::span<double>(x), so);
      times.push_back(seconds_since(t0));
      if (seconds_since(start) >= budget) break;
    }
  } catch (const std::exception& e) {
    r.status = std::string("error: ") + e.what();
    return r;
  }
  r.ran = true;
  r.repeats = int(times.size());
  r.seconds = median(times);
  r.reported_solved = rep.solved;
  r.method = rep.solved || rep.method != SolveMethod::Auto ? to_string(rep.method) : "-";
  r.direct = rep.direct;
  r.device = rep.solved ? to_string(rep.device) : "-";
  r.backward_error = rep.backward_error;
  r.componentwise_backward_error = rep.componentwise_backward_error;
  first_prediction(rep, r);
  r.iterations = rep.krylov.iterations;
  r.message = rep.message;
  r.chain = chain_text(rep, r.chain_json);
  judge(r, p, x);
  r.status = rep.solved ? "ok" : "not solved";
  return r;
}

// One of the direct baselines (sparse_baselines.hpp), in a child process.
using DirectBaseline = DirectResult (*)(const Csc<double>&, std::span<const double>, int, double);
SolverRun run_direct(const Problem& p, const Csc<double>& C, DirectBaseline baseline, int repeat,
                     const SparseBenchOptions& o) {
  const double budget = o.budget_seconds;
  const DirectResult d = run_isolated([&] { return baseline(C, std::span<const double>(p.b), repeat, budget); },
                                      C.rows, o.timeout_seconds);
  SolverRun r;
  r.status = d.status;
  r.detail = d.detail;
  r.lu_nnz = d.lu_nnz;
  r.ran = d.ran;
  r.repeats = d.repeats;
  if (d.ran) {
    r.factor_seconds = d.factor_seconds;
    r.solve_seconds = d.solve_seconds;
    r.seconds = d.total_seconds();
    judge(r, p, d.x);
    if (d.failed) r.success = false;  // a singular-matrix warning is a failure, whatever x looks like
  }
  return r;
}

SolverRun skipped_run(const std::string& why) {
  SolverRun r;
  r.skipped = true;
  r.status = why;
  return r;
}

// One line for the progress output.
std::string brief(const SolverRun& r) {
  if (!r.ran) return r.status;
  return fmt::format("{} err {:.1e} {:.3g} s{}", r.success ? "OK" : "FAIL", r.error, r.seconds,
                     r.method != "-" ? " " + r.method : "");
}

// CHOLMOD's systems: symmetric values (first_asymmetry's 1e-12 relative)
// and every diagonal entry positive.
bool symmetric_positive_diagonal(const Csr<double>& A) {
  if (!first_asymmetry(A).symmetric()) return false;
  const std::vector<double> d = diagonal(A);
  return std::all_of(d.begin(), d.end(), [](double v) { return v > 0; });
}

// UMFPACK, CHOLMOD (where eligible) and SuperLU on s's system.
void run_baselines(SystemRecord& s, const Problem& p, int repeat, const SparseBenchOptions& o) {
  const Csc<double> C = to_csc(p.A);
  s.umfpack = run_direct(p, C, umfpack_solve, repeat, o);
  fmt::print(stderr, "  UMFPACK: {}\n", brief(s.umfpack));
  s.cholmod = s.cholmod_eligible ? run_direct(p, C, cholmod_solve, repeat, o)
                                 : skipped_run("skipped (not symmetric with a positive diagonal)");
  fmt::print(stderr, "  CHOLMOD: {}\n", brief(s.cholmod));
  s.superlu = run_direct(p, C, superlu_solve, repeat, o);
  fmt::print(stderr, "  SuperLU: {}\n", brief(s.superlu));
}

std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
  return "unknown CPU";
}

// The host's 1, 5 and 15-minute load averages (/proc/loadavg): how busy the
// machine the times come from was.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (!(in >> a >> b >> c)) return "unknown";
  return fmt::format("{:.2f} {:.2f} {:.2f}", a, b, c);
}

// The run's settings, the host, the GPU and the baselines' versions.
nlohmann::json sparse_meta(const SparseBenchOptions& o, const std::string& command_line, Device device) {
  std::string gpu = "none";
  if (cuda::available()) {
    try {
      gpu = cuda::device_info().name;
    } catch (const std::exception& e) {
      gpu = std::string("unknown (") + e.what() + ")";
    }
  }
  const bool quick = o.suite == "quick";
  return {{"benchmark", "balsa-bench sparse"},
                         {"date", utc_now_iso()},
                         {"balsa_version", BALSA_VERSION},
                         {"command_line", command_line},
                         {"host_cpu", host_cpu()},
                         {"host_cores", std::thread::hardware_concurrency()},
                         {"omp_threads", omp_get_max_threads()},
                         {"load_average_start", load_average()},
                         {"openblas_threads", openblas_get_num_threads()},
                         {"gpu", gpu},
                         {"balsa_device", to_string(device)},
                         {"suite", o.suite},
                         {"data_dir", o.data_dir},
                         {"tolerance", o.tolerance},
                         {"max_iterations", o.max_iterations},
                         {"success_threshold", o.success},
                         {"repeat", quick ? 1 : o.repeat},
                         {"budget_seconds", o.budget_seconds},
                         {"direct_max_n", o.direct_max_n},
                         {"timeout_seconds", o.timeout_seconds},
                         {"umfpack", umfpack_version()},
                         {"cholmod", cholmod_version()},
                         {"superlu", superlu_version()}};
}

// Untimed: the first call's one-time costs (a CUDA context, libraries' handles) are nobody's time.
void warm_up(const SolveOptions& so, const SolveOptions& defaults) {
  const Csr<double> W = laplacian_2d<double>(8, 8);
  const std::vector<double> wb(std::size_t(W.rows), 1.0);
  std::vector<double> wx(wb.size(), 0.0);
  try {
    solve(W, std::span<const double>(wb), std::span<double>(wx), so);
    solve(W, std::span<const double>(wb), std::span<double>(wx), defaults);
  } catch (const std::exception&) {  // the systems' runs will say what is wrong
  }
}

// The JSON and the Markdown of the systems so far (`final`: the end of the
// run, with the summary to standard output; else only to files).
void write_sparse(const SparseBenchOptions& o, const nlohmann::json& meta, const std::vector<SystemRecord>& systems,
                  const std::vector<SkippedSystem>& skipped, bool final) {
  std::string summary;
  const std::string md = sparse_markdown(meta, systems, skipped, o.success, summary);
  nlohmann::json all = {{"meta", meta}, {"summary", sparse_summary_json(systems)}, {"systems", nlohmann::json::array()},
                        {"skipped", nlohmann::json::array()}};
  for (const SystemRecord& s : systems) all["systems"].push_back(to_json(s));
  for (const SkippedSystem& s : skipped) all["skipped"].push_back({{"name", s.name}, {"reason", s.reason}});
  if (final) {
    write_results(o.json_path, all, o.markdown_path, md, summary);
    return;
  }
  // Results so far, after each system (standard output takes the final write only).
  if (!o.json_path.empty() && o.json_path != "-") write_file(o.json_path, all.dump(2) + "\n");
  if (!o.markdown_path.empty() && o.markdown_path != "-") write_file(o.markdown_path, md);
}

// One system: balsa (its iterative methods, then its defaults) and the baselines.
SystemRecord run_system(const SparseCandidate& c, const Csr<double>& A, const SolveOptions& so,
                        const SolveOptions& defaults, int repeat, const SparseBenchOptions& o) {
  SystemRecord s;
  s.name = c.name;
  s.group = c.group;
  s.source = c.source;
  s.kind = c.kind;
  s.spd = c.spd;
  s.n = A.rows;
  s.nnz = A.nnz();
  s.cholmod_eligible = symmetric_positive_diagonal(A);
  if (s.spd == "?" && first_asymmetry(A).symmetric()) s.spd = "symmetric";
  Problem p{A, parabola(A.rows), {}, o.success};
  p.b = multiply(A, std::span<const double>(p.x_star));

  s.balsa = run_balsa(p, so, repeat, o.budget_seconds);
  fmt::print(stderr, "  balsa (iterative): {}\n", brief(s.balsa));
  const bool too_big = o.direct_max_n > 0 && A.rows > o.direct_max_n;
  const std::string size_note = fmt::format("skipped (size: {} rows > {})", A.rows, o.direct_max_n);
  s.balsa_default = too_big ? skipped_run(size_note) : run_balsa(p, defaults, repeat, o.budget_seconds);
  fmt::print(stderr, "  balsa (default): {}{}\n", brief(s.balsa_default),
             s.balsa_default.ran ? " on " + s.balsa_default.device : "");
  if (!o.baselines) {
    s.umfpack = s.cholmod = s.superlu = skipped_run("skipped (--no-baselines)");
  } else if (too_big) {
    s.umfpack = s.cholmod = s.superlu = skipped_run(size_note);
  } else {
    run_baselines(s, p, repeat, o);
  }
  return s;
}

}  // namespace

void run_sparse_bench(const SparseBenchOptions& o, const std::string& command_line) {
  if (o.suite != "real" && o.suite != "generated" && o.suite != "all" && o.suite != "quick")
    throw Error("bench sparse: unknown suite '" + o.suite + "' (one of: real, generated, all, quick)");
  const Device device = resolve_device(o.device);
  if (device == Device::Cuda && !cuda::available()) throw CudaError("bench sparse --device cuda: no CUDA GPU found");
  std::vector<SkippedSystem> skipped;
  const std::vector<SparseCandidate> chosen = sparse_suite(o, skipped);
  nlohmann::json meta = sparse_meta(o, command_line, device);
  const int repeat = o.suite == "quick" ? 1 : o.repeat;
  SolveOptions so;
  so.method = SolveMethod::Auto;
  so.device = o.device;
  so.stopping.tolerance = o.tolerance;
  so.stopping.max_iterations = o.max_iterations;
  so.direct_fallback = false;
  // balsa's own methods alone get the baselines' time limit as their budget
  // (c-62's took 529 s on the 2-core machine without one).
  if (o.timeout_seconds > 0) so.time_budget = o.timeout_seconds;
  SolveOptions defaults;  // the run the time-to-the-answer target judges
  defaults.device = o.device;
  defaults.stopping.tolerance = o.tolerance;
  warm_up(so, defaults);

  std::vector<SystemRecord> systems;
  std::size_t index = 0;
  for (const SparseCandidate& c : chosen) {
    ++index;
    fmt::print(stderr, "bench sparse [{}/{}] {} (n = {}) ...\n", index, chosen.size(), c.name, c.n);
    Csr<double> A;
    try {
      A = c.build();
    } catch (const std::exception& e) {
      skipped.push_back({c.name, std::string("could not be built or read: ") + e.what()});
      continue;
    }
    systems.push_back(run_system(c, A, so, defaults, repeat, o));
    write_sparse(o, meta, systems, skipped, false);
  }
  meta["load_average_end"] = load_average();
  write_sparse(o, meta, systems, skipped, true);
}

}  // namespace balsa::bench
