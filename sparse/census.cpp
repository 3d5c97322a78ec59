// The entry census of a Coo (include/balsa/sparse.hpp): the distinct
// positions sorted once (row, then column) give the occupied rows, the
// diagonal and the sides in one pass; the columns take a sorted copy of their
// own. Never an array sized by the declared rows or columns.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "balsa/sparse.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"

namespace balsa {
namespace {

// Sorts `v` and removes repeats.
void sort_unique(std::vector<index_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The smallest index in 0..n-1 missing from the sorted distinct `v`, or -1.
index_t first_gap(const std::vector<index_t>& v, index_t n) {
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] != index_t(k)) return index_t(k);
  return index_t(v.size()) < n ? index_t(v.size()) : -1;
}

// The distinct positions, as (row << 32 | column) keys, sorted.
template <class T>
std::vector<std::uint64_t> position_keys(const Coo<T>& A) {
  std::vector<std::uint64_t> keys(A.row_idx.size());
  for (std::size_t k = 0; k < keys.size(); ++k)
    keys[k] = std::uint64_t(std::uint32_t(A.row_idx[k])) << 32 | std::uint32_t(A.col_idx[k]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// One pass over the sorted distinct positions: the occupied rows (in
// order: the keys sort by row first), the diagonal's rows, the positions'
// sides of the diagonal and the bandwidths.
void scan_positions(const std::vector<std::uint64_t>& keys, EntryCensus& c, std::vector<index_t>& rows,
                    std::vector<index_t>& diag) {
  for (const std::uint64_t key : keys) {
    const index_t i = index_t(key >> 32), j = index_t(key & 0xffffffffu);
    if (rows.empty() || rows.back() != i) rows.push_back(i);
    if (i > j) ++c.below, c.lower_bandwidth = std::max(c.lower_bandwidth, index_t(i - j));
    if (i == j) ++c.on, diag.push_back(i);
    if (i < j) ++c.above, c.upper_bandwidth = std::max(c.upper_bandwidth, index_t(j - i));
  }
}

}  // namespace

template <class T>
EntryCensus entry_census(const Coo<T>& A) try {
  validate(A);
  EntryCensus c;
  c.rows = A.rows;
  c.cols = A.cols;
  c.entries = A.nnz();
  const std::vector<std::uint64_t> keys = position_keys(A);
  c.positions = std::int64_t(keys.size());
  std::vector<index_t> rows, diag, cols = A.col_idx;
  scan_positions(keys, c, rows, diag);
  sort_unique(cols);
  c.occupied_rows = index_t(rows.size());
  c.occupied_cols = index_t(cols.size());
  c.first_empty_row = first_gap(rows, A.rows);
  c.first_empty_col = first_gap(cols, A.cols);
  c.diagonal = index_t(diag.size());
  c.first_missing_diagonal = first_gap(diag, std::min(A.rows, A.cols));
  return c;
} catch (...) {
  rethrow_as_balsa_error("entry_census");
}

#define BALSA_INSTANTIATE_CENSUS(T) template EntryCensus entry_census(const Coo<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE_CENSUS)
#undef BALSA_INSTANTIATE_CENSUS

}  // namespace balsa
