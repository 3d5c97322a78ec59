// balsa trsv FILE --explain: TASSL's analysis of a triangle of a Matrix
// Market matrix (level sets, partition, time slots, GPU layout; all on the
// CPU), the metrics of Picciau's thesis ch. 3 (trsv/tassl_metrics.hpp) and
// the model's predicted solve times, with the thesis' published parameters
// and, with --microbench on a GPU, parameters measured here
// (trsv/tassl_microbench.hpp). With a GPU it also times cuSPARSE SpSV and
// balsa's level-set and TASSL solves (device vectors) to set beside them.
#include <fmt/core.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "balsa/cuda.hpp"
#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "bench/bench_math.hpp"
#include "common.hpp"
#include "trsv/tassl_metrics.hpp"
#include "trsv/tassl_microbench.hpp"
#include "trsv/tassl_stats.hpp"

namespace balsa::app {

namespace {

struct TrsvCmdOptions {
  std::string file;
  std::string triangle = "lower";
  std::string precision = "double";
  index_t n_max = 0;
  bool explain = false;
  bool microbench = false;
  int repeat = 20;
};

std::string time_text(double s) {
  if (std::isnan(s)) return "-";
  if (std::isinf(s)) return "inf";
  const double a = std::abs(s);
  if (a >= 1.0 || a == 0.0) return fmt::format("{:.4g} s", s);
  if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.4g} us", s * 1e6);
  return fmt::format("{:.4g} ns", s * 1e9);
}
std::string ratio_text(double x) { return std::isnan(x) ? "-" : fmt::format("{:.3g}", x); }

// The triangle as a solvable system: a missing or zero diagonal becomes
// sum|l_ij| + 1 (as balsa bench does; the pattern off the diagonal is kept).
template <class T>
Csr<T> solvable(Csr<T> A, Triangle tri, index_t& fixed) {
  if (tri == Triangle::Lower) {
    fixed = bench::fix_diagonal(A);
    return A;
  }
  Csr<T> L = transpose(A);
  fixed = bench::fix_diagonal(L);
  return transpose(L);
}

// Median seconds of a device-vector solve (after one untimed solve).
template <class T>
double time_solve(const Csr<T>& A, Triangle tri, TrsvAlgorithm algorithm, index_t n_max, int repeat) {
  TriangularSolver<T> solver(A, {.algorithm = algorithm, .device = Device::Cuda, .triangle = tri, .tassl_n_max = n_max});
  const std::vector<T> ones(std::size_t(A.rows), T(1));
  cuda::DeviceBuffer<T> b{std::span<const T>(ones)}, x{ones.size()};
  solver.solve(b, x);
  solver.check_last_solve();
  cuda::EventTimer timer;
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    timer.start();
    solver.solve(b, x);
    timer.stop();
    t.push_back(timer.milliseconds() * 1e-3);
  }
  solver.check_last_solve();
  return median(t);
}

struct Measured {
  std::string what;
  double seconds = std::numeric_limits<double>::quiet_NaN();
  std::string error;
};

void print_metrics(const tassl::Metrics& m, const TasslStats& s) {
  const tassl::LevelSetMetrics& ls = m.level_set;
  const tassl::TasslMetrics& t = m.tassl;
  fmt::print("\nMetrics (Picciau thesis ch. 3)                    level-set       TASSL\n");
  fmt::print("  levels (n_levels; TASSL: sub-graph levels)  {:>12} {:>11}\n", ls.n_levels, t.n_levels);
  fmt::print("  kernels, one per level                      {:>12} {:>11}\n", ls.n_levels, t.kernels);
  fmt::print("  critical-path operations (1 - C) n_edges    {:>12} {:>11}\n", ls.sum_o, t.critical_slots);
  fmt::print("  concurrency factor C (3.8) / (3.25)         {:>12.6f} {:>11.6f}\n", ls.C, t.C);
  fmt::print("  per-thread concurrency W (3.14) / (3.31)    {:>12.4g} {:>11.4g}\n", ls.W, t.W);
  fmt::print("  work items (numerators of W)                {:>12} {:>11}\n", ls.widest, t.widest);
  fmt::print("\nTASSL analysis (thesis Sect. 3.2.1, ch. 4; n_max {})\n", s.n_max);
  fmt::print("  sub-graphs      {} (+ {} isolated vertices V0); components {}, split {}, fallbacks {}\n", t.subgraphs,
             t.isolated, s.components, s.split_components, s.fallbacks);
  fmt::print("  edges           {} internal, {} external\n", t.internal_edges, t.external_edges);
  fmt::print("  time slots      per sub-graph min {} / median {} / max {} (internal {} / {} / {}, external {} / {} / {})\n",
             t.slots.min, t.slots.median, t.slots.max, t.internal_slots.min, t.internal_slots.median,
             t.internal_slots.max, t.external_slots.min, t.external_slots.median, t.external_slots.max);
  fmt::print("  block barriers  {} over all sub-graphs, {} on the critical path (a barrier per slot)\n", t.total_slots,
             t.critical_slots);
  if (t.has_layout)
    fmt::print("  GPU layout      {} launch{}, {} rounds over all blocks, {} barriers on the critical path\n",
               t.launches, t.launches == 1 ? "" : "es", t.rounds, t.critical_barriers);
}

