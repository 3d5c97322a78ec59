// balsa-bench banded: SaP (include/balsa/sap.hpp) against LAPACK's dgbsv
// (OpenBLAS, all host cores) on the SaP report's dense banded systems
// (sec. 4.1): the N x K grid at d = 1 and the sweep over d at N = 2e5,
// K = 200, P = 50. Per case: the same A (banded_dominant_band, seed 1) and
// b = A x_true; time to solution (GPU: A's upload, the factorisation and the
// Krylov solve from the host band; dgbsv: the call, its band copy made
// beforehand), the median of --repeat runs (fewer when one run is long),
// iterations, relative error of x, and the speedup of the best SaP run that
// met the tolerance (the report's s_BD).
#include "bench.hpp"

#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "balsa/config.hpp"
#include "balsa/generators.hpp"
#include "core/lapack.hpp"
#include "balsa/sap.hpp"
#include "bench/bench_math.hpp"
#include "bench/bench_output.hpp"
#include "core/clock.hpp"
#include "apps/fields_json.hpp"

namespace balsa::bench {

namespace {

struct Variant {
  const char* name;
  SapVariant variant;
  bool mixed;
};
constexpr Variant kVariants[] = {{"sap-d", SapVariant::Decoupled, false},
                                 {"sap-c", SapVariant::Coupled, false},
                                 {"sap-d-mixed", SapVariant::Decoupled, true},
                                 {"sap-c-mixed", SapVariant::Coupled, true}};

// Runs f up to `repeat` times (at least once, fewer once `budget` seconds are spent); the times.
template <class F>
std::vector<double> timed_runs(int repeat, double budget, F&& f) {
  std::vector<double> t;
  const auto t0 = Clock::now();
  for (int r = 0; r < repeat; ++r) {
    t.push_back(f());
    if (seconds_since(t0) > budget) break;
  }
  return t;
}

// dgbsv on A (LAPACK band layout with kl extra rows for the pivots' fill).
nlohmann::json run_dgbsv(const Banded<double>& A, const std::vector<double>& b, const std::vector<double>& x_true,
                         const BandedBenchOptions& o) {
  const int n = A.n, k = A.k, ldab = 3 * k + 1, one = 1;
  std::vector<double> ab, x;
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  int info = 0;
  const std::vector<double> t = timed_runs(o.repeat, o.budget_seconds, [&] {
    ab.assign(std::size_t(ldab) * std::size_t(n), 0.0);
#pragma omp parallel for schedule(static)
    for (index_t j = 0; j < n; ++j)
      for (index_t i = std::max(0, j - k); i <= std::min(n - 1, j + k); ++i)
        ab[std::size_t(j) * ldab + std::size_t(2 * k + i - j)] = A(i, j);
    x = b;
    const auto t0 = Clock::now();
    LAPACK_dgbsv(&n, &k, &k, &one, ab.data(), &ldab, ipiv.data(), x.data(), &n, &info);
    return seconds_since(t0);
  });
  return {{"time_seconds", median(t)}, {"runs", t.size()}, {"info", info}, {"error", relative_error<double>(x, x_true)}};
}

nlohmann::json run_sap(const Banded<double>& A, const std::vector<double>& b, const std::vector<double>& x_true,
                       const Variant& v, const BandedBenchOptions& o, const std::vector<int>& devices) {
  BandedOptions so;
  so.devices = devices;
  so.variant = v.variant;
  so.float_preconditioner = v.mixed;
  so.partitions = o.partitions;
  so.stopping.tolerance = o.tolerance;
  so.device = o.device;
  BandedStats st;
  KrylovStats ks;
  std::vector<double> x;
  std::string error;
  std::vector<double> t;
  try {
    t = timed_runs(o.repeat, o.budget_seconds, [&] {
      x.assign(b.size(), 0.0);
      const auto t0 = Clock::now();
      BandedSolver<double> sap(A, so);
      ks = sap.solve(b, x);
      const double s = seconds_since(t0);
      st = sap.stats();
      return s;
    });
  } catch (const std::exception& e) {
    error = e.what();
  }
  nlohmann::json j = {{"variant", v.name}};
  if (!error.empty()) {
    j["failed"] = error;
    return j;
  }
  const bool ok = ks.outcome == KrylovOutcome::Converged && ks.true_residual <= 10 * o.tolerance;
  j.update({{"time_seconds", median(t)}, {"runs", t.size()}, {"ok", ok}, {"outcome", to_string(ks.outcome)},
            {"iterations", ks.iterations}, {"restarts", st.restarts}, {"true_residual", ks.true_residual},
            {"error", relative_error<double>(x, x_true)}, {"stats", app::fields_json(st)}});
  return j;
}

std::string cell(const nlohmann::json& v) {
  if (v.contains("failed")) return "failed";
  return fmt::format("{:.2f} ({}{})", 1e3 * v["time_seconds"].get<double>(), v["iterations"].get<int>(),
                     v["ok"].get<bool>() ? "" : ", not converged");
}

// --devices with two or more: each variant's run on all of them (the main
// table's) against one on devices[0] alone; a Markdown line per variant.
nlohmann::json run_scaling(const Banded<double>& A, const std::vector<double>& b, const std::vector<double>& x_true,
                           const nlohmann::json& all, const BandedBenchOptions& o, std::string& md) {
  nlohmann::json rows = nlohmann::json::array();
  for (int v = 0; v < 4; ++v) {
    const nlohmann::json one = run_sap(A, b, x_true, kVariants[v], o, {o.devices[0]});
    const bool both = one.contains("time_seconds") && all[v].contains("time_seconds");
    const double speedup = both ? one["time_seconds"].get<double>() / all[v]["time_seconds"].get<double>() : NAN;
    const nlohmann::json used = all[v].contains("stats") ? all[v]["stats"]["devices"] : nlohmann::json::array();
    const std::string reason = all[v].contains("stats") ? all[v]["stats"]["devices_reason"].get<std::string>() : "";
    auto setup = [](const nlohmann::json& j) { return j.contains("stats") ? 1e3 * j["stats"]["setup_seconds"].get<double>() : NAN; };
    md += fmt::format("| {} | {} | {} | {} | {:.2f} | {} | {:.2f} | {:.2f} | {} ({}) |\n", A.n, A.k, kVariants[v].name, cell(one),
                      setup(one), cell(all[v]), setup(all[v]), speedup, used.size(), reason);
    rows.push_back({{"variant", kVariants[v].name}, {"one_device", one}, {"speedup", speedup}});
  }
  return rows;
}

struct Case {
  index_t n, k;
  double d;
  std::string suite;
};

// The cases of --suite (grid, sweep or all), limited by --n and --k.
std::vector<Case> banded_cases(const BandedBenchOptions& o) {
  // --n and --k limit every suite that runs; without them each suite has its own.
  auto values = [](const std::vector<index_t>& given, std::vector<index_t> own) { return given.empty() ? own : given; };
  std::vector<Case> cases;
  if (o.suite == "grid" || o.suite == "all")
    for (index_t n : values(o.n, {1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000}))
      for (index_t k : values(o.k, {10, 20, 50, 100, 200, 500})) cases.push_back({n, k, 1.0, "grid"});
  if (o.suite == "sweep" || o.suite == "all")
    for (index_t n : values(o.n, {200000}))
      for (index_t k : values(o.k, {200}))
        for (double d : o.sweep_d) cases.push_back({n, k, d, "sweep"});
  for (const Case& c : cases)
    if (c.n < 1 || c.k < 0 || c.k >= c.n)
      throw DimensionError("bench banded: N = " + std::to_string(c.n) + ", K = " + std::to_string(c.k) +
                           ": each N must be positive and each K in 0..N-1");
  return cases;
}

// The run's settings and the GPU (its CUDA context made before any timing).
nlohmann::json banded_meta(const BandedBenchOptions& o, bool gpu, const std::string& command_line) {
  nlohmann::json meta = {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line},
                         {"host_cores", std::thread::hardware_concurrency()},
                         {"openblas_threads", openblas_get_num_threads()}, {"partitions", o.partitions},
                         {"tolerance", o.tolerance}, {"repeat", o.repeat}, {"gpu", "none"},
                         {"devices", o.devices}};
  if (gpu) add_cuda_device(meta);
  return meta;
}

std::string banded_markdown_head(const BandedBenchOptions& o, const nlohmann::json& meta,
                                 const std::string& command_line) {
  return fmt::format(
      "## balsa-bench banded\n\n- date (UTC): {}; GPU: {}; host cores: {}, OpenBLAS threads: {}\n- command: `{}`\n"
      "- A = banded_dominant_band(N, K, d, seed 1), b = A x_true; SaP: P = {} (capped so SaP-C blocks have >= 2K "
      "rows), BiCGStab(2), tolerance {:g} (2-norm, relative), time = upload + factorisation + solve from the host "
      "band; dgbsv: the call alone (SaP's runs start 300 ms after it, once OpenBLAS's spinning threads sleep). Milliseconds, median of up to {} runs (iterations in parentheses).\n\n"
      "| suite | N | K | d | dgbsv ms | SaP-D | SaP-C | SaP-D mixed | SaP-C mixed | best | speedup | err dgbsv | "
      "err best |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      meta["date"].get<std::string>(), meta["gpu"].get<std::string>(), std::thread::hardware_concurrency(),
      openblas_get_num_threads(), command_line, o.partitions, o.tolerance, o.repeat);
}

// What the grid's cases add up to: the speedups and how often each variant was best.
struct GridTally {
  std::vector<double> speedups;
  int wins[4] = {0, 0, 0, 0};
};

// One case: dgbsv and the four SaP variants; its JSON row, its Markdown line appended to md.
nlohmann::json run_banded_case(const Case& c, const BandedBenchOptions& o, std::string& md, GridTally& tally,
                               std::string& scaling_md) {
  const Banded<double> A = banded_dominant_band<double>(c.n, c.k, c.d, 1);
  std::vector<double> x_true(static_cast<std::size_t>(c.n)), b(static_cast<std::size_t>(c.n));
  for (index_t i = 0; i < c.n; ++i) x_true[std::size_t(i)] = 1.0 + 0.5 * std::sin(0.001 * i);
  spmv(A, std::span<const double>(x_true), std::span<double>(b));
  nlohmann::json row = {{"suite", c.suite}, {"N", c.n}, {"K", c.k}, {"d", c.d}};
  row["dgbsv"] = o.baseline ? run_dgbsv(A, b, x_true, o) : nlohmann::json{{"time_seconds", NAN}};
  // OpenBLAS's worker threads spin for a while after each call, on every
  // core; SaP's host side (the OpenMP copy into the pinned upload buffers)
  // would run against them. Let them go to sleep first.
  if (o.baseline) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  nlohmann::json sap = nlohmann::json::array();
  int best = -1;
  double best_ms = INFINITY;
  for (int v = 0; v < 4; ++v) {
    sap.push_back(run_sap(A, b, x_true, kVariants[v], o, o.devices));
    if (sap[v].contains("ok") && sap[v]["ok"].get<bool>() && 1e3 * sap[v]["time_seconds"].get<double>() < best_ms) {
      best = v;
      best_ms = 1e3 * sap[v]["time_seconds"].get<double>();
    }
  }
  row["sap"] = sap;
  if (o.devices.size() >= 2) row["scaling"] = run_scaling(A, b, x_true, sap, o, scaling_md);
  const double base = 1e3 * row["dgbsv"]["time_seconds"].get<double>();
  const double speedup = best >= 0 ? base / best_ms : NAN;
  row["best"] = best >= 0 ? kVariants[best].name : "none";
  row["speedup"] = speedup;
  if (best >= 0 && c.suite == "grid") {
    tally.speedups.push_back(speedup);
    ++tally.wins[best];
  }
  md += fmt::format("| {} | {} | {} | {:g} | {:.2f} | {} | {} | {} | {} | {} | {:.2f} | {:.1e} | {:.1e} |\n", c.suite,
                    c.n, c.k, c.d, base, cell(sap[0]), cell(sap[1]), cell(sap[2]), cell(sap[3]), row["best"].get<std::string>(),
                    speedup, row["dgbsv"].value("error", NAN), best >= 0 ? sap[best]["error"].get<double>() : NAN);
  std::fprintf(stderr, "  N=%d K=%d d=%g: dgbsv %.2f ms, best %s %.2f ms, speedup %.2f\n", c.n, c.k, c.d, base,
               row["best"].get<std::string>().c_str(), best_ms, speedup);
  return row;
}
// --sparse: SaP's sparse pipeline on a general sparse system of N rows,
// the case's banded matrix as CSR scrambled (rows and columns permuted,
// rows scaled: DB and CM must find the band again), SaP-D with every entry
// of the reordered band kept (max_factor_flops 0), on devices[0] alone and
// on all the devices listed (min_work_per_device 0: the measurement of what
// the second device gives, whatever balsa's choice). Time to the answer
// from the host CSR, set-up (DB, CM, drop-off, assembly, factors) beside.
nlohmann::json run_sparse_case(const Case& c, const BandedBenchOptions& o, std::string& md) {
  const auto t0 = Clock::now();
  const Csr<double> A = scramble(banded_dominant<double>(c.n, c.k, c.d, 1), 2);
  const std::vector<double> x_true = random_vector<double>(c.n, 3, 1.0, 2.0);
  const std::vector<double> b = multiply(A, std::span<const double>(x_true));
  std::fprintf(stderr, "  sparse N=%lld K=%lld: generated in %.1f s\n", (long long)c.n, (long long)c.k, seconds_since(t0));
  nlohmann::json row = {{"N", c.n}, {"K", c.k}, {"d", c.d}, {"nnz", A.nnz()}};
  std::string cells;
  double ms[2] = {NAN, NAN};
  for (int all = 0; all < 2; ++all) {
    SparseSapOptions so;
    so.device = Device::Cuda;
    so.max_factor_flops = 0;
    so.min_work_per_device = 0;
    so.stopping.tolerance = o.tolerance;
    so.devices = all ? o.devices : std::vector<int>{o.devices[0]};
    std::vector<double> x(b.size(), 0.0);
    nlohmann::json r;
    try {
      const auto t = Clock::now();
      SparseSapSolver<double> sap(A, so);
      const KrylovStats ks = sap.solve(b, x);
      const double sec = seconds_since(t);
      const SparseSapStats& st = sap.stats();
      ms[all] = 1e3 * sec;
      r = {{"time_seconds", sec}, {"iterations", ks.iterations}, {"outcome", to_string(ks.outcome)},
           {"error", relative_error<double>(x, x_true)}, {"stats", app::fields_json(st)}};
      cells += fmt::format(" {:.1f} ({}) | {:.1f} | k {} -> {}, T_DB {:.2f} s, T_CM {:.2f} s, T_LU {:.3f} s |", 1e3 * sec,
                           ks.iterations, 1e3 * st.t_setup, st.k_cm, st.k, st.t_db, st.t_cm, st.banded.t_lu);
    } catch (const std::exception& e) {
      r = {{"failed", e.what()}};
      cells += fmt::format(" failed: {} | | |", e.what());
    }
    row[all ? "all_devices" : "one_device"] = r;
  }
  md += fmt::format("| {} | {} | {} |{} {:.2f} |\n", c.n, c.k, A.nnz(), cells, ms[0] / ms[1]);
  return row;
}

}  // namespace

