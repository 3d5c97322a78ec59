// SaP's whole-band kernels (sap/gpu.hpp): A's diagonal layout and product,
// the input checks, the blocks' bandwidths, precision conversions, the band
// reversal that turns an LU into the UL factorisation, and the blocks' upload.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cuda/check.hpp"
#include "sap/gpu.hpp"
#include "sap/gpu_band.cuh"
#include "core/instantiate.hpp"

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

// The report's layout from LAPACK's: band[c (2k+1) + dd] = A(c + dd - k, c)
// goes to diag[(2k - dd) n + c + dd - k] (diagonal d = 2k - dd holds
// A(r, r + d - k) at r), through a shared 32 x 32 tile so that both the
// reads (along dd) and the writes (along c) are contiguous.
template <class T>
__global__ void to_diagonals_kernel(const T* band, index_t n, index_t k, T* diag) {
  __shared__ T tile[32][33];
  const std::int64_t ld = 2 * std::int64_t(k) + 1;
  const std::int64_t c0 = std::int64_t(blockIdx.x) * 32, dd0 = std::int64_t(blockIdx.y) * 32;
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {  // column c0 + y, entries dd0 + threadIdx.x
    const std::int64_t c = c0 + y, dd = dd0 + threadIdx.x;
    if (c < n && dd < ld) tile[y][threadIdx.x] = band[c * ld + dd];
  }
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {  // diagonal 2k - (dd0 + y), rows along threadIdx.x
    const std::int64_t dd = dd0 + y, c = c0 + threadIdx.x, r = c + dd - k;
    if (c < n && dd < ld && r >= 0 && r < n) diag[(ld - 1 - dd) * n + r] = tile[threadIdx.x][y];
  }
}

// y = A x from the diagonal layout: a thread per row over its 2k + 1
// diagonals (coalesced along rows, no atomics; bench/band-layout.py).
template <class T>
__global__ void __launch_bounds__(kThreads) diagonal_spmv_kernel(const T* diag, index_t n, index_t k, const T* x, T* y,
                                                                 const int* stopped) {
  if (stopped && *stopped) return;
  const index_t r = index_t(blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x);
  if (r >= n) return;
  const index_t d_lo = imax(0, k - r), d_hi = imin(2 * k, n - 1 - r + k);  // columns r + d - k inside A
  T sum = 0;
  for (index_t d = d_lo; d <= d_hi; ++d) sum += diag[std::int64_t(d) * n + r] * x[r + d - k];
  y[r] = sum;
}

