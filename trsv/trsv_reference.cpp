// Serial forward/backward substitution: the triangular-solve oracle.
#include <string>

#include "balsa/trsv.hpp"
#include "core/instantiate.hpp"
#include "trsv/substitution.hpp"
#include "core/exceptions.hpp"

namespace balsa {

template <class T>
void check_triangular_system(const Csr<T>& A, Triangle tri, DiagonalKind diag) try {
  validate(A, /*require_sorted=*/true);  // one entry per position: the diagonal checked is the one used
  require_square(A, "triangular solve");
  require_triangular(A, tri);
  if (diag == DiagonalKind::NonUnit) require_nonzero_diagonal(A);
  require_finite(A);
} catch (...) {
  rethrow_as_balsa_error("check_triangular_system");
}

template <class T>
void trsv_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b, std::span<T> x) try {
  check_triangular_system(A, tri, diag);
  if (b.size() != std::size_t(A.rows) || x.size() != std::size_t(A.rows))
    throw DimensionError("triangular solve: b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                         " entries for " + std::to_string(A.rows) + " rows");
  require_finite(b, "right-hand side");
  trsv_cpu::substitute(A, tri, diag, b.data(), x.data());
} catch (...) {
  rethrow_as_balsa_error("trsv_reference");
}

#define BALSA_INSTANTIATE(T)                                                                               \
  template void check_triangular_system(const Csr<T>&, Triangle, DiagonalKind);                            \
  template void trsv_reference(const Csr<T>&, Triangle, DiagonalKind, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
