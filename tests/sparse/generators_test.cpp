// Tests of balsa's structured generators (sparse/generators/generators.cpp,
// include/balsa/generators.hpp): grid Laplacians and their orderings, the
// chain and star triangles, the thesis' family Q Q^T, [L; I], and every
// generator against the library's own checks.
#include "balsa/generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "support/generator_checks.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using namespace generator_checks;

// ---- Laplacians --------------------------------------------------------------

// Every row: diagonal `diag`, -1 elsewhere; row sum = diag - (row length - 1) >= 0.
template <class T>
void expect_laplacian_rows(const Csr<T>& A, T diag) {
  for (index_t i = 0; i < A.rows; ++i) {
    ASSERT_EQ(entry(A, i, i), std::optional<T>(diag)) << "row " << i;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) {
        ASSERT_EQ(A.values[p], T(-1));
      }
    EXPECT_GE(diag - T(A.row_ptr[i + 1] - A.row_ptr[i] - 1), T(0));
  }
}

template <class T>
T row_sum(const Csr<T>& A, index_t i) {
  T s = 0;
  for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) s += A.values[p];
  return s;
}

TYPED_TEST(GeneratorsTyped, Laplacian2dStructure) {
  using T = TypeParam;
  const std::pair<index_t, index_t> sizes[] = {{1, 1}, {1, 7}, {6, 1}, {2, 2}, {5, 4}, {13, 9}, {40, 40}};
  for (auto [nx, ny] : sizes) {
    const auto A = laplacian_2d<T>(nx, ny);
    ASSERT_EQ(A.rows, nx * ny);
    ASSERT_EQ(A.cols, nx * ny);
    EXPECT_EQ(A.nnz(), 5 * nx * ny - 2 * nx - 2 * ny) << nx << "x" << ny;
    ASSERT_TRUE(canonical(A));
    EXPECT_TRUE(exactly_symmetric(A));
    expect_laplacian_rows(A, T(4));
    for (index_t y = 1; y + 1 < ny; ++y)
      for (index_t x = 1; x + 1 < nx; ++x) EXPECT_EQ(row_sum(A, x + nx * y), T(0));
  }
  // The natural 5-point pattern, spelled out for one interior point of a 4x3 grid.
  const auto A = laplacian_2d<T>(4, 3);
  const index_t p = 1 + 4 * 1;
  ASSERT_EQ(A.row_ptr[p + 1] - A.row_ptr[p], 5);
  const std::vector<index_t> cols(A.col_idx.begin() + A.row_ptr[p], A.col_idx.begin() + A.row_ptr[p + 1]);
  EXPECT_EQ(cols, (std::vector<index_t>{p - 4, p - 1, p, p + 1, p + 4}));
}

