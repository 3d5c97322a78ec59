// balsa lsq and balsa qr: least squares and the multifrontal QR's analysis
// (include/balsa/qr.hpp).
#include <cmath>
#include <memory>

#include <fmt/core.h>

#include "balsa/qr.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct QrCommandOptions {
  std::string matrix, rhs, output;
  std::string ordering = "colamd";
  double tolerance = -1;
  bool stats = false;
};

const std::map<std::string, QrOrdering>& ordering_names() {
  static const std::map<std::string, QrOrdering> names{
      {"colamd", QrOrdering::Colamd}, {"metis", QrOrdering::Metis}, {"natural", QrOrdering::Natural}};
  return names;
}

void print_stats(const QrStats& st) {
  fmt::print("  A: {} x {}, {} entries; {} column singletons; ordering {}; {} fronts (largest {} x {})\n", st.rows,
             st.cols, st.nnz, st.singletons, to_string(st.ordering), st.fronts, st.max_front_rows, st.max_front_cols);
  fmt::print("  R: {} entries; {:.4g} flops (staircase; {:.4g} as dense fronts), {:.4g} done; flop/byte intensity "
             "{:.3g}; factor {:.4g} MB, largest front {:.4g} MB\n", st.r_nnz, st.flops, st.dense_flops, st.flops_done,
             st.intensity, st.factor_bytes / 1e6, st.max_front_bytes / 1e6);
  fmt::print("  rank {} of {} (tolerance {:.3g}){}; {} fronts refactored column by column; dropped ||E||_F {:.3g}\n",
             st.rank, std::min(st.rows, st.cols), st.tolerance,
             st.rank < std::min(st.rows, st.cols) ? ": rank deficient" : "", st.heath_fronts, st.dropped_norm);
  fmt::print("  ordering {:.4f} s, analysis {:.4f} s, factorisation {:.4f} s\n", st.t_order, st.t_analyse,
             st.t_factorise);
}

void run_lsq(const QrCommandOptions& o) {
  const Csr<double> A = load_matrix<double>(o.matrix).A;
  std::vector<double> b(static_cast<std::size_t>(A.rows), 1.0);
  if (!o.rhs.empty()) {
    const Csr<double> B = load_matrix<double>(o.rhs).A;
    if (B.rows != A.rows || B.cols != 1)
      throw DimensionError(fmt::format("{}: the right-hand side is {} x {}, expected {} x 1", o.rhs, B.rows, B.cols,
                                       A.rows));
    std::fill(b.begin(), b.end(), 0.0);
    for (index_t i = 0; i < B.rows; ++i)
      if (B.row_ptr[i + 1] > B.row_ptr[i]) b[std::size_t(i)] = B.values[std::size_t(B.row_ptr[i])];
  }
  QrOptions qo;
  qo.ordering = ordering_names().at(o.ordering);
  qo.rank_tolerance = o.tolerance;
  fmt::print("balsa lsq: {} ({} x {}, {} entries), b = {}\n", o.matrix, A.rows, A.cols, A.nnz(),
             o.rhs.empty() ? "ones" : o.rhs);
  SparseQR qr(A, qo);
  const std::vector<double> x = qr.solve(b);
  print_stats(qr.stats());
  std::vector<double> r(b), g(static_cast<std::size_t>(A.cols));
  spmv(-1.0, A, std::span<const double>(x), 1.0, std::span<double>(r));                     // r = b - A x
  spmv(1.0, transpose(A), std::span<const double>(r), 0.0, std::span<double>(g));          // g = A^T r
  auto norm = [](const std::vector<double>& v) { return norm2(std::span<const double>(v)); };
  fmt::print("  ||b - A x|| = {:.6e} (||b|| = {:.6e}), ||A^T (b - A x)|| = {:.3e}, ||x|| = {:.6e}\n", norm(r), norm(b),
             norm(g), norm(x));
  fmt::print("  solve {:.4f} s\n", qr.stats().t_solve);
  if (!o.output.empty()) {
    DenseMatrix<double> X(A.cols, 1);
    X.values = x;
    write_matrix_market(std::filesystem::path(o.output), X);
    fmt::print("  x written to {}\n", o.output);
  }
}

void run_qr(const QrCommandOptions& o) {
  const Csr<double> A = load_matrix<double>(o.matrix).A;
  QrOptions qo;
  qo.ordering = ordering_names().at(o.ordering);
  qo.rank_tolerance = o.tolerance;
  fmt::print("balsa qr: {} ({} x {}, {} entries)\n", o.matrix, A.rows, A.cols, A.nnz());
  SparseQR qr(A, qo);
  if (o.stats) print_stats(qr.stats());
}

void add_common(CLI::App* cmd, QrCommandOptions& o) {
  cmd->add_option("matrix", o.matrix, "Matrix Market file (m x n; m < n: minimum-norm solutions)")->required();
  cmd->add_option("--ordering", o.ordering, "Column ordering: colamd, metis (nested dissection of A^T A) or natural")
      ->check(CLI::IsMember({"colamd", "metis", "natural"}))
      ->capture_default_str();
  cmd->add_option("--tol", o.tolerance, "Rank tolerance (< 0: SPQR's default, 20 (m + n) eps max column norm)")
      ->capture_default_str();
}

}  // namespace

void add_qr_commands(CLI::App& app) {
  auto lo = std::make_shared<QrCommandOptions>();
  CLI::App* lsq = app.add_subcommand("lsq", "Least squares min ||A x - b|| by multifrontal sparse QR (CPU)");
  add_common(lsq, *lo);
  lsq->add_option("b", lo->rhs, "Right-hand side (Matrix Market, m x 1; default: ones)");
  lsq->add_option("-o,--output", lo->output, "Write x here (Matrix Market array)");
  lsq->callback([lo] { run_lsq(*lo); });
  auto qo = std::make_shared<QrCommandOptions>();
  CLI::App* qr = app.add_subcommand("qr", "Multifrontal sparse QR of A: ordering, analysis, factorisation (CPU)");
  add_common(qr, *qo);
  qr->add_flag("--stats", qo->stats, "Print the analysis and factorisation statistics");
  qr->callback([qo] { run_qr(*qo); });
}

}  // namespace balsa::app
