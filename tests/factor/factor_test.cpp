// ILU(0) and IC(0) on the CPU: hand-checked cases, the defining properties
// of the zero-fill factorisations on random and real matrices, pivot
// breakdowns and the shift policy, input errors, refactor.
#include <cmath>
#include <limits>
#include <string>

#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "support/factor_checks.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

template <class T>
class FactorCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactorCpu, ValueTypes);

constexpr IncompleteOptions cpu(IncompleteKind kind) { return {.kind = kind, .device = Device::Cpu}; }

template <class T>
Csr<T> from_dense(index_t n, std::initializer_list<double> rows) {
  DenseMatrix<T> D(n, n);
  auto it = rows.begin();
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) D(i, j) = T(*it++);
  return to_csr(D);
}

// Value at (i, j) of a canonical CSR matrix (0 when not stored).
template <class T>
T at(const Csr<T>& M, index_t i, index_t j) {
  for (index_t k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k)
    if (M.col_idx[k] == j) return M.values[k];
  return T(0);
}

TYPED_TEST(FactorCpu, HandCheckedThreeByThreeDropsFill) {
  using T = TypeParam;
  // Eliminating row 0 would fill (1, 2) and (2, 1); ILU(0) drops both.
  const Csr<T> A = from_dense<T>(3, {4, 1, 1,  //
                                     1, 4, 0,  //
                                     1, 0, 4});
  IncompleteFactorization<T> ilu(A, cpu(IncompleteKind::Ilu0));
  const Csr<T> F = ilu.factors();
  EXPECT_EQ(F.nnz(), A.nnz());
  EXPECT_EQ(at(F, 0, 0), T(4));
  EXPECT_EQ(at(F, 0, 1), T(1));
  EXPECT_EQ(at(F, 1, 0), T(0.25));  // l_10 = 1/4
  EXPECT_EQ(at(F, 1, 1), T(3.75));  // 4 - 1/4 * 1
  EXPECT_EQ(at(F, 2, 0), T(0.25));
  EXPECT_EQ(at(F, 2, 2), T(3.75));
  EXPECT_EQ(ilu.stats().levels, 2);
  IncompleteFactorization<T> ic(A, cpu(IncompleteKind::Ic0));
  const Csr<T> L = ic.factors();
  EXPECT_EQ(L.nnz(), 5);  // lower triangle with the diagonal
  EXPECT_EQ(at(L, 0, 0), T(2));
  EXPECT_EQ(at(L, 1, 0), T(0.5));
  EXPECT_NEAR(double(at(L, 1, 1)), std::sqrt(3.75), test::tolerance<T>(2));
  EXPECT_EQ(at(L, 2, 0), T(0.5));
  EXPECT_NEAR(double(at(L, 2, 2)), std::sqrt(3.75), test::tolerance<T>(2));
}

TYPED_TEST(FactorCpu, TridiagonalIc0IsTheExactCholesky) {
  using T = TypeParam;
  const index_t n = 60;
  // laplacian_2d(n, 1) is tridiag(-1, 4, -1): SPD and tridiagonal, so its
  // Cholesky factor has no fill and IC(0) is exact: L L^T == A everywhere.
  const Csr<T> A = laplacian_2d<T>(n, 1);
  IncompleteFactorization<T> ic(A, cpu(IncompleteKind::Ic0));
  const Csr<T> L = ic.factors();
  const DenseMatrix<T> Ld = to_dense(L), Ad = to_dense(A);
  double worst = 0.0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {  // every entry, not only the pattern
      double s = 0.0;
      for (index_t k = 0; k < n; ++k) s += double(Ld(i, k)) * double(Ld(j, k));
      worst = std::max(worst, std::abs(s - double(Ad(i, j))));
    }
  EXPECT_LE(worst, test::tolerance<T>(8) * 4.0);
  // The closed form of tridiag(-1, 2, -1)'s Cholesky factor, through the
  // reference directly: l_ii = sqrt((i + 2) / (i + 1)), l_i,i-1 = -sqrt(i / (i + 1)).
  Csr<T> C = A;
  for (index_t i = 0; i < n; ++i)
    for (index_t k = C.row_ptr[i]; k < C.row_ptr[i + 1]; ++k)
      if (C.col_idx[k] == i) C.values[k] = T(2);
  Csr<T> P = extract_triangle(C, Triangle::Lower);
  std::vector<index_t> diag(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) diag[std::size_t(i)] = P.row_ptr[i + 1] - 1;
  ASSERT_EQ(incomplete_factor_reference<T>(IncompleteKind::Ic0, P, diag, P.values, 1e-12), -1);
  for (index_t i = 0; i < n; ++i) {
    EXPECT_NEAR(double(at(P, i, i)), std::sqrt(double(i + 2) / double(i + 1)), test::tolerance<T>(4 * (i + 1)));
    if (i > 0) {
      EXPECT_NEAR(double(at(P, i, i - 1)), -std::sqrt(double(i) / double(i + 1)), test::tolerance<T>(4 * (i + 1)));
    }
  }
}