void run_banded_bench(const BandedBenchOptions& o, const std::string& command_line) {
  const std::vector<Case> cases = banded_cases(o);
  const bool gpu = resolve_device(o.device) == Device::Cuda;
  if (gpu && !cuda::available()) throw CudaError("bench banded: no CUDA GPU found (use --device cpu)");
  nlohmann::json meta = banded_meta(o, gpu, command_line);
  std::string md = banded_markdown_head(o, meta, command_line);
  nlohmann::json rows = nlohmann::json::array();
  GridTally tally;
  std::string scaling_md;
  if (o.sparse) {
    if (!gpu || o.devices.empty()) throw Error("bench banded --sparse: needs the GPU and --devices");
    md += fmt::format("\n### SaP's sparse pipeline, 1 GPU vs {} GPUs (--sparse)\n\nscramble(banded_dominant(N, K, d)) as CSR, "
                      "SaP-D, the whole reordered band kept; milliseconds (iterations), set-up beside.\n\n"
                      "| N | K | nnz | 1 GPU ms | 1 GPU set-up ms | 1 GPU pipeline | all GPUs ms | all GPUs set-up ms | "
                      "all GPUs pipeline | speedup |\n|---|---|---|---|---|---|---|---|---|---|\n",
                      o.devices.size());
    for (const Case& c : cases) rows.push_back(run_sparse_case(c, o, md));
    write_results(o.json_path, {{"meta", meta}, {"cases", rows}}, o.markdown_path, md, md);
    return;
  }
  for (const Case& c : cases) rows.push_back(run_banded_case(c, o, md, tally, scaling_md));
  if (!tally.speedups.empty()) {
    std::vector<double> s = tally.speedups;
    std::sort(s.begin(), s.end());
    md += fmt::format(
        "\nGrid speedup over dgbsv (best SaP run per case, {} cases): min {:.2f}, median {:.2f}, max {:.2f}, "
        "geometric mean {:.2f}; cases with speedup >= 3: {}. Best variant: SaP-D {}, SaP-C {}, SaP-D mixed {}, "
        "SaP-C mixed {}.\n",
        s.size(), s.front(), median(s), s.back(), geomean(s), std::count_if(s.begin(), s.end(), [](double x) { return x >= 3; }),
        tally.wins[0], tally.wins[1], tally.wins[2], tally.wins[3]);
    meta["grid_speedup"] = {{"min", s.front()}, {"median", median(s)}, {"max", s.back()}, {"cases", s.size()}};
  }
  if (!scaling_md.empty())
    md += fmt::format(
        "\n### 1 GPU vs {} GPUs (--devices)\n\nSaP on device {} alone and on all the devices listed (balsa may use "
        "fewer: its reason in the last column). Milliseconds (iterations), set-up included; set-up alone beside.\n\n"
        "| N | K | variant | 1 GPU ms | 1 GPU set-up ms | N GPUs ms | N GPUs set-up ms | speedup | devices used |\n"
        "|---|---|---|---|---|---|---|---|---|\n{}",
        o.devices.size(), o.devices[0], scaling_md);
  write_results(o.json_path, {{"meta", meta}, {"cases", rows}}, o.markdown_path, md, md);
}

}  // namespace balsa::bench
