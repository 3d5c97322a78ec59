// Internal: one row of forward/backward substitution, shared by the CPU
// solvers: x_i = (b_i - sum_{j != i} a_ij x_j) / a_ii (a_ii = 1 for Unit).
// Every x_j it reads must already be final.
#pragma once

#include "balsa/trsv.hpp"

namespace balsa::trsv_cpu {

template <class T>
inline void substitute_row(const Csr<T>& A, DiagonalKind diag, index_t i, const T* b, T* x) {
  T sum = b[i];
  T d = T(1);
  for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
    const index_t j = A.col_idx[k];
    if (j == i) {
      if (diag == DiagonalKind::NonUnit) d = A.values[k];
    } else {
      sum -= A.values[k] * x[j];
    }
  }
  x[i] = sum / d;
}

// Serial substitution in dependency order (ascending rows for Lower,
// descending for Upper), for an already checked A (check_triangular_system:
// rows sorted, every entry on the triangle's side). A stored diagonal entry
// is then a row's last entry (Lower) or its first (Upper), so the inner
// loop runs over the off-diagonal entries alone, without substitute_row's
// test of every column: the same operations in the same order (the same
// bits), about 2x faster on one core (bench precond, IC(0) on a 64^3 Poisson).
template <class T>
inline void substitute(const Csr<T>& A, Triangle tri, DiagonalKind diag, const T* b, T* x) {
  const index_t* row = A.row_ptr.data();
  const index_t* col = A.col_idx.data();
  const T* val = A.values.data();
  const bool unit = diag == DiagonalKind::Unit;
  const bool lower = tri == Triangle::Lower;
  for (index_t r = 0; r < A.rows; ++r) {
    const index_t i = lower ? r : A.rows - 1 - r;
    index_t lo = row[i], hi = row[i + 1];
    const index_t at = lower ? hi - 1 : lo;  // where a stored diagonal entry sits
    const bool stored = hi > lo && col[at] == i;
    if (stored) (lower ? hi : lo) = lower ? hi - 1 : lo + 1;
    T sum = b[i];
    for (index_t k = lo; k < hi; ++k) sum -= val[k] * x[col[k]];
    x[i] = unit || !stored ? sum : sum / val[at];
  }
}

}  // namespace balsa::trsv_cpu