TYPED_TEST(FactorCpu, Ilu0WithoutFillIsTheExactLu) {
  using T = TypeParam;
  // A nonsymmetric tridiagonal matrix and a down-pointing arrowhead: their LU
  // factors have no fill, so ILU(0) is LU and L U == A everywhere.
  const index_t n = 40;
  Coo<T> tri, arrow;
  tri.rows = tri.cols = arrow.rows = arrow.cols = n;
  for (index_t i = 0; i < n; ++i) {
    auto put = [](Coo<T>& c, index_t r, index_t col, double v) {
      c.row_idx.push_back(r);
      c.col_idx.push_back(col);
      c.values.push_back(T(v));
    };
    put(tri, i, i, 4.0 + 0.1 * i);
    if (i > 0) put(tri, i, i - 1, 1.0 + 0.01 * i);
    if (i + 1 < n) put(tri, i, i + 1, -2.0);
    put(arrow, i, i, 10.0 + i);
    if (i + 1 < n) {
      put(arrow, i, n - 1, 1.0);
      put(arrow, n - 1, i, 0.5 - 0.02 * i);
    }
  }
  for (const Coo<T>& coo : {tri, arrow}) {
    const Csr<T> A = to_csr(coo);
    IncompleteFactorization<T> ilu(A, cpu(IncompleteKind::Ilu0));
    const DenseMatrix<T> F = to_dense(ilu.factors()), Ad = to_dense(A);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        double s = 0.0;  // (L U)_ij with L's unit diagonal
        for (index_t k = 0; k <= std::min(i, j); ++k) s += (k == i ? 1.0 : double(F(i, k))) * double(F(k, j));
        EXPECT_NEAR(s, double(Ad(i, j)), test::tolerance<T>(16) * (10.0 + n)) << "(" << i << ", " << j << ")";
      }
  }
}

TYPED_TEST(FactorCpu, Ilu0OfASymmetricMatrixScalesToIc0) {
  using T = TypeParam;
  // A = L_ic L_ic^T and A = L U with U = D L^T: L_ic = L diag(sqrt(u_jj)).
  const Csr<T> A = random_spd<T>(400, 6, 11);
  const Csr<T> F = IncompleteFactorization<T>(A, cpu(IncompleteKind::Ilu0)).factors();
  const Csr<T> L = IncompleteFactorization<T>(A, cpu(IncompleteKind::Ic0)).factors();
  double worst = 0.0;
  for (index_t i = 0; i < L.rows; ++i)
    for (index_t k = L.row_ptr[i]; k < L.row_ptr[i + 1]; ++k) {
      const index_t j = L.col_idx[k];
      const double u_jj = double(at(F, j, j));
      const double expect = j == i ? std::sqrt(u_jj) : double(at(F, i, j)) * std::sqrt(u_jj);
      worst = std::max(worst, std::abs(double(L.values[k]) - expect) / std::max(1.0, std::abs(expect)));
    }
  EXPECT_LE(worst, test::tolerance<T>(100));
}