void print_params(const tassl::MachineParams& thesis, const tassl::MicrobenchResult* mb) {
  fmt::print("\nModel parameters            thesis (Table 3.1, Quadro K4000){}\n",
             mb ? fmt::format("   measured here ({}, {} SMs)", mb->device, mb->sm_count) : "");
  auto row = [&](const char* name, double a, std::string b) {
    fmt::print("  {:<26}{:>14}{}{}\n", name, time_text(a), mb ? "                      " : "", mb ? b : "");
  };
  row("kappa (kernel)", thesis.kappa,
      mb ? fmt::format("{} per plain launch; {} one alone; {} a graph replay", time_text(mb->kappa_launch_slope),
                       time_text(mb->kappa_launch), time_text(mb->kappa_graph))
         : "");
  row("sigma_global (barrier)", thesis.sigma_global,
      mb ? fmt::format("{} (a kernel boundary in a CUDA graph)", time_text(mb->sigma_global)) : "");
  row("sigma_local (barrier)", thesis.sigma_local,
      mb ? fmt::format("{} (32 threads); {} (1024 threads)", time_text(mb->sigma_local_32), time_text(mb->sigma_local_1024))
         : "");
  row("beta (per double)", thesis.beta,
      mb ? fmt::format("{} (one block); whole GPU {} per byte", time_text(mb->beta_block_per_byte * 8),
                       time_text(mb->beta_gpu_per_byte))
         : "");
  row("iota (per multiply-add)", thesis.iota,
      mb ? fmt::format("{} (dependent, one warp); streaming {} per edge", time_text(mb->iota),
                       time_text(mb->iota_stream_per_edge))
         : "");
}

void print_predictions(const std::string& title, const tassl::Metrics& m, const tassl::MachineParams& p,
                       const tassl::Efficiency& e, const tassl::ModelOptions& o, const Measured* cusparse,
                       const Measured* tassl_gpu) {
  fmt::print("\nPredicted solve time: {}\n", title);
  fmt::print("  {:<20}{:>11}{:>11}{:>11}{:>11}{:>9}{:>9}{:>9}{:>9}{:>11}{:>11}{:>9}\n", "", "compute", "sync",
             "transfer", "total", "C", "eta", "sigma", "lambda", "tau", "measured", "eta meas");
  auto row = [&](const char* name, const tassl::Prediction& r, const Measured* measured) {
    const double t = measured ? measured->seconds : std::numeric_limits<double>::quiet_NaN();
    fmt::print("  {:<20}{:>11}{:>11}{:>11}{:>11}{:>9}{:>9}{:>9}{:>9}{:>11}{:>11}{:>9}\n", name, time_text(r.compute),
               time_text(r.sync), time_text(r.transfer), time_text(r.total()), ratio_text(r.C), ratio_text(r.eta),
               ratio_text(r.sigma), ratio_text(r.lambda), time_text(r.tau), time_text(t),
               ratio_text(tassl::implied_efficiency(r, t)));
  };
  row("level-set (3.6)", tassl::predict_level_set(m, p, e, o), cusparse);
  row("TASSL (3.22)", tassl::predict_tassl(m, p, e, o), tassl_gpu);
  row("TASSL, GPU layout", tassl::predict_layout(m, p, e, o), tassl_gpu);
}

