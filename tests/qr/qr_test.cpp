// Multifrontal sparse QR (include/balsa/qr.hpp) against SuiteSparseQR
// (SPQR) on random and real matrices: the same least-squares solution and
// residual, the normal equations, the analysis' invariants, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>


#include "balsa/cuda.hpp"
#include "core/lapack.hpp"
#include "balsa/qr.hpp"
#include "bench/spqr_baseline.hpp"
#include "qr/ordering.hpp"
#include "qr/singletons.hpp"
#include "qr/symbolic.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using bench::spqr_solve;

std::vector<double> residual(const Csr<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> r(b);
  spmv(-1.0, A, std::span<const double>(x), 1.0, std::span<double>(r));
  return r;
}
double norm(const std::vector<double>& v) { return norm2(std::span<const double>(v)); }
// ||A^T r|| / (||A||_F ||r||): zero for the least-squares solution.
double normal_equations(const Csr<double>& A, const std::vector<double>& r) {
  std::vector<double> g(static_cast<std::size_t>(A.cols), 0.0);
  double fro = 0;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a) {
      g[std::size_t(A.col_idx[a])] += A.values[a] * r[std::size_t(i)];
      fro += A.values[a] * A.values[a];
    }
  return norm(g) / std::max(1e-300, std::sqrt(fro) * norm(r));
}

// A tall random matrix of full column rank: random entries plus a strong
// diagonal on the first n rows.
Csr<double> tall_full_rank(index_t m, index_t n, double density, std::uint64_t seed) {
  return test::tall_full_rank(m, n, density, seed, 4.0);
}

std::vector<double> rhs(index_t m, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> b(static_cast<std::size_t>(m));
  for (double& v : b) v = u(g);
  return b;
}

// ||r|| / (||A||_F ||x|| + ||b||) of a square system: Householder QR is
// backward stable, so this is rounding-sized whatever A's condition.
double backward_error(const Csr<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  double fro = 0;
  for (double v : A.values) fro += v * v;
  return norm(residual(A, x, b)) / (std::sqrt(fro) * norm(x) + norm(b));
}

// Against SPQR: the same rank and the same ||E||_F (Heath's dropped
// entries, up to rounding) always. Square and full rank: ours backward stable (at most 10x
// SPQR's backward error, or 1e-14). Otherwise (tall, or rank deficient):
// the least-squares residual within residual_tol relative of SPQR's
// (1e-10, the target; infinite: not compared) and the normal equations
// within 10x SPQR's (or 1e-10). x within tol when full rank (tol < 0: A's condition unknown, x
// not compared).
struct Compared {
  index_t rank, spqr_rank;
};
Compared expect_matches_spqr(const Csr<double>& A, QrOrdering ordering, double tol, double residual_tol = 1e-10) {
  const std::vector<double> b = rhs(A.rows, 7);
  QrOptions o;
  o.ordering = ordering;
  SparseQR qr(A, o);
  const std::vector<double> x = qr.solve(b);
  const bench::SpqrResult ref = spqr_solve(A, b);
  EXPECT_EQ(qr.stats().rank, ref.rank);
  // (rounding-sized when dead columns are exact combinations: 1e-3 of the tolerance)
  EXPECT_NEAR(qr.stats().dropped_norm, ref.dropped_norm, 1e-6 * ref.dropped_norm + 1e-3 * qr.stats().tolerance);
  const bool full = ref.rank == A.cols && qr.stats().rank == A.cols;
  if (full && A.rows == A.cols) {
    EXPECT_LE(backward_error(A, x, b), std::max(1e-14, 10 * backward_error(A, ref.x, b)));
  } else {
    const std::vector<double> r = residual(A, x, b), rs = residual(A, ref.x, b);
    if (std::isfinite(residual_tol)) {
      EXPECT_LE(std::abs(norm(r) - norm(rs)), residual_tol * norm(rs));
    }
    if (residual_tol <= 1e-10) {
      EXPECT_LE(normal_equations(A, r), std::max(1e-10, 10 * normal_equations(A, rs)));
    }
  }
  if (full && tol >= 0) {
    EXPECT_LE(test::relative_error<double>(x, ref.x), tol);
  }
  return {qr.stats().rank, ref.rank};
}