TYPED_TEST(FactorCpu, Ilu0PropertyOnRandomMatrices) {
  using T = TypeParam;
  struct Case {
    index_t n;
    double density;
    double dominance;  // diagonal = dominance * (1 + sum |a_ij|)
    double pivot_tolerance;  // large with weak dominance: breakdowns, shifts
  };
  int shifted = 0;
  for (const Case c : {Case{1, 0.0, 1.0, 1e-12}, Case{50, 0.1, 1.0, 1e-12}, Case{300, 0.02, 1.0, 1e-12},
                       Case{2000, 0.003, 1.0, 1e-12}, Case{300, 0.05, 0.05, 0.3}, Case{1000, 0.004, 0.02, 0.3}})
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      SCOPED_TRACE("n " + std::to_string(c.n) + " density " + std::to_string(c.density) + " dominance " +
                   std::to_string(c.dominance) + " seed " + std::to_string(seed));
      const Csr<T> A = test::with_diagonal(test::random_sparse<T>(c.n, c.n, c.density, seed), c.dominance);
      IncompleteOptions o = cpu(IncompleteKind::Ilu0);
      o.pivot_tolerance = c.pivot_tolerance;
      IncompleteFactorization<T> ilu(A, o);
      shifted += ilu.stats().attempts > 1;
      const IncompleteStats& st = ilu.stats();
      EXPECT_EQ(st.nnz, A.nnz());
      EXPECT_GE(st.attempts, 1);
      EXPECT_EQ(st.shift == 0.0, st.attempts == 1);
      EXPECT_EQ(st.breakdown_row < 0, st.attempts == 1);
      test::expect_ilu0_property(A, st.shift, ilu.factors());
    }
  EXPECT_GT(shifted, 0);  // the shift path was exercised
}

TYPED_TEST(FactorCpu, Ic0PropertyOnSymmetricMatrices) {
  using T = TypeParam;
  for (const index_t per_row : {2, 8, 30}) {
    SCOPED_TRACE("random_spd per_row " + std::to_string(per_row));
    const Csr<T> A = random_spd<T>(1500, per_row, 3);
    IncompleteFactorization<T> ic(A, cpu(IncompleteKind::Ic0));
    EXPECT_EQ(ic.stats().attempts, 1);  // diagonally dominant: no breakdown
    test::expect_ic0_property(A, 0.0, ic.factors());
  }
  // Symmetric but weakly dominant: shifts may be needed; the property holds
  // for the shifted matrix.
  const Csr<T> B = test::symmetric_part(test::with_diagonal(test::random_sparse<T>(800, 800, 0.01, 5), 0.1));
  IncompleteFactorization<T> ic(B, cpu(IncompleteKind::Ic0));
  test::expect_ic0_property(B, ic.stats().shift, ic.factors());
}

TYPED_TEST(FactorCpu, Ic0OnThe3dLaplacian) {
  using T = TypeParam;
  const index_t m = 9;
  const Csr<T> A = laplacian_3d<T>(m, m, m);  // 7-point
  IncompleteFactorization<T> ic(A, cpu(IncompleteKind::Ic0));
  const IncompleteStats& st = ic.stats();
  EXPECT_EQ(st.kind, IncompleteKind::Ic0);
  EXPECT_EQ(st.device, Device::Cpu);
  EXPECT_EQ(st.rows, m * m * m);
  EXPECT_EQ(st.nnz, (A.nnz() + A.rows) / 2);
  EXPECT_EQ(st.levels, 3 * (m - 1) + 1);  // the wavefronts i + j + k
  EXPECT_EQ(st.attempts, 1);
  EXPECT_EQ(st.shift, 0.0);
  EXPECT_EQ(st.breakdown_row, -1);
  EXPECT_EQ(st.factorizations, 1);
  EXPECT_GE(st.analysis_seconds, 0.0);
  EXPECT_GE(st.factor_seconds, 0.0);
  test::expect_ic0_property(A, 0.0, ic.factors());
  // IC(0) of a Laplacian is a good preconditioner: its diagonal stays well
  // away from zero (l_ii^2 >= 6 - 3 * 1.5 for this stencil, loosely).
  const Csr<T> L = ic.factors();
  for (index_t i = 0; i < A.rows; ++i) EXPECT_GT(double(at(L, i, i)), 1.0);
  // The 27-point stencil, ILU(0) and IC(0).
  const Csr<T> B = laplacian_3d<T>(6, 5, 4, Stencil3d::Point27);
  IncompleteFactorization<T> ilu27(B, cpu(IncompleteKind::Ilu0));
  test::expect_ilu0_property(B, ilu27.stats().shift, ilu27.factors());
  IncompleteFactorization<T> ic27(B, cpu(IncompleteKind::Ic0));
  test::expect_ic0_property(B, ic27.stats().shift, ic27.factors());
}

