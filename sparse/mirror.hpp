// Internal: structural symmetry of a square canonical CSR pattern, tested
// once per pair of mirrored entries: each strictly upper entry (i, j) looks
// for its mirror (j, i) by a binary search in row j, and the two strict
// triangles' counts are compared. Used by the symmetry check (sparse/symmetry.cpp) and the colouring
// of the Krylov solvers' multicolour ordering (graph/colouring.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "balsa/sparse.hpp"
#include "core/parallel.hpp"

namespace balsa::sparse {

// The position in col_idx of the mirror (j, i) of an entry (i, j) (a binary
// search in row j; rows sorted), or -1 when it is not stored.
inline index_t lower_mirror(std::span<const index_t> row_ptr, std::span<const index_t> col_idx, index_t i, index_t j) {
  const auto first = col_idx.begin() + row_ptr[std::size_t(j)];
  const auto last = col_idx.begin() + row_ptr[std::size_t(j) + 1];
  const auto it = std::lower_bound(first, last, i);
  return it != last && *it == i ? index_t(it - col_idx.begin()) : -1;
}

// True when every strictly upper entry of the pattern has its mirror stored,
// accept(k, m) holds for each such entry k and its mirror's position m, and
// the strictly lower triangle has as many entries as the strictly upper
// one. Then the mirrors of the upper entries are every lower entry (one to
// one, same count): the pattern is symmetric and accept held for every
// mirrored pair. False says nothing about which condition failed (a caller
// that must name the first bad entry looks again). Rows in parallel.
template <class Accept>
bool upper_entries_mirrored(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                            Accept&& accept) {
  std::int64_t lower = 0, upper = 0;
  index_t bad = 0;
#pragma omp parallel for reduction(+ : lower, upper, bad) schedule(dynamic, 1024) if (n > parallel::kParallelMin / 8)
  for (index_t i = 0; i < n; ++i)
    for (index_t k = row_ptr[std::size_t(i)]; k < row_ptr[std::size_t(i) + 1]; ++k) {
      const index_t j = col_idx[std::size_t(k)];
      if (j < i) {
        ++lower;
      } else if (j > i) {
        ++upper;
        const index_t m = lower_mirror(row_ptr, col_idx, i, j);
        if (m < 0 || !accept(k, m)) ++bad;
      }
    }
  return bad == 0 && lower == upper;
}

}  // namespace balsa::sparse
