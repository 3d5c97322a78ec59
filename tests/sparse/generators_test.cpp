// Tests of balsa's generators (include/balsa/generators.hpp): the random
// number generator, grid Laplacians and their orderings, and the random and
// structured test matrices.
#include "balsa/generators.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "support/test_support.hpp"

namespace balsa {
namespace {

// ---- helpers (independent of the library's own checks) ---------------------

template <class T>
bool canonical(const Csr<T>& A) {
  if (A.row_ptr.size() != std::size_t(A.rows) + 1 || A.row_ptr[0] != 0) return false;
  if (A.col_idx.size() != std::size_t(A.nnz()) || A.values.size() != std::size_t(A.nnz())) return false;
  for (index_t i = 0; i < A.rows; ++i) {
    if (A.row_ptr[i + 1] < A.row_ptr[i]) return false;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      if (A.col_idx[p] < 0 || A.col_idx[p] >= A.cols) return false;
      if (p > A.row_ptr[i] && A.col_idx[p] <= A.col_idx[p - 1]) return false;
    }
  }
  return true;
}

// A(i, j), or nothing when not stored (A canonical).
template <class T>
std::optional<T> entry(const Csr<T>& A, index_t i, index_t j) {
  const auto first = A.col_idx.begin() + A.row_ptr[i], last = A.col_idx.begin() + A.row_ptr[i + 1];
  const auto it = std::lower_bound(first, last, j);
  if (it == last || *it != j) return std::nullopt;
  return A.values[std::size_t(it - A.col_idx.begin())];
}

template <class T>
bool exactly_symmetric(const Csr<T>& A) {
  if (A.rows != A.cols) return false;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const auto t = entry(A, A.col_idx[p], i);
      if (!t || *t != A.values[p]) return false;
    }
  return true;
}

template <class T>
bool identical(const Csr<T>& A, const Csr<T>& B) {
  return A.rows == B.rows && A.cols == B.cols && A.row_ptr == B.row_ptr && A.col_idx == B.col_idx &&
         A.values == B.values;
}

template <class T>
bool lower_triangular(const Csr<T>& A) {
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] > i) return false;
  return true;
}

// Sum of |a_ij|, j != i, in column order and double (as the generators do).
template <class T>
double off_diagonal_abs_sum(const Csr<T>& A, index_t i) {
  double s = 0.0;
  for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
    if (A.col_idx[p] != i) s += std::abs(double(A.values[p]));
  return s;
}

// The matrix built with 1 thread and with 3 threads (uneven split on any machine).
template <class F>
void expect_thread_independent(F make) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto a = make();
  omp_set_num_threads(3);
  const auto b = make();
  omp_set_num_threads(saved);
  EXPECT_TRUE(identical(a, b));
}

template <class T>
class GeneratorsTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GeneratorsTyped, ValueTypes);

// ---- Random ------------------------------------------------------------------
// Pinned values computed once with an independent Python implementation of
// splitmix64 / xoshiro256** / Lemire's method.