TYPED_TEST(FactorCpu, PropertiesOnTheRealMatrices) {
  using T = TypeParam;
  int factored = 0;  // (matrix, kind) pairs factored, possibly after shifts
  const int count = test::for_each_square_real_matrix<T>([&](const Csr<T>& A) {
    if (inspect_diagonal(A).missing > 0) return;
    for (const IncompleteKind kind : {IncompleteKind::Ilu0, IncompleteKind::Ic0}) {
      SCOPED_TRACE(to_string(kind));
      try {
        IncompleteFactorization<T> f(A, cpu(kind));
        if (kind == IncompleteKind::Ilu0)
          test::expect_ilu0_property(A, f.stats().shift, f.factors());
        else
          test::expect_ic0_property(A, f.stats().shift, f.factors());
        ++factored;
      } catch (const MatrixError& e) {  // every shift broke down: said so
        EXPECT_NE(std::string(e.what()).find("every shift broke down"), std::string::npos) << e.what();
      }
    }
  });
  EXPECT_GT(count, 5);
  EXPECT_GE(factored, 10);  // ILU(0) of 9 of them, IC(0) of 4 (arrow, bcsstk13, dwt_992, jagmesh7) in double
}

// ---- breakdowns and the shift policy ------------------------------------------

TYPED_TEST(FactorCpu, Ic0NegativePivot) {
  using T = TypeParam;
  const Csr<T> A = from_dense<T>(2, {1, 2,  //
                                     2, 1});  // indefinite: d_1 = 1 - 4 = -3
  IncompleteOptions fail = cpu(IncompleteKind::Ic0);
  fail.on_breakdown = PivotBreakdown::Fail;
  EXPECT_THROW_MSG(IncompleteFactorization<T>(A, fail), MatrixError, "row 1 (d_i = a_ii - sum_k l_ik^2 = -3");
  IncompleteFactorization<T> ic(A, cpu(IncompleteKind::Ic0));
  const IncompleteStats& st = ic.stats();
  // (1 + alpha)^2 > 4 first for alpha = 1e-3 * 2^10.
  EXPECT_EQ(st.shift, 1e-3 * 1024);
  EXPECT_EQ(st.attempts, 12);
  EXPECT_EQ(st.breakdown_row, 1);
  test::expect_ic0_property(A, st.shift, ic.factors());
  IncompleteOptions few = cpu(IncompleteKind::Ic0);
  few.max_shifts = 5;
  EXPECT_THROW_MSG(IncompleteFactorization<T>(A, few), MatrixError, "every shift broke down: 5 restart(s)");
  // A negative diagonal: no shift of diag(A) can help.
  const Csr<T> N = from_dense<T>(2, {2, 0,  //
                                     0, -1});
  EXPECT_THROW_MSG(IncompleteFactorization<T>(N, cpu(IncompleteKind::Ic0)), MatrixError, "row 1");
}

TYPED_TEST(FactorCpu, Ilu0ZeroPivot) {
  using T = TypeParam;
  const Csr<T> A = from_dense<T>(3, {2, 0, 0,  //
                                     0, 1, 1,  //
                                     0, 1, 1});  // u_22 = 1 - 1 * 1 = 0
  IncompleteOptions fail = cpu(IncompleteKind::Ilu0);
  fail.on_breakdown = PivotBreakdown::Fail;
  EXPECT_THROW_MSG(IncompleteFactorization<T>(A, fail), MatrixError, "row 2 (pivot u_ii = 0");
  IncompleteFactorization<T> ilu(A, cpu(IncompleteKind::Ilu0));
  EXPECT_EQ(ilu.stats().shift, 1e-3);
  EXPECT_EQ(ilu.stats().attempts, 2);
  EXPECT_EQ(ilu.stats().breakdown_row, 2);
  test::expect_ilu0_property(A, 1e-3, ilu.factors());
  // A zero diagonal that no elimination fills: every shift breaks down.
  const Csr<T> Z = from_dense<T>(2, {0, 1,  //
                                     1, 0});
  EXPECT_EQ(Z.nnz(), 2);  // to_csr drops the zeros: the diagonal is missing...
  Csr<T> Zs = to_csr(Coo<T>{2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {T(0), T(1), T(1), T(0)}});  // ...so store it
  IncompleteOptions few = cpu(IncompleteKind::Ilu0);
  few.max_shifts = 3;
  EXPECT_THROW_MSG(IncompleteFactorization<T>(Zs, few), MatrixError, "every shift broke down: 3 restart(s)");
  EXPECT_THROW_MSG(IncompleteFactorization<T>(Zs, few), MatrixError, "unshifted, the first breakdown was at row 0");
  few.max_shifts = 0;
  EXPECT_THROW_MSG(IncompleteFactorization<T>(Zs, few), MatrixError, "every shift broke down: 0 restart(s)");
}

