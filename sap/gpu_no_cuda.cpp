// SaP's GPU path in a build without CUDA: a clear error from every entry.
#include "sap/gpu.hpp"
#include "sap/preconditioner.hpp"
#include "core/instantiate.hpp"

namespace balsa::sap {

namespace {
[[noreturn]] void no_cuda() { throw CudaError("SaP on the GPU: balsa was built without CUDA (configure with nvcc available)"); }
}  // namespace

template <class T, class P>
std::unique_ptr<SapPreconditioner<T>> make_device_preconditioner(const cuda::DeviceBuffer<T>&, const Plan&) {
  no_cuda();
}
template std::unique_ptr<SapPreconditioner<float>> make_device_preconditioner<float, float>(const cuda::DeviceBuffer<float>&,
                                                                                             const Plan&);
template std::unique_ptr<SapPreconditioner<double>> make_device_preconditioner<double, double>(
    const cuda::DeviceBuffer<double>&, const Plan&);
template std::unique_ptr<SapPreconditioner<double>> make_device_preconditioner<double, float>(
    const cuda::DeviceBuffer<double>&, const Plan&);

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
#define BALSA_INSTANTIATE(T)                                                                                  \
  template void to_diagonals(const T*, index_t, index_t, T*);                                                 \
  template void diagonal_spmv(const T*, index_t, index_t, const T*, T*, const int*);                          \
  template BandCheck check_band(const T*, std::size_t);                                                       \
  template void measure_bandwidths(const T*, index_t, index_t, DeviceBlocks&);                                \
  template int factor_blocks(T*, index_t, const DeviceBlocks&, const BoostRule&, bool, FactorKernel);         \
  template int factor_lu_and_ul(T*, T*, index_t, const DeviceBlocks&, const BoostRule&, FactorKernel);        \
  template bool window_fits<T>(index_t);                                                                      \
  template void reverse_blocks(const T*, T*, index_t, const DeviceBlocks&, index_t);                          \
  template void solve_blocks(const T*, index_t, index_t, const DeviceBlocks&, T*, const int*);               \
  template void coupling_blocks(const T*, index_t, const DeviceBlocks&, T*, T*);                              \
  template void truncated_spikes(const T*, const T*, index_t, const DeviceBlocks&, const T*, const T*, T*, T*); \
  template void reduced_systems(const T*, const T*, index_t, index_t, T*);                                    \
  template void coupling_corrections(const T*, const T*, const T*, const T*, const T*, index_t,               \
                                     const DeviceBlocks&, const T*, T*, const int*);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE
template void convert(const float*, double*, std::int64_t, const int*);
template void convert(const double*, float*, std::int64_t, const int*);
template void convert(const float*, float*, std::int64_t, const int*);
template void convert(const double*, double*, std::int64_t, const int*);
}  // namespace gpu

}  // namespace balsa::sap
