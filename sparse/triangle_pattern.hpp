// Internal: the pattern of one triangle of a canonical CSR matrix (rows
// sorted, no duplicates), without values: what an analysis needs (the
// IC(0)/ILU(0) factorisation's pattern, the preconditioner's triangular
// solvers). In a sorted row the triangle is one run, cut at the diagonal's
// place, found by a binary search: one light pass for the row pointer, one
// copy per row for the columns. Rows in parallel.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "balsa/sparse.hpp"
#include "core/parallel.hpp"

namespace balsa {

// Row i's entries in A's `tri` triangle (the diagonal included) are A's
// positions [first, last).
template <class T>
std::pair<index_t, index_t> triangle_run(const Csr<T>& A, Triangle tri, index_t i) {
  const auto begin = A.col_idx.begin() + A.row_ptr[i], end = A.col_idx.begin() + A.row_ptr[i + 1];
  if (tri == Triangle::Lower) return {A.row_ptr[i], index_t(std::upper_bound(begin, end, i) - A.col_idx.begin())};
  return {index_t(std::lower_bound(begin, end, i) - A.col_idx.begin()), A.row_ptr[i + 1]};
}

// The row pointer of A's `tri` triangle.
template <class T>
std::vector<index_t> triangle_row_ptr(const Csr<T>& A, Triangle tri) {
  std::vector<index_t> ptr = parallel::fresh_vector<index_t>(std::size_t(A.rows) + 1, 0);
#pragma omp parallel for schedule(static) if (A.rows > parallel::kParallelMin)
  for (index_t i = 0; i < A.rows; ++i) {
    const auto [first, last] = triangle_run(A, tri, i);
    ptr[std::size_t(i) + 1] = last - first;
  }
  parallel::prefix_sum(ptr);
  return ptr;
}

// A's `tri` triangle, its diagonal included, as a Csr<P> with no values.
// `positions`, when given, receives each entry's position in A's arrays.
template <class P, class T>
Csr<P> triangle_pattern(const Csr<T>& A, Triangle tri, std::vector<index_t>* positions = nullptr) {
  Csr<P> S;
  S.rows = A.rows;
  S.cols = A.cols;
  S.row_ptr = triangle_row_ptr(A, tri);
  const std::size_t nnz = std::size_t(S.row_ptr.back());
  parallel::fresh_assign(S.col_idx, nnz);
  if (positions) parallel::fresh_assign(*positions, nnz);
#pragma omp parallel for schedule(static) if (A.rows > parallel::kParallelMin)
  for (index_t i = 0; i < A.rows; ++i) {
    const index_t count = S.row_ptr[i + 1] - S.row_ptr[i];  // the row's start (Lower) or end (Upper)
    const index_t first = tri == Triangle::Lower ? A.row_ptr[i] : A.row_ptr[i + 1] - count;
    std::copy_n(A.col_idx.begin() + first, count, S.col_idx.begin() + S.row_ptr[i]);
    if (positions)
      for (index_t k = 0; k < count; ++k) (*positions)[std::size_t(S.row_ptr[i] + k)] = first + k;
  }
  return S;
}

}  // namespace balsa