TEST(SparseQR, RandomTallMatchesSpqrWithEveryOrdering) {
  for (auto [m, n, d] : {std::tuple{400, 300, 0.01}, std::tuple{2000, 500, 0.004}, std::tuple{300, 300, 0.02}}) {
    SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n));
    const Csr<double> A = tall_full_rank(m, n, d, 11 + m);
    for (QrOrdering ord : {QrOrdering::Colamd, QrOrdering::Metis, QrOrdering::Natural}) {
      SCOPED_TRACE(to_string(ord));
      expect_matches_spqr(A, ord, 1e-10);
    }
  }
}

TEST(SparseQR, RealMatricesMatchSpqr) {
  // lp_e226 transposed (472 x 223, tall), Franz6 (10592 x 3016), west0479 (square).
  const Csr<double> lp = transpose(*test::real_matrix_as<double>(test::data_file("lp_e226.mtx")));
  expect_matches_spqr(lp, QrOrdering::Colamd, 1e-8);
  const Csr<double> franz = *test::real_matrix_as<double>(test::data_file("Franz6_id1959_aug.mtx"));
  expect_matches_spqr(franz, QrOrdering::Colamd, 1e-8);
  const Csr<double> west = *test::real_matrix_as<double>(test::data_file("west0479.mtx"));
  expect_matches_spqr(west, QrOrdering::Colamd, 1e-6);
}

// Rank deficiency (Heath's rule, as SPQR): a zero column, a repeated one,
// one a combination of two others; the rank and the residual are SPQR's,
// the dead columns' x is 0.
TEST(SparseQR, RankDeficientMatchesSpqrRankAndResidual) {
  Coo<double> c = to_coo(tall_full_rank(300, 60, 0.03, 9));
  for (std::size_t t = 0; t < c.values.size(); ++t) {
    if (c.col_idx[t] == 4) c.values[t] = 0.0;                           // column 4 = 0
    if (c.col_idx[t] == 9) c.values[t] = 0.0;                           // column 9 := column 3 (below)
  }
  const std::size_t before = c.values.size();
  for (std::size_t t = 0; t < before; ++t) {
    if (c.col_idx[t] == 3) {
      c.row_idx.push_back(c.row_idx[t]);
      c.col_idx.push_back(9);
      c.values.push_back(c.values[t]);
    }
    if (c.col_idx[t] == 20 || c.col_idx[t] == 21) {                     // column 30 += columns 20 + 21
      c.row_idx.push_back(c.row_idx[t]);
      c.col_idx.push_back(30);
      c.values.push_back(c.values[t]);
    }
  }
  for (std::size_t t = 0; t < before; ++t)
    if (c.col_idx[t] == 30) c.values[t] = 0.0;
  const Csr<double> A = to_csr(c);
  for (QrOrdering ord : {QrOrdering::Colamd, QrOrdering::Natural}) {
    SCOPED_TRACE(to_string(ord));
    const Compared c = expect_matches_spqr(A, ord, 0);
    EXPECT_EQ(c.rank, c.spqr_rank);
    QrOptions o;
    o.ordering = ord;
    SparseQR qr(A, o);
    EXPECT_EQ(qr.stats().rank, 57);
    const std::vector<double> b = rhs(A.rows, 3);
    const std::vector<double> x = qr.solve(b);
    EXPECT_EQ(x[4], 0.0);
    const double r = norm(residual(A, x, b)), rs = norm(residual(A, spqr_solve(A, b).x, b));
    EXPECT_LE(std::abs(r - rs), 1e-10 * rs);
  }
}