template <class T>
void run_trsv(const TrsvCmdOptions& o) {
  if (!o.explain) throw Error("trsv: nothing to do; give --explain (the only action so far)");
  const LoadedMatrix<T> loaded = load_matrix<T>(o.file);
  if (loaded.A.rows != loaded.A.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, not square", o.file, loaded.A.rows, loaded.A.cols));
  const Triangle tri = triangle_names().at(o.triangle);
  const Csr<T> A = extract_triangle(loaded.A, tri);
  const bool gpu = cuda::available();
  const std::size_t shared = gpu ? cuda::device_info().shared_memory_per_block_optin : tassl::kDefaultSharedBytes;
  const index_t n_max = o.n_max > 0 ? o.n_max : tassl::default_n_max(shared, sizeof(T));

  Stopwatch clock;
  const LevelSets levels = level_sets(A, tri);
  const double t_levels = clock.seconds();
  const tassl::Partition P = tassl::partition(A, tri, n_max);
  const double t_partition = clock.seconds() - t_levels;
  const tassl::Schedule S = tassl::schedule(A, tri, P);
  const double t_schedule = clock.seconds() - t_levels - t_partition;
  const tassl::Layout layout = tassl::lay_out(P, S);
  const double t_layout = clock.seconds() - t_levels - t_partition - t_schedule;
  const tassl::Metrics m = tassl::metrics(A, tri, levels, P, S, &layout);

  const char* tri_name = tri == Triangle::Lower ? "lower" : "upper";
  fmt::print("balsa trsv {} --explain: {} triangle, {}\n", o.file, tri_name, o.precision);
  fmt::print("  matrix      {} x {}; the triangle holds {} entries, n_edges = {} (one multiply-add each)\n", A.rows,
             A.cols, A.nnz(), m.n_edges);
  fmt::print("  analysis    level sets {}; TASSL partition {} (components {}, degrees and levels {}, split {}), "
             "schedule {}, layout {} (CPU, {} threads)\n",
             time_text(t_levels), time_text(t_partition), time_text(P.stats.components_seconds),
             time_text(P.stats.graph_seconds), time_text(P.stats.split_seconds), time_text(t_schedule),
             time_text(t_layout), omp_get_max_threads());
  print_metrics(m, tassl::summarize(P, S, layout));

  std::optional<tassl::MicrobenchResult> mb;
  if (o.microbench && gpu) mb = tassl::run_microbench();
  print_params(tassl::thesis_params(), mb ? &*mb : nullptr);
  if (o.microbench && !gpu)
    fmt::print("  (--microbench: {}; the thesis' parameters only)\n",
               cuda::built_with_cuda() ? "no CUDA GPU found" : "balsa was built without CUDA");

  std::optional<Measured> cusparse, level_set, tassl_gpu;
  if (gpu) {
    index_t fixed = 0;
    const Csr<T> system = solvable(A, tri, fixed);
    auto measure = [&](const char* what, TrsvAlgorithm a) {
      Measured r;
      r.what = what;
      try {
        r.seconds = time_solve(system, tri, a, n_max, o.repeat);
      } catch (const Error& e) {
        r.error = e.what();
      }
      return r;
    };
    cusparse = measure("cuSPARSE SpSV", TrsvAlgorithm::Cusparse);
    level_set = measure("balsa level-set", TrsvAlgorithm::LevelSet);
    tassl_gpu = measure("balsa TASSL", TrsvAlgorithm::Tassl);
    fmt::print("\nMeasured on {} (device vectors, median of {} solves{})\n", cuda::device_info().name, o.repeat,
               fixed ? fmt::format("; {} missing/zero diagonal entries set to sum|l_ij|+1", fixed) : "");
    for (const Measured* r : {&*cusparse, &*level_set, &*tassl_gpu})
      fmt::print("  {:<18}{}\n", r->what, r->error.empty() ? time_text(r->seconds) : "failed: " + r->error);
  }
  print_predictions("thesis parameters, the thesis' mean eta (Tables 3.3-3.4), a kernel per level", m,
                    tassl::thesis_params(), tassl::thesis_mean_efficiency(), {}, cusparse ? &*cusparse : nullptr,
                    tassl_gpu ? &*tassl_gpu : nullptr);
  if (mb)
    print_predictions("measured parameters, eta = 1 (a lower bound), one CUDA graph replay per solve", m,
                      tassl::machine_params(*mb, sizeof(T), true), {}, {.one_launch = true},
                      cusparse ? &*cusparse : nullptr, tassl_gpu ? &*tassl_gpu : nullptr);
  fmt::print("  (no host transfers nor permutations: the thesis' t_transf (3.4) and t_perm (3.33) are left out)\n");
}

}  // namespace

void add_trsv_command(CLI::App& app) {
  auto o = std::make_shared<TrsvCmdOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trsv", "Explain a triangular solve: TASSL's analysis, the thesis' metrics and model (--explain)");
  cmd->add_option("file", o->file, "Matrix Market file ('-' for standard input)")->required();
  cmd->add_option("--triangle", o->triangle, "lower or upper: the triangle solved")
      ->check(CLI::IsMember({"lower", "upper"}))
      ->capture_default_str();
  cmd->add_option("--precision", o->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_option("--n-max", o->n_max, "Most vertices of a TASSL sub-graph (0: a block's shared memory)")
      ->check(CLI::Range(0, int(tassl::kMaxSubgraphVertices)))
      ->capture_default_str();
  cmd->add_flag("--explain", o->explain, "Print the metrics and the model's predictions");
  cmd->add_flag("--microbench", o->microbench, "Measure the model's parameters on the GPU (when there is one)");
  cmd->add_option("--repeat", o->repeat, "Timed GPU solves (median reported)")->check(CLI::Range(1, 10000))->capture_default_str();
  cmd->callback([o] { o->precision == "float" ? run_trsv<float>(*o) : run_trsv<double>(*o); });
}

}  // namespace balsa::app
