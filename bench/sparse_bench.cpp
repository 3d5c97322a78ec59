// balsa bench sparse (include/balsa/bench.hpp): the SaP report's sec. 4.3
// general-systems benchmark. For every system: x* on a parabola, b = A x*,
// then in this process balsa::solve (its own iterative methods; then with
// its direct fallback), UMFPACK and SuperLU (each in a child process with a
// time limit), the error of each x against x*; the report is
// sparse_bench_report.cpp.
#include "balsa/bench.hpp"

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
#include "balsa/stats.hpp"
#include "bench_math.hpp"
#include "bench_output.hpp"
#include "core/clock.hpp"
#include "sparse_baselines.hpp"
#include "sparse_bench.hpp"

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
    j.push_back({{"method", to_string(a.method)}, {"solved", a.solved}, {"reason", a.reason},
                 {"iterations", a.iterations}, {"true_residual", a.true_residual},
                 {"setup_s", a.setup_seconds}, {"solve_s", a.solve_seconds}});
  }
  return s;
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
  r.iterations = rep.krylov.iterations;
  r.message = rep.message;
  r.chain = chain_text(rep, r.chain_json);
  judge(r, p, x);
  r.status = rep.solved ? "ok" : "not solved";
  return r;
}

SolverRun run_direct(const Problem& p, const Csc<double>& C, bool umfpack, int repeat, const SparseBenchOptions& o) {
  const double budget = o.budget_seconds;
  const DirectResult d = run_isolated(
      [&] {
        return umfpack ? umfpack_solve(C, std::span<const double>(p.b), repeat, budget)
                       : superlu_solve(C, std::span<const double>(p.b), repeat, budget);
      },
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

std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
  return "unknown CPU";
}

std::string brief(const SolverRun& r) {
  if (!r.ran) return r.status;
  return fmt::format("{} err {:.1e} {:.3g} s{}", r.success ? "OK" : "FAIL", r.error, r.seconds,
                     r.method != "-" ? " " + r.method : "");
}

}  // namespace

void run_sparse_bench(const SparseBenchOptions& o, const std::string& command_line) {
  if (o.suite != "real" && o.suite != "generated" && o.suite != "all" && o.suite != "quick")
    throw Error("bench sparse: unknown suite '" + o.suite + "' (one of: real, generated, all, quick)");
  const Device device = resolve_device(o.device);
  if (device == Device::Cuda && !cuda::available()) throw CudaError("bench sparse --device cuda: no CUDA GPU found");
  std::string gpu = "none";
  if (cuda::available()) {
    try {
      gpu = cuda::device_info().name;
    } catch (const std::exception& e) {
      gpu = std::string("unknown (") + e.what() + ")";
    }
  }
  const bool quick = o.suite == "quick";
  std::vector<SkippedSystem> skipped;
  const std::vector<SparseCandidate> chosen = sparse_suite(o, skipped);

  nlohmann::json meta = {{"benchmark", "balsa bench sparse"},
                         {"date", utc_now_iso()},
                         {"command_line", command_line},
                         {"host_cpu", host_cpu()},
                         {"host_cores", std::thread::hardware_concurrency()},
                         {"omp_threads", omp_get_max_threads()},
                         {"openblas_threads", openblas_get_num_threads()},
                         {"gpu", gpu},
                         {"balsa_device", to_string(device)},
                         {"suite", o.suite},
                         {"data_dir", o.data_dir},
                         {"tolerance", o.tolerance},
                         {"max_iterations", o.max_iterations},
                         {"success_threshold", o.success},
                         {"repeat", quick ? 1 : o.repeat},
                         {"budget_s", o.budget_seconds},
                         {"direct_max_n", o.direct_max_n},
                         {"timeout_s", o.timeout_seconds},
                         {"umfpack", umfpack_version()},
                         {"superlu", superlu_version()}};
  const int repeat = quick ? 1 : o.repeat;
  SolveOptions so;
  so.method = SolveMethod::Auto;
  so.device = o.device;
  so.tolerance = o.tolerance;
  so.max_iterations = o.max_iterations;
  so.direct_fallback = false;
  SolveOptions fallback = so;
  fallback.direct_fallback = true;

  {  // Untimed: the first call's one-time costs (a CUDA context, libraries' handles) are nobody's time.
    const Csr<double> W = laplacian_2d<double>(8, 8);
    const std::vector<double> wb(std::size_t(W.rows), 1.0);
    std::vector<double> wx(wb.size(), 0.0);
    try {
      solve(W, std::span<const double>(wb), std::span<double>(wx), so);
    } catch (const std::exception&) {  // the systems' runs will say what is wrong
    }
  }
  std::vector<SystemRecord> systems;
  auto write = [&](bool final) {
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
  };

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
    SystemRecord s;
    s.name = c.name;
    s.group = c.group;
    s.source = c.source;
    s.kind = c.kind;
    s.spd = c.spd;
    s.n = A.rows;
    s.nnz = A.nnz();
    if (s.spd == "?" && structure_stats(A).values_symmetric) s.spd = "symmetric";
    Problem p{A, parabola(A.rows), {}, o.success};
    p.b = multiply(A, std::span<const double>(p.x_star));

    s.balsa = run_balsa(p, so, repeat, o.budget_seconds);
    fmt::print(stderr, "  balsa (iterative): {}\n", brief(s.balsa));
    const bool too_big = o.direct_max_n > 0 && A.rows > o.direct_max_n;
    const std::string size_note = fmt::format("skipped (size: {} rows > {})", A.rows, o.direct_max_n);
    if (s.balsa.reported_solved) {
      // The chain stops at its first solved method, before the fallback:
      // the run with the fallback on is this one.
      s.balsa_fallback = s.balsa;
      s.balsa_fallback.rerun = false;
    } else {
      s.balsa_fallback = too_big ? skipped_run(size_note) : run_balsa(p, fallback, repeat, o.budget_seconds);
    }
    fmt::print(stderr, "  balsa (with fallback): {}\n", s.balsa_fallback.rerun ? brief(s.balsa_fallback) : "= iterative");
    if (!o.baselines) {
      s.umfpack = s.superlu = skipped_run("skipped (--no-baselines)");
    } else if (too_big) {
      s.umfpack = s.superlu = skipped_run(size_note);
    } else {
      const Csc<double> C = to_csc(A);
      s.umfpack = run_direct(p, C, true, repeat, o);
      fmt::print(stderr, "  UMFPACK: {}\n", brief(s.umfpack));
      s.superlu = run_direct(p, C, false, repeat, o);
      fmt::print(stderr, "  SuperLU: {}\n", brief(s.superlu));
    }
    systems.push_back(std::move(s));
    write(false);
  }
  write(true);
}

}  // namespace balsa::bench
