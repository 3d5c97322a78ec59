// SaP's block factorisations on the GPU (sap/gpu.hpp, factor_blocks): the
// LU of every diagonal block without pivoting, with pivot boosting (report
// sec. 3.1), one thread block per partition (the blocks are independent,
// the steps inside one are not). Narrow bands slide a shared-memory window
// down the block; wide ones take a blocked right-looking factorisation.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "sap/gpu.hpp"
#include "sap/gpu_band.cuh"
#include "sparse/instantiate.hpp"

namespace balsa::sap::gpu {

namespace {

constexpr int kPanel = 16;   // NB at most: columns per block step of the blocked factorisation
constexpr int kAhead = 6;    // steps between a border's copy into the window and its first use
// Auto takes the window up to here: its step does k^2 / 256 updates per
// thread with two block barriers; on the H200 it was 1.6-1.8x faster than
// the blocked kernel at k = 10 and 20 and 9% slower at k = 100.
constexpr index_t kWindowUpTo = 64;
constexpr int kThreads = 256;

// Per block: the first refused pivot (row, kind, value), -1 when none.
struct Failure {
  index_t row;
  int kind;
  double value;
};

// The bands one launch factors: thread block x < count factors block x of
// `first` (reversed: it holds the UL's reversed band), x >= count block
// x - count of `second` (null, or the UL's reversed band: SaP-C's LU and UL
// in one launch, twice the thread blocks on the SMs).
template <class P>
struct Bands {
  P* first;
  P* second;
  bool first_reversed;
  index_t count;
  __device__ bool in_second() const { return blockIdx.x >= count; }
  __device__ P* band() const { return in_second() ? second : first; }
  __device__ bool reversed() const { return in_second() || first_reversed; }
  __device__ index_t block() const { return in_second() ? blockIdx.x - count : blockIdx.x; }
};

// A refused or non-finite pivot of block b (every thread sees the same one):
// recorded by thread 0 (slot blockIdx.x); true when the factorisation must stop.
template <class P>
__device__ bool refuse(P& piv, index_t row, double small, double boosted_value, bool boost, int* boosted,
                       Failure* failures) {
  if (!isfinite(double(piv)) || (fabs(double(piv)) < small && !boost)) {
    if (threadIdx.x == 0) failures[blockIdx.x] = {row, isfinite(double(piv)) ? 0 : 1, double(piv)};
    return true;
  }
  if (fabs(double(piv)) < small) {
    piv = P(piv < P(0) ? -boosted_value : boosted_value);
    if (threadIdx.x == 0) atomicAdd(boosted, 1);
  }
  return false;
}

// Narrow bands: right-looking LU, one column per step, of a window of the
// band kept in shared memory. At step j the window holds rows and columns
// j .. j+k (the pivot, its multipliers, U's row and the trailing k x k
// block) plus the next kAhead borders, already on their way: entry (r, c)
// at w[slot(c) m + slot(r)], slot(x) = (x - s0) mod m, m = k + 1 + kAhead.
// Border q is A's row q (columns q-k .. q) and column q (rows q-k .. q-1);
// no step before q - k touches it, so it is copied (cp.async) at step
// q - k - kAhead into the slot that row and column j - 1 just left. Each
// step writes its finished column (multipliers) and row (U) to the band.
template <class P>
__global__ void __launch_bounds__(kThreads) factor_window_kernel(Bands<P> bands, index_t k, const index_t* starts,
                                                                double small, double boosted_value, bool boost,
                                                                int* boosted, Failure* failures) {
  P* band = bands.band();
  const bool reversed = bands.reversed();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  P* w = reinterpret_cast<P*>(smem_raw);
  const int m = int(k) + 1 + kAhead;
  const index_t b = bands.block(), s0 = starts[b], e = starts[b + 1];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, warps = blockDim.x / 32;
  auto slot = [&](index_t x) { return int((x - s0) % m); };
  auto issue_border = [&](index_t q) {
    if (q >= e) return;
    const index_t lo = imax(s0, q - k);
    const int len = int(q - lo);  // entries before the diagonal
    for (int t = tid; t <= 2 * len; t += blockDim.x) {
      const index_t r = t <= len ? q : lo + (t - len - 1), c = t <= len ? lo + t : q;
      __pipeline_memcpy_async(w + slot(c) * m + slot(r), band + at(r, c, k), sizeof(P));
    }
  };
  for (index_t q = s0; q < s0 + k + kAhead; ++q) issue_border(q);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  int js = 0;  // slot(j)
  for (index_t j = s0; j < e; ++j, js = js + 1 == m ? 0 : js + 1) {
    const int kk = int(imin(k, e - 1 - j));  // rows and columns j+1 .. j+kk
    P piv = w[js * m + js];
    if (refuse(piv, reversed ? s0 + e - 1 - j : j, small, boosted_value, boost, boosted, failures)) {
      __pipeline_wait_prior(0);
      return;
    }
    // (a) the multipliers; column j, U's row j and the pivot out to the band.
    for (int r = tid; r < kk; r += blockDim.x) {
      const int sr = js + 1 + r < m ? js + 1 + r : js + 1 + r - m;
      const P l = w[js * m + sr] / piv;
      w[js * m + sr] = l;
      band[at(j + 1 + r, j, k)] = l;
      band[at(j, j + 1 + r, k)] = w[sr * m + js];
    }
    if (tid == 0) band[at(j, j, k)] = piv;
    issue_border(j + k + kAhead);  // into slot(j - 1)
    __pipeline_commit();
    __syncthreads();
    // (b) the trailing block: (j+r, j+c) -= l_r U(j, j+c), r, c = 1 .. kk.
    for (int c = warp; c < kk; c += warps) {
      const int sc = js + 1 + c < m ? js + 1 + c : js + 1 + c - m;
      const P u = w[sc * m + js];
      for (int r = lane; r < kk; r += 32) {
        const int sr = js + 1 + r < m ? js + 1 + r : js + 1 + r - m;
        w[sc * m + sr] -= w[js * m + sr] * u;
      }
    }
    __pipeline_wait_prior(kAhead - 1);  // border j + 1 + k is in
    __syncthreads();
  }
}

// Blocked right-looking LU of each block (thread block b factors block b):
// per step of NB columns, (1) the panel (the NB columns, rows j0 .. j0+NB+k)
// is factored in shared memory, one column at a time, the multipliers
// applied unscaled and scaled at the end; (2) the U row block to its right
// (NB x k) is solved with the panel's unit L11; (3) the trailing k x k
// window takes the rank-NB update in global memory. Every element of the
// update stays inside the band (no pivoting: L keeps bandwidth k, U too).
template <class P>
__global__ void __launch_bounds__(kThreads) factor_kernel(Bands<P> bands, index_t k, const index_t* starts, double small,
                                                         double boosted_value, bool boost, int nb, int* boosted,
                                                         Failure* failures) {
  P* band = bands.band();
  const bool reversed = bands.reversed();
  extern __shared__ unsigned char smem_raw[];
  P* panel = reinterpret_cast<P*>(smem_raw);  // nb columns of `height` rows
  const int height = nb + k;
  P* u12 = panel + std::size_t(nb) * height;  // nb rows x k columns, [c * nb + i]
  __shared__ P pivots[kPanel];
  const index_t b = bands.block(), s0 = starts[b], e = starts[b + 1];
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
      if (refuse(piv, reversed ? s0 + e - 1 - (j0 + c) : j0 + c, small, boosted_value, boost, boosted, failures)) {
        failed = true;
        break;
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

template <class P>
std::size_t window_bytes(index_t k) {
  const std::size_t m = std::size_t(k) + 1 + kAhead;
  return m * m * sizeof(P);
}

}  // namespace

template <class P>
bool window_fits(index_t k) {
  return window_bytes<P>(k) + 1024 <= optin_shared_bytes();
}

namespace {
// One launch over `bands` (failures of `first`'s blocks reported before `second`'s, as the CPU meets them).
template <class P>
int factor_launch(Bands<P> bands, index_t k, const BoostRule& rule, const DeviceBlocks& blocks, FactorKernel kernel) {
  const bool window = kernel == FactorKernel::Window || (kernel == FactorKernel::Auto && k <= kWindowUpTo && window_fits<P>(k));
  if (window && !window_fits<P>(k))
    throw Error("SaP: the sliding-window factorisation does not fit half-bandwidth k = " + std::to_string(k));
  const int grid = int(blocks.count) * (bands.second ? 2 : 1);
  cuda::DeviceBuffer<int> boosted(1);
  cuda::DeviceBuffer<Failure> failures(static_cast<std::size_t>(grid));
  BALSA_CUDA_CHECK(cudaMemset(boosted.data(), 0, sizeof(int)));
  BALSA_CUDA_CHECK(cudaMemset(failures.data(), 0xff, failures.bytes()));  // row -1
  const std::size_t optin = optin_shared_bytes();
  if (window) {
    const std::size_t smem = window_bytes<P>(k);
    BALSA_CUDA_CHECK(cudaFuncSetAttribute(factor_window_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    factor_window_kernel<P><<<grid, kThreads, smem>>>(bands, k, blocks.starts.data(), rule.small(), rule.boosted(),
                                                       rule.enabled, boosted.data(), failures.data());
  } else {
    // The widest panel (16, 8, 4 or 2 columns) whose panel and U row block fit in shared memory.
    auto bytes = [k](int nb) { return sizeof(P) * (std::size_t(nb) * (nb + k) + std::size_t(nb) * k); };
    int nb = kPanel;
    while (nb > 2 && bytes(nb) + 1024 > optin) nb /= 2;
    if (bytes(nb) + 1024 > optin)
      throw DeviceOutOfMemory("SaP: half-bandwidth k = " + std::to_string(k) + " is too wide for the GPU factorisation (its " +
                              "panel needs " + std::to_string(bytes(nb)) + " bytes of shared memory, the GPU has " +
                              std::to_string(optin) + " per block)");
    const std::size_t smem = bytes(nb);
    BALSA_CUDA_CHECK(cudaFuncSetAttribute(factor_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    factor_kernel<P><<<grid, kThreads, smem>>>(bands, k, blocks.starts.data(), rule.small(), rule.boosted(), rule.enabled,
                                                nb, boosted.data(), failures.data());
  }
  BALSA_CHECK_LAUNCH();
  const std::vector<Failure> f = failures.to_host();
  for (int x = 0; x < grid; ++x) {
    const Failure& fx = f[std::size_t(x)];
    const bool second = x >= blocks.count;
    if (fx.row >= 0) throw_pivot_error(fx.kind, fx.value, rule, fx.row, second ? x - blocks.count : x, second || bands.first_reversed);
  }
  return boosted.to_host()[0];
}
}  // namespace

template <class P>
int factor_blocks(P* band, index_t k, const DeviceBlocks& blocks, const BoostRule& rule, bool reversed,
                  FactorKernel kernel) {
  if (blocks.count == 0) return 0;
  return factor_launch(Bands<P>{band, nullptr, reversed, blocks.count}, k, rule, blocks, kernel);
}

template <class P>
int factor_lu_and_ul(P* lu, P* ul, index_t k, const DeviceBlocks& blocks, const BoostRule& rule, FactorKernel kernel) {
  if (blocks.count == 0) return 0;
  return factor_launch(Bands<P>{lu, ul, false, blocks.count}, k, rule, blocks, kernel);
}

#define BALSA_INSTANTIATE(T)                                                                                  \
  template int factor_blocks(T*, index_t, const DeviceBlocks&, const BoostRule&, bool, FactorKernel);         \
  template int factor_lu_and_ul(T*, T*, index_t, const DeviceBlocks&, const BoostRule&, FactorKernel);        \
  template bool window_fits<T>(index_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::sap::gpu