// Every real matrix of tests/data with m >= n (the others transposed):
// full rank, as stable as SPQR (square) or SPQR's residual and x (tall);
// SPQR's rank (Heath's rank depends on the column order: bayer10 and
// nnc1374 are rank deficient, and get SPQR's rank because the singletons
// and COLAMD's call are SPQR's), and its residual.
TEST(SparseQR, EveryRealMatrixMatchesSpqr) {
  int checked = 0;
  for (const auto& file : test::real_matrices()) {
    auto A = test::real_matrix_as<double>(file);
    if (!A) continue;
    SCOPED_TRACE(file.filename().string());
    const Csr<double> M = A->rows >= A->cols ? *A : transpose(*A);
    if (file.filename() == "arrow.mtx") {  // a dense row and column: R is dense (1e9 entries)
      QrOptions o;
      o.memory_limit = std::size_t(1) << 30;
      EXPECT_THROW_MSG(SparseQR(M, o), HostOutOfMemory, "bytes (R has 1081");
      continue;
    }
    // temp.mtx: entries up to 1e38, tolerance 8e26, rank 36 of 180, ||E||_F
    // 1.4e27 dropped: both basic solutions are far from least squares (A^T r
    // at 0.03 and 0.09 of ||A|| ||r||) and their residuals follow the
    // rounding (7.173 vs SPQR's 7.147 with Debian's OpenBLAS here, 13% apart
    // on the GPU host's): rank and ||E|| compared, not the residual.
    expect_matches_spqr(M, QrOrdering::Colamd, M.rows > M.cols ? 1e-8 : -1,
                        file.filename() == "temp.mtx" ? INFINITY : 1e-10);
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// m < n: the minimum-norm solution through the QR of A^T, as SPQR's
// min2norm: A x = b and the same x (the minimum-norm x is unique).
TEST(SparseQR, WideSystemsGetTheMinimumNormSolution) {
  const Csr<double> lp = *test::real_matrix_as<double>(test::data_file("lp_e226.mtx"));  // 223 x 472
  const Csr<double> random = transpose(tall_full_rank(700, 300, 0.01, 8));                // 300 x 700
  for (const Csr<double>* A : {&lp, &random}) {
    SCOPED_TRACE(std::to_string(A->rows) + " x " + std::to_string(A->cols));
    const std::vector<double> b = rhs(A->rows, 4);
    SparseQR qr(*A);
    EXPECT_EQ(qr.stats().rank, A->rows);
    const std::vector<double> x = qr.solve(b);
    ASSERT_EQ(x.size(), std::size_t(A->cols));
    EXPECT_LE(norm(residual(*A, x, b)), 1e-10 * norm(b));
    EXPECT_LE(test::relative_error<double>(x, spqr_solve(*A, b, true).x), 1e-9);
    // Two right-hand sides at once give the same columns.
    std::vector<double> B2(b);
    const std::vector<double> b2 = rhs(A->rows, 5);
    B2.insert(B2.end(), b2.begin(), b2.end());
    const std::vector<double> X2 = qr.solve(B2, 2);
    EXPECT_LE(test::relative_error<double>(std::vector<double>(X2.begin(), X2.begin() + A->cols), x), 1e-14);
  }
}

// A = [U B; 0 C; empty column; a column holding one stored 0]: U (30 x 30,
// upper triangular) gives a cascade of 30 column singletons, C (200 x 50)
// the fronts; column 80 is empty (a dead singleton), column 81's only
// entry is 0 (no singleton by value, dead in the fronts). n = 82, rank 80.
Csr<double> with_singletons() {
  std::mt19937_64 g(17);
  std::uniform_real_distribution<double> u(-1, 1);
  Coo<double> c;
  c.rows = 230;
  c.cols = 82;
  auto add = [&](index_t i, index_t j, double v) {
    c.row_idx.push_back(i);
    c.col_idx.push_back(j);
    c.values.push_back(v);
  };
  for (index_t i = 0; i < 30; ++i) {
    add(i, i, 2.0 + u(g));
    for (index_t j = i + 1; j < 80; ++j)
      if (u(g) > 0.8) add(i, j, u(g));
  }
  for (index_t i = 30; i < 230; ++i) {
    if (i < 80) add(i, i, 3.0);
    for (index_t j = 30; j < 80; ++j)
      if (u(g) > 0.9) add(i, j, u(g));
  }
  add(100, 81, 0.0);
  return to_csr(c);
}

// Singletons (SPQR's pre-pass): R11 upper triangular in singleton order,
// the remaining rows free of singleton columns, SPQR's rank and residual;
// the pattern-only analysis takes column 81 for a singleton, and the
// factorisation, seeing its 0, redoes the analysis.
TEST(SparseQR, SingletonsAreRowsOfR) {
  const Csr<double> A = with_singletons();
  const qr::Singletons s = qr::find_singletons(A, 1e-10);
  EXPECT_EQ(s.live(), 30);
  EXPECT_EQ(s.cols.size(), 31u);  // and the dead, empty column 80
  EXPECT_EQ(s.rest_cols.size(), 51u);
  std::vector<index_t> position(82, 1000);  // rest columns come after every singleton
  for (std::size_t k = 0; k < s.cols.size(); ++k) position[std::size_t(s.cols[k])] = index_t(k);
  for (std::size_t k = 0; k < s.cols.size(); ++k) {
    if (s.rows[k] < 0) continue;
    for (index_t a = A.row_ptr[s.rows[k]]; a < A.row_ptr[s.rows[k] + 1]; ++a)
      EXPECT_GE(position[std::size_t(A.col_idx[a])], index_t(k));
  }
  for (index_t i : s.rest_rows)
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a) EXPECT_EQ(position[std::size_t(A.col_idx[a])], 1000);
  EXPECT_EQ(qr::find_singletons(A, -1).cols.size(), 32u);  // by pattern: column 81 too

  const Compared c = expect_matches_spqr(A, QrOrdering::Colamd, 0);
  EXPECT_EQ(c.rank, 80);
  SparseQR whole(A);
  EXPECT_EQ(whole.stats().singletons, 30);
  EXPECT_EQ(whole.stats().reanalyses, 0);
  SparseQR split = SparseQR::analyse(A);
  EXPECT_EQ(split.stats().singletons, 31);
  split.factorise(A);
  EXPECT_EQ(split.stats().reanalyses, 1);
  EXPECT_EQ(split.stats().singletons, 30);
  const std::vector<double> b = rhs(A.rows, 6);
  EXPECT_LE(test::relative_error<double>(split.solve(b), whole.solve(b)), 1e-14);
  split.factorise(A);  // the same values again: the analysis stands
  EXPECT_EQ(split.stats().reanalyses, 1);

  // A factorisation whose new analysis fails (too little memory for the
  // fronts once the singletons' pivots are 0) leaves no factor behind and
  // the old analysis in place.
  auto need = [](const Csr<double>& M) {
    QrOptions o;
    o.memory_limit = 1;
    try {
      SparseQR{M, o};
    } catch (const HostOutOfMemory& e) {
      const std::string msg = e.what();
      const std::size_t at = msg.find("needs ") + 6;
      return std::stoull(msg.substr(at, msg.find(' ', at) - at));
    }
    return 0ull;
  };
  Csr<double> zeroed = A;  // same pattern, U's diagonal 0: no singletons by value
  for (index_t i = 0; i < 30; ++i)
    for (index_t a = zeroed.row_ptr[i]; a < zeroed.row_ptr[i + 1]; ++a)
      if (zeroed.col_idx[a] == i) zeroed.values[a] = 0.0;
  ASSERT_LT(need(A), need(zeroed));
  QrOptions tight;
  tight.memory_limit = need(A);
  SparseQR limited(A, tight);
  EXPECT_THROW_MSG(limited.factorise(zeroed), HostOutOfMemory, "allowed (memory_limit)");
  EXPECT_FALSE(limited.factorised());
  EXPECT_THROW_MSG(limited.solve(b), Error, "not factorised");
  EXPECT_EQ(limited.stats().singletons, 30);
  limited.factorise(A);
  EXPECT_EQ(limited.stats().reanalyses, 0);
  EXPECT_LE(test::relative_error<double>(limited.solve(b), whole.solve(b)), 1e-14);

  // Wide (A^T, 82 x 230, rank 80): A^T's singletons, the minimum-norm solve.
  Csr<double> At = transpose(A);
  SparseQR wide(At);
  EXPECT_GT(wide.stats().singletons, 0);
  const std::vector<double> bw = rhs(At.rows, 8);
  const std::vector<double> xw = wide.solve(bw);
  EXPECT_EQ(wide.stats().rank, 80);
  const std::vector<double> ref = spqr_solve(At, bw, true).x;
  EXPECT_LE(std::abs(norm(residual(At, xw, bw)) - norm(residual(At, ref, bw))), 1e-10 * norm(bw));
  EXPECT_LE(std::abs(norm(xw) - norm(ref)), 1e-10 * norm(ref));
}

// R is one sparse upper-triangular matrix solved by balsa's triangular
// solver: every CPU algorithm, and the GPU's (skipped without one), give
// the same x, tall and wide, one and several right-hand sides.
TEST(SparseQR, TheRSolveRunsOnTheTriangularSolver) {
  const Csr<double> tall = tall_full_rank(1500, 700, 0.006, 3);  // well conditioned: x compared
  const Csr<double> wide = transpose(with_singletons());
  for (const Csr<double>* A : {&tall, &wide}) {
    SCOPED_TRACE(std::to_string(A->rows) + " x " + std::to_string(A->cols));
    std::vector<double> B = rhs(A->rows, 1);
    const std::vector<double> b2 = rhs(A->rows, 2);
    B.insert(B.end(), b2.begin(), b2.end());
    SparseQR ref(*A);
    const std::vector<double> x = ref.solve(B, 2);
    std::vector<TrsvOptions> choices;
    for (TrsvAlgorithm a : {TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet, TrsvAlgorithm::Tassl})
      choices.push_back({.algorithm = a, .device = Device::Cpu});
    if (cuda::available())
      for (TrsvAlgorithm a : {TrsvAlgorithm::Auto, TrsvAlgorithm::Cusparse, TrsvAlgorithm::Tassl})
        choices.push_back({.algorithm = a, .device = Device::Cuda});
    for (const TrsvOptions& t : choices) {
      SCOPED_TRACE(std::string(to_string(t.algorithm)) + " on " + to_string(t.device));
      QrOptions o;
      o.r_solve = t;
      SparseQR qr(*A, o);
      std::vector<double> X = qr.solve(B, 2);
      EXPECT_LE(test::relative_error<double>(X, x), 1e-10);
      X = qr.solve(std::span<const double>(B).first(std::size_t(A->rows)));
      EXPECT_LE(test::relative_error<double>(X, std::vector<double>(x.begin(), x.begin() + X.size())), 1e-10);
    }
  }
}

// analyse -> factorise -> solve, and new values of the same pattern.
TEST(SparseQR, AnalyseThenFactoriseNewValues) {
  Csr<double> A = tall_full_rank(500, 200, 0.01, 12);
  SparseQR qr = SparseQR::analyse(A);
  EXPECT_FALSE(qr.factorised());
  EXPECT_GT(qr.stats().fronts, 0);
  EXPECT_THROW_MSG(qr.solve(rhs(A.rows, 1)), Error, "not factorised");
  qr.factorise(A);
  const std::vector<double> b = rhs(A.rows, 1);
  EXPECT_LE(test::relative_error<double>(qr.solve(b), spqr_solve(A, b).x), 1e-10);
  for (double& v : A.values) v *= 1.0 + 1e-3 * std::sin(v);  // same pattern, new values
  qr.factorise(A);
  EXPECT_LE(test::relative_error<double>(qr.solve(b), spqr_solve(A, b).x), 1e-10);
  Csr<double> other = tall_full_rank(500, 200, 0.02, 13);
  EXPECT_THROW_MSG(qr.factorise(other), DimensionError, "unlike the analysed one");
  Csr<double> moved = A;  // same counts, one entry in another column
  moved.col_idx[std::size_t(moved.row_ptr[300])] = (moved.col_idx[std::size_t(moved.row_ptr[300])] + 1) % 200;
  EXPECT_THROW_MSG(qr.factorise(moved), DimensionError, "unlike the analysed one");
}

// Refactorisations reuse R's full-rank pattern and the R solver (its
// values updated); values that make a column dependent (Heath's path)
// bring their own R, and full rank afterwards the layout again. Each
// solve equals a fresh SparseQR's on the same values, tall and wide.
TEST(SparseQR, RefactorisationsMoveBetweenFullRankAndHeath) {
  const Csr<double> T = tall_full_rank(400, 120, 0.02, 21);
  Coo<double> c;  // column 1 also gets column 0's rows (explicit entries)
  c.rows = T.rows;
  c.cols = T.cols;
  for (index_t i = 0; i < T.rows; ++i) {
    bool has0 = false, has1 = false;
    for (index_t a = T.row_ptr[i]; a < T.row_ptr[i + 1]; ++a) {
      has0 = has0 || T.col_idx[a] == 0;
      has1 = has1 || T.col_idx[a] == 1;
      c.row_idx.push_back(i);
      c.col_idx.push_back(T.col_idx[a]);
      c.values.push_back(T.values[a]);
    }
    if (has0 && !has1) {
      c.row_idx.push_back(i);
      c.col_idx.push_back(1);
      c.values.push_back(0.5);
    }
  }
  const Csr<double> full = to_csr(c);
  Csr<double> dependent = full;  // column 1 = 2 column 0 (zero off column 0's rows)
  for (index_t i = 0; i < full.rows; ++i) {
    double v0 = 0;
    for (index_t a = full.row_ptr[i]; a < full.row_ptr[i + 1]; ++a)
      if (full.col_idx[a] == 0) v0 = full.values[a];
    for (index_t a = full.row_ptr[i]; a < full.row_ptr[i + 1]; ++a)
      if (full.col_idx[a] == 1) dependent.values[std::size_t(a)] = 2 * v0;
  }
  for (const bool wide : {false, true}) {
    const Csr<double> F = wide ? transpose(full) : full, D = wide ? transpose(dependent) : dependent;
    const std::vector<double> b = rhs(F.rows, 3);
    SparseQR qr = SparseQR::analyse(F);
    for (const Csr<double>* A : {&F, &D, &F, &F, &D}) {
      qr.factorise(*A);
      SparseQR fresh(*A);
      EXPECT_EQ(qr.stats().rank, fresh.stats().rank);
      EXPECT_EQ(qr.stats().rank, A == &D ? 119 : 120);
      EXPECT_EQ(qr.stats().heath_fronts > 0, A == &D);
      EXPECT_LE(test::relative_error<double>(qr.solve(b), fresh.solve(b)), 1e-12) << "wide " << wide;
    }
  }
}

TEST(SparseQR, ManyRightHandSidesAreSolvedAlike) {
  const Csr<double> A = tall_full_rank(600, 200, 0.01, 5);
  SparseQR qr(A);
  std::vector<double> B;  // 10 columns: past the 8 that take the reflectors one by one
  for (int c = 0; c < 10; ++c) {
    const std::vector<double> b = rhs(A.rows, 100 + c);
    B.insert(B.end(), b.begin(), b.end());
  }
  const std::vector<double> X = qr.solve(B, 10);
  ASSERT_EQ(X.size(), std::size_t(10 * 200));
  for (int c = 0; c < 10; ++c) {
    const std::vector<double> one = qr.solve(std::span<const double>(B).subspan(std::size_t(c) * 600, 600));
    EXPECT_LE(test::relative_error<double>(std::vector<double>(X.begin() + c * 200, X.begin() + (c + 1) * 200), one),
              1e-14);
  }
}

// OpenBLAS's thread count is process-wide: SparseQR objects factoring and
// solving on two threads at once leave the caller's count as it was.
TEST(SparseQR, ConcurrentUseKeepsTheBlasThreadCount) {
  const int before = openblas_get_num_threads();
  openblas_set_num_threads(3);
  const Csr<double> A = tall_full_rank(300, 100, 0.02, 4);
  const std::vector<double> b = rhs(A.rows, 9);
  auto work = [&] {
    SparseQR qr(A);
    for (int r = 0; r < 1000; ++r) qr.solve(b);
    qr.factorise(A);
  };
  std::thread one(work), two(work);
  one.join();
  two.join();
  EXPECT_EQ(openblas_get_num_threads(), 3);
  openblas_set_num_threads(before);
}

// The analysis' invariants: postorder, every row in the front of its
// leftmost column holding all its columns, stages partitioning the fronts.
TEST(SparseQR, AnalysisInvariants) {
  const Csr<double> A = tall_full_rank(1500, 700, 0.006, 3);
  const qr::Symbolic s = qr::analyse(A, qr::column_ordering(A, QrOrdering::Colamd), 200000);
  std::vector<index_t> seen(static_cast<std::size_t>(A.rows), 0);
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    const qr::Front& F = s.fronts[std::size_t(f)];
    EXPECT_TRUE(F.parent == -1 || F.parent > f);
    EXPECT_TRUE(std::is_sorted(F.cols.begin() + F.pivots, F.cols.end()));
    for (index_t i : F.rows) {
      ++seen[std::size_t(i)];
      EXPECT_EQ(s.col_front[std::size_t(s.leftmost[std::size_t(i)])], f);
      for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a)
        EXPECT_TRUE(std::find(F.cols.begin(), F.cols.end(), s.q_inverse[std::size_t(A.col_idx[a])]) != F.cols.end());
    }
    EXPECT_TRUE(std::is_sorted(F.rows.begin(), F.rows.end(), [&](index_t a, index_t b) {
      return s.leftmost[std::size_t(a)] < s.leftmost[std::size_t(b)];
    }));
  }
  for (index_t i = 0; i < A.rows; ++i)  // once each; an empty row nowhere
    EXPECT_EQ(seen[std::size_t(i)], A.row_ptr[i + 1] > A.row_ptr[i] ? 1 : 0) << "row " << i;
  EXPECT_GT(s.stage_starts.size(), 2u);  // the budget splits the tree
  EXPECT_EQ(s.stage_starts.front(), 0);
  EXPECT_EQ(s.stage_starts.back(), index_t(s.fronts.size()));
  EXPECT_GT(s.flops, 0);
  EXPECT_GE(s.r_nnz, 700);
}

