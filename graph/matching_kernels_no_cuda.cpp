// Diagonal boosting's GPU stages in a build without CUDA: a clear error.
// (diagonal_boosting refuses Device::Cuda first, since cuda::available() is
// false; this stands in for graph/matching_kernels.cu at link time.)
#include "graph/matching_kernels.hpp"
#include "core/instantiate.hpp"

namespace balsa::matching {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw CudaError(std::string("diagonal boosting on the GPU (") + what +
                  "): balsa was built without CUDA (configure with nvcc available)");
}
}  // namespace

template <class T>
Weights device_weights(const Csr<T>&) {
  no_cuda("DB-S1");
}

Scaling device_scaling(std::span<const double>, std::span<const double>, std::span<const double>) { no_cuda("DB-S4"); }

template <class T>
cuda::DeviceCsr<T> apply_boosting(const cuda::DeviceCsr<T>&, const cuda::DeviceBuffer<index_t>&,
                                  const cuda::DeviceBuffer<double>&, const cuda::DeviceBuffer<double>&) {
  no_cuda("apply_boosting");
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_MATCHING_DEVICE)

}  // namespace balsa::matching
