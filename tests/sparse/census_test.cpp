// The entry census of a Coo (sparse/census.cpp) and sorted_coo
// (sparse/convert.cpp): structural facts from the triplets alone, at any
// declared size.
#include <gtest/gtest.h>

#include <vector>

#include "balsa/sparse.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

Coo<double> coo(index_t rows, index_t cols, std::vector<index_t> r, std::vector<index_t> c) {
  std::vector<double> v(r.size(), 1.0);
  return {rows, cols, std::move(r), std::move(c), std::move(v)};
}

TEST(EntryCensus, OneEntryOfTheLargestDeclaredSize) {
  const EntryCensus c = entry_census(coo(2147483647, 2147483647, {0}, {0}));
  EXPECT_EQ(c.entries, 1);
  EXPECT_EQ(c.positions, 1);
  EXPECT_EQ(c.occupied_rows, 1);
  EXPECT_EQ(c.occupied_cols, 1);
  EXPECT_EQ(c.empty_rows(), 2147483646);
  EXPECT_EQ(c.first_empty_row, 1);
  EXPECT_EQ(c.first_empty_col, 1);
  EXPECT_EQ(c.diagonal, 1);
  EXPECT_EQ(c.first_missing_diagonal, 1);
  EXPECT_EQ(c.missing_diagonal(), 2147483646);
  EXPECT_EQ(c.on, 1);
}

TEST(EntryCensus, GapsDuplicatesAndSides) {
  // 4 x 5: rows 0, 1, 3 occupied (row 2 empty), columns 0, 1, 4 (2 and 3 empty);
  // (1, 0) twice; the diagonal (0, 0) and (1, 1) present, (2, 2) missing.
  const EntryCensus c = entry_census(coo(4, 5, {1, 0, 1, 3, 1, 0}, {0, 0, 0, 4, 1, 4}));
  EXPECT_EQ(c.entries, 6);
  EXPECT_EQ(c.positions, 5);
  EXPECT_EQ(c.occupied_rows, 3);
  EXPECT_EQ(c.first_empty_row, 2);
  EXPECT_EQ(c.occupied_cols, 3);
  EXPECT_EQ(c.first_empty_col, 2);
  EXPECT_EQ(c.diagonal, 2);
  EXPECT_EQ(c.first_missing_diagonal, 2);
  EXPECT_EQ(c.missing_diagonal(), 2);
  EXPECT_EQ(c.below, 1);  // (1, 0)
  EXPECT_EQ(c.on, 2);
  EXPECT_EQ(c.above, 2);  // (0, 4), (3, 4)
  EXPECT_EQ(c.lower_bandwidth, 1);
  EXPECT_EQ(c.upper_bandwidth, 4);
}

TEST(EntryCensus, FullAndEmpty) {
  const EntryCensus full = entry_census(coo(3, 3, {2, 1, 0, 2}, {2, 1, 0, 0}));
  EXPECT_EQ(full.first_empty_row, -1);
  EXPECT_EQ(full.first_empty_col, -1);
  EXPECT_EQ(full.first_missing_diagonal, -1);
  const EntryCensus square = entry_census(coo(2, 2, {1, 0}, {0, 1}));
  EXPECT_EQ(square.first_empty_row, -1);
  EXPECT_EQ(square.first_empty_col, -1);
  EXPECT_EQ(square.first_missing_diagonal, 0);
  const EntryCensus none = entry_census(coo(3, 2, {}, {}));
  EXPECT_EQ(none.first_empty_row, 0);
  EXPECT_EQ(none.first_empty_col, 0);
  EXPECT_EQ(none.first_missing_diagonal, 0);
  EXPECT_EQ(none.missing_diagonal(), 2);
  EXPECT_THROW(entry_census(coo(2, 2, {2}, {0})), MatrixError);  // out of range
}

TEST(EntryCensus, FloatTooAndNoLargeArrays) {
  Coo<float> A{100000000, 3, {99999999, 5}, {2, 2}, {1.0f, 2.0f}};
  const EntryCensus c = entry_census(A);
  EXPECT_EQ(c.occupied_rows, 2);
  EXPECT_EQ(c.first_empty_row, 0);
  EXPECT_EQ(c.first_empty_col, 0);
  EXPECT_EQ(c.lower_bandwidth, 99999997);
}

TEST(SortedCoo, SortsAndSumsDuplicates) {
  Coo<double> A{2147483647, 2147483647, {5, 0, 5, 0}, {1, 2147483646, 1, 0}, {1.0, 2.0, 3.0, 4.0}};
  const Coo<double> B = sorted_coo(A);
  EXPECT_EQ(B.rows, 2147483647);
  EXPECT_EQ(B.row_idx, (std::vector<index_t>{0, 0, 5}));
  EXPECT_EQ(B.col_idx, (std::vector<index_t>{0, 2147483646, 1}));
  EXPECT_EQ(B.values, (std::vector<double>{4.0, 2.0, 4.0}));
}

}  // namespace
}  // namespace balsa
