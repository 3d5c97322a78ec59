// The serial triangular solve (the oracle of every triangular solver).
#include <cmath>

#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

template <class T>
class TrsvReference : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrsvReference, ValueTypes);

// x = A^{-1} b checked by the residual, which the solve does not compute.
template <class T>
void expect_solves(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  const std::vector<T> x_true = random_vector<T>(A.rows, 3);
  // b = (off-diagonal part + diagonal the solver assumes) x_true.
  std::vector<T> b = multiply(extract_triangle(A, tri, Diag::Exclude), std::span<const T>(x_true));
  const std::vector<T> d = diagonal(A);
  for (index_t i = 0; i < A.rows; ++i) b[i] += (diag == DiagonalKind::Unit ? T(1) : d[i]) * x_true[i];
  std::vector<T> x = test::poisoned<T>(b.size());
  trsv_reference(A, tri, diag, std::span<const T>(b), std::span<T>(x));
  EXPECT_LT(test::relative_error<T>(x, x_true), test::tolerance<T>(1000)) << "n = " << A.rows;
}

TYPED_TEST(TrsvReference, LowerAndUpperUnitAndNonUnit) {
  using T = TypeParam;
  const Csr<T> L = random_lower_banded<T>(2000, 30, 4, 5);
  expect_solves(L, Triangle::Lower, DiagonalKind::NonUnit);
  expect_solves(transpose(L), Triangle::Upper, DiagonalKind::NonUnit);
  // Unit: off-diagonals scaled down so the unit-diagonal system stays well conditioned.
  Csr<T> Ls = L;
  for (index_t i = 0; i < Ls.rows; ++i)
    for (index_t k = Ls.row_ptr[i]; k < Ls.row_ptr[i + 1]; ++k)
      if (Ls.col_idx[k] != i) Ls.values[k] *= T(0.1);
  expect_solves(Ls, Triangle::Lower, DiagonalKind::Unit);
  expect_solves(extract_triangle(Ls, Triangle::Lower, Diag::Exclude), Triangle::Lower, DiagonalKind::Unit);
}

TYPED_TEST(TrsvReference, LaplacianFactorsAndRealMatrices) {
  using T = TypeParam;
  expect_solves(extract_triangle(laplacian_3d<T>(12, 10, 8), Triangle::Lower), Triangle::Lower, DiagonalKind::NonUnit);
  expect_solves(extract_triangle(laplacian_2d<T>(40, 30), Triangle::Upper), Triangle::Upper, DiagonalKind::NonUnit);
  // bcsstk13's lower triangle (SPD, so a nonzero diagonal).
  const Csr<T> L = extract_triangle(read_matrix_market_csr<T>(test::data_file("bcsstk13.mtx")), Triangle::Lower);
  // Well-conditioned only after scaling rows by their diagonal; the residual test copes.
  const std::vector<T> x_true = random_vector<T>(L.rows, 1);
  const std::vector<T> b = multiply(L, std::span<const T>(x_true));
  std::vector<T> x(b.size());
  trsv_reference(L, Triangle::Lower, DiagonalKind::NonUnit, std::span<const T>(b), std::span<T>(x));
  EXPECT_LT(relative_residual(L, std::span<const T>(x), std::span<const T>(b)), test::tolerance<T>(100));
}

TEST(TrsvReferenceErrors, BadInputIsNamed) {
  Csr<double> L = random_lower_banded<double>(50, 5, 2, 1);
  std::vector<double> b(50, 1.0), x(50);
  auto solve = [&](const Csr<double>& A, DiagonalKind d = DiagonalKind::NonUnit) {
    trsv_reference(A, Triangle::Lower, d, std::span<const double>(b), std::span<double>(x));
  };
  EXPECT_THROW_MSG(trsv_reference(L, Triangle::Upper, DiagonalKind::NonUnit, std::span<const double>(b),
                                  std::span<double>(x)),
                   MatrixError, "not upper triangular");
  Csr<double> Z = L;
  Z.values[Z.row_ptr[8 + 1] - 1] = 0.0;  // row 8's diagonal (last in the sorted row)
  EXPECT_THROW_MSG(solve(Z), MatrixError, "zero diagonal entry at (row 8, column 8)");
  EXPECT_NO_THROW(solve(Z, DiagonalKind::Unit));
  const Csr<double> strict = extract_triangle(L, Triangle::Lower, Diag::Exclude);
  EXPECT_THROW_MSG(solve(strict), MatrixError, "missing diagonal entry at (row 0, column 0)");
  Csr<double> N = L;
  N.values[10] = std::nan("");
  EXPECT_THROW_MSG(solve(N), MatrixError, "NaN value at");
  b[7] = INFINITY;
  EXPECT_THROW_MSG(solve(L), Error, "Inf in right-hand side at index 7");
  b[7] = 1.0;
  x.resize(49);
  EXPECT_THROW_MSG(solve(L), DimensionError, "x 49 entries");
  Csr<double> R = L;
  R.cols = 51;
  EXPECT_THROW_MSG(solve(R), DimensionError, "square");
}

}  // namespace
}  // namespace balsa
