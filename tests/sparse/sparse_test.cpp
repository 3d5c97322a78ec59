// Sparse core: validation, conversions, transpose, permutations, triangles,
// diagonal and value checks, CPU SpMV.
#include <cmath>

#include "balsa/generators.hpp"
#include "balsa/sparse.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using test::random_sparse;

// 3 x 4 example:  [1 0 2 0; 0 0 0 3; 4 5 0 6]
template <class T>
Csr<T> example() {
  Csr<T> A;
  A.rows = 3;
  A.cols = 4;
  A.row_ptr = {0, 2, 3, 6};
  A.col_idx = {0, 2, 3, 0, 1, 3};
  A.values = {1, 2, 3, 4, 5, 6};
  return A;
}

template <class T>
class SparseTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseTyped, ValueTypes);

TYPED_TEST(SparseTyped, CooToCsrSortsAndSumsDuplicates) {
  using T = TypeParam;
  Coo<T> c;
  c.rows = 2;
  c.cols = 3;
  c.row_idx = {1, 0, 1, 0, 1};
  c.col_idx = {2, 1, 0, 1, 2};
  c.values = {1, 2, 3, 4, 5};
  const Csr<T> A = to_csr(c);
  EXPECT_EQ(A.row_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(A.col_idx, (std::vector<index_t>{1, 0, 2}));
  EXPECT_EQ(A.values, (std::vector<T>{6, 3, 6}));
  EXPECT_TRUE(is_canonical(A));
}

TYPED_TEST(SparseTyped, RoundTripsThroughEveryFormat) {
  using T = TypeParam;
  const Csr<T> A = random_sparse<T>(37, 53, 0.1, 7);
  ASSERT_TRUE(is_canonical(A));
  const Csr<T> via_coo = to_csr(to_coo(A));
  EXPECT_EQ(via_coo.row_ptr, A.row_ptr);
  EXPECT_EQ(via_coo.col_idx, A.col_idx);
  EXPECT_EQ(via_coo.values, A.values);
  for (const Csr<T>& B : {to_csr(to_csc(A)), to_csr(to_dense(A))}) {
    EXPECT_EQ(B.rows, A.rows);
    EXPECT_EQ(B.cols, A.cols);
    EXPECT_EQ(B.row_ptr, A.row_ptr);
    EXPECT_EQ(B.col_idx, A.col_idx);
    EXPECT_EQ(B.values, A.values);
  }
}

TYPED_TEST(SparseTyped, CscHoldsColumns) {
  using T = TypeParam;
  const Csc<T> C = to_csc(example<T>());
  EXPECT_EQ(C.col_ptr, (std::vector<index_t>{0, 2, 3, 4, 6}));
  EXPECT_EQ(C.row_idx, (std::vector<index_t>{0, 2, 2, 0, 1, 2}));
  EXPECT_EQ(C.values, (std::vector<T>{1, 4, 5, 2, 3, 6}));
}

TYPED_TEST(SparseTyped, TransposeMatchesDense) {
  using T = TypeParam;
  const Csr<T> A = random_sparse<T>(20, 31, 0.15, 3);
  const DenseMatrix<T> D = to_dense(A), Dt = to_dense(transpose(A));
  ASSERT_EQ(Dt.rows, 31);
  ASSERT_EQ(Dt.cols, 20);
  for (index_t i = 0; i < 20; ++i)
    for (index_t j = 0; j < 31; ++j) EXPECT_EQ(D(i, j), Dt(j, i));
  EXPECT_TRUE(is_canonical(transpose(A)));
}

TYPED_TEST(SparseTyped, SymmetricPermutationMovesEntries) {
  using T = TypeParam;
  const Csr<T> A = random_sparse<T>(40, 40, 0.1, 11);
  const std::vector<index_t> p = random_permutation(40, 5);
  const Csr<T> B = permute_symmetric(A, p);
  EXPECT_TRUE(is_canonical(B));
  const DenseMatrix<T> DA = to_dense(A), DB = to_dense(B);
  for (index_t i = 0; i < 40; ++i)
    for (index_t j = 0; j < 40; ++j) EXPECT_EQ(DB(i, j), DA(p[i], p[j]));
  // Undoing with the inverse gives A back.
  const Csr<T> C = permute_symmetric(B, inverse_permutation(p));
  EXPECT_EQ(C.col_idx, A.col_idx);
  EXPECT_EQ(C.values, A.values);
}

TYPED_TEST(SparseTyped, NonsymmetricPermutation) {
  using T = TypeParam;
  const Csr<T> A = random_sparse<T>(25, 30, 0.2, 2);
  const auto rp = random_permutation(25, 1), cp = random_permutation(30, 2);
  const DenseMatrix<T> DA = to_dense(A), DB = to_dense(permute(A, rp, cp));
  for (index_t i = 0; i < 25; ++i)
    for (index_t j = 0; j < 30; ++j) EXPECT_EQ(DB(i, j), DA(rp[i], cp[j]));
  const std::vector<T> x = random_vector<T>(25, 9);
  const std::vector<T> y = permute_vector(std::span<const T>(x), std::span<const index_t>(rp));
  for (index_t i = 0; i < 25; ++i) EXPECT_EQ(y[i], x[rp[i]]);
}

TEST(Permutation, BadPermutationsAreErrors) {
  const std::vector<index_t> repeated{0, 1, 1}, outside{0, 3, 1}, short_one{0, 1};
  EXPECT_THROW_MSG(check_permutation(repeated, 3), MatrixError, "repeats 1");
  EXPECT_THROW_MSG(check_permutation(outside, 3), MatrixError, "entry 1 = 3");
  EXPECT_THROW_MSG(check_permutation(short_one, 3), DimensionError, "2 entries, expected 3");
  EXPECT_THROW_MSG(permute_symmetric(example<double>(), std::vector<index_t>{0, 1, 2}), DimensionError, "square");
}

TYPED_TEST(SparseTyped, TrianglesSplitTheMatrix) {
  using T = TypeParam;
  const Csr<T> A = random_sparse<T>(50, 50, 0.1, 4);
  const Csr<T> L = extract_triangle(A, Triangle::Lower), U = extract_triangle(A, Triangle::Upper, Diag::Exclude);
  const Csr<T> Ls = extract_triangle(A, Triangle::Lower, Diag::Exclude);
  EXPECT_TRUE(is_triangular(L, Triangle::Lower));
  EXPECT_TRUE(is_triangular(U, Triangle::Upper));
  EXPECT_FALSE(is_triangular(A, Triangle::Lower));
  EXPECT_EQ(L.nnz() + U.nnz(), A.nnz());
  for (index_t i = 0; i < Ls.rows; ++i)
    for (index_t k = Ls.row_ptr[i]; k < Ls.row_ptr[i + 1]; ++k) EXPECT_LT(Ls.col_idx[k], i);
  const DenseMatrix<T> D = to_dense(A), DL = to_dense(L);
  for (index_t i = 0; i < 50; ++i)
    for (index_t j = 0; j < 50; ++j) EXPECT_EQ(DL(i, j), j <= i ? D(i, j) : T(0));
}

TEST(Triangle, NonTriangularInputNamesTheEntry) {
  Csr<double> A = example<double>();  // entry (0, 2) is above the diagonal
  EXPECT_THROW_MSG(require_triangular(A, Triangle::Lower), MatrixError, "(row 0, column 2) is above");
  EXPECT_THROW_MSG(require_triangular(A, Triangle::Upper), MatrixError, "(row 2, column 0) is below");
}

TEST(Diagonal, MissingAndZeroDiagonalsAreFound) {
  Csr<double> A;
  A.rows = A.cols = 4;
  A.row_ptr = {0, 1, 2, 4, 5};
  A.col_idx = {0, 0, 1, 2, 2};  // row 1 has no diagonal; row 3 has none either
  A.values = {2, 1, 1, 0, 1};   // row 2's diagonal is zero
  const DiagonalReport r = inspect_diagonal(A);
  EXPECT_EQ(r.missing, 2);
  EXPECT_EQ(r.first_missing, 1);
  EXPECT_EQ(r.zero, 1);
  EXPECT_EQ(r.first_zero, 2);
  EXPECT_THROW_MSG(require_nonzero_diagonal(A), MatrixError, "missing diagonal entry at (row 1, column 1)");
  A.col_idx = {0, 1, 1, 2, 3};  // now only the zero at row 2
  A.values = {2, 1, 1, 0, 1};
  EXPECT_THROW_MSG(require_nonzero_diagonal(A), MatrixError, "zero diagonal entry at (row 2, column 2)");
  EXPECT_EQ(diagonal(A), (std::vector<double>{2, 1, 0, 1}));
}

TEST(Values, NaNAndInfAreNamed) {
  Csr<double> A = example<double>();
  EXPECT_NO_THROW(require_finite(A));
  A.values[4] = std::nan("");
  EXPECT_THROW_MSG(require_finite(A), MatrixError, "NaN value at (row 2, column 1)");
  A.values[4] = INFINITY;
  EXPECT_THROW_MSG(require_finite(A), MatrixError, "Inf value at (row 2, column 1)");
  std::vector<float> x{1, 2, -INFINITY};
  EXPECT_THROW_MSG(require_finite(std::span<const float>(x), "b"), Error, "Inf in b at index 2");
}

TEST(Validate, MalformedArraysAreErrorsNotCrashes) {
  Csr<double> A = example<double>();
  A.col_idx[2] = 4;
  EXPECT_THROW_MSG(validate(A), MatrixError, "row 1 has column index 4 outside [0, 4)");
  A = example<double>();
  A.row_ptr = {0, 3, 2, 6};
  EXPECT_THROW_MSG(validate(A), MatrixError, "decreases at row 1");
  A = example<double>();
  A.row_ptr = {0, 100, 2, 6};  // row 0 would run past the index array
  EXPECT_THROW_MSG(validate(A), MatrixError, "decreases at row 1");
  A.row_ptr = {0, 2, 3, 7};
  EXPECT_THROW_MSG(validate(A), MatrixError, "ends at 7 but there are 6 indices");
  EXPECT_THROW_MSG(is_triangular(A, Triangle::Lower), MatrixError, "ends at 7");
  A = example<double>();
  A.values.pop_back();
  EXPECT_THROW_MSG(validate(A), MatrixError, "6 indices and 5 values");
  A = example<double>();
  A.row_ptr.pop_back();
  EXPECT_THROW_MSG(validate(A), MatrixError, "pointer array has 3 entries, expected 4");
  A = example<double>();
  std::swap(A.col_idx[0], A.col_idx[1]);
  EXPECT_NO_THROW(validate(A));
  EXPECT_THROW_MSG(validate(A, true), MatrixError, "not strictly increasing");
  A = Csr<double>{};
  A.rows = A.cols = 3;
  EXPECT_THROW_MSG(to_csc(A), MatrixError, "pointer array");
  Coo<double> c{2, 2, {0, 2}, {0, 0}, {1, 1}};
  EXPECT_THROW_MSG(to_csr(c), MatrixError, "entry 1 at (2, 0) is outside");
}

TEST(Index, OverflowIsAClearError) {
  EXPECT_THROW_MSG(DenseMatrix<double>(70000, 70000), IndexOverflow, "dense matrix entries (rows * columns)");
  EXPECT_EQ(checked_index(2147483647LL, "n"), 2147483647);
  EXPECT_THROW_MSG(checked_index(2147483648LL, "rows"), IndexOverflow, "rows = 2147483648 does not fit");
  EXPECT_THROW_MSG(checked_index(-1, "rows"), Error, "negative");
}

TYPED_TEST(SparseTyped, SpmvMatchesDense) {
  using T = TypeParam;
  const Csr<T> A = random_sparse<T>(300, 200, 0.05, 8);
  const std::vector<T> x = random_vector<T>(200, 1);
  std::vector<T> y = random_vector<T>(300, 2);
  const std::vector<T> y0 = y;
  spmv(T(2), A, std::span<const T>(x), T(-0.5), std::span<T>(y));
  const DenseMatrix<T> D = to_dense(A);
  std::vector<double> ref(300);
  for (index_t i = 0; i < 300; ++i) {
    double s = 0;
    for (index_t j = 0; j < 200; ++j) s += double(D(i, j)) * double(x[j]);
    ref[i] = 2 * s - 0.5 * double(y0[i]);
  }
  std::vector<T> got(y.begin(), y.end());
  std::vector<T> ref_t(ref.begin(), ref.end());
  EXPECT_TRUE(test::matches<T>(got, ref_t, test::tolerance<T>()));
  // beta = 0 must not read y (NaN in y is fine).
  test::poison(y);
  spmv(T(1), A, std::span<const T>(x), T(0), std::span<T>(y));
  for (const T v : y) EXPECT_FALSE(std::isnan(v));
}

TEST(Spmv, WrongLengthsAreErrors) {
  const Csr<double> A = example<double>();
  std::vector<double> x(3), y(3);
  EXPECT_THROW_MSG(spmv(1.0, A, std::span<const double>(x), 0.0, std::span<double>(y)), DimensionError,
                   "x has length 3, expected 4");
  const std::vector<double> x4(4), b2(2);
  EXPECT_THROW_MSG(relative_residual(A, std::span<const double>(x4), std::span<const double>(b2)), DimensionError,
                   "b has length 2, expected 3");
}

TEST(Convert, PrecisionChangeKeepsPattern) {
  const Csr<double> A = random_sparse<double>(30, 30, 0.1, 1);
  const Csr<float> F = convert_values<float>(A);
  EXPECT_EQ(F.col_idx, A.col_idx);
  for (std::size_t k = 0; k < A.values.size(); ++k) EXPECT_EQ(F.values[k], float(A.values[k]));
}

}  // namespace
}  // namespace balsa
