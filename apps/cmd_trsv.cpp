// balsa trsv FILE: a triangular solve L x = b (or U x = b, or with the
// transpose) of a Matrix Market triangle, with the right-hand sides of
// --rhs (any number of columns; random by default, ax: b = L x_true with
// the error reported), the residual and the times; an explicit --triangle
// solves that triangle of any square matrix (the entries outside it named in
// a warning, then ignored); and balsa trsv FILE --explain: TASSL's analysis of a triangle of
// any square matrix (level sets, partition, time slots, GPU layout; all on
// the CPU), the metrics of Picciau's thesis ch. 3 and the model's predicted
// solve times (include/balsa/trsv_model.hpp), with the thesis' published
// parameters and, with --microbench on a GPU, parameters measured here.
// With a GPU, --explain also times cuSPARSE SpSV and balsa's level-set and
// TASSL solves (device vectors) to set beside them.
#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "common.hpp"

namespace balsa::app {

namespace {

struct TrsvCmdOptions {
  std::string file;
  Triangle triangle = Triangle::Lower;
  bool triangle_given = false;  // --triangle: take that triangle of any square matrix
  bool progress = false;
  std::string precision = "double";
  index_t n_max = 0;
  bool explain = false;
  bool microbench = false;
  int repeat = 20;
  // The solve.
  std::string rhs = "random", output;
  bool transpose = false, unit = false;
  JsonOutput json;
  TrsvAlgorithm algorithm = TrsvAlgorithm::Auto;
  Device device = Device::Auto;
  std::uint64_t seed = 1;
};


// The triangle as a solvable system: a missing or zero diagonal becomes
// sum|l_ij| + 1 (as balsa-bench does; the pattern off the diagonal is kept).
template <class T>
Csr<T> solvable(Csr<T> A, Triangle tri, index_t& fixed) {
  if (tri == Triangle::Lower) {
    fixed = fix_diagonal(A);
    return A;
  }
  Csr<T> L = transpose(A);
  fixed = fix_diagonal(L);
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
    fmt::print("  {:<26}{:>14}{}{}\n", name, format_seconds(a), mb ? "                      " : "", mb ? b : "");
  };
  row("kappa (kernel)", thesis.kappa,
      mb ? fmt::format("{} per plain launch; {} one alone; {} a graph replay", format_seconds(mb->kappa_launch_slope),
                       format_seconds(mb->kappa_launch), format_seconds(mb->kappa_graph))
         : "");
  row("sigma_global (barrier)", thesis.sigma_global,
      mb ? fmt::format("{} (a kernel boundary in a CUDA graph)", format_seconds(mb->sigma_global)) : "");
  row("sigma_local (barrier)", thesis.sigma_local,
      mb ? fmt::format("{} (32 threads); {} (1024 threads)", format_seconds(mb->sigma_local_32), format_seconds(mb->sigma_local_1024))
         : "");
  row("beta (per double)", thesis.beta,
      mb ? fmt::format("{} (one block); whole GPU {} per byte", format_seconds(mb->beta_block_per_byte * 8),
                       format_seconds(mb->beta_gpu_per_byte))
         : "");
  row("iota (per multiply-add)", thesis.iota,
      mb ? fmt::format("{} (dependent, one warp); streaming {} per edge", format_seconds(mb->iota),
                       format_seconds(mb->iota_stream_per_edge))
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
    fmt::print("  {:<20}{:>11}{:>11}{:>11}{:>11}{:>9}{:>9}{:>9}{:>9}{:>11}{:>11}{:>9}\n", name, format_seconds(r.compute),
               format_seconds(r.sync), format_seconds(r.transfer), format_seconds(r.total()), format_number(r.C), format_number(r.eta),
               format_number(r.sigma), format_number(r.lambda), format_seconds(r.tau), format_seconds(t),
               format_number(tassl::implied_efficiency(r, t)));
  };
  row("level-set (3.6)", tassl::predict_level_set(m, p, e, o), cusparse);
  row("TASSL (3.22)", tassl::predict_tassl(m, p, e, o), tassl_gpu);
  row("TASSL, GPU layout", tassl::predict_layout(m, p, e, o), tassl_gpu);
}

// Before L's CSR is built (the census of its entries): for the solve, a
// square L whose every row holds its diagonal unless --unit-diagonal (else
// singular; checked when the entries lie in the triangle), and the memory of the vectors of n (x_true, b, x, the
// residual's in double), op(L)'s copies (a transpose, the residual's double
// copy) and the solver's (at least a copy of L); for --explain, the
// triangle's copy and the analysis' arrays of n (at least 8 indices each).
template <class T>
CensusCheck trsv_census_check(const TrsvCmdOptions& o, Triangle tri) {
  return [&o, tri](const EntryCensus& c, MemoryPlan& plan) {
    const std::size_t copy = csr_bytes(c.rows, c.positions, sizeof(T));
    if (o.explain) {
      plan.add("the triangle and its analysis (at least 8 indices per row)", copy + vectors_bytes(8, c.rows, 4));
      return;
    }
    if (c.rows != c.cols)
      throw DimensionError(fmt::format("{}: the matrix is {} x {}, a triangular solve needs a square one", o.file,
                                       c.rows, c.cols));
    const bool in_triangle = (tri == Triangle::Lower ? c.above : c.below) == 0;  // else the solver names the entry
    if (!o.unit && in_triangle && c.first_missing_diagonal >= 0)
      throw MatrixError(fmt::format("{}: {} has no diagonal entry, so L is singular ({} of {} rows lack one); give "
                                    "--unit-diagonal if the diagonal is all ones",
                                    o.file, file_row(c.first_missing_diagonal), c.missing_diagonal(), c.rows));
    plan.add("x, b, x_true and the residual's vectors", vectors_bytes(3, c.rows, sizeof(T)) + vectors_bytes(4, c.rows, 8));
    plan.add("op(L) and the residual's copy of it", (o.transpose ? transpose_bytes(c.rows, c.positions, sizeof(T)) : 0) +
                                                         2 * csr_bytes(c.rows, c.positions, 8));
    plan.add("the solver (at least a copy of L)", copy);
  };
}

template <class T>
void run_explain(const TrsvCmdOptions& o, const Triangle tri) {
  const LoadedMatrix<T> loaded = load_matrix<T>(o.file, {}, trsv_census_check<T>(o, tri));
  if (loaded.A.rows != loaded.A.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, not square", o.file, loaded.A.rows, loaded.A.cols));
  const Csr<T> A = extract_triangle(loaded.A, tri);
  const bool gpu = cuda::available();
  const tassl::Analysis a = tassl::analyse(A, tri, o.n_max);
  const tassl::Metrics& m = a.metrics;

  const char* tri_name = to_string(tri);
  fmt::print("balsa trsv {} --explain: {} triangle, {}\n", o.file, tri_name, o.precision);
  fmt::print("  matrix      {} x {}; the triangle holds {} entries, n_edges = {} (one multiply-add each)\n", A.rows,
             A.cols, A.nnz(), m.n_edges);
  fmt::print("  analysis    level sets {}; TASSL partition {} (components {}, degrees and levels {}, split {}), "
             "schedule {}, layout {} (CPU, {} threads)\n",
             format_seconds(a.levels_seconds), format_seconds(a.partition_seconds), format_seconds(a.components_seconds),
             format_seconds(a.graph_seconds), format_seconds(a.split_seconds), format_seconds(a.schedule_seconds),
             format_seconds(a.layout_seconds), omp_get_max_threads());
  print_metrics(m, a.stats);

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
    auto measure = [&](const char* what, TrsvAlgorithm alg) {
      Measured r;
      r.what = what;
      try {
        r.seconds = time_solve(system, tri, alg, a.n_max, o.repeat);
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
      fmt::print("  {:<18}{}\n", r->what, r->error.empty() ? format_seconds(r->seconds) : "failed: " + r->error);
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

// The operator the solve applies, op(L), in double for the self-checks (b
// = op(L) x_true and the residuals): L as stored, transposed with
// --transpose; with --unit-diagonal its stored diagonal is not read and the
// operator has ones there (`unit`: add x to the product of `off`).
struct SolveOperator {
  Csr<double> off;  // op(L), less its stored diagonal when unit
  bool unit = false;
};

template <class T>
SolveOperator solve_operator(const Csr<T>& L, bool transpose_it, bool unit) {
  SolveOperator op{convert_values<double>(transpose_it ? transpose(L) : L), unit};
  if (unit)
    for (index_t i = 0; i < op.off.rows; ++i)
      for (index_t k = op.off.row_ptr[i]; k < op.off.row_ptr[i + 1]; ++k)
        if (op.off.col_idx[k] == i) op.off.values[k] = 0;
  return op;
}

// "L ", "L^T ", "U ", "U^T ": the operator in the report's residual line.
std::string operator_name(Triangle tri, bool transposed) {
  return std::string(tri == Triangle::Lower ? "L" : "U") + (transposed ? "^T " : " ");
}

// op(L) x.
std::vector<double> apply_operator(const SolveOperator& op, const std::vector<double>& x) {
  std::vector<double> y = multiply(op.off, std::span<const double>(x));
  if (op.unit)
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += x[i];
  return y;
}

// The solve: the file must hold a triangle (balsa convert --triangle takes one).
// The matrix to solve with: with --triangle, that triangle of the file's
// matrix (a warning counts the entries left out); else the file as it is
// (the solver names an entry outside the lower triangle).
template <class T>
Csr<T> triangle_to_solve(const TrsvCmdOptions& o, const Triangle tri) {
  Csr<T> A = load_matrix<T>(o.file, {}, trsv_census_check<T>(o, tri)).A;
  if (!o.triangle_given || A.rows != A.cols) return A;
  Csr<T> L = extract_triangle(A, tri);
  if (L.nnz() != A.nnz())
    warn(fmt::format("{}: {} entries {} the diagonal are ignored (--triangle {} solves that triangle alone)", o.file,
                     A.nnz() - L.nnz(), tri == Triangle::Lower ? "above" : "below", to_string(tri)));
  return L;
}

template <class T>
void run_solve(const TrsvCmdOptions& o, const Triangle tri) {
  std::FILE* report = report_stream(o.json, o.output);
  ProgressLine progress(o.progress, o.json.to_stdout());
  progress.phase("reading");
  const Csr<T> L = triangle_to_solve<T>(o, tri);
  const Device device = usable_device(o.device);
  const SolveOperator op = solve_operator(L, o.transpose, o.unit);
  std::vector<T> x_true;
  DenseMatrix<T> B;
  if (!generated_rhs(o.rhs)) {
    const DenseMatrix<double> Bd = load_columns(o.rhs, L.rows);
    B = DenseMatrix<T>(Bd.rows, Bd.cols);
    for (std::size_t i = 0; i < Bd.values.size(); ++i) B.values[i] = T(Bd.values[i]);
  } else {
    if (L.rows != L.cols)
      throw DimensionError(fmt::format("{}: the matrix is {} x {}, a triangular solve needs a square one", o.file,
                                       L.rows, L.cols));
    B = DenseMatrix<T>(L.rows, 1);
    if (o.rhs == "ax") {
      x_true = random_vector<T>(L.rows, o.seed);
      const std::vector<double> b = apply_operator(op, std::vector<double>(x_true.begin(), x_true.end()));
      B.values.assign(b.begin(), b.end());
    } else {
      const std::vector<double> b = generated_b(o.rhs, L.rows, o.seed);
      B.values.assign(b.begin(), b.end());
    }
  }
  progress.phase("analysis and solve");
  TriangularSolver<T> solver(L, {.algorithm = o.algorithm, .device = device, .triangle = tri,
                                 .diagonal = o.unit ? DiagonalKind::Unit : DiagonalKind::NonUnit,
                                 .operation = o.transpose ? Operation::Transpose : Operation::NonTranspose,
                                 .tassl_n_max = o.n_max});
  DenseMatrix<T> X;
  solver.solve(B, X);
  progress.stop();
  const TrsvStats& st = solver.stats();
  // Residuals ||b - op(L) x|| / ||b|| per column, in double.
  std::vector<double> residuals;
  for (index_t c = 0; c < X.cols; ++c) {
    const std::vector<double> y = apply_operator(op, std::vector<double>(X.column(c).begin(), X.column(c).end()));
    const std::vector<double> b(B.column(c).begin(), B.column(c).end());
    residuals.push_back(relative_residual_of(std::span<const double>(y), std::span<const double>(b)));
  }
  const double error = x_true.empty() ? -1.0 : relative_error<T>(X.column(0), x_true);
  if (!o.output.empty()) {
    DenseMatrix<double> Xd(X.rows, X.cols);
    for (std::size_t i = 0; i < X.values.size(); ++i) Xd.values[i] = double(X.values[i]);
    save_matrix(o.output, Xd);
  }
  if (o.json) {
    nlohmann::json j = {{"matrix", o.file}, {"n", L.rows}, {"nnz", L.nnz()}, {"triangle", to_string(tri)},
                        {"operation", to_string(o.transpose ? Operation::Transpose : Operation::NonTranspose)},
                        {"precision", o.precision}, {"columns", X.cols}, {"rhs", o.rhs}, {"residuals", residuals},
                        {"stats", fields_json(st)}};
    if (!x_true.empty()) j["error"] = error;
    print_json(j, o.json.path);
  } else {
    fmt::print(report, "balsa trsv: {} ({} x {}, {} entries), {} triangle{}{}, {} on {}, b = {}\n", o.file, L.rows,
               L.cols, L.nnz(), to_string(tri), o.transpose ? " transposed" : "", o.unit ? ", unit diagonal" : "",
               to_string(st.algorithm), to_string(st.device),
               o.rhs == "random" ? fmt::format("random (seed {})", o.seed)
               : o.rhs == "ax"   ? fmt::format("L x_true (x_true random, seed {})", o.seed)
                                 : o.rhs);
    fmt::print(report, "  {} dependency levels; analysis {:.4f} s, solve {:.4f} s ({} right-hand side{})\n", st.levels,
               st.analysis_seconds, st.last_solve_seconds, X.cols, X.cols == 1 ? "" : "s");
    for (index_t c = 0; c < X.cols; ++c)
      fmt::print(report, "  {}residual ||b - {}x|| / ||b|| = {:.3e}{}{}\n",
                 X.cols > 1 ? fmt::format("column {}: ", c + 1) : "", operator_name(tri, o.transpose),
                 residuals[std::size_t(c)], x_true.empty() ? "" : fmt::format(", error {:.3e}", error),
                 all_zero(std::span<const T>(B.column(c))) ? "; b = 0: x = 0" : "");
  }
  for (index_t c = 0; c < X.cols; ++c)
    require_finite_result(X.column(c), residuals[std::size_t(c)],
                          X.cols > 1 ? fmt::format("the solution x (right-hand side {})", c + 1) : "the solution x");
}

template <class T>
void run_trsv(const TrsvCmdOptions& o) {
  refuse_overwriting({o.file, generated_rhs(o.rhs) ? std::string() : o.rhs}, {o.output});
  const Triangle tri = o.triangle;
  if (o.explain)
    run_explain<T>(o, tri);
  else
    run_solve<T>(o, tri);
}

}  // namespace

void add_trsv_command(CLI::App& app) {
  auto o = std::make_shared<TrsvCmdOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trsv", "Solve a triangular system L x = b (FILE holds L), or --explain a triangle's analysis and model");
  cmd->add_option("file", o->file, "Matrix Market file ('-' for standard input)")->required()->option_text(" FILE");
  add_enum_option(cmd, "--triangle", o->triangle,
                  "The triangle solved, taken from any square matrix (the entries outside it ignored, with a "
                  "warning); without it the file must hold a lower triangle")
      ->each([o](const std::string&) { o->triangle_given = true; });
  add_renamed_option(cmd, "--upper", "--triangle upper");
  add_rhs_option(cmd, o->rhs, "n x k");
  cmd->add_option("-o,--output", o->output, "Write x here (Matrix Market array; '-': standard output)")
      ->option_text(" FILE");
  cmd->add_flag("--transpose", o->transpose, "Solve L^T x = b");
  cmd->add_flag("--unit-diagonal", o->unit, "The diagonal is all ones (stored diagonal entries are not read)");
  add_enum_option(cmd, "--algorithm", o->algorithm, "Triangular solver");
  add_device_option(cmd, o->device);
  add_json_option(cmd, o->json, "Print the solve's result as JSON");
  add_progress_option(cmd, o->progress);
  cmd->add_option("--seed", o->seed, "Seed of --rhs random and ax")->check(at_least(0))->capture_default_str();
  cmd->add_option("--precision", o->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_option("--n-max", o->n_max, "Most vertices of a TASSL sub-graph (0: a block's shared memory)")
      ->check(between(0, tassl::kMaxSubgraphVertices))
      ->capture_default_str();
  cmd->add_flag("--explain", o->explain, "Print TASSL's analysis, the thesis' metrics and the model's predictions");
  cmd->add_flag("--microbench", o->microbench, "With --explain: measure the model's parameters on the GPU");
  cmd->add_option("--repeat", o->repeat, "With --explain: timed GPU solves (median reported)")
      ->check(between(1, 10000))
      ->capture_default_str();
  cmd->callback([o] { o->precision == "float" ? run_trsv<float>(*o) : run_trsv<double>(*o); });
}

}  // namespace balsa::app