TYPED_TEST(FactorCpu, ReferenceReportsTheFirstBrokenRow) {
  using T = TypeParam;
  // Rows 1 and 3 both have zero pivots (stored zeros); the reference stops
  // at row 1 and leaves the pivot in its diagonal slot.
  Csr<T> A = to_csr(Coo<T>{4, 4, {0, 1, 1, 2, 3, 3}, {0, 0, 1, 2, 2, 3}, {T(1), T(1), T(0), T(2), T(3), T(0)}});
  ASSERT_EQ(A.nnz(), 6);
  std::vector<index_t> diag = {0, 2, 3, 5};
  std::vector<T> v = A.values;
  EXPECT_EQ(incomplete_factor_reference<T>(IncompleteKind::Ilu0, A, diag, v, 1e-12), 1);
  EXPECT_EQ(v[2], T(0));
  v = A.values;
  v[2] = T(1);  // row 1 sound: now row 3 (l_32 = 3 / 2, row 2 has no upper part: u_33 = 0)
  EXPECT_EQ(incomplete_factor_reference<T>(IncompleteKind::Ilu0, A, diag, v, 1e-12), 3);
  EXPECT_EQ(v[4], T(1.5));
  EXPECT_EQ(v[5], T(0));
  v = A.values;
  v[2] = T(1);
  EXPECT_EQ(incomplete_factor_reference<T>(IncompleteKind::Ilu0, A, diag, v, 2.0), 0);  // |u_00| <= 2 |a_00|
  // Input checks of the reference.
  std::vector<index_t> short_diag = {0, 2, 3};
  EXPECT_THROW(incomplete_factor_reference<T>(IncompleteKind::Ilu0, A, short_diag, std::span<T>(v), 1e-12), DimensionError);
  std::vector<index_t> wrong = {0, 1, 3, 5};
  EXPECT_THROW_MSG(incomplete_factor_reference<T>(IncompleteKind::Ilu0, A, wrong, std::span<T>(v), 1e-12), MatrixError,
                   "row 1");
}

// ---- input errors ----------------------------------------------------------------

TYPED_TEST(FactorCpu, BadInputIsNamed) {
  using T = TypeParam;
  for (const IncompleteKind kind : {IncompleteKind::Ilu0, IncompleteKind::Ic0}) {
    SCOPED_TRACE(to_string(kind));
    const Csr<T> rect = test::random_sparse<T>(4, 5, 0.5, 1);
    EXPECT_THROW_MSG(IncompleteFactorization<T>(rect, cpu(kind)), DimensionError, "square");
    Csr<T> A = laplacian_2d<T>(4, 4);
    Csr<T> missing = A;  // drop (2, 2)
    for (index_t k = missing.row_ptr[2]; k < missing.row_ptr[3]; ++k)
      if (missing.col_idx[k] == 2) {
        missing.col_idx.erase(missing.col_idx.begin() + k);
        missing.values.erase(missing.values.begin() + k);
        for (index_t i = 3; i <= missing.rows; ++i) --missing.row_ptr[i];
        break;
      }
    EXPECT_THROW_MSG(IncompleteFactorization<T>(missing, cpu(kind)), MatrixError, "missing diagonal entry at (row 2");
    Csr<T> nan = A;
    nan.values[7] = std::numeric_limits<T>::quiet_NaN();
    EXPECT_THROW_MSG(IncompleteFactorization<T>(nan, cpu(kind)), MatrixError, "NaN");
    Csr<T> inf = A;
    inf.values[3] = std::numeric_limits<T>::infinity();
    EXPECT_THROW_MSG(IncompleteFactorization<T>(inf, cpu(kind)), MatrixError, "Inf");
    Csr<T> unsorted = A;
    std::swap(unsorted.col_idx[0], unsorted.col_idx[1]);
    EXPECT_THROW(IncompleteFactorization<T>(unsorted, cpu(kind)), MatrixError);
    IncompleteOptions o = cpu(kind);
    o.pivot_tolerance = -1;
    EXPECT_THROW_MSG(IncompleteFactorization<T>(A, o), Error, "pivot_tolerance");
    o = cpu(kind);
    o.first_shift = 0;
    EXPECT_THROW_MSG(IncompleteFactorization<T>(A, o), Error, "first_shift");
    o = cpu(kind);
    o.max_shifts = -1;
    EXPECT_THROW_MSG(IncompleteFactorization<T>(A, o), Error, "max_shifts");
  }
}

