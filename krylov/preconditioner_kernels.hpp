// Internal: the elementwise device kernels of the preconditioners and of the
// multicolour ordering (krylov/preconditioner_kernels.cu; stand-ins in
// preconditioner_kernels_no_cuda.cpp).
// Asynchronous on the current stream (the Krylov solver's, cuda/stream.hpp).
#pragma once

#include <cstddef>

#include "balsa/sparse.hpp"

namespace balsa::krylov::device {

// out[i] = To(in[i]) (precision conversion for mixed-precision preconditioning).
template <class From, class To>
void convert(const From* in, To* out, std::size_t n);
// z[i] = r[i] * inv_diag[i] (Jacobi).
template <class T>
void scale(const T* r, const T* inv_diag, T* z, std::size_t n);
// y[i] = v[perm[i]] (gather) and v[perm[i]] = y[i] (scatter): vectors into
// and out of a permuted system (perm[new] = old).
template <class T>
void gather(const T* v, const index_t* perm, T* y, std::size_t n);
template <class T>
void scatter(const T* y, const index_t* perm, T* v, std::size_t n);

// The precision conversions' and scalings' explicit instantiations, one
// list for the kernels and their stand-ins.
#define BALSA_KRYLOV_DEVICE_CONVERSIONS                                     \
  template void convert<double, float>(const double*, float*, std::size_t); \
  template void convert<float, double>(const float*, double*, std::size_t); \
  template void scale<float>(const float*, const float*, float*, std::size_t); \
  template void scale<double>(const double*, const double*, double*, std::size_t);
// The explicit instantiations for T, one list for the kernels (preconditioner_kernels.cu) and their stand-ins (preconditioner_kernels_no_cuda.cpp).
#define BALSA_KRYLOV_DEVICE_KERNELS(T) \
  template void gather<T>(const T*, const index_t*, T*, std::size_t); \
  template void scatter<T>(const T*, const index_t*, T*, std::size_t);

}  // namespace balsa::krylov::device
