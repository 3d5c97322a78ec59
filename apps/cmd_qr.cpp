// balsa lsq and balsa qr: least squares and the multifrontal QR's analysis
// (include/balsa/qr.hpp).
#include <fmt/core.h>

#include <cmath>
#include <memory>

#include "common.hpp"

namespace balsa::app {

namespace {

struct QrCommandOptions {
  std::string matrix, rhs = "random", rhs_positional, output;
  QrOrdering ordering = QrOrdering::Colamd;
  Device device = Device::Auto;
  double tolerance = -1;
  bool stats = false;
  bool progress = false;
  JsonOutput json;
};

void print_stats(std::FILE* out, const QrStats& st) {
  fmt::print(out, "  A: {} x {}, {} entries; {} column singletons; ordering {}; {} fronts (largest {} x {})\n", st.rows,
             st.cols, st.nnz, st.singletons, to_string(st.ordering), st.fronts, st.max_front_rows, st.max_front_cols);
  fmt::print(out,
             "  R: {} entries; {:.4g} flops (staircase; {:.4g} as dense fronts), {:.4g} done; flop/byte intensity "
             "{:.3g}; factor {:.4g} MB, largest front {:.4g} MB\n",
             st.r_nnz, st.flops, st.dense_flops, st.flops_done, st.intensity, st.factor_bytes / 1e6,
             st.max_front_bytes / 1e6);
  fmt::print(out, "  rank {} of {} (tolerance {:.3g}){}; {} fronts refactored column by column; dropped ||E||_F {:.3g}\n",
             st.rank, std::min(st.rows, st.cols), st.tolerance,
             st.rank < std::min(st.rows, st.cols) ? ": rank deficient" : "", st.heath_fronts, st.dropped_norm);
  if (st.device == Device::Cuda)
    fmt::print(out, "  GPU: {} launches, {} tasks, {} bundles; {:.4g} MB on the device; plan {:.4f} s; {:.4g} GFlop/s\n",
               st.gpu_launches, st.gpu_tasks, st.gpu_bundles, st.device_bytes / 1e6, st.t_gpu_plan,
               st.flops_done / std::max(st.t_factorise, 1e-12) / 1e9);
  fmt::print(out, "  device {}{}\n", to_string(st.device), st.fallback.empty() ? "" : " (" + st.fallback + ")");
  fmt::print(out, "  ordering {:.4f} s, analysis {:.4f} s, factorisation {:.4f} s\n", st.t_order, st.t_analyse,
             st.t_factorise);
}

// The options of SparseQR; --device cuda without a usable GPU is an Error
// naming the option (auto stays auto: SparseQR weighs the problem's size).
QrOptions qr_options(const QrCommandOptions& o) {
  usable_device(o.device);
  QrOptions qo;
  qo.ordering = o.ordering;
  qo.rank_tolerance = o.tolerance;
  qo.device = o.device;
  return qo;
}

// Before A's CSR is built (the census of its entries): the memory of the
// QR's work (at least its copy of A and kQrIndicesPerLine indices per row and
// column: singletons, ordering, fronts' maps), with lsq's vectors (b and r
// of m, x and A^T r of n) and A^T. Empty rows and columns are no error: the
// QR is rank-revealing, so a rank-deficient A is valid work (an empty
// column's x_j is 0, an empty row's residual is b_i); note_empty says so.
constexpr int kQrIndicesPerLine = 6;  // measured: qr of a 1e8 x 1e8 1-entry matrix peaks at 26 bytes per row and column

CensusCheck qr_census_check(bool lsq) {
  return [lsq](const EntryCensus& c, MemoryPlan& plan) {
    plan.add("the QR's work (at least a copy of A and " + std::to_string(kQrIndicesPerLine) + " indices per row and column)",
             csr_bytes(c.rows, c.positions, sizeof(double)) + vectors_bytes(kQrIndicesPerLine, int64_t(c.rows) + c.cols, 4));
    if (lsq)
      plan.add("b, x, the residual and A^T", vectors_bytes(2, int64_t(c.rows) + c.cols, sizeof(double)) +
                                                 transpose_bytes(c.cols, c.positions, sizeof(double)));
  };
}

// A line on empty rows and columns (the census): the rank's bound.
void note_empty(std::FILE* out, const EntryCensus& c) {
  if (c.empty_cols() == 0 && c.empty_rows() == 0) return;
  fmt::print(out, "  {} of {} rows and {} of {} columns hold no entry (first empty: {}{}): the rank is at most {}\n",
             c.empty_rows(), c.rows, c.empty_cols(), c.cols,
             c.first_empty_row >= 0 ? file_row(c.first_empty_row) : std::string("no row"),
             c.first_empty_col >= 0 ? ", " + file_column(c.first_empty_col) : std::string(),
             std::min(c.occupied_rows, c.occupied_cols));
}

// b: the --rhs file (or the second argument), or a generated one (random,
// ones; ax is A x_true for a random x_true, which has a zero residual).
DenseMatrix<double> lsq_rhs(const std::string& rhs, const Csr<double>& A, std::uint64_t seed) {
  if (!generated_rhs(rhs)) return load_columns(rhs, A.rows);
  DenseMatrix<double> B(A.rows, 1);
  B.values = rhs == "ax" ? multiply(A, std::span<const double>(random_vector<double>(A.cols, seed)))
                         : generated_b(rhs, A.rows, seed);
  return B;
}

void run_lsq(const CLI::App& cmd, const QrCommandOptions& o) {
  if (cmd.count("--rhs") > 0 && !o.rhs_positional.empty())
    throw CLI::ValidationError("give b once: as --rhs or as the second argument");
  const std::string& rhs = o.rhs_positional.empty() ? o.rhs : o.rhs_positional;
  refuse_overwriting({o.matrix, generated_rhs(rhs) ? std::string() : rhs}, {o.output});
  std::FILE* report = report_stream(o.json, o.output);
  ProgressLine progress(o.progress, o.json.to_stdout());
  progress.phase("reading");
  const LoadedMatrix<double> m = load_matrix<double>(o.matrix, {}, qr_census_check(true));
  const Csr<double>& A = m.A;
  const DenseMatrix<double> B = lsq_rhs(rhs, A, 1);
  if (!o.json) {
    fmt::print(report, "balsa lsq: {} ({} x {}, {} entries), b = {}{}\n", o.matrix, A.rows, A.cols, A.nnz(),
               rhs == "random" ? "random (seed 1)" : rhs == "ax" ? "A x_true (x_true random, seed 1)" : rhs,
               B.cols > 1 ? fmt::format(" ({} columns)", B.cols) : "");
    note_empty(report, m.census);
  }
  progress.phase("ordering, analysis and factorisation");
  SparseQR qr(A, qr_options(o));
  progress.phase("solving");
  const std::vector<double> xs = qr.solve(std::span<const double>(B.values), B.cols);
  progress.stop();
  DenseMatrix<double> X(A.cols, B.cols);
  X.values = xs;
  // Per column: ||b - A x||, ||b||, ||A^T (b - A x)||, ||x||.
  const Csr<double> At = transpose(A);
  nlohmann::json columns = nlohmann::json::array();
  for (index_t c = 0; c < B.cols; ++c) {
    const std::span<const double> b = B.column(c), x = X.column(c);
    std::vector<double> r(b.begin(), b.end()), g(static_cast<std::size_t>(A.cols));
    spmv(-1.0, A, x, 1.0, std::span<double>(r));                             // r = b - A x
    spmv(1.0, At, std::span<const double>(r), 0.0, std::span<double>(g));  // g = A^T r
    const double nr = norm2(std::span<const double>(r)), nb = norm2(b), ng = norm2(std::span<const double>(g)),
                 nx = norm2(x);
    columns.push_back({{"residual_norm", nr}, {"b_norm", nb}, {"normal_equations_norm", ng}, {"x_norm", nx}});
  }
  if (!o.output.empty()) save_matrix(o.output, X);
  if (o.json) {
    nlohmann::json j = {{"matrix", o.matrix}, {"rhs", rhs}, {"stats", fields_json(qr.stats())}};
    if (B.cols == 1) j.update(columns[0]);
    else j["columns"] = columns;
    print_json(j, o.json.path);
  } else {
    print_stats(report, qr.stats());
    for (index_t c = 0; c < B.cols; ++c) {
      const nlohmann::json& n = columns[std::size_t(c)];
      fmt::print(report, "  {}||b - A x|| = {:.6e} (||b|| = {:.6e}), ||A^T (b - A x)|| = {:.3e}, ||x|| = {:.6e}\n",
                 B.cols > 1 ? fmt::format("column {}: ", c + 1) : "", n["residual_norm"].get<double>(),
                 n["b_norm"].get<double>(), n["normal_equations_norm"].get<double>(), n["x_norm"].get<double>());
    }
    fmt::print(report, "  solve {:.4f} s\n", qr.stats().t_solve);
    if (!o.output.empty() && o.output != "-") fmt::print(report, "  x written to {}\n", o.output);
  }
  for (index_t c = 0; c < B.cols; ++c)
    require_finite_result(X.column(c), columns[std::size_t(c)]["residual_norm"].get<double>(),
                          B.cols > 1 ? fmt::format("the solution x (right-hand side {})", c + 1) : "the solution x");
}

// Without --stats: the rank, R's size and the times, in two lines.
void print_summary(std::FILE* out, const QrStats& st) {
  const index_t most = std::min(st.rows, st.cols);
  fmt::print(out, "  rank {} of {}{} (tolerance {:.3g}); R: {} entries, {:.4g} MB; device {}\n", st.rank, most,
             st.rank < most ? ", rank deficient" : "", st.tolerance, st.r_nnz, st.factor_bytes / 1e6,
             to_string(st.device));
  fmt::print(out, "  ordering {:.4f} s, analysis {:.4f} s, factorisation {:.4f} s (--stats: the fronts and flops)\n",
             st.t_order, st.t_analyse, st.t_factorise);
}

void run_qr(const QrCommandOptions& o) {
  ProgressLine progress(o.progress, o.json.to_stdout());
  progress.phase("reading");
  const LoadedMatrix<double> m = load_matrix<double>(o.matrix, {}, qr_census_check(false));
  const Csr<double>& A = m.A;
  progress.phase("ordering, analysis and factorisation");
  SparseQR qr(A, qr_options(o));
  progress.stop();
  if (o.json) {
    print_json({{"matrix", o.matrix}, {"stats", fields_json(qr.stats())}}, o.json.path);
    return;
  }
  fmt::print("balsa qr: {} ({} x {}, {} entries)\n", o.matrix, A.rows, A.cols, A.nnz());
  note_empty(stdout, m.census);
  if (o.stats)
    print_stats(stdout, qr.stats());
  else
    print_summary(stdout, qr.stats());
}

void add_common(CLI::App* cmd, QrCommandOptions& o) {
  cmd->add_option("matrix", o.matrix, "Matrix Market file (m x n; m < n: minimum-norm solutions; '-': standard input)")
      ->required()
      ->option_text(" FILE");
  add_enum_option(cmd, "--ordering", o.ordering, "Column ordering (metis: nested dissection of A^T A)");
  add_enum_option(cmd, "--device", o.device,
                  "Where the fronts are factored and Q applied (auto: the GPU for large enough problems)");
  cmd->add_option("--rank-tolerance", o.tolerance,
                  "Columns of R whose norm is at most this count as dependent (< 0: SPQR's default, 20 (m + n) eps "
                  "max column norm)")
      ->check(finite())
      ->capture_default_str();
  add_renamed_option(cmd, "--tol", "--rank-tolerance");
  add_json_option(cmd, o.json, "Print the result as JSON");
  add_progress_option(cmd, o.progress);
}

}  // namespace

void add_qr_commands(CLI::App& app) {
  auto lo = std::make_shared<QrCommandOptions>();
  CLI::App* lsq = app.add_subcommand("lsq", "Least squares min ||A x - b|| by multifrontal sparse QR (CPU or GPU)");
  add_common(lsq, *lo);
  add_rhs_option(lsq, lo->rhs, "m x k");
  lsq->add_option("b", lo->rhs_positional, "The same as --rhs")->option_text(" FILE");
  lsq->add_option("-o,--output", lo->output, "Write x here (Matrix Market array; '-': standard output)")
      ->option_text(" FILE");
  lsq->callback([lo, lsq] { run_lsq(*lsq, *lo); });
  auto qo = std::make_shared<QrCommandOptions>();
  CLI::App* qr = app.add_subcommand("qr", "Multifrontal sparse QR of A: ordering, analysis, factorisation (CPU or GPU)");
  add_common(qr, *qo);
  qr->add_flag("--stats", qo->stats, "Print the analysis and factorisation statistics");
  qr->callback([qo] { run_qr(*qo); });
}

}  // namespace balsa::app