TYPED_TEST(GeneratorsTyped, Laplacian3dStructure) {
  using T = TypeParam;
  for (index_t n : {1, 2, 3, 6}) {
    const auto A7 = laplacian_3d<T>(n, n, n);
    EXPECT_EQ(A7.nnz(), 7 * n * n * n - 6 * n * n);
    const auto A27 = laplacian_3d<T>(n, n, n, Stencil3d::Point27);
    EXPECT_EQ(A27.nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
  }
  const index_t nx = 5, ny = 4, nz = 3;
  const auto A7 = laplacian_3d<T>(nx, ny, nz);
  const auto A27 = laplacian_3d<T>(nx, ny, nz, Stencil3d::Point27);
  EXPECT_EQ(A7.nnz(), 7 * nx * ny * nz - 2 * (ny * nz + nx * nz + nx * ny));
  EXPECT_EQ(A27.nnz(), (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
  for (const auto* A : {&A7, &A27}) {
    ASSERT_EQ(A->rows, nx * ny * nz);
    ASSERT_TRUE(canonical(*A));
    EXPECT_TRUE(exactly_symmetric(*A));
    expect_laplacian_rows(*A, A == &A7 ? T(6) : T(26));
    for (index_t z = 1; z + 1 < nz; ++z)
      for (index_t y = 1; y + 1 < ny; ++y)
        for (index_t x = 1; x + 1 < nx; ++x) EXPECT_EQ(row_sum(*A, x + nx * (y + ny * z)), T(0));
  }
  // A 3D grid with nz = 1 under the 7-point stencil has the 2D pattern.
  const auto flat = laplacian_3d<T>(7, 4, 1), two_d = laplacian_2d<T>(7, 4);
  EXPECT_EQ(flat.row_ptr, two_d.row_ptr);
  EXPECT_EQ(flat.col_idx, two_d.col_idx);
}

// perm[new] = old for the red-black ordering, computed here independently.
std::vector<index_t> red_black(index_t nx, index_t ny, index_t nz) {
  std::vector<index_t> even, odd;
  for (index_t z = 0; z < nz; ++z)
    for (index_t y = 0; y < ny; ++y)
      for (index_t x = 0; x < nx; ++x) ((x + y + z) % 2 == 0 ? even : odd).push_back(x + nx * (y + ny * z));
  even.insert(even.end(), odd.begin(), odd.end());
  return even;
}

// B(i, j) == A(perm[i], perm[j]) for every i, j (stored or not).
template <class T>
void expect_permuted(const Csr<T>& A, const Csr<T>& B, const std::vector<index_t>& perm) {
  ASSERT_EQ(B.rows, A.rows);
  ASSERT_EQ(B.nnz(), A.nnz());
  ASSERT_TRUE(canonical(B));
  EXPECT_TRUE(exactly_symmetric(B));
  for (index_t i = 0; i < B.rows; ++i)
    for (index_t j = 0; j < B.rows; ++j) ASSERT_EQ(entry(B, i, j), entry(A, perm[i], perm[j])) << i << "," << j;
}

TYPED_TEST(GeneratorsTyped, OrderingsArePermutationsOfNatural) {
  using T = TypeParam;
  const auto A2 = laplacian_2d<T>(7, 5);
  expect_permuted(A2, laplacian_2d<T>(7, 5, GridOrdering::RedBlack), red_black(7, 5, 1));
  expect_permuted(A2, laplacian_2d<T>(7, 5, GridOrdering::Random, 17), random_permutation(35, 17));
  for (auto st : {Stencil3d::Point7, Stencil3d::Point27}) {
    const auto A3 = laplacian_3d<T>(4, 3, 3, st);
    expect_permuted(A3, laplacian_3d<T>(4, 3, 3, st, GridOrdering::RedBlack), red_black(4, 3, 3));
    expect_permuted(A3, laplacian_3d<T>(4, 3, 3, st, GridOrdering::Random, 5), random_permutation(36, 5));
  }
  EXPECT_FALSE(identical(laplacian_2d<T>(7, 5, GridOrdering::Random, 1),
                         laplacian_2d<T>(7, 5, GridOrdering::Random, 2)));
}

TEST(Laplacian, RedBlackHasNoEdgesWithinAColour) {
  const auto check = [](const Csr<double>& A, index_t n_red) {
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
        const index_t j = A.col_idx[p];
        if (j != i) {
          ASSERT_NE(i < n_red, j < n_red) << "edge " << i << "-" << j << " within a colour";
        }
      }
  };
  check(laplacian_2d<double>(9, 6, GridOrdering::RedBlack), 27);
  check(laplacian_2d<double>(5, 5, GridOrdering::RedBlack), 13);
  check(laplacian_3d<double>(5, 3, 3, Stencil3d::Point7, GridOrdering::RedBlack), 23);
}

TEST(Laplacian, ThreadCountIndependent) {
  expect_thread_independent(
      [] { return laplacian_3d<double>(23, 17, 9, Stencil3d::Point27, GridOrdering::Random, 4); });
  expect_thread_independent([] { return laplacian_2d<float>(101, 37, GridOrdering::RedBlack); });
}

TEST(Laplacian, BadArgumentsAndOverflow) {
  EXPECT_THROW_MSG(laplacian_2d<double>(0, 5), Error, "nx must be positive");
  EXPECT_THROW_MSG(laplacian_2d<double>(5, -1), Error, "ny must be positive");
  EXPECT_THROW_MSG(laplacian_3d<double>(5, 5, 0), Error, "nz must be positive");
  EXPECT_THROW_MSG(laplacian_3d<double>(2000, 2000, 2000), IndexOverflow, "nx*ny*nz");
  EXPECT_THROW_MSG(laplacian_2d<float>(50000, 50000), IndexOverflow, "nx*ny");
  // The grid fits, the nonzeros do not: caught before anything is allocated.
  EXPECT_THROW_MSG(laplacian_2d<float>(46000, 46000), IndexOverflow, "laplacian_2d: number of nonzeros");
  EXPECT_THROW_MSG(laplacian_3d<float>(1000, 1000, 1000, Stencil3d::Point27), IndexOverflow, "number of nonzeros");
  EXPECT_THROW_MSG(laplacian_3d<float>(1000, 1000, 400), IndexOverflow, "number of nonzeros");
}

// Level of each row in the dependency DAG of a lower-triangular matrix.
template <class T>
index_t level_count(const Csr<T>& A) {
  std::vector<index_t> level(std::size_t(A.rows), 0);
  index_t most = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] < i) level[i] = std::max(level[i], level[A.col_idx[p]] + 1);
    most = std::max(most, level[i] + 1);
  }
  return most;
}

