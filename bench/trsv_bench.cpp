// balsa-bench trsv: measurement (see trsv_bench.hpp).
#include "trsv_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "apps/fields_json.hpp"
#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "bench_math.hpp"
#include "bench_output.hpp"
#include "bench_report.hpp"
#include "core/clock.hpp"

namespace balsa::bench {

namespace {

constexpr int rhs_count = 4;  // right-hand sides used in rotation

template <class T>
const char* precision_name() {
  return sizeof(T) == 8 ? "double" : "float";
}

// One case in one precision: L, the right-hand sides b_k = L x_true_k and the
// CPU reference solution of the first.
template <class T>
struct Problem {
  Csr<T> L;
  std::vector<std::vector<T>> x_true, b;
  std::vector<T> x_ref;
  double tolerance = 0.0;
};

template <class T>
Problem<T> make_problem(Csr<T> L) {
  check_triangular_system(L, Triangle::Lower, DiagonalKind::NonUnit);
  Problem<T> p;
  p.L = std::move(L);
  for (int k = 0; k < rhs_count; ++k) {
    p.x_true.push_back(random_vector<T>(p.L.rows, 101 + k));
    p.b.push_back(multiply(p.L, std::span<const T>(p.x_true.back())));
  }
  p.x_ref.resize(std::size_t(p.L.rows));
  trsv_reference(p.L, Triangle::Lower, DiagonalKind::NonUnit, std::span<const T>(p.b[0]), std::span<T>(p.x_ref));
  p.tolerance = backward_error_tolerance<T>(max_row_nnz(p.L));
  return p;
}

// Records the check of x, the solution for right-hand side k; `first`: the
// check of a poisoned output, also compared with the reference.
template <class T>
void check_solution(BenchRow& row, const Problem<T>& p, int k, std::span<const T> x, bool first) {
  const double be = backward_error(p.L, std::span<const T>(p.b[k]), x);
  row.backward_error = std::isnan(row.backward_error) ? be : std::max(row.backward_error, be);
  row.tolerance = p.tolerance;
  if (first) {
    row.rel_diff_reference = relative_difference(x, std::span<const T>(p.x_ref));
    row.rel_error_true = relative_difference(x, std::span<const T>(p.x_true[0]));
  }
  if (!(be <= p.tolerance)) row.status = "FAILED";
}

// The algorithm-specific part of the analysis, for the JSON and the progress line.
std::string describe_analysis(const TrsvStats& s) {
  const TasslStats& t = s.tassl;
  if (t.n_max == 0) return "";
  return fmt::format(
      "tassl n_max {}, {} sub-graphs, {} sub-graph levels, {} isolated, {} fallbacks, edges {} internal / {} "
      "external, {} rounds ({} on the critical path); front end {:.3f} s, partition {:.3f} s, schedule {:.3f} s, "
      "layout {:.3f} s, uploads {:.3f} s",
      t.n_max, t.subgraphs, t.subgraph_levels, t.isolated, t.fallbacks, t.internal_edges, t.external_edges, t.rounds,
      t.critical_rounds, s.front_end_seconds, t.partition_seconds, t.schedule_seconds, t.layout_seconds,
      t.upload_seconds);
}

// Column j of the block of right-hand sides k (--rhs columns): b_{(k+j) % 4}.
int rhs_of(int k, index_t j) { return int((k + j) % rhs_count); }

// Block k of right-hand sides, column-major.
template <class T>
std::vector<T> rhs_block(const Problem<T>& p, int k, index_t columns) {
  const std::size_t n = std::size_t(p.L.rows);
  std::vector<T> block(n * std::size_t(columns));
  for (index_t j = 0; j < columns; ++j)
    std::copy(p.b[rhs_of(k, j)].begin(), p.b[rhs_of(k, j)].end(), block.begin() + std::ptrdiff_t(std::size_t(j) * n));
  return block;
}

// Checks a block of `columns` solutions (column-major) for block k.
template <class T>
void check_block(BenchRow& row, const Problem<T>& p, int k, std::span<const T> X, index_t columns, bool first) {
  const std::size_t n = std::size_t(p.L.rows);
  for (index_t j = 0; j < columns; ++j) {
    const int r = rhs_of(k, j);
    check_solution(row, p, r, X.subspan(std::size_t(j) * n, n), first && r == 0);
  }
}

template <class T>
void measure_cpu(BenchRow& row, const AlgorithmSpec& spec, const Problem<T>& p, index_t columns, int warmup,
                 int repeat) {
  const index_t n = p.L.rows;
  const auto clock = Clock::now();
  TriangularSolver<T> solver(p.L, TrsvOptions{.algorithm = spec.algorithm, .device = Device::Cpu});
  row.construct_ms = seconds_since(clock) * 1e3;
  row.analysis_ms = solver.stats().analysis_seconds * 1e3;
  row.stats = app::fields_json(solver.stats());
  // Auto's choice, or the algorithm an explicit one fell back to (Spike on
  // a profile too wide): "fallback: NAME", never counted as the algorithm's.
  if (spec.algorithm == TrsvAlgorithm::Auto)
    row.chosen = to_string(solver.stats().algorithm);
  else if (solver.stats().algorithm != spec.algorithm)
    row.chosen = std::string("fallback: ") + to_string(solver.stats().algorithm);
  std::vector<DenseMatrix<T>> B, X;
  for (int k = 0; k < rhs_count; ++k) {
    B.emplace_back(n, columns).values = rhs_block(p, k, columns);
    X.emplace_back(n, columns, std::numeric_limits<T>::quiet_NaN());
  }
  // One column: the vector call; more: the block call (columns in parallel).
  auto solve = [&](int k) {
    if (columns == 1)
      solver.solve(B[k].column(0), X[k].column(0));
    else
      solver.solve(B[k], X[k]);
  };
  for (int w = 0; w < warmup; ++w) solve(w % rhs_count);
  std::fill(X[0].values.begin(), X[0].values.end(), std::numeric_limits<T>::quiet_NaN());
  solve(0);
  check_block(row, p, 0, std::span<const T>(X[0].values), columns, true);
  for (int r = 0; r < repeat; ++r) {
    const auto t = Clock::now();
    solve(r % rhs_count);
    row.samples_ms.push_back(seconds_since(t) * 1e3);
  }
  const int last = (repeat - 1) % rhs_count;
  if (repeat > 0) check_block(row, p, last, std::span<const T>(X[last].values), columns, false);
}

// The right-hand sides and outputs on the device: block k holds `columns`
// right-hand sides (column j: b_{(k+j) % 4}).
template <class T>
struct DeviceVectors {
  index_t columns = 1;
  std::vector<cuda::DeviceBuffer<T>> b, x;
  DeviceVectors(const Problem<T>& p, index_t cols) : columns(cols) {
    for (int k = 0; k < rhs_count; ++k) {
      const std::vector<T> block = rhs_block(p, k, columns);
      b.emplace_back(std::span<const T>(block));
      x.emplace_back(block.size());
      cuda::fill(x.back(), std::numeric_limits<T>::quiet_NaN());
    }
    cuda::detail::synchronize();
  }
};

// Times `run(k)` (one operation on right-hand side k) with CUDA events after
// warm-up and a poisoned checked run; `check(k, first)` checks output k.
template <class T, class Run, class Check>
void time_on_device(BenchRow& row, DeviceVectors<T>& dev, int warmup, int repeat, Run run, Check check) {
  for (int w = 0; w < warmup; ++w) run(w % rhs_count);
  cuda::fill(dev.x[0], std::numeric_limits<T>::quiet_NaN());
  run(0);
  check(0, true);
  for (auto& x : dev.x) cuda::fill(x, std::numeric_limits<T>::quiet_NaN());  // outside the timing
  cuda::detail::synchronize();
  cuda::EventTimer timer;
  for (int r = 0; r < repeat; ++r) {
    timer.start();
    run(r % rhs_count);
    timer.stop();
    row.samples_ms.push_back(timer.milliseconds());
  }
  if (repeat > 0) check((repeat - 1) % rhs_count, false);
}

template <class T>
void measure_gpu(BenchRow& row, const AlgorithmSpec& spec, const Problem<T>& p, DeviceVectors<T>& dev, index_t n_max,
                 int warmup, int repeat) {
  const auto clock = Clock::now();
  TriangularSolver<T> solver(p.L, TrsvOptions{.algorithm = spec.algorithm, .device = Device::Cuda, .tassl_n_max = n_max});
  cuda::detail::synchronize();
  row.construct_ms = seconds_since(clock) * 1e3;
  row.analysis_ms = solver.stats().analysis_seconds * 1e3;
  // Auto's choice, or the algorithm an explicit one fell back to (Spike on
  // a profile too wide): "fallback: NAME", never counted as the algorithm's.
  if (spec.algorithm == TrsvAlgorithm::Auto)
    row.chosen = to_string(solver.stats().algorithm);
  else if (solver.stats().algorithm != spec.algorithm)
    row.chosen = std::string("fallback: ") + to_string(solver.stats().algorithm);
  row.analysis = describe_analysis(solver.stats());
  row.stats = app::fields_json(solver.stats());
  time_on_device(
      row, dev, warmup, repeat,
      [&](int k) {
        if (dev.columns == 1)
          solver.solve(dev.b[k], dev.x[k]);
        else
          solver.solve(dev.b[k], dev.x[k], dev.columns);
      },
      [&](int k, bool first) {
        const std::vector<T> x = dev.x[k].to_host();
        check_block(row, p, k, std::span<const T>(x), dev.columns, first);
      });
}

// One cuSPARSE SpMV y = L b_k of the same L (the bandwidth yardstick).
template <class T>
void measure_spmv(BenchRow& row, const Problem<T>& p, DeviceVectors<T>& dev, int warmup, int repeat) {
  const auto clock = Clock::now();
  const cuda::DeviceCsr<T> dL = cuda::to_device(p.L);
  cuda::CusparseSpmv<T> spmv(dL);
  cuda::detail::synchronize();
  row.construct_ms = seconds_since(clock) * 1e3;
  row.tolerance = p.tolerance;
  time_on_device(
      row, dev, warmup, repeat, [&](int k) { spmv.apply(T(1), dev.b[k], T(0), dev.x[k]); },
      [&](int k, bool) {
        const std::vector<T> y = dev.x[k].to_host();
        const double e = spmv_error(p.L, std::span<const T>(p.b[k]), std::span<const T>(y));
        row.backward_error = std::isnan(row.backward_error) ? e : std::max(row.backward_error, e);
        if (!(e <= p.tolerance)) row.status = "FAILED";
      });
}

struct CaseInfo {
  int index = 0, total = 0;
  std::string name, source, note;
  std::int64_t n = 0, nnz = 0, levels = 0, widest = 0, diag_fixed = 0;
};

struct Runner {
  explicit Runner(const BenchOptions& options) : o(options) {}
  const BenchOptions& o;
  std::vector<AlgorithmSpec> algorithms;
  bool use_gpu = false;
  std::vector<BenchRow> rows;
  std::vector<Skipped> skipped;

