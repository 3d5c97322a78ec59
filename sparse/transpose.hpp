// Internal: the pattern of a transpose, or of a permuted matrix, with the map
// back to the original entries (transpose, to_csc and the transposed
// triangular solves; permute and the Krylov solvers' multicolour ordering:
// their new values are then one gather).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa {

// A^T in CSR (the CSC of A): row c of A^T lists the rows r of A with an
// entry (r, c), in increasing order; source[q] is the position in A's
// arrays of A^T's entry q. With `part`, the transpose of A's `part`
// triangle (its diagonal included) only.
struct TransposedPattern {
  std::vector<index_t> row_ptr;
  std::vector<index_t> col_idx;
  std::vector<index_t> source;
};

// For valid compressed arrays (validate()) of a rows x cols matrix; in
// parallel over blocks of rows where their column ranges are narrow (banded
// and triangular matrices), the same result as the serial counting sort.
TransposedPattern transpose_pattern(index_t rows, index_t cols, std::span<const index_t> row_ptr,
                                    std::span<const index_t> col_idx, std::optional<Triangle> part = std::nullopt);

// Rows and columns renamed: row i of the result is row row_perm[i] of A
// (row_perm[new] = old), its columns renamed by col_new (col_new[old] =
// new) and sorted (stably: duplicates keep their order); source[q] is the
// position in A's arrays of the result's entry q. For valid compressed
// arrays and permutations the caller checked. Rows in parallel
// (sparse/permute.cpp).
using PermutedPattern = TransposedPattern;
PermutedPattern permuted_pattern(index_t rows, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                 std::span<const index_t> row_perm, std::span<const index_t> col_new);

}  // namespace balsa