TYPED_TEST(GeneratorsTyped, ChainAndStar) {
  using T = TypeParam;
  const auto chain = chain_lower<T>(10), star = star_lower<T>(10);
  for (const auto* A : {&chain, &star}) {
    ASSERT_TRUE(canonical(*A));
    ASSERT_TRUE(lower_triangular(*A));
    EXPECT_EQ(A->nnz(), 19);
    for (index_t i = 0; i < 10; ++i) EXPECT_EQ(entry(*A, i, i), std::optional<T>(T(2)));
  }
  for (index_t i = 1; i < 10; ++i) {
    EXPECT_EQ(entry(chain, i, i - 1), std::optional<T>(T(-1)));
    EXPECT_EQ(entry(star, i, 0), std::optional<T>(T(-1)));
  }
  EXPECT_EQ(level_count(chain), 10);
  EXPECT_EQ(level_count(star), 2);
  EXPECT_EQ(chain_lower<T>(1).nnz(), 1);
  EXPECT_EQ(star_lower<T>(0).rows, 0);
  EXPECT_EQ(star_lower<T>(0).nnz(), 0);
}

TEST(Generators, AgreeWithLibraryChecks) {
  const std::vector<Csr<double>> symmetric = {
      laplacian_2d<double>(9, 7, GridOrdering::Random, 3),
      laplacian_3d<double>(5, 4, 3, Stencil3d::Point27, GridOrdering::RedBlack), random_spd<double>(300, 6, 2)};
  for (const auto& A : symmetric) {
    EXPECT_TRUE(is_canonical(A));
    EXPECT_TRUE(identical(transpose(A), A));
  }
  const std::vector<Csr<double>> lower = {random_lower_banded<double>(300, 40, 5),
                                          random_block_diagonal_lower<double>(3, 100, 0.1), chain_lower<double>(9),
                                          star_lower<double>(9)};
  for (const auto& L : lower) {
    EXPECT_TRUE(is_canonical(L));
    EXPECT_TRUE(is_triangular(L, Triangle::Lower));
    EXPECT_TRUE(inspect_diagonal(L).ok());
  }
}

// The thesis' family A = Q Q^T against a dense product, and its symmetry.
TEST(Generators, ThesisBandedSpdIsQTimesQTransposed) {
  const index_t n = 40, w = 10;
  const double mu = 0.3;
  const Csr<double> A = thesis_banded_spd<double>(n, mu, w);
  DenseMatrix<double> Q(n, n);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      const index_t d = j - i;
      Q(i, j) = (d >= -1 && d <= 1) ? 1.0 : (d == w || d == -w) ? mu : 0.0;
    }
  const DenseMatrix<double> D = to_dense(A);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      double s = 0;
      for (index_t k = 0; k < n; ++k) s += Q(i, k) * Q(j, k);
      EXPECT_NEAR(D(i, j), s, 1e-14) << i << "," << j;
    }
  EXPECT_EQ(A.nnz(), transpose(A).nnz());
  EXPECT_THROW(thesis_banded_spd<double>(10, 0.1, 1), DimensionError);
}

// [L; I]: L's rows as laplacian_2d's, then one unit entry per column.
TEST(Generators, LaplacianOverIdentity) {
  const Csr<double> L = laplacian_2d<double>(7, 5), A = laplacian_2d_over_identity<double>(7, 5);
  ASSERT_EQ(A.rows, 70);
  ASSERT_EQ(A.cols, 35);
  ASSERT_EQ(A.nnz(), L.nnz() + 35);
  EXPECT_TRUE(is_canonical(A));
  EXPECT_TRUE(std::equal(L.row_ptr.begin(), L.row_ptr.end(), A.row_ptr.begin()));
  EXPECT_TRUE(std::equal(L.values.begin(), L.values.end(), A.values.begin()));
  for (index_t i = 0; i < 35; ++i) {
    const index_t a = A.row_ptr[35 + i];
    EXPECT_EQ(A.row_ptr[36 + i] - a, 1);
    EXPECT_EQ(A.col_idx[std::size_t(a)], i);
    EXPECT_EQ(A.values[std::size_t(a)], 1.0);
  }
}

}  // namespace
}  // namespace balsa