  void progress(const CaseInfo& c, const BenchRow& r) const {
    std::string what;
    if (r.status == "error")
      what = "error: " + r.error;
    else if (r.status == "FAILED")
      what = fmt::format("FAILED: backward error {:.1e} > {:.1e}", r.backward_error, r.tolerance);
    else
      what = fmt::format("solve {} ms (median of {}), analysis {} ms, backward error {:.1e}{}",
                         format_number(r.solve_ms()), r.samples_ms.size(), format_number(r.analysis_ms),
                         r.backward_error, r.chosen.empty() ? "" : ", chose " + r.chosen) +
             (r.analysis.empty() ? "" : "\n    " + r.analysis);
    fmt::print(stderr, "[{}/{}] {} {} {}: {}\n", c.index, c.total, c.name, r.precision, r.algorithm, what);
  }

  template <class T>
  void run_precision(const CaseInfo& c, Csr<T> L) {
    std::optional<Problem<T>> p;
    try {
      p.emplace(make_problem(std::move(L)));
    } catch (const std::exception& e) {
      skipped.push_back({c.name, precision_name<T>(), e.what()});
      fmt::print(stderr, "[{}/{}] {} {}: skipped: {}\n", c.index, c.total, c.name, precision_name<T>(), e.what());
      return;
    }
    BenchRow base;
    base.case_name = c.name;
    base.source = c.source;
    base.precision = precision_name<T>();
    base.n = c.n;
    base.nnz = c.nnz;
    base.levels = c.levels;
    base.widest_level = c.widest;
    base.diag_fixed = c.diag_fixed;
    base.note = c.note;
    base.warmup = o.warmup;
    base.bytes = trsv_bytes(c.n, c.nnz, sizeof(T));
    base.floor_ms = floor_seconds(base.bytes, c.levels, o.peak_gbs, o.level_latency_us) * 1e3;

    std::optional<DeviceVectors<T>> dev;
    std::string device_error;
    if (use_gpu) try {
        dev.emplace(*p, o.rhs);
      } catch (const std::exception& e) {
        device_error = std::string("device vectors: ") + e.what();
      }
    auto record = [&](BenchRow row, auto&& measure) {
      try {
        if (row.gpu() && !dev) throw Error(device_error);
        measure(row);
      } catch (const std::exception& e) {
        row.status = "error";
        row.error = e.what();
      }
      progress(c, row);
      rows.push_back(std::move(row));
    };
    const int cpu_repeat = o.cpu_repeat < 0 ? o.repeat : o.cpu_repeat;
    for (const AlgorithmSpec& spec : algorithms) {
      BenchRow row = base;
      row.algorithm = spec.name;
      row.device = to_string(spec.device);
      record(std::move(row), [&](BenchRow& r) {
        if (spec.device == Device::Cpu)
          measure_cpu(r, spec, *p, o.rhs, o.warmup, cpu_repeat);
        else
          measure_gpu(r, spec, *p, *dev, o.tassl_n_max, o.warmup, o.repeat);
      });
    }
    if (use_gpu && o.rhs == 1) {  // the yardstick is one vector
      BenchRow row = base;
      row.algorithm = spmv_name;
      row.device = "cuda";
      record(std::move(row), [&](BenchRow& r) { measure_spmv(r, *p, *dev, o.warmup, o.repeat); });
    }
  }
};

}  // namespace

void run_trsv_bench(const BenchOptions& options, const std::string& command_line) {
  BenchOptions o = options;
  if (o.quick) {
    o.suite = "quick";
    o.device = Device::Cpu;
  }
  if (o.device == Device::Cuda && !cuda::available())
    throw Error(cuda::built_with_cuda() ? "--device cuda: no CUDA GPU found"
                                        : "--device cuda: balsa was built without CUDA");
  std::vector<std::string> warnings;
  if (o.quick) warnings.push_back("--quick: the quick suite, CPU algorithms only");
  Runner runner(o);
  runner.use_gpu = resolve_device(o.device) == Device::Cuda;
  if (!runner.use_gpu && o.device == Device::Auto)
    warnings.push_back(cuda::built_with_cuda() ? "no CUDA GPU found: CPU algorithms only"
                                               : "balsa built without CUDA: CPU algorithms only");
  for (const AlgorithmSpec& spec : algorithm_specs()) {
    const bool asked =
        o.algorithms.empty() || std::find(o.algorithms.begin(), o.algorithms.end(), spec.name) != o.algorithms.end();
    const bool baseline = spec.name == cpu_serial_name || spec.name == cusparse_name;
    if ((asked || baseline) && (spec.device == Device::Cpu || runner.use_gpu)) runner.algorithms.push_back(spec);
  }

  std::vector<BenchCase> cases = make_suite(o, warnings);
  if (cases.empty())
    throw Error("bench trsv: no cases to run (--suite none without FILES, or --only matched none)");
  for (const std::string& w : warnings) fmt::print(stderr, "balsa-bench trsv: note: {}\n", w);
  const nlohmann::json meta = bench_meta(o, runner.use_gpu, command_line, warnings);
  if (o.rhs < 1) throw DimensionError("bench trsv: --rhs must be at least 1");
  fmt::print(stderr, "balsa-bench trsv: {} cases, precision {}, {} timed solves after {} warm-up, device {}{}\n",
             cases.size(), o.precision, o.repeat, o.warmup, runner.use_gpu ? "cuda" : "cpu",
             o.rhs > 1 ? fmt::format(", {} right-hand sides per solve", o.rhs) : "");

  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BenchCase& bc = cases[i];
    CaseInfo c;
    c.index = int(i) + 1;
    c.total = int(cases.size());
    c.name = bc.name;
    c.source = bc.source;
    const auto build_clock = Clock::now();
    Csr<double> L;
    try {
      index_t fixed = 0;
      L = bc.build(c.note, fixed);
      c.diag_fixed = fixed;
    } catch (const std::exception& e) {
      runner.skipped.push_back({c.name, "all", e.what()});
      fmt::print(stderr, "[{}/{}] {}: skipped: {}\n", c.index, c.total, c.name, e.what());
      continue;
    }
    const LevelSets ls = level_sets(L, Triangle::Lower);
    c.n = L.rows;
    c.nnz = L.nnz();
    c.levels = ls.count();
    for (index_t k = 0; k < ls.count(); ++k) c.widest = std::max<std::int64_t>(c.widest, ls.width(k));
    fmt::print(stderr, "[{}/{}] {}: n = {}, nnz = {}, levels = {}, widest = {}{}; built in {:.2f} s\n", c.index,
               c.total, c.name, c.n, c.nnz, c.levels, c.widest, c.note.empty() ? "" : " (" + c.note + ")",
               seconds_since(build_clock));
    if (o.precision != "float") runner.run_precision<double>(c, L);
    if (o.precision != "double") runner.run_precision<float>(c, convert_values<float>(L));
    // Partial results survive an interrupted run.
    fill_ratios(runner.rows);
    write_outputs(o, meta, runner.rows, runner.skipped, false);
  }
  fill_ratios(runner.rows);
  write_outputs(o, meta, runner.rows, runner.skipped, true);
  const auto failed =
      std::count_if(runner.rows.begin(), runner.rows.end(), [](const BenchRow& r) { return r.status == "FAILED"; });
  if (failed) throw Error(fmt::format("{} result(s) FAILED the correctness check (see the table)", failed));
}

}  // namespace balsa::bench
