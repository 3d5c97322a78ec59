// Greedy distance-1 multicolouring (Saad, "Iterative Methods for Sparse
// Linear Systems", 2nd ed., sec. 3.3.3, Alg. 3.6) and the rows sorted by
// colour. Declared in include/balsa/graph.hpp and graph/colouring.hpp.
//
// The rows are coloured in natural order; row i takes the smallest colour
// none of its earlier neighbours j < i has, its neighbours being those of
// A + A^T: the columns of row i, and the rows j whose row holds column i
// (A's strictly upper entries (j, i), read from the transpose of A's upper
// triangle). A structurally symmetric pattern (sorted rows) needs no
// transpose: the second list repeats the first. Each neighbour is read once
// and each row tries at most (its earlier neighbours + 1) colours, so the
// pass is O(nnz) (serial: the colours of earlier rows are its input).
// perm is a stable counting sort of the rows by colour.
#include "graph/colouring.hpp"

#include <string>

#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "sparse/mirror.hpp"
#include "sparse/transpose.hpp"

namespace balsa {

namespace graph {

namespace {
// Stamps: used[c] == i while row i is being coloured means an earlier
// neighbour of row i has colour c.
class Forbidden {
 public:
  void forbid(index_t c, index_t i) { used_[std::size_t(c)] = i; }
  // The smallest colour not forbidden for row i (a new one when all are).
  index_t smallest(index_t i) {
    index_t c = 0;
    while (std::size_t(c) < used_.size() && used_[std::size_t(c)] == i) ++c;
    if (std::size_t(c) == used_.size()) used_.push_back(-1);
    return c;
  }
  index_t count() const { return index_t(used_.size()); }

 private:
  std::vector<index_t> used_;
};

// Rows by colour, stable (a counting sort).
void sort_by_colour(Colouring& c) {
  c.colour_ptr.assign(std::size_t(c.count) + 1, 0);
  for (const index_t k : c.colour) ++c.colour_ptr[std::size_t(k) + 1];
  for (index_t k = 0; k < c.count; ++k) c.colour_ptr[std::size_t(k) + 1] += c.colour_ptr[std::size_t(k)];
  c.perm = parallel::fresh_vector<index_t>(c.colour.size());
  std::vector<index_t> next(c.colour_ptr.begin(), c.colour_ptr.end() - 1);
  for (std::size_t i = 0; i < c.colour.size(); ++i) c.perm[std::size_t(next[std::size_t(c.colour[i])]++)] = index_t(i);
}
}  // namespace

Colouring greedy_colouring(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                           bool rows_sorted) {
  Colouring c;
  c.colour = parallel::fresh_vector<index_t>(std::size_t(n), -1);
  const bool symmetric =
      rows_sorted && sparse::upper_entries_mirrored(n, row_ptr, col_idx, [](index_t, index_t) { return true; });
  TransposedPattern upper_t;  // row i: the rows j <= i with an entry (j, i)
  if (!symmetric) upper_t = transpose_pattern(n, n, row_ptr, col_idx, Triangle::Upper);
  Forbidden forbidden;
  auto forbid_earlier = [&](index_t i, std::span<const index_t> ptr, std::span<const index_t> idx) {
    for (index_t k = ptr[std::size_t(i)]; k < ptr[std::size_t(i) + 1]; ++k)
      if (const index_t j = idx[std::size_t(k)]; j < i) forbidden.forbid(c.colour[std::size_t(j)], i);
  };
  for (index_t i = 0; i < n; ++i) {
    forbid_earlier(i, row_ptr, col_idx);
    if (!symmetric) forbid_earlier(i, upper_t.row_ptr, upper_t.col_idx);
    c.colour[std::size_t(i)] = forbidden.smallest(i);
  }
  c.count = forbidden.count();
  sort_by_colour(c);
  return c;
}

}  // namespace graph

template <class T>
Colouring greedy_colouring(const Csr<T>& A) try {
  validate(A);
  require_square(A, "greedy_colouring");
  return graph::greedy_colouring(A.rows, A.row_ptr, A.col_idx, /*rows_sorted=*/is_canonical(A));
} catch (...) {
  rethrow_as_balsa_error("greedy_colouring");
}

#define BALSA_INSTANTIATE(T) template Colouring greedy_colouring(const Csr<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
