// SaP's GPU path in a build without CUDA: a clear error from every entry.
#include "sap/gpu.hpp"
#include "sap/multi_device.hpp"
#include "sap/preconditioner.hpp"
#include "core/instantiate.hpp"

namespace balsa::sap {

namespace {
[[noreturn]] void no_cuda() { throw CudaError("SaP on the GPU: balsa was built without CUDA (configure with nvcc available)"); }
}  // namespace

template <class T, class P>
std::unique_ptr<SapPreconditioner<T>> make_device_preconditioner(const T*, const Plan&) {
  no_cuda();
}
BALSA_SAP_DEVICE_PRECONDITIONERS

template <class T>
MultiDeviceSystem<T> make_multi_device(const Banded<T>&, const Plan&, const std::vector<int>&, bool, bool, bool,
                                       std::size_t) {
  no_cuda();
}
template MultiDeviceSystem<float> make_multi_device(const Banded<float>&, const Plan&, const std::vector<int>&, bool,
                                                    bool, bool, std::size_t);
template MultiDeviceSystem<double> make_multi_device(const Banded<double>&, const Plan&, const std::vector<int>&, bool,
                                                     bool, bool, std::size_t);

namespace gpu {
DeviceBlocks upload(const Blocks&, index_t) { no_cuda(); }
template <class T>
void measure_bandwidths(const T*, index_t, index_t, DeviceBlocks&) {
  no_cuda();
}
template <class T>
void to_diagonals(const T*, index_t, index_t, T*) {
  no_cuda();
}
template <class T>
void diagonal_spmv(const T*, index_t, index_t, const T*, T*, const int*) {
  no_cuda();
}
template <class T>
BandCheck check_band(const T*, std::size_t) {
  no_cuda();
}
template <class To, class From>
void convert(const From*, To*, std::int64_t, const int*) {
  no_cuda();
}
template <class P>
int factor_blocks(P*, index_t, const DeviceBlocks&, const BoostRule&, bool, FactorKernel) {
  no_cuda();
}
template <class P>
int factor_lu_and_ul(P*, P*, index_t, const DeviceBlocks&, const BoostRule&, FactorKernel) {
  no_cuda();
}
template <class P>
bool window_fits(index_t) {
  no_cuda();
}
template <class P>
void reverse_blocks(const P*, P*, index_t, const DeviceBlocks&, index_t) {
  no_cuda();
}
template <class P>
void solve_blocks(const P*, index_t, index_t, const DeviceBlocks&, P*, const int*) {
  no_cuda();
}
template <class P>
void coupling_blocks(const P*, index_t, const DeviceBlocks&, P*, P*) {
  no_cuda();
}
template <class P>
void truncated_spikes(const P*, const P*, index_t, const DeviceBlocks&, const P*, const P*, P*, P*) {
  no_cuda();
}
template <class P>
void reduced_systems(const P*, const P*, index_t, index_t, P*) {
  no_cuda();
}
template <class P>
void coupling_corrections(const P*, const P*, const P*, const P*, const P*, index_t, const DeviceBlocks&, const P*, P*,
                          const int*) {
  no_cuda();
}
#define BALSA_INSTANTIATE(T) BALSA_SAP_GPU_BAND(T) BALSA_SAP_GPU_BLOCK_LU(T) BALSA_SAP_GPU_SOLVE(T) BALSA_SAP_GPU_SPIKE_BLOCKS(T)
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE
template void convert(const float*, double*, std::int64_t, const int*);
template void convert(const double*, float*, std::int64_t, const int*);
template void convert(const float*, float*, std::int64_t, const int*);
template void convert(const double*, double*, std::int64_t, const int*);
}  // namespace gpu

}  // namespace balsa::sap
