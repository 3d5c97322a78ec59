// ILU(0)/IC(0) on the GPU in a build without CUDA: a clear error. (The front
// end refuses Device::Cuda first, since cuda::available() is false; this
// stands in for factor/incomplete.cu at link time.)
#include <string>

#include "factor/incomplete_gpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::factor_gpu {

template <class T>
std::unique_ptr<Backend<T>> make_backend(IncompleteKind kind, const Csr<T>&, std::span<const index_t>,
                                         const LevelSets&, std::span<const index_t>, index_t, double) {
  throw CudaError(std::string(factor_name(kind)) + " on the GPU: balsa was built without CUDA (configure with nvcc available)");
}

#define BALSA_INSTANTIATE(T)                                                                                   \
  template std::unique_ptr<Backend<T>> make_backend<T>(IncompleteKind, const Csr<T>&, std::span<const index_t>, \
                                                       const LevelSets&, std::span<const index_t>, index_t, double);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::factor_gpu