TYPED_TEST(FactorCpu, EmptyMatrixAndDeviceErrors) {
  using T = TypeParam;
  const Csr<T> E{};
  IncompleteFactorization<T> f(E, cpu(IncompleteKind::Ilu0));
  EXPECT_EQ(f.rows(), 0);
  EXPECT_EQ(f.stats().levels, 0);
  EXPECT_EQ(f.factors().nnz(), 0);
  const Csr<T> A = laplacian_2d<T>(3, 3);
  IncompleteFactorization<T> ic(A, cpu(IncompleteKind::Ic0));
  EXPECT_THROW_MSG((void)ic.device_values(), Error, "Device::Cuda");
  EXPECT_THROW_MSG(ic.refactor(cuda::DeviceBuffer<T>{}), Error, "Device::Cuda");
  if (!cuda::available()) {
    EXPECT_THROW(IncompleteFactorization<T>(A, {.kind = IncompleteKind::Ic0, .device = Device::Cuda}), CudaError);
  }
  IncompleteFactorization<T> moved = std::move(ic);
  EXPECT_EQ(moved.rows(), 9);
  EXPECT_THROW_MSG((void)ic.stats(), Error, "moved from");
}

TYPED_TEST(FactorCpu, Ic0ReadsOnlyTheLowerTriangle) {
  using T = TypeParam;
  const Csr<T> A = random_spd<T>(200, 5, 2);
  Csr<T> B = A;  // same pattern, different upper values
  for (index_t i = 0; i < B.rows; ++i)
    for (index_t k = B.row_ptr[i]; k < B.row_ptr[i + 1]; ++k)
      if (B.col_idx[k] > i) B.values[k] = T(1000);
  EXPECT_EQ(IncompleteFactorization<T>(A, cpu(IncompleteKind::Ic0)).factors().values,
            IncompleteFactorization<T>(B, cpu(IncompleteKind::Ic0)).factors().values);
}

// ---- refactor ------------------------------------------------------------------------

TYPED_TEST(FactorCpu, RefactorAndKeepOnError) {
  using T = TypeParam;
  for (const IncompleteKind kind : {IncompleteKind::Ilu0, IncompleteKind::Ic0}) {
    SCOPED_TRACE(to_string(kind));
    const Csr<T> A = random_spd<T>(500, 6, 4);
    IncompleteOptions o = cpu(kind);
    o.on_breakdown = PivotBreakdown::Fail;
    IncompleteFactorization<T> f(A, o);
    // New values: A with its off-diagonals halved.
    Csr<T> A2 = A;
    for (index_t i = 0; i < A2.rows; ++i)
      for (index_t k = A2.row_ptr[i]; k < A2.row_ptr[i + 1]; ++k)
        if (A2.col_idx[k] != i) A2.values[k] /= T(2);
    f.refactor(A2.values);
    EXPECT_EQ(f.stats().factorizations, 2);
    const Csr<T> F2 = f.factors();
    EXPECT_EQ(f.pattern().values, F2.values);
    if (kind == IncompleteKind::Ilu0)
      test::expect_ilu0_property(A2, 0.0, F2);
    else
      test::expect_ic0_property(A2, 0.0, F2);
    const IncompleteStats before = f.stats();
    // A breakdown (Fail): flip the sign of the diagonal of row 7.
    Csr<T> bad = A2;
    for (index_t k = bad.row_ptr[7]; k < bad.row_ptr[8]; ++k)
      if (bad.col_idx[k] == 7) bad.values[k] = kind == IncompleteKind::Ic0 ? -bad.values[k] : T(0);
    if (kind == IncompleteKind::Ilu0) {  // a zero diagonal with a row 7 that has no lower part
      for (index_t k = bad.row_ptr[7]; k < bad.row_ptr[8]; ++k)
        if (bad.col_idx[k] < 7) bad.values[k] = T(0);
    }
    EXPECT_THROW_MSG(f.refactor(bad.values), MatrixError, "row 7");
    EXPECT_EQ(f.factors().values, F2.values);
    EXPECT_EQ(f.stats().factorizations, before.factorizations);
    EXPECT_EQ(f.stats().attempts, before.attempts);
    // NaN, named by row and column; wrong length.
    std::vector<T> nan = A2.values;
    nan[std::size_t(A2.row_ptr[5] + 1)] = std::numeric_limits<T>::quiet_NaN();
    EXPECT_THROW_MSG(f.refactor(nan), MatrixError, "NaN value at (row 5, column " + std::to_string(A2.col_idx[A2.row_ptr[5] + 1]));
    EXPECT_EQ(f.factors().values, F2.values);
    std::vector<T> shorter(A2.values.begin(), A2.values.end() - 1);
    EXPECT_THROW(f.refactor(shorter), DimensionError);
    EXPECT_EQ(f.factors().values, F2.values);
  }
}

