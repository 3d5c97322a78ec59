// balsa: graph algorithms on sparse patterns.
#pragma once

#include <span>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa {

// Dependency levels of a triangular solve (level-set analysis, as in the
// level scheduling of Anderson & Saad). Only the entries strictly inside
// `tri` count as dependencies (edge j -> i for l_ij != 0, j < i for Lower);
// the diagonal and entries in the other triangle are ignored.
// level[i] = 0 for rows with no dependency, else 1 + max level of its dependencies.
std::vector<index_t> dependency_levels(index_t n, std::span<const index_t> row_ptr,
                                       std::span<const index_t> col_idx, Triangle tri);

// The rows grouped by level: rows of level k are
// rows[level_ptr[k] .. level_ptr[k+1]), in increasing order.
struct LevelSets {
  std::vector<index_t> level_ptr = {0};
  std::vector<index_t> rows;
  index_t count() const { return static_cast<index_t>(level_ptr.size()) - 1; }
  index_t width(index_t k) const { return level_ptr[k + 1] - level_ptr[k]; }
};
LevelSets level_sets(std::span<const index_t> level);

template <class T>
LevelSets level_sets(const Csr<T>& A, Triangle tri) {
  return level_sets(dependency_levels(A.rows, A.row_ptr, A.col_idx, tri));
}

}  // namespace balsa
