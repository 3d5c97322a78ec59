// balsa: sparse triangular solve.
//
// For now: the serial reference solver (the oracle every other triangular
// solver is tested against) and cuSPARSE SpSV (balsa::cuda::CusparseSpsv, in
// cuda.hpp). The analysis/solve solver object with level-set, sync-free and
// TASSL algorithms builds on these (see DESIGN.md).
#pragma once

#include <span>

#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class DiagonalKind { NonUnit, Unit };

// Solves A x = b by forward (Lower) or backward (Upper) substitution, row by
// row, accumulating in T. A must be square canonical CSR (sorted columns, no
// duplicates: cuSPARSE needs the same) with every stored entry in the triangle; with NonUnit the diagonal must be present and nonzero; with Unit
// stored diagonal entries are ignored and taken as 1. b and x must not be
// NaN/Inf. Every violation is an error naming the row/column or index.
template <class T>
void trsv_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b, std::span<T> x);

// Checks the preconditions above without solving (shared by all triangular
// solvers): canonical, square, triangular, diagonal, finite values.
template <class T>
void check_triangular_system(const Csr<T>& A, Triangle tri, DiagonalKind diag);

}  // namespace balsa

namespace balsa::cuda {

// cuSPARSE SpSV (CSR): the GPU baseline of the triangular-solve benchmarks.
// The constructor checks A on the host (check_triangular_system), keeps a
// device copy and runs cuSPARSE's analysis; solve() may be called any number
// of times. solve() is asynchronous with respect to the host.
template <class T>
class CusparseSpsv {
 public:
  CusparseSpsv(const Csr<T>& A, Triangle tri, DiagonalKind diag);
  ~CusparseSpsv();
  CusparseSpsv(const CusparseSpsv&) = delete;
  CusparseSpsv& operator=(const CusparseSpsv&) = delete;
  void solve(const DeviceBuffer<T>& b, DeviceBuffer<T>& x);
  index_t rows() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace balsa::cuda
