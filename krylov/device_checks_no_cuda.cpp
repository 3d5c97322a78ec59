// The device CSR checks in a build without CUDA: a clear error.
#include "balsa/error.hpp"
#include "core/instantiate.hpp"
#include "krylov/device_checks.hpp"

namespace balsa::krylov::device {

template <class T>
CsrProblem check_csr(index_t, index_t, std::int64_t, const index_t*, const index_t*, const T*) {
  throw CudaError("device CSR checks: balsa was built without CUDA");
}
template <class T>
AsymmetricEntry first_asymmetry(index_t, const index_t*, const index_t*, const T*, double) {
  throw CudaError("device CSR checks: balsa was built without CUDA");
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_KRYLOV_DEVICE_CHECKS)

}  // namespace balsa::krylov::device