TEST(Random, PinnedOutputs) {
  Random r0(0);
  EXPECT_EQ(r0.next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(r0.next(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(r0.next(), 0x1a5f849d4933e6e0ULL);
  EXPECT_EQ(r0.next(), 0x6aa594f1262d2d2cULL);
  Random r42(42);
  EXPECT_EQ(r42.next(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(r42.next(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(r42.next(), 0xae17533239e499a1ULL);
  EXPECT_EQ(r42.next(), 0xecb8ad4703b360a1ULL);
  Random u(42);
  EXPECT_EQ(u.uniform(), 0.08386297105988216);
  EXPECT_EQ(u.uniform(), 0.3789802506626686);
  EXPECT_EQ(u.uniform(), 0.6800434110281394);
  Random v(42);  // uniform(lo, hi) = lo + (hi - lo) * uniform()
  EXPECT_EQ(v.uniform(-1.0, 1.0), -1.0 + 2.0 * 0.08386297105988216);
  EXPECT_EQ(v.uniform(10.0, 14.0), 10.0 + 4.0 * 0.3789802506626686);
  Random b(7);
  const std::vector<std::uint64_t> small = {7, 2, 8, 9, 9, 8, 0, 1, 4, 1};
  for (auto expected : small) EXPECT_EQ(b.below(10), expected);
  const std::uint64_t big = 4052555153018976267ULL;  // 3^39
  EXPECT_EQ(b.below(big), 2193922051134236161ULL);
  EXPECT_EQ(b.below(big), 2965895748241931381ULL);
  EXPECT_EQ(b.below(big), 3805209875582465419ULL);
  EXPECT_EQ(random_permutation(10, 1), (std::vector<index_t>{3, 6, 1, 5, 0, 9, 2, 8, 4, 7}));
}

TEST(Random, SameSeedSameStreamDifferentSeedDifferent) {
  Random a(123), b(123), c(124);
  bool differs = false;
  for (int k = 0; k < 100; ++k) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(Random, BelowStaysInRangeAndIsUniform) {
  Random r(5);
  const std::uint64_t ns[] = {1, 2, 3, 7, 1000, (1ULL << 63) + 1, std::numeric_limits<std::uint64_t>::max()};
  for (auto n : ns)
    for (int k = 0; k < 2000; ++k) ASSERT_LT(r.below(n), n) << "n = " << n;
  for (int k = 0; k < 100; ++k) EXPECT_EQ(r.below(1), 0u);
  std::vector<int> counts(6, 0);
  const int draws = 600000;
  for (int k = 0; k < draws; ++k) ++counts[r.below(6)];
  for (int c : counts) EXPECT_NEAR(c, draws / 6, 1000);  // ~ 3.4 sigma
  EXPECT_THROW_MSG(r.below(0), Error, "positive");
}

TEST(Random, UniformRangeAndMean) {
  Random r(9);
  double sum = 0.0;
  const int draws = 1000000;
  for (int k = 0; k < draws; ++k) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / draws, 0.5, 0.002);
  for (int k = 0; k < 10000; ++k) {
    const double v = r.uniform(-3.0, 2.0);
    ASSERT_GE(v, -3.0);
    ASSERT_LT(v, 2.0);
  }
}

TEST(Random, Permutation) {
  for (index_t n : {0, 1, 2, 10, 1000}) {
    auto p = random_permutation(n, 3);
    ASSERT_EQ(p.size(), std::size_t(n));
    EXPECT_EQ(p, random_permutation(n, 3));
    std::sort(p.begin(), p.end());
    for (index_t i = 0; i < n; ++i) EXPECT_EQ(p[i], i);
  }
  EXPECT_NE(random_permutation(1000, 3), random_permutation(1000, 4));
  EXPECT_THROW_MSG(random_permutation(-1, 3), Error, "n must be non-negative");
}

TYPED_TEST(GeneratorsTyped, RandomVector) {
  using T = TypeParam;
  const auto x = random_vector<T>(10000, 11, -2.0, 5.0);
  ASSERT_EQ(x.size(), 10000u);
  for (T v : x) {
    EXPECT_GE(v, T(-2));
    EXPECT_LT(v, T(5));
  }
  EXPECT_EQ(x, random_vector<T>(10000, 11, -2.0, 5.0));
  EXPECT_NE(x, random_vector<T>(10000, 12, -2.0, 5.0));
  EXPECT_EQ(random_vector<T>(0, 1).size(), 0u);
  EXPECT_THROW_MSG(random_vector<T>(-5, 1), Error, "n must be non-negative");
  EXPECT_THROW_MSG(random_vector<T>(5, 1, 1.0, 1.0), Error, "lo < hi");
}

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

// ---- triangular generators ---------------------------------------------------

// Lower triangular, canonical, diagonal last in each row and 1 + sum |l_ij|.
template <class T>
void expect_dominant_lower(const Csr<T>& A) {
  ASSERT_TRUE(canonical(A));
  ASSERT_TRUE(lower_triangular(A));
  for (index_t i = 0; i < A.rows; ++i) {
    const index_t last = A.row_ptr[i + 1] - 1;
    ASSERT_GE(last, A.row_ptr[i]);
    ASSERT_EQ(A.col_idx[last], i);
    const double off = off_diagonal_abs_sum(A, i);
    ASSERT_EQ(A.values[last], static_cast<T>(1.0 + off)) << "row " << i;
    ASSERT_GT(double(A.values[last]), off);
    for (index_t p = A.row_ptr[i]; p < last; ++p) {
      ASSERT_GE(A.values[p], T(-1));
      ASSERT_LT(A.values[p], T(1));
    }
  }
}

TYPED_TEST(GeneratorsTyped, RandomLowerBandedCounts) {
  using T = TypeParam;
  struct Case { index_t rows, window, per_row; };
  for (auto c : {Case{500, 20, 8}, Case{300, 20, 15}, Case{300, 20, 30}, Case{200, 0, 5}, Case{100, 50, 0},
                 Case{1, 3, 3}, Case{0, 3, 3}}) {
    const auto A = random_lower_banded<T>(c.rows, c.window, c.per_row, 7);
    ASSERT_EQ(A.rows, c.rows);
    expect_dominant_lower(A);
    for (index_t i = 0; i < A.rows; ++i) {
      EXPECT_EQ(A.row_ptr[i + 1] - A.row_ptr[i] - 1, std::min({c.per_row, c.window, i})) << "row " << i;
      if (A.row_ptr[i + 1] - A.row_ptr[i] > 1) {
        EXPECT_GE(A.col_idx[A.row_ptr[i]], i - c.window);
      }
    }
  }
  const auto a = random_lower_banded<T>(400, 30, 6, 1);
  EXPECT_TRUE(identical(a, random_lower_banded<T>(400, 30, 6, 1)));
  EXPECT_FALSE(identical(a, random_lower_banded<T>(400, 30, 6, 2)));
}

TYPED_TEST(GeneratorsTyped, BlockDiagonalLower) {
  using T = TypeParam;
  const index_t blocks = 4, bs = 2000;
  const double density = 0.01;
  const auto A = random_block_diagonal_lower<T>(blocks, bs, density, 3);
  ASSERT_EQ(A.rows, blocks * bs);
  expect_dominant_lower(A);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) ASSERT_EQ(A.col_idx[p] / bs, i / bs) << "row " << i;
  const double expected_off = blocks * density * bs * (bs - 1) / 2.0;
  EXPECT_NEAR(double(A.nnz() - A.rows), expected_off, 0.01 * expected_off);
  EXPECT_TRUE(identical(A, random_block_diagonal_lower<T>(blocks, bs, density, 3)));
  EXPECT_FALSE(identical(A, random_block_diagonal_lower<T>(blocks, bs, density, 4)));
  // Density 0: the diagonal alone; density 1: every strictly-lower position of each block.
  EXPECT_EQ(random_block_diagonal_lower<T>(3, 50, 0.0).nnz(), 150);
  const auto full = random_block_diagonal_lower<T>(3, 50, 1.0);
  EXPECT_EQ(full.nnz(), 3 * 50 * 51 / 2);
  expect_dominant_lower(full);
  EXPECT_EQ(random_block_diagonal_lower<T>(0, 10, 0.5).rows, 0);
  // A dense-ish block (k > half the row) goes through the complement sampler.
  const auto half = random_block_diagonal_lower<T>(2, 300, 0.8, 9);
  expect_dominant_lower(half);
  EXPECT_NEAR(double(half.nnz() - half.rows), 2 * 0.8 * 300 * 299 / 2.0, 0.02 * 2 * 0.8 * 300 * 299 / 2.0);
}

TEST(TriangularGenerators, ThreadCountIndependent) {
  expect_thread_independent([] { return random_lower_banded<double>(20000, 100, 8, 3); });
  expect_thread_independent([] { return random_block_diagonal_lower<float>(8, 1500, 0.02, 3); });
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

// ---- banded_dominant and random_spd ------------------------------------------

TYPED_TEST(GeneratorsTyped, BandedDominant) {
  using T = TypeParam;
  struct Case { index_t n, k; double d; };
  for (auto c : {Case{50, 3, 2.5}, Case{20, 0, 1.5}, Case{8, 20, 1.0}, Case{1, 4, 3.0}, Case{300, 10, 0.5}}) {
    const auto A = banded_dominant<T>(c.n, c.k, c.d, 6);
    ASSERT_TRUE(canonical(A));
    for (index_t i = 0; i < A.rows; ++i) {
      const index_t lo = std::max(0, i - c.k), hi = std::min(c.n - 1, i + c.k);
      ASSERT_EQ(A.row_ptr[i + 1] - A.row_ptr[i], hi - lo + 1);
      ASSERT_EQ(A.col_idx[A.row_ptr[i]], lo);  // canonical + count => every band position
      const double off = off_diagonal_abs_sum(A, i);
      const T expected = static_cast<T>(off > 0 ? c.d * off : c.d);
      ASSERT_EQ(entry(A, i, i), std::optional<T>(expected)) << "row " << i;
    }
  }
  EXPECT_TRUE(identical(banded_dominant<T>(100, 4, 2.0, 1), banded_dominant<T>(100, 4, 2.0, 1)));
  EXPECT_FALSE(identical(banded_dominant<T>(100, 4, 2.0, 1), banded_dominant<T>(100, 4, 2.0, 2)));
  expect_thread_independent([] { return banded_dominant<T>(5000, 7, 1.2, 3); });
}

TYPED_TEST(GeneratorsTyped, RandomSpd) {
  using T = TypeParam;
  for (index_t per_row : {0, 1, 7, 10}) {
    const index_t n = 20000;
    const auto A = random_spd<T>(n, per_row, 8);
    ASSERT_TRUE(canonical(A));
    ASSERT_TRUE(exactly_symmetric(A));
    for (index_t i = 0; i < n; ++i) {
      const double off = off_diagonal_abs_sum(A, i);
      const auto d = entry(A, i, i);
      ASSERT_TRUE(d.has_value());
      ASSERT_EQ(*d, static_cast<T>(1.0 + off));
      ASSERT_GT(double(*d), off);
    }
    EXPECT_NEAR(double(A.nnz() - n) / n, per_row, 0.05 * per_row + 0.01) << "per_row " << per_row;
  }
  EXPECT_EQ(random_spd<T>(1, 5).nnz(), 1);
  EXPECT_EQ(random_spd<T>(0, 5).rows, 0);
  const auto small = random_spd<T>(6, 20, 2);  // capped: the full matrix
  EXPECT_EQ(small.nnz(), 36);
  EXPECT_TRUE(identical(random_spd<T>(500, 6, 1), random_spd<T>(500, 6, 1)));
  EXPECT_FALSE(identical(random_spd<T>(500, 6, 1), random_spd<T>(500, 6, 2)));
  expect_thread_independent([] { return random_spd<T>(5000, 9, 3); });
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

// ---- argument checks ---------------------------------------------------------

TEST(GeneratorArguments, Invalid) {
  EXPECT_THROW_MSG(random_lower_banded<double>(-1, 5, 5), Error, "rows must be non-negative");
  EXPECT_THROW_MSG(random_lower_banded<double>(10, -1, 5), Error, "window must be non-negative");
  EXPECT_THROW_MSG(random_lower_banded<double>(10, 5, -2), Error, "per_row must be non-negative");
  EXPECT_THROW_MSG(random_block_diagonal_lower<double>(-1, 5, 0.1), Error, "blocks must be non-negative");
  EXPECT_THROW_MSG(random_block_diagonal_lower<double>(2, 0, 0.1), Error, "block_size must be positive");
  EXPECT_THROW_MSG(random_block_diagonal_lower<double>(2, 5, 1.5), Error, "density must be in [0, 1]");
  EXPECT_THROW_MSG(random_block_diagonal_lower<double>(2, 5, -0.1), Error, "density");
  EXPECT_THROW_MSG(random_block_diagonal_lower<double>(2, 5, std::nan("")), Error, "density");
  EXPECT_THROW_MSG(chain_lower<double>(-3), Error, "chain_lower: n must be non-negative");
  EXPECT_THROW_MSG(star_lower<float>(-3), Error, "star_lower: n must be non-negative");
  EXPECT_THROW_MSG(banded_dominant<double>(-1, 2, 1.0), Error, "n must be non-negative");
  EXPECT_THROW_MSG(banded_dominant<double>(10, -2, 1.0), Error, "half_bandwidth");
  EXPECT_THROW_MSG(banded_dominant<double>(10, 2, -1.0), Error, "d must be finite and non-negative");
  EXPECT_THROW_MSG(random_spd<double>(-1, 3), Error, "n must be non-negative");
  EXPECT_THROW_MSG(random_spd<double>(10, -3), Error, "per_row must be non-negative");
}

TEST(GeneratorArguments, Overflow) {
  EXPECT_THROW_MSG(random_block_diagonal_lower<float>(70000, 70000, 0.1), IndexOverflow, "blocks*block_size");
  // Rows fit, the nonzeros cannot: detected before the counting pass.
  EXPECT_THROW_MSG(random_block_diagonal_lower<float>(100, 100000, 0.5), IndexOverflow,
                   "random_block_diagonal_lower: number of nonzeros");
  EXPECT_THROW_MSG(random_lower_banded<float>(400'000'000, 1000, 8), IndexOverflow,
                   "random_lower_banded: number of nonzeros");
  EXPECT_THROW_MSG(chain_lower<float>(1'500'000'000), IndexOverflow, "chain_lower: number of nonzeros");
  EXPECT_THROW_MSG(banded_dominant<float>(100'000'000, 20, 1.0), IndexOverflow, "banded_dominant: number of nonzeros");
  EXPECT_THROW_MSG(random_spd<float>(200'000'000, 30), IndexOverflow, "random_spd: number of nonzeros");
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

}  // namespace
}  // namespace balsa

namespace balsa {
namespace {

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
