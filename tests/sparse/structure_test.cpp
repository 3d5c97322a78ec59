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

// Levels by Kahn's topological sort: repeatedly peel the rows whose
// dependencies are all solved (a different algorithm from dependency_levels,
// which takes the longest path in row order).
std::vector<index_t> peeled_levels(const Csr<double>& A, Triangle tri) {
  const Csr<double> deps = extract_triangle(A, tri, Diag::Exclude);  // row i -> its dependencies
  const Csr<double> users = transpose(deps);                           // row j -> rows that need j
  std::vector<index_t> missing(std::size_t(A.rows)), level(std::size_t(A.rows), -1), front;
  for (index_t i = 0; i < A.rows; ++i) {
    missing[i] = deps.row_ptr[i + 1] - deps.row_ptr[i];
    if (missing[i] == 0) front.push_back(i);
  }
  for (index_t lev = 0; !front.empty(); ++lev) {
    std::vector<index_t> next;
    for (const index_t j : front) {
      level[j] = lev;
      for (index_t k = users.row_ptr[j]; k < users.row_ptr[j + 1]; ++k)
        if (--missing[users.col_idx[k]] == 0) next.push_back(users.col_idx[k]);
    }
    front.swap(next);
  }
  return level;
}

TEST(Stats, RealMatricesAgreeWithIndependentCounts) {
  for (const auto& path : test::real_matrices()) {
    SCOPED_TRACE(path.filename().string());
    const Csr<double> A = read_matrix_market_csr<double>(path);
    const StructureStats s = structure_stats(A);
    EXPECT_EQ(s.nnz, A.nnz());
    EXPECT_EQ(s.nnz_lower, extract_triangle(A, Triangle::Lower, Diag::Exclude).nnz());
    EXPECT_EQ(s.nnz_upper, extract_triangle(A, Triangle::Upper, Diag::Exclude).nnz());
    EXPECT_EQ(s.pattern_symmetric, A.rows == A.cols && transpose(A).col_idx == A.col_idx &&
                                       transpose(A).row_ptr == A.row_ptr);
    if (A.rows != A.cols) continue;
    for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
      const std::vector<index_t> peeled = peeled_levels(A, tri);
      EXPECT_EQ(dependency_levels(A.rows, A.row_ptr, A.col_idx, tri), peeled);
      const LevelStats& l = tri == Triangle::Lower ? s.lower_levels : s.upper_levels;
      EXPECT_EQ(l.levels, *std::max_element(peeled.begin(), peeled.end()) + 1);
    }
  }
  // bcsstk13, from the file: 2003 rows, 83,883 entries after expansion, symmetric.
  const StructureStats b = structure_stats(read_matrix_market_csr<double>(test::data_file("bcsstk13.mtx")));
  EXPECT_EQ(b.nnz, 83883);
  EXPECT_EQ(b.nnz_diagonal, 2003);
  EXPECT_TRUE(b.values_symmetric);
  EXPECT_EQ(b.lower_levels.levels, b.upper_levels.levels);  // the upper triangle is the lower one transposed
}

TEST(Levels, MalformedPatternIsAnError) {
  const std::vector<index_t> row_ptr{0, 1000, 1}, col_idx{0};
  EXPECT_THROW_MSG(dependency_levels(2, row_ptr, col_idx, Triangle::Lower), MatrixError, "row_ptr");
}

}  // namespace
}  // namespace balsa
