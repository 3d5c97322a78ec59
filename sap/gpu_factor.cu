// SaP's block kernels on the GPU (sap/gpu.hpp): the LU of every diagonal
// block without pivoting (report sec. 3.1), the blocks' solves, the band
// reversal that turns an LU into the UL factorisation, A's band product and
// precision conversions. One thread block per partition for the sequential
// work (factor, sweeps): the blocks are independent, the steps inside one
// are not.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "sap/gpu.hpp"
#include "sparse/instantiate.hpp"

namespace balsa::sap::gpu {

namespace {

constexpr int kPanel = 16;   // NB at most: columns per block step of the factorisation
constexpr int kSweep = 32;   // rows per block step of the solves (one warp's triangle)
constexpr int kThreads = 256;

__host__ __device__ __forceinline__ index_t imin(index_t a, index_t b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ index_t imax(index_t a, index_t b) { return a > b ? a : b; }

// (i, j) of a band with half-bandwidth k: k + i + 2k j (sparse.hpp, Banded).
__device__ __forceinline__ std::int64_t at(index_t i, index_t j, index_t k) {
  return std::int64_t(j) * (2 * std::int64_t(k) + 1) + k + i - j;
}

// Per block: the first refused pivot (row, kind, value), -1 when none.
struct Failure {
  index_t row;
  int kind;
  double value;
};

// Blocked right-looking LU of each block (thread block b factors block b):
// per step of NB columns, (1) the panel (the NB columns, rows j0 .. j0+NB+k)
// is factored in shared memory, one column at a time, the multipliers
// applied unscaled and scaled at the end; (2) the U row block to its right
// (NB x k) is solved with the panel's unit L11; (3) the trailing k x k
// window takes the rank-NB update in global memory. Every element of the
// update stays inside the band (no pivoting: L keeps bandwidth k, U too).
template <class P>
__global__ void __launch_bounds__(kThreads) factor_kernel(P* band, index_t k, const index_t* starts, double small,
                                                         double boosted_value, bool boost, bool reversed,
                                                         int nb, int* boosted, Failure* failures) {
  extern __shared__ unsigned char smem_raw[];
  P* panel = reinterpret_cast<P*>(smem_raw);  // nb columns of `height` rows
  const int height = nb + k;
  P* u12 = panel + std::size_t(nb) * height;  // nb rows x k columns, [c * nb + i]
  __shared__ P pivots[kPanel];
  const index_t b = blockIdx.x, s0 = starts[b], e = starts[b + 1];
  const int tid = threadIdx.x;
  for (index_t j0 = s0; j0 < e; j0 += nb) {
    const int jb = int(imin(nb, e - j0));
    const int h = int(imin(e - j0, jb + k));  // panel rows j0 .. j0+h-1
    for (int q = tid; q < jb * h; q += blockDim.x) {
      const int c = q / h, r = q % h;
      panel[c * height + r] = (r - c <= k && c - r <= k) ? band[at(j0 + r, j0 + c, k)] : P(0);
    }
    __syncthreads();
    // (1) the panel, column by column; every thread derives the same pivot.
    bool failed = false;
    for (int c = 0; c < jb; ++c) {
      P piv = panel[c * height + c];
      const index_t row = reversed ? s0 + e - 1 - (j0 + c) : j0 + c;
      if (!isfinite(double(piv)) || (fabs(double(piv)) < small && !boost)) {
        if (tid == 0) failures[b] = {row, isfinite(double(piv)) ? 0 : 1, double(piv)};
        failed = true;
        break;
      }
      if (fabs(double(piv)) < small) {
        piv = P(piv < P(0) ? -boosted_value : boosted_value);
        if (tid == 0) atomicAdd(boosted, 1);
      }
      if (tid == 0) pivots[c] = piv;
      const int rows = h - c - 1, cols = jb - c - 1;
      for (int q = tid; q < rows * cols; q += blockDim.x) {
        const int r = c + 1 + q % rows, cc = c + 1 + q / rows;
        panel[cc * height + r] -= panel[c * height + r] / piv * panel[cc * height + c];
      }
      __syncthreads();
    }
    if (failed) return;  // every thread saw the same pivot
    for (int q = tid; q < jb * h; q += blockDim.x) {
      const int c = q / h, r = q % h;
      if (r > c) panel[c * height + r] /= pivots[c];
      if (r == c) panel[c * height + r] = pivots[c];
    }
    __syncthreads();
    for (int q = tid; q < jb * h; q += blockDim.x) {
      const int c = q / h, r = q % h;
      if (r - c <= k && c - r <= k) band[at(j0 + r, j0 + c, k)] = panel[c * height + r];
    }
    // (2) U12 = L11^{-1} A12: columns j0+jb .. j0+jb+w-1, one thread each.
    const int w = int(imin(k, e - (j0 + jb)));
    for (int c = tid; c < w; c += blockDim.x) {
      const index_t col = j0 + jb + c;
      for (int i = 0; i < jb; ++i) {
        P v = (col - (j0 + i) <= k) ? band[at(j0 + i, col, k)] : P(0);
        for (int t = 0; t < i; ++t) v -= panel[t * height + i] * u12[c * nb + t];
        u12[c * nb + i] = v;
        if (col - (j0 + i) <= k) band[at(j0 + i, col, k)] = v;
      }
    }
    __syncthreads();
    // (3) A22 -= L21 U12 over rows j0+jb .. j0+h-1 and the w columns.
    const int rows = h - jb;
    for (int q = tid; q < rows * w; q += blockDim.x) {
      const int r = q % rows, c = q / rows;
      P sum = 0;
      for (int t = 0; t < jb; ++t) sum += panel[t * height + jb + r] * u12[c * nb + t];
      band[at(j0 + jb + r, j0 + jb + c, k)] -= sum;
    }
    __syncthreads();
  }
}

// Forward (L, unit) then backward (U) sweep of each block, in blocks of 32
// rows: warp 0 solves the 32 x 32 triangle with shuffles, then all threads
// update the next (or previous) k rows with the rows just solved.
template <class P>
__global__ void __launch_bounds__(kThreads) solve_kernel(const P* band, index_t k, const index_t* starts, P* x) {
  const index_t s0 = starts[blockIdx.x], e = starts[blockIdx.x + 1];
  const int tid = threadIdx.x, lane = tid & 31;
  for (index_t j0 = s0; j0 < e; j0 += kSweep) {
    const int jb = int(imin(kSweep, e - j0));
    if (tid < 32) {
      // The lane's row of the triangle, loaded before the dependent chain
      // (loads inside it would serialise a memory latency per row).
      P l[kSweep];
#pragma unroll
      for (int t = 0; t < kSweep; ++t)
        l[t] = (t < jb && lane > t && lane < jb && lane - t <= k) ? band[at(j0 + lane, j0 + t, k)] : P(0);
      P v = lane < jb ? x[j0 + lane] : P(0);
#pragma unroll
      for (int t = 0; t < kSweep; ++t) v -= l[t] * __shfl_sync(0xffffffffu, v, t);
      if (lane < jb) x[j0 + lane] = v;
    }
    __syncthreads();
    const index_t last = imin(e, j0 + jb + k);  // rows j0+jb .. last-1 reach the block
    for (index_t i = j0 + jb + tid; i < last; i += blockDim.x) {
      P sum = 0;
      for (int t = imax(0, i - k - j0); t < jb; ++t) sum += band[at(i, j0 + t, k)] * x[j0 + t];
      x[i] -= sum;
    }
    __syncthreads();
  }
  for (index_t j1 = e; j1 > s0; j1 -= kSweep) {
    const index_t j0 = imax(s0, j1 - kSweep);
    const int jb = int(j1 - j0);
    if (tid < 32) {
      P u[kSweep];
#pragma unroll
      for (int t = 0; t < kSweep; ++t)
        u[t] = (t < jb && lane < t && t - lane <= k) ? band[at(j0 + lane, j0 + t, k)] : P(0);
      const P diag = lane < jb ? band[at(j0 + lane, j0 + lane, k)] : P(1);
      P v = lane < jb ? x[j0 + lane] : P(0);
#pragma unroll
      for (int t = kSweep - 1; t >= 0; --t) {
        if (lane == t) v /= diag;
        v -= u[t] * __shfl_sync(0xffffffffu, v, t);
      }
      if (lane < jb) x[j0 + lane] = v;
    }
    __syncthreads();
    const index_t first = imax(s0, j0 - k);  // rows first .. j0-1 reach the block
    for (index_t i = first + tid; i < j0; i += blockDim.x) {
      P sum = 0;
      const int tend = int(imin(jb, i + k - j0 + 1));
      for (int t = 0; t < tend; ++t) sum += band[at(i, j0 + t, k)] * x[j0 + t];
      x[i] -= sum;
    }
    __syncthreads();
  }
}

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
__global__ void __launch_bounds__(kThreads) spmv_kernel(const T* band, index_t n, index_t k, const T* x, T* y) {
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
__global__ void convert_kernel(const From* x, To* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    y[i] = To(x[i]);
}

int grid_for(std::int64_t n) { return int(std::max<std::int64_t>(1, std::min<std::int64_t>((n + kThreads - 1) / kThreads, 4096))); }

}  // namespace

DeviceBlocks upload(const Blocks& blocks) {
  DeviceBlocks d;
  d.count = blocks.count();
  d.starts = cuda::DeviceBuffer<index_t>(std::span<const index_t>(blocks.starts));
  return d;
}

template <class T>
void band_spmv(const T* band, index_t n, index_t k, const T* x, T* y) {
  if (n == 0) return;
  spmv_kernel<T><<<(n + kRows - 1) / kRows, kThreads>>>(band, n, k, x, y);
  BALSA_CHECK_LAUNCH();
}

template <class To, class From>
void convert(const From* x, To* y, std::int64_t n) {
  if (n == 0) return;
  convert_kernel<To, From><<<grid_for(n), kThreads>>>(x, y, n);
  BALSA_CHECK_LAUNCH();
}

template <class P>
int factor_blocks(P* band, index_t k, const DeviceBlocks& blocks, const BoostRule& rule, bool reversed) {
  if (blocks.count == 0) return 0;
  // The widest panel (16, 8, 4 or 2 columns) whose panel and U row block fit in shared memory.
  int device = 0, optin = 0;
  BALSA_CUDA_CHECK(cudaGetDevice(&device));
  BALSA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  auto bytes = [k](int nb) { return sizeof(P) * (std::size_t(nb) * (nb + k) + std::size_t(nb) * k); };
  int nb = kPanel;
  while (nb > 2 && bytes(nb) + 1024 > std::size_t(optin)) nb /= 2;
  if (bytes(nb) + 1024 > std::size_t(optin))
    throw DeviceOutOfMemory("SaP: half-bandwidth k = " + std::to_string(k) + " is too wide for the GPU factorisation (its " +
                            "panel needs " + std::to_string(bytes(nb)) + " bytes of shared memory, the GPU has " +
                            std::to_string(optin) + " per block)");
  const std::size_t smem = bytes(nb);
  BALSA_CUDA_CHECK(cudaFuncSetAttribute(factor_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cuda::DeviceBuffer<int> boosted(1);
  cuda::DeviceBuffer<Failure> failures(std::size_t(blocks.count));
  BALSA_CUDA_CHECK(cudaMemset(boosted.data(), 0, sizeof(int)));
  BALSA_CUDA_CHECK(cudaMemset(failures.data(), 0xff, failures.bytes()));  // row -1
  factor_kernel<P><<<blocks.count, kThreads, smem>>>(band, k, blocks.starts.data(), rule.small(), rule.boosted(),
                                                       rule.enabled, reversed, nb, boosted.data(), failures.data());
  BALSA_CHECK_LAUNCH();
  const std::vector<Failure> f = failures.to_host();
  for (index_t b = 0; b < blocks.count; ++b)
    if (f[std::size_t(b)].row >= 0) throw_pivot_error(f[std::size_t(b)].kind, f[std::size_t(b)].value, rule, f[std::size_t(b)].row, b, reversed);
  return boosted.to_host()[0];
}

template <class P>
void reverse_blocks(const P* from, P* to, index_t k, const DeviceBlocks& blocks, index_t max_block) {
  if (blocks.count == 0) return;
  const dim3 grid(grid_for(std::int64_t(max_block) * (2 * std::int64_t(k) + 1)) , unsigned(blocks.count));
  reverse_kernel<P><<<grid, kThreads>>>(from, to, k, blocks.starts.data());
  BALSA_CHECK_LAUNCH();
}

template <class P>
void solve_blocks(const P* band, index_t k, const DeviceBlocks& blocks, P* x) {
  if (blocks.count == 0) return;
  solve_kernel<P><<<blocks.count, kThreads>>>(band, k, blocks.starts.data(), x);
  BALSA_CHECK_LAUNCH();
}

#define BALSA_INSTANTIATE(T)                                                                                  \
  template void band_spmv(const T*, index_t, index_t, const T*, T*);                                          \
  template int factor_blocks(T*, index_t, const DeviceBlocks&, const BoostRule&, bool);                       \
  template void reverse_blocks(const T*, T*, index_t, const DeviceBlocks&, index_t);                          \
  template void solve_blocks(const T*, index_t, const DeviceBlocks&, T*);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE
template void convert(const float*, double*, std::int64_t);
template void convert(const double*, float*, std::int64_t);
template void convert(const float*, float*, std::int64_t);
template void convert(const double*, double*, std::int64_t);

}  // namespace balsa::sap::gpu