// Scaling A by 1e160 or 1e-160 changes neither the rank nor x (scaled):
// the default tolerance's column norms neither overflow nor underflow.
TEST(SparseQR, ExtremeScalesKeepTheRank) {
  const Csr<double> A = tall_full_rank(120, 40, 0.05, 21);
  const std::vector<double> b = rhs(A.rows, 2);
  SparseQR ref(A);
  const std::vector<double> x = ref.solve(b);
  for (double scale : {1e160, 1e-160}) {
    SCOPED_TRACE(scale);
    Csr<double> S = A;
    for (double& v : S.values) v *= scale;
    SparseQR qr(S);
    EXPECT_EQ(qr.stats().rank, 40);
    std::vector<double> xs = qr.solve(b);
    for (double& v : xs) v *= scale;
    EXPECT_LE(test::relative_error<double>(xs, x), 1e-12);
  }
}

// Full-rank real matrices take the blocked staircase path in every front.
TEST(SparseQR, FullRankFrontsStayBlocked) {
  for (const char* name : {"bcsstk13.mtx", "Franz6_id1959_aug.mtx"}) {
    SCOPED_TRACE(name);
    SparseQR qr(*test::real_matrix_as<double>(test::data_file(name)));
    EXPECT_EQ(qr.stats().rank, qr.stats().cols);
    EXPECT_EQ(qr.stats().heath_fronts, 0);
    EXPECT_EQ(qr.stats().flops_done, qr.stats().flops);  // the analysis' staircase is the factorisation's
    EXPECT_LT(qr.stats().flops, qr.stats().dense_flops);
  }
}

