// The device level sets in a build without CUDA (graph/levels_device.hpp):
// device_level_sets is a clear error (device_or_host_level_sets never calls
// it, since cuda::available() is false).
#include <string>

#include "core/exceptions.hpp"
#include "graph/levels_device.hpp"

namespace balsa::levels_gpu {

namespace {
[[noreturn]] void no_cuda() {
  throw CudaError("device level sets: balsa was built without CUDA (configure with nvcc available)");
}
}  // namespace

std::size_t device_level_sets_bytes(index_t n) { return (5 * std::size_t(n) + 16) * sizeof(index_t); }

namespace detail {
void device_level_sets(index_t, const index_t*, const index_t*, Triangle, const DeviceLevelsRule&,
                       std::span<const index_t>, std::span<const index_t>, DeviceLevels&) {
  no_cuda();
}
}  // namespace detail

void device_level_sets(index_t, const index_t*, const index_t*, Triangle, DeviceLevels&, const DeviceLevelsRule&) try {
  no_cuda();
} catch (...) {
  rethrow_as_balsa_error("device_level_sets");
}

}  // namespace balsa::levels_gpu
