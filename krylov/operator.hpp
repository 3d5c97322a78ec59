// Internal: the matrix of a Krylov solve as an operator (y = A x), for
// composite solvers whose A is not a CSR matrix (the SaP banded solver,
// sap/). KrylovSolver's public constructors wrap A's CSR themselves and do
// not use this.
#pragma once

#include <string>

#include "balsa/sparse.hpp"

namespace balsa::krylov {

template <class T>
class Operator {
 public:
  virtual ~Operator() = default;
  virtual index_t rows() const = 0;
  // CPU path: y = A x on host arrays of rows() values (no aliasing).
  virtual void apply(const T* x, T* y) = 0;
  // GPU path: the same on device arrays, asynchronous on the current stream
  // (the Krylov solver's, cuda/stream.hpp), no host synchronisation.
  virtual void apply_device(const T* x, T* y) = 0;
  // The same, but a no-op on the device once *stopped != 0 (a device int:
  // the Krylov status's stop code, see krylov/gpu_method.cuh). Operators
  // whose products are expensive read it in their kernels; the default
  // ignores it.
  virtual void apply_device_unless(const T* x, T* y, const int* /*stopped*/) { apply_device(x, y); }
  // Named in KrylovStats::spmv.
  virtual std::string name() const = 0;
};

}  // namespace balsa::krylov