TEST(SparseQR, BadInputIsAClearError) {
  Csr<double> empty;
  empty.rows = 3;
  empty.cols = 0;
  empty.row_ptr = {0, 0, 0, 0};
  EXPECT_THROW_MSG(SparseQR{empty}, DimensionError, "A is empty");
  Csr<double> nan = tall_full_rank(50, 20, 0.1, 1);
  nan.values[7] = std::nan("");
  const index_t nan_row = index_t(std::upper_bound(nan.row_ptr.begin(), nan.row_ptr.end(), 7) - nan.row_ptr.begin()) - 1;
  EXPECT_THROW_MSG(SparseQR{nan}, MatrixError,
                   "NaN value at (row " + std::to_string(nan_row) + ", column " + std::to_string(nan.col_idx[7]) + ")");
  SparseQR qr(tall_full_rank(50, 20, 0.1, 1));
  EXPECT_THROW_MSG(qr.solve(std::vector<double>(49, 1.0)), DimensionError, "49 right-hand-side values");
  std::vector<double> b_nan(50, 1.0);
  b_nan[3] = INFINITY;
  EXPECT_THROW_MSG(qr.solve(b_nan), MatrixError, "b(3) is not finite");
  Csr<double> dup = tall_full_rank(50, 20, 0.1, 1);  // row 0 holds column 0 twice
  dup.col_idx.insert(dup.col_idx.begin(), 0);
  dup.values.insert(dup.values.begin(), 1.0);
  for (std::size_t i = 1; i < dup.row_ptr.size(); ++i) ++dup.row_ptr[i];
  EXPECT_THROW_MSG(SparseQR{dup}, MatrixError, "duplicate entries");
  SparseQR taken = std::move(qr);  // a moved-from handle names itself
  EXPECT_THROW_MSG(qr.solve(std::vector<double>(50, 1.0)), Error, "SparseQR: used after being moved from");
  EXPECT_EQ(taken.stats().rows, 50);
}

}  // namespace
}  // namespace balsa
