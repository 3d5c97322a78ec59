// Dependency levels of a triangular solve (level scheduling).
#include <algorithm>
#include <string>

#include "balsa/graph.hpp"

namespace balsa {

std::vector<index_t> dependency_levels(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                       Triangle tri) {
  if (n < 0 || row_ptr.size() != std::size_t(n) + 1)
    throw DimensionError("dependency_levels: row_ptr has " + std::to_string(row_ptr.size()) + " entries for " +
                         std::to_string(n) + " rows");
  if (row_ptr[0] != 0 || std::size_t(row_ptr[n]) > col_idx.size())
    throw MatrixError("dependency_levels: row_ptr must start at 0 and end within col_idx");
  for (index_t i = 0; i < n; ++i)
    if (row_ptr[i + 1] < row_ptr[i]) throw MatrixError("dependency_levels: row_ptr decreases at row " + std::to_string(i));
  std::vector<index_t> level(std::size_t(n), 0);
  // Rows are visited in dependency order (ascending for lower, descending for
  // upper), so every dependency's level is final when a row reads it.
  auto visit = [&](index_t i) {
    index_t lev = 0;
    for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_t j = col_idx[k];
      const bool dep = tri == Triangle::Lower ? (j < i && j >= 0) : (j > i && j < n);
      if (dep) lev = std::max(lev, level[j] + 1);
    }
    level[i] = lev;
  };
  if (tri == Triangle::Lower)
    for (index_t i = 0; i < n; ++i) visit(i);
  else
    for (index_t i = n - 1; i >= 0; --i) visit(i);
  return level;
}

LevelSets level_sets(std::span<const index_t> level) {
  LevelSets s;
  index_t levels = 0;
  for (const index_t l : level) {
    if (l < 0) throw Error("level_sets: negative level " + std::to_string(l));
    levels = std::max(levels, l + 1);
  }
  // Counting sort of the rows by level; rows stay in increasing order within a level.
  s.level_ptr.assign(std::size_t(levels) + 1, 0);
  for (const index_t l : level) ++s.level_ptr[l + 1];
  for (index_t k = 0; k < levels; ++k) s.level_ptr[k + 1] += s.level_ptr[k];
  s.rows.resize(level.size());
  std::vector<index_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  for (std::size_t i = 0; i < level.size(); ++i) s.rows[next[level[i]]++] = static_cast<index_t>(i);
  return s;
}

}  // namespace balsa
