// Internal: the elementwise device kernels of the preconditioners
// (krylov/preconditioner_kernels.cu; stand-ins in preconditioner_kernels_no_cuda.cpp).
// Asynchronous on the current stream (the Krylov solver's, cuda/stream.hpp).
#pragma once

#include <cstddef>

namespace balsa::krylov::device {

// out[i] = To(in[i]) (precision conversion for mixed-precision preconditioning).
template <class From, class To>
void convert(const From* in, To* out, std::size_t n);
// z[i] = r[i] * inv_diag[i] (Jacobi).
template <class T>
void scale(const T* r, const T* inv_diag, T* z, std::size_t n);

}  // namespace balsa::krylov::device
