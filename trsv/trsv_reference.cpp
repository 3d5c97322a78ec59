// Serial forward/backward substitution: the triangular-solve oracle.
#include <string>

#include "balsa/trsv.hpp"
#include "sparse/instantiate.hpp"

namespace balsa {

template <class T>
void check_triangular_system(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  validate(A, /*require_sorted=*/true);  // one entry per position: the diagonal checked is the one used
  require_square(A, "triangular solve");
  require_triangular(A, tri);
  if (diag == DiagonalKind::NonUnit) require_nonzero_diagonal(A);
  require_finite(A);
}

template <class T>
void trsv_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b, std::span<T> x) {
  check_triangular_system(A, tri, diag);
  if (b.size() != std::size_t(A.rows) || x.size() != std::size_t(A.rows))
    throw DimensionError("triangular solve: b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                         " entries for " + std::to_string(A.rows) + " rows");
  require_finite(b, "right-hand side");
  // Row i needs x_j for its off-diagonal columns j, all already final because
  // rows are visited in order (ascending for Lower, descending for Upper).
  auto solve_row = [&](index_t i) {
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
  };
  if (tri == Triangle::Lower)
    for (index_t i = 0; i < A.rows; ++i) solve_row(i);
  else
    for (index_t i = A.rows - 1; i >= 0; --i) solve_row(i);
}

#define BALSA_INSTANTIATE(T)                                                                               \
  template void check_triangular_system(const Csr<T>&, Triangle, DiagonalKind);                            \
  template void trsv_reference(const Csr<T>&, Triangle, DiagonalKind, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
