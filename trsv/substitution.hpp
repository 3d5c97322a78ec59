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
// descending for Upper), for an already checked A.
template <class T>
inline void substitute(const Csr<T>& A, Triangle tri, DiagonalKind diag, const T* b, T* x) {
  if (tri == Triangle::Lower)
    for (index_t i = 0; i < A.rows; ++i) substitute_row(A, diag, i, b, x);
  else
    for (index_t i = A.rows - 1; i >= 0; --i) substitute_row(A, diag, i, b, x);
}

}  // namespace balsa::trsv_cpu
