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

// A greedy distance-1 colouring of the pattern of A + A^T (the diagonal
// ignored): the rows in natural order, each taking the smallest colour that
// none of its earlier neighbours has (Saad, "Iterative Methods for Sparse
// Linear Systems", 2nd ed., sec. 3.3.3, Alg. 3.6). Deterministic, O(nnz).
// No two neighbours share a colour; a 2D or 3D grid Laplacian in natural
// order gets 2 colours (red-black). perm lists the rows by colour, stably
// (perm[new] = old, include/balsa/sparse.hpp): P A P^T has a diagonal block
// per colour (the multicolour ordering of the Krylov solvers, KrylovOrdering).
struct Colouring {
  std::vector<index_t> colour;      // colour[i] of row i, in [0, count)
  index_t count = 0;                // colours used (0 for an empty matrix)
  std::vector<index_t> perm;        // the rows by colour, in increasing order within one
  std::vector<index_t> colour_ptr;  // colour c's rows: perm[colour_ptr[c] .. colour_ptr[c + 1])
};
// A square A, checked (validate: sorted rows not needed); values ignored.
template <class T>
Colouring greedy_colouring(const Csr<T>& A);

}  // namespace balsa
