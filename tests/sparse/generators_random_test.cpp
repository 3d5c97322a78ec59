// Tests of balsa's random test matrices (sparse/generators/generators_random.cpp,
// include/balsa/generators.hpp): random banded and block-diagonal lower
// triangles, banded_dominant and random_spd, and every generator's argument
// checks.
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

}  // namespace
}  // namespace balsa
