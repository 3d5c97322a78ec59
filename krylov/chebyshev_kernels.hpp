// Internal: the device kernels of the Chebyshev preconditioner
// (krylov/chebyshev.cpp; kernels in krylov/chebyshev_kernels.cu, stand-ins
// in chebyshev_kernels_no_cuda.cpp). Asynchronous on the current stream
// (the Krylov solver's, cuda/stream.hpp) unless a comment says otherwise.
#pragma once

#include <cstdint>

#include "balsa/sparse.hpp"

namespace balsa::krylov::device {

// A's CSR on the device, borrowed (values in the preconditioner's precision).
template <class P>
struct CsrView {
  index_t n = 0;
  const index_t* row_ptr = nullptr;
  const index_t* col_idx = nullptr;
  const P* values = nullptr;
};

// Why a row's diagonal cannot scale: what chebyshev_scaling reports for the
// first such row (the smallest index).
enum class DiagonalFault : int { None = 0, Missing = 1, NotPositive = 2, NotFinite = 3 };
struct DiagonalProblem {
  index_t row = -1;
  DiagonalFault fault = DiagonalFault::None;
};

// Jacobi scaling and Gershgorin's bound of D^{-1} A from A's values on the
// device: dinv[i] = 1 / a_ii and *bound = max_i sum_j |a_ij| / a_ii (each
// row summed in index order, in double: the same bits as the host's
// chebyshev_scaling, krylov/chebyshev.hpp). Waits for the result (one copy of
// a few bytes) and returns the first row whose diagonal is missing, not
// positive, or whose values are not finite (then dinv and bound are not
// usable).
template <class T, class P>
DiagonalProblem chebyshev_scaling(index_t n, const index_t* row_ptr, const index_t* col_idx, const T* values,
                                  P* dinv, double* bound);

// out = (c / *bound) dinv .* r: the first Chebyshev step from z = 0.
template <class P>
void chebyshev_first(index_t n, const P* dinv, const double* bound, double c, const P* r, P* out, const int* stopped);

// out = cur + alpha (cur - prev) + (gamma / *bound) dinv .* (r - A cur), one
// group of `lanes` threads (1, 2, 4, 8, 16 or 32) per row; prev null stands
// for 0. out may be prev (each row reads only its own entry of prev) but
// neither cur nor r. Every kernel returns at once when stopped is non-null
// and *stopped != 0 (the Krylov status, krylov/gpu_method.cuh).
template <class P>
void chebyshev_step(const CsrView<P>& A, int lanes, const P* dinv, const double* bound, double alpha, double gamma,
                    const P* r, const P* cur, const P* prev, P* out, const int* stopped);

// The explicit instantiations, one list for the kernels and their stand-ins.
#define BALSA_CHEBYSHEV_KERNELS(P)                                                                                 \
  template void chebyshev_first<P>(index_t, const P*, const double*, double, const P*, P*, const int*);          \
  template void chebyshev_step<P>(const CsrView<P>&, int, const P*, const double*, double, double, const P*,     \
                                  const P*, const P*, P*, const int*);                                           \
  template DiagonalProblem chebyshev_scaling<P, P>(index_t, const index_t*, const index_t*, const P*, P*, double*);
#define BALSA_CHEBYSHEV_MIXED_KERNELS \
  template DiagonalProblem chebyshev_scaling<double, float>(index_t, const index_t*, const index_t*, const double*, \
                                                           float*, double*);

}  // namespace balsa::krylov::device
