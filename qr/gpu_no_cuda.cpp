// Multifrontal QR on the GPU in a build without CUDA: a clear error from
// every entry (qr/gpu.hpp).
#include "qr/gpu.hpp"

namespace balsa::qr {

struct GpuFactor {};
void GpuFactorDeleter::operator()(GpuFactor* g) const noexcept { delete g; }

namespace {
[[noreturn]] void no_cuda() { throw CudaError("SparseQR on the GPU: balsa was built without CUDA (configure with nvcc available)"); }
}  // namespace

GpuFactorPtr gpu_prepare(const GpuPlan&, index_t, std::size_t) { no_cuda(); }
GpuFactorPtr gpu_prepare_staged(const GpuPlan&, StagedPlan, index_t, std::size_t) { no_cuda(); }
std::size_t gpu_budget(std::size_t) { no_cuda(); }
GpuFactorInfo gpu_info(const GpuFactor&) { no_cuda(); }
std::vector<double> gpu_factorise(GpuFactor&, const GpuPlan&, std::span<const double>, index_t&, std::int64_t) { no_cuda(); }
void gpu_factorise(GpuFactor&, const GpuPlan&, std::span<const double>, index_t&, std::span<double>, std::int64_t) { no_cuda(); }
std::vector<double> gpu_arena(const GpuFactor&) { no_cuda(); }
std::vector<double> gpu_vt(const GpuFactor&) { no_cuda(); }
std::vector<double> gpu_tau(const GpuFactor&) { no_cuda(); }
void gpu_bind_r_rows(GpuFactor&, const std::vector<std::int64_t>&) { no_cuda(); }
void gpu_q_transpose(GpuFactor&, const GpuPlan&, std::span<const double>, index_t, index_t, cuda::DeviceBuffer<double>&,
                     index_t) {
  no_cuda();
}
std::vector<double> gpu_q_times(GpuFactor&, const GpuPlan&, const cuda::DeviceBuffer<double>&, index_t, index_t, index_t) {
  no_cuda();
}
void gpu_synchronize(GpuFactor&) { no_cuda(); }

}  // namespace balsa::qr
