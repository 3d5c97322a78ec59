// SaP's whole-band kernels (sap/gpu.hpp): A's product, the input checks,
// precision conversions, the band reversal that turns an LU into the UL
// factorisation, and the block starts' upload.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cuda/check.hpp"
#include "sap/gpu.hpp"
#include "sap/gpu_band.cuh"
#include "sparse/instantiate.hpp"

namespace balsa::sap::gpu {

namespace {

constexpr int kThreads = 256;

int grid_for(std::int64_t n) { return int(std::max<std::int64_t>(1, std::min<std::int64_t>((n + kThreads - 1) / kThreads, 4096))); }

// Block b's storage reversed: to[s ld + q] = from[e ld - 1 - q].
template <class P>
__global__ void reverse_kernel(const P* from, P* to, index_t k, const index_t* starts) {
  const std::int64_t ld = 2 * std::int64_t(k) + 1;
  const std::int64_t lo = starts[blockIdx.y] * ld, hi = starts[blockIdx.y + 1] * ld;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; q < hi - lo;
       q += std::int64_t(gridDim.x) * blockDim.x)
    to[lo + q] = from[hi - 1 - q];
}

// y = A x: thread block per kRows rows; each warp takes columns and adds
// their in-range part (contiguous in the band) into shared accumulators.
constexpr int kRows = 1024;
template <class T>
__global__ void __launch_bounds__(kThreads) spmv_kernel(const T* band, index_t n, index_t k, const T* x, T* y,
                                                         const int* stopped) {
  if (stopped && *stopped) return;
  __shared__ T acc[kRows];
  const index_t r0 = blockIdx.x * kRows, r1 = imin(n, r0 + kRows);
  for (int i = threadIdx.x; i < kRows; i += blockDim.x) acc[i] = T(0);
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const index_t c_first = imax(0, r0 - k), c_last = imin(n - 1, r1 - 1 + k);
  for (index_t c = c_first + warp; c <= c_last; c += warps) {
    const index_t lo = imax(r0, c - k), hi = imin(r1, c + k + 1);
    const T xc = x[c];
    for (index_t i = lo + lane; i < hi; i += 32) atomicAdd(&acc[i - r0], band[at(i, c, k)] * xc);
  }
  __syncthreads();
  for (index_t i = r0 + threadIdx.x; i < r1; i += blockDim.x) y[i] = acc[i - r0];
}

template <class To, class From>
__global__ void convert_kernel(const From* x, To* y, std::int64_t n, const int* stopped) {
  if (stopped && *stopped) return;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    y[i] = To(x[i]);
}

// max |a| (as the bits of a non-negative double: their order is the
// values') and the first non-finite position.
template <class T>
__global__ void __launch_bounds__(kThreads) check_kernel(const T* band, std::int64_t count,
                                                         unsigned long long* amax_bits, unsigned long long* first_bad) {
  double m = 0;
  unsigned long long bad = ~0ull;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double v = double(band[i]);
    if (!isfinite(v)) {
      const auto at_i = static_cast<unsigned long long>(i);
      bad = at_i < bad ? at_i : bad;
    } else {
      m = fmax(m, fabs(v));
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    const unsigned long long b = __shfl_xor_sync(0xffffffffu, bad, o);
    bad = b < bad ? b : bad;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(amax_bits, static_cast<unsigned long long>(__double_as_longlong(m)));
    if (bad != ~0ull) atomicMin(first_bad, bad);
  }
}

}  // namespace

std::size_t optin_shared_bytes() {
  static const std::size_t bytes = [] {
    int device = 0, optin = 0;
    BALSA_CUDA_CHECK(cudaGetDevice(&device));
    BALSA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return std::size_t(optin);
  }();
  return bytes;
}

DeviceBlocks upload(const Blocks& blocks) {
  DeviceBlocks d;
  d.count = blocks.count();
  d.starts = cuda::DeviceBuffer<index_t>(std::span<const index_t>(blocks.starts));
  return d;
}

template <class T>
void band_spmv(const T* band, index_t n, index_t k, const T* x, T* y, const int* stopped) {
  if (n == 0) return;
  spmv_kernel<T><<<(n + kRows - 1) / kRows, kThreads>>>(band, n, k, x, y, stopped);
  BALSA_CHECK_LAUNCH();
}

template <class T>
BandCheck check_band(const T* band, std::size_t count) {
  BandCheck r;
  r.first_bad = count;
  if (count == 0) return r;
  cuda::DeviceBuffer<unsigned long long> out(2);
  const unsigned long long init[2] = {0ull, ~0ull};
  out.upload(std::span<const unsigned long long>(init, 2));
  check_kernel<T><<<grid_for(std::int64_t(count)), kThreads>>>(band, std::int64_t(count), out.data(), out.data() + 1);
  BALSA_CHECK_LAUNCH();
  const std::vector<unsigned long long> h = out.to_host();
  std::memcpy(&r.amax, &h[0], sizeof(double));
  if (h[1] != ~0ull) r.first_bad = std::size_t(h[1]);
  return r;
}

template <class To, class From>
void convert(const From* x, To* y, std::int64_t n, const int* stopped) {
  if (n == 0) return;
  convert_kernel<To, From><<<grid_for(n), kThreads>>>(x, y, n, stopped);
  BALSA_CHECK_LAUNCH();
}

template <class P>
void reverse_blocks(const P* from, P* to, index_t k, const DeviceBlocks& blocks, index_t max_block) {
  if (blocks.count == 0) return;
  const dim3 grid(grid_for(std::int64_t(max_block) * (2 * std::int64_t(k) + 1)), unsigned(blocks.count));
  reverse_kernel<P><<<grid, kThreads>>>(from, to, k, blocks.starts.data());
  BALSA_CHECK_LAUNCH();
}

#define BALSA_INSTANTIATE(T)                                                                 \
  template void band_spmv(const T*, index_t, index_t, const T*, T*, const int*);             \
  template BandCheck check_band(const T*, std::size_t);                                      \
  template void reverse_blocks(const T*, T*, index_t, const DeviceBlocks&, index_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE
template void convert(const float*, double*, std::int64_t, const int*);
template void convert(const double*, float*, std::int64_t, const int*);
template void convert(const float*, float*, std::int64_t, const int*);
template void convert(const double*, double*, std::int64_t, const int*);

}  // namespace balsa::sap::gpu
