// Dependency levels and structural statistics.
#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/stats.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// Longest-path levels by brute force over a dense copy (the definition).
std::vector<index_t> brute_levels(const Csr<double>& A, Triangle tri) {
  const DenseMatrix<double> D = to_dense(A);
  const index_t n = A.rows;
  std::vector<index_t> level(std::size_t(n), 0);
  for (index_t s = 0; s < n; ++s) {
    const index_t i = tri == Triangle::Lower ? s : n - 1 - s;
    for (index_t j = 0; j < n; ++j) {
      const bool dep = tri == Triangle::Lower ? j < i : j > i;
      if (dep && D(i, j) != 0.0) level[i] = std::max(level[i], level[j] + 1);
    }
  }
  return level;
}

TEST(Levels, MatchTheDefinitionOnRandomMatrices) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Csr<double> A = test::random_sparse<double>(120, 120, 0.03, seed);
    for (Triangle tri : {Triangle::Lower, Triangle::Upper})
      EXPECT_EQ(dependency_levels(A.rows, A.row_ptr, A.col_idx, tri), brute_levels(A, tri)) << "seed " << seed;
  }
}

TEST(Levels, ChainStarAndDiagonal) {
  const Csr<double> chain = chain_lower<double>(100);
  EXPECT_EQ(level_sets(chain, Triangle::Lower).count(), 100);
  EXPECT_EQ(level_sets(chain, Triangle::Upper).count(), 1);  // nothing above the diagonal
  const LevelSets star = level_sets(star_lower<double>(100), Triangle::Lower);
  ASSERT_EQ(star.count(), 2);
  EXPECT_EQ(star.width(0), 1);
  EXPECT_EQ(star.width(1), 99);
  EXPECT_EQ(star.rows[0], 0);
}

TEST(Levels, SetsListRowsInOrder) {
  const std::vector<index_t> level{0, 2, 1, 0, 2};
  const LevelSets s = level_sets(level);
  EXPECT_EQ(s.level_ptr, (std::vector<index_t>{0, 2, 3, 5}));
  EXPECT_EQ(s.rows, (std::vector<index_t>{0, 3, 2, 1, 4}));
}

TEST(Levels, Laplacian2dNaturalOrderHasAntiDiagonalWavefronts) {
  // Lower triangle of the 5-point Laplacian on nx x ny: level of (i, j) is i + j.
  const Csr<double> A = laplacian_2d<double>(30, 20);
  EXPECT_EQ(level_sets(A, Triangle::Lower).count(), 30 + 20 - 1);
  // Red-black: every red row is independent, every black row depends on reds only.
  EXPECT_EQ(level_sets(laplacian_2d<double>(30, 20, GridOrdering::RedBlack), Triangle::Lower).count(), 2);
}

TEST(Stats, SmallExampleEveryField) {
  Csr<double> A;
  A.rows = A.cols = 4;
  A.row_ptr = {0, 2, 2, 5, 7};
  A.col_idx = {0, 3, 0, 1, 2, 0, 3};
  A.values = {1, 2, 3, 4, 0, 5, 6};
  const StructureStats s = structure_stats(A);
  EXPECT_EQ(s.nnz, 7);
  EXPECT_EQ(s.nnz_lower, 3);
  EXPECT_EQ(s.nnz_upper, 1);
  EXPECT_EQ(s.nnz_diagonal, 3);
  EXPECT_EQ(s.lower_bandwidth, 3);
  EXPECT_EQ(s.upper_bandwidth, 3);
  EXPECT_EQ(s.row_nnz_min, 0);
  EXPECT_EQ(s.row_nnz_max, 3);
  EXPECT_DOUBLE_EQ(s.row_nnz_mean, 1.75);
  EXPECT_EQ(s.empty_rows, 1);
  EXPECT_EQ(s.diagonal.missing, 1);
  EXPECT_EQ(s.diagonal.first_missing, 1);
  EXPECT_EQ(s.diagonal.zero, 1);
  EXPECT_EQ(s.diagonal.first_zero, 2);
  EXPECT_FALSE(s.pattern_symmetric);
  EXPECT_TRUE(s.finite);
  EXPECT_EQ(s.lower_levels.levels, 2);  // rows 0, 1: level 0; rows 2 (on 0, 1) and 3 (on 0): level 1
  EXPECT_EQ(s.upper_levels.levels, 2);  // row 0 depends on row 3
}

TEST(Stats, SymmetryDetection) {
  const Csr<double> A = laplacian_3d<double>(5, 4, 3);
  const StructureStats s = structure_stats(A);
  EXPECT_TRUE(s.pattern_symmetric);
  EXPECT_TRUE(s.values_symmetric);
  EXPECT_EQ(s.lower_bandwidth, 20);
  EXPECT_EQ(s.upper_bandwidth, 20);
  Csr<double> B = A;
  B.values[1] += 1.0;
  const StructureStats t = structure_stats(B);
  EXPECT_TRUE(t.pattern_symmetric);
  EXPECT_FALSE(t.values_symmetric);
}

TEST(Stats, RealMatricesAreConsistent) {
  for (const auto& path : test::real_matrices()) {
    SCOPED_TRACE(path.filename().string());
    const Csr<double> A = read_matrix_market_csr<double>(path);
    const StructureStats s = structure_stats(A);
    EXPECT_EQ(s.nnz_lower + s.nnz_upper + s.nnz_diagonal, s.nnz);
    EXPECT_LE(s.row_nnz_min, s.row_nnz_max);
    if (A.rows == A.cols) {
      EXPECT_EQ(s.lower_levels.levels, level_sets(A, Triangle::Lower).count());
      EXPECT_GE(s.lower_levels.levels, 1);
    }
  }
}

}  // namespace
}  // namespace balsa