// Block b's bandwidth: a warp per column of the block, lanes over its
// in-block entries (contiguous in the band), the farthest nonzero from the
// diagonal, maximised into bandwidths[b] (zeroed first).
template <class T>
__global__ void __launch_bounds__(kThreads) bandwidth_kernel(const T* band, index_t k, index_t count,
                                                             const index_t* starts, index_t* bandwidths) {
  const int lane = threadIdx.x & 31;
  const index_t warp = index_t((blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32);
  const index_t warps = index_t(gridDim.x * std::int64_t(blockDim.x) / 32);
  for (index_t b = blockIdx.y; b < count; b += gridDim.y) {
    const index_t s = starts[b], e = starts[b + 1];
    index_t best = 0;
    for (index_t c = s + warp; c < e; c += warps) {
      const index_t lo = imax(s, c - k), hi = imin(e - 1, c + k);
      for (index_t r = lo + lane; r <= hi; r += 32)
        if (band[at(r, c, k)] != T(0)) best = imax(best, r > c ? r - c : c - r);
    }
    for (int o = 16; o > 0; o /= 2) best = imax(best, __shfl_xor_sync(0xffffffffu, best, o));
    if (lane == 0 && best > 0) atomicMax(bandwidths + b, best);
  }
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

DeviceBlocks upload(const Blocks& blocks, index_t k) {
  DeviceBlocks d;
  d.count = blocks.count();
  d.starts = cuda::DeviceBuffer<index_t>(std::span<const index_t>(blocks.starts));
  std::vector<index_t> kb = blocks.bandwidths;
  if (kb.empty()) kb.assign(std::size_t(d.count), k);
  d.bandwidths = cuda::DeviceBuffer<index_t>(std::span<const index_t>(kb));
  const BandwidthRange r = bandwidth_range(kb);
  d.min_bandwidth = r.min;
  d.max_bandwidth = r.max;
  return d;
}

template <class T>
void measure_bandwidths(const T* band, index_t n, index_t k, DeviceBlocks& blocks) {
  if (blocks.count == 0) return;
  blocks.bandwidths.fill_bytes(0);
  const std::int64_t columns = n / blocks.count + 1;  // a block's columns, about (load-balanced sizes)
  const dim3 grid(unsigned(std::clamp<std::int64_t>((columns + 7) / 8, 1, 64)),
                  unsigned(std::min<index_t>(blocks.count, 65535)));
  bandwidth_kernel<T>
      <<<grid, kThreads, 0, cuda::stream()>>>(band, k, blocks.count, blocks.starts.data(), blocks.bandwidths.data());
  BALSA_CHECK_LAUNCH();
  const BandwidthRange r = bandwidth_range(blocks.bandwidths.to_host());
  blocks.min_bandwidth = r.min;
  blocks.max_bandwidth = r.max;
}

template <class T>
void to_diagonals(const T* band, index_t n, index_t k, T* diag) {
  if (n == 0) return;
  const std::int64_t ld = 2 * std::int64_t(k) + 1;
  cuda::detail::fill_bytes(diag, 0, std::size_t(ld) * std::size_t(n) * sizeof(T));  // entries outside A
  const dim3 grid(unsigned((n + 31) / 32), unsigned((ld + 31) / 32)), block(32, 8);
  to_diagonals_kernel<T><<<grid, block, 0, cuda::stream()>>>(band, n, k, diag);
  BALSA_CHECK_LAUNCH();
}

template <class T>
void diagonal_spmv(const T* diag, index_t n, index_t k, const T* x, T* y, const int* stopped) {
  if (n == 0) return;
  diagonal_spmv_kernel<T><<<(n + kThreads - 1) / kThreads, kThreads, 0, cuda::stream()>>>(diag, n, k, x, y, stopped);
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
  check_kernel<T><<<grid_for(std::int64_t(count)), kThreads, 0, cuda::stream()>>>(band, std::int64_t(count), out.data(),
                                                                                  out.data() + 1);
  BALSA_CHECK_LAUNCH();
  const std::vector<unsigned long long> h = out.to_host();
  std::memcpy(&r.amax, &h[0], sizeof(double));
  if (h[1] != ~0ull) r.first_bad = std::size_t(h[1]);
  return r;
}

template <class To, class From>
void convert(const From* x, To* y, std::int64_t n, const int* stopped) {
  if (n == 0) return;
  convert_kernel<To, From><<<grid_for(n), kThreads, 0, cuda::stream()>>>(x, y, n, stopped);
  BALSA_CHECK_LAUNCH();
}

template <class P>
void reverse_blocks(const P* from, P* to, index_t k, const DeviceBlocks& blocks, index_t max_block) {
  if (blocks.count == 0) return;
  const dim3 grid(grid_for(std::int64_t(max_block) * (2 * std::int64_t(k) + 1)), unsigned(blocks.count));
  reverse_kernel<P><<<grid, kThreads, 0, cuda::stream()>>>(from, to, k, blocks.starts.data());
  BALSA_CHECK_LAUNCH();
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_SAP_GPU_BAND)
template void convert(const float*, double*, std::int64_t, const int*);
template void convert(const double*, float*, std::int64_t, const int*);
template void convert(const float*, float*, std::int64_t, const int*);
template void convert(const double*, double*, std::int64_t, const int*);

}  // namespace balsa::sap::gpu
