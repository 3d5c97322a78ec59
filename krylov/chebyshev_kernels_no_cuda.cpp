// The Chebyshev preconditioner's device kernels in a build without CUDA: a
// clear error.
#include "balsa/error.hpp"
#include "core/instantiate.hpp"
#include "krylov/chebyshev_kernels.hpp"

namespace balsa::krylov::device {

namespace {
[[noreturn]] void no_cuda() { throw CudaError("GPU Chebyshev preconditioner: balsa was built without CUDA"); }
}  // namespace

template <class T, class P>
DiagonalProblem chebyshev_scaling(index_t, const index_t*, const index_t*, const T*, P*, double*) {
  no_cuda();
}
template <class P>
void chebyshev_first(index_t, const P*, const double*, double, const P*, P*, const int*) {
  no_cuda();
}
template <class P>
void chebyshev_step(const CsrView<P>&, int, const P*, const double*, double, double, const P*, const P*, const P*, P*,
                    const int*) {
  no_cuda();
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_CHEBYSHEV_KERNELS)
BALSA_CHEBYSHEV_MIXED_KERNELS

}  // namespace balsa::krylov::device