// IC(0) of a matrix its owner has checked (detail::PrecheckedMatrix, as the
// Krylov solver builds it) keeps A's rows but not A's columns: a bad value
// is still named, by its column in the lower triangle, above it by its
// place in the row; the factors are the same.
TYPED_TEST(FactorCpu, PrecheckedIc0NamesEntriesWithoutTheColumnsOfA) {
  using T = TypeParam;
  const Csr<T> A = random_spd<T>(300, 6, 9);
  IncompleteFactorization<T> checked(A, cpu(IncompleteKind::Ic0));
  IncompleteFactorization<T> f(A, cpu(IncompleteKind::Ic0), detail::PrecheckedMatrix());
  EXPECT_EQ(f.factors().values, checked.factors().values);
  const index_t i = 17;
  index_t lower = A.row_ptr[i], upper = A.row_ptr[i + 1] - 1;
  ASSERT_LT(A.col_idx[lower], i);
  ASSERT_GT(A.col_idx[upper], i);
  index_t above = 0;  // upper's place among row i's entries right of the diagonal
  for (index_t k = A.row_ptr[i]; k < upper; ++k) above += A.col_idx[k] > i ? 1 : 0;
  std::vector<T> nan = A.values;
  nan[std::size_t(lower)] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(f.refactor(nan), MatrixError, "NaN value at (row 17, column " + std::to_string(A.col_idx[lower]) + ")");
  nan = A.values;
  nan[std::size_t(upper)] = std::numeric_limits<T>::infinity();
  EXPECT_THROW_MSG(f.refactor(nan), MatrixError, "Inf value at (row 17, entry " + std::to_string(above) + " above the diagonal)");
  EXPECT_EQ(f.factors().values, checked.factors().values);
  // New values: the same factors as the checked one's.
  std::vector<T> halved = A.values;
  for (T& v : halved) v /= T(2);
  f.refactor(halved);
  checked.refactor(halved);
  EXPECT_EQ(f.factors().values, checked.factors().values);
}

// Analysed from A's pattern alone (detail::ValuesLater, as the Krylov
// solver's GPU path builds it), on the CPU: no factors until the first
// refactor, a bad value named then, and afterwards the same factors as the
// factorisation built with values.
TYPED_TEST(FactorCpu, PatternFirstThenValues) {
  using T = TypeParam;
  const Csr<T> A = random_spd<T>(400, 6, 11);
  for (const IncompleteKind kind : {IncompleteKind::Ilu0, IncompleteKind::Ic0}) {
    SCOPED_TRACE(to_string(kind));
    const IncompleteFactorization<T> with(A, cpu(kind));
    const Csr<T> pattern{A.rows, A.cols, A.row_ptr, A.col_idx, {}};
    IncompleteFactorization<T> later(pattern, cpu(kind), detail::PrecheckedMatrix(), detail::ValuesLater());
    EXPECT_EQ(later.stats().factorizations, 0);
    EXPECT_THROW_MSG((void)later.factors(), Error, "no factors yet");
    EXPECT_THROW_MSG((void)later.pattern(), Error, "no factors yet");
    std::vector<T> nan = A.values;
    nan[std::size_t(A.row_ptr[9])] = std::numeric_limits<T>::quiet_NaN();
    EXPECT_THROW_MSG(later.refactor(nan), MatrixError, "NaN value at (row 9, column " + std::to_string(A.col_idx[A.row_ptr[9]]) + ")");
    EXPECT_EQ(later.stats().factorizations, 0);
    later.refactor(A.values);
    EXPECT_EQ(later.stats().factorizations, 1);
    EXPECT_EQ(later.factors().row_ptr, with.factors().row_ptr);
    EXPECT_EQ(later.factors().col_idx, with.factors().col_idx);
    EXPECT_EQ(later.factors().values, with.factors().values);
  }
}

}  // namespace
}  // namespace balsa
