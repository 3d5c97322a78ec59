// Dependency levels of a triangular solve (level scheduling).
#include <algorithm>
#include <string>
#include <utility>

#include <omp.h>

#include "balsa/graph.hpp"
#include "core/parallel.hpp"
#include "core/exceptions.hpp"

namespace balsa {

std::vector<index_t> dependency_levels(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                       Triangle tri) try {
  if (n < 0 || row_ptr.size() != std::size_t(n) + 1)
    throw DimensionError("dependency_levels: row_ptr has " + std::to_string(row_ptr.size()) + " entries for " +
                         std::to_string(n) + " rows");
  if (row_ptr[0] != 0 || std::size_t(row_ptr[n]) > col_idx.size())
    throw MatrixError("dependency_levels: row_ptr must start at 0 and end within col_idx");
  for (index_t i = 0; i < n; ++i)
    if (row_ptr[i + 1] < row_ptr[i]) throw MatrixError("dependency_levels: row_ptr decreases at row " + std::to_string(i));
  std::vector<index_t> level = parallel::fresh_vector<index_t>(std::size_t(n), 0);
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
} catch (...) {
  rethrow_as_balsa_error("dependency_levels");
}

// A stable counting sort of the rows by level: rows stay in increasing order
// within a level. In parallel, as in a radix sort's pass: each thread counts
// the levels of its block of rows, a scan over (level, block) gives every
// block its slots in every level, and each block scatters its rows in order;
// serial where the per-block counts would outweigh the rows.
LevelSets level_sets(std::span<const index_t> level) try {
  const index_t n = index_t(level.size());
  if (const index_t bad = parallel::first_where(n, [&](index_t i) { return level[i] < 0; }); bad < n)
    throw Error("level_sets: negative level " + std::to_string(level[bad]));
  index_t levels = 0;
#pragma omp parallel for reduction(max : levels) schedule(static) if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i) levels = std::max(levels, level[i] + 1);
  LevelSets s;
  s.level_ptr.assign(std::size_t(levels) + 1, 0);
  parallel::fresh_assign(s.rows, level.size());
  const int blocks = n > parallel::kParallelMin ? omp_get_max_threads() : 1;
  if (std::int64_t(blocks) * levels > n) {  // serial
    for (const index_t l : level) ++s.level_ptr[l + 1];
    for (index_t k = 0; k < levels; ++k) s.level_ptr[k + 1] += s.level_ptr[k];
    std::vector<index_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
    for (index_t i = 0; i < n; ++i) s.rows[next[level[i]]++] = i;
    return s;
  }
  std::vector<index_t> slot(std::size_t(blocks) * std::size_t(levels), 0);  // slot[b * levels + l]
#pragma omp parallel num_threads(blocks)
  {
    const std::size_t used = std::size_t(omp_get_num_threads()), b = std::size_t(omp_get_thread_num());
    const index_t lo = index_t(std::size_t(n) * b / used), hi = index_t(std::size_t(n) * (b + 1) / used);
    index_t* mine = slot.data() + b * std::size_t(levels);
    for (index_t i = lo; i < hi; ++i) ++mine[level[i]];
#pragma omp barrier
#pragma omp single
    {
      index_t start = 0;  // level l's rows: block 0's, then block 1's, ...
      for (index_t l = 0; l < levels; ++l) {
        for (std::size_t c = 0; c < used; ++c) {
          index_t& count = slot[c * std::size_t(levels) + std::size_t(l)];
          start += std::exchange(count, start);  // count becomes the block's first slot
        }
        s.level_ptr[std::size_t(l) + 1] = start;
      }
    }
    for (index_t i = lo; i < hi; ++i) s.rows[mine[level[i]]++] = i;
  }
  return s;
} catch (...) {
  rethrow_as_balsa_error("level_sets");
}

}  // namespace balsa
