// SaP's block factorisations on the GPU (sap/gpu.hpp, factor_blocks): the
// LU of every diagonal block without pivoting, with pivot boosting (report
// sec. 3.1). Narrow bands slide a shared-memory window down the block, one
// thread block per partition; wide ones factor panels with several thread
// blocks per partition. Each block b works within its own bandwidth k_b
// (<= the storage's k).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "sap/gpu.hpp"
#include "sap/gpu_band.cuh"
#include "core/instantiate.hpp"

namespace balsa::sap::gpu {

namespace {

constexpr int kAhead = 6;    // steps between a border's copy into the window and its first use
// Auto takes the window up to here. H200, N = 1e6, P = 50 (SaP-D's T_LU,
// bench banded): the window 15.2 / 17.9 ms against the wide kernel's 21.6 /
// 24.5 ms at k = 10 / 20; at k = 50 the wide kernel 20.6 against 34.3 ms.
constexpr index_t kWindowUpTo = 32;
constexpr int kThreads = 256;

// Per block: the first refused pivot (row, kind, value), -1 when none.
struct Failure {
  index_t row;
  int kind;
  double value;
};

// The bands one launch factors: group g < count (a thread block, or G of
// them) factors block g of `first` (reversed: it holds the UL's reversed
// band), g >= count block g - count of `second` (null, or the UL's reversed
// band: SaP-C's LU and UL in one launch, twice the groups on the SMs).
template <class P>
struct Bands {
  P* first;
  P* second;
  bool first_reversed;
  index_t count;
  __device__ bool in_second(index_t g) const { return g >= count; }
  __device__ P* band(index_t g) const { return in_second(g) ? second : first; }
  __device__ bool reversed(index_t g) const { return in_second(g) || first_reversed; }
  __device__ index_t block(index_t g) const { return in_second(g) ? g - count : g; }
};

// A refused or non-finite pivot of group g's block (every thread sees the
// same one): recorded by thread 0 in slot g; true when the factorisation
// must stop.
template <class P>
__device__ bool refuse(P& piv, index_t row, double small, double boosted_value, bool boost, int* boosted,
                       Failure* failures, index_t g) {
  if (!isfinite(double(piv)) || (fabs(double(piv)) < small && !boost)) {
    if (threadIdx.x == 0) failures[g] = {row, isfinite(double(piv)) ? 0 : 1, double(piv)};
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
// j .. j+kb (the pivot, its multipliers, U's row and the trailing kb x kb
// block; kb = the block's bandwidth) plus the next kAhead borders, already
// on their way: entry (r, c) at w[slot(c) m + slot(r)], slot(x) = (x - s0)
// mod m, m = kb + 1 + kAhead. Border q is A's row q (columns q-kb .. q) and
// column q (rows q-kb .. q-1); no step before q - kb touches it, so it is
// copied (cp.async) at step q - kb - kAhead into the slot that row and
// column j - 1 just left. Each step writes its finished column
// (multipliers) and row (U) to the band (storage half-bandwidth k).
template <class P>
__global__ void __launch_bounds__(kThreads) factor_window_kernel(Bands<P> bands, index_t k, const index_t* starts,
                                                                const index_t* bandwidths, double small,
                                                                double boosted_value, bool boost, int* boosted,
                                                                Failure* failures) {
  P* band = bands.band(blockIdx.x);
  const bool reversed = bands.reversed(blockIdx.x);
  extern __shared__ __align__(16) unsigned char smem_raw[];
  P* w = reinterpret_cast<P*>(smem_raw);
  const index_t b = bands.block(blockIdx.x), s0 = starts[b], e = starts[b + 1], kb = bandwidths[b];
  const int m = int(kb) + 1 + kAhead;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, warps = blockDim.x / 32;
  auto slot = [&](index_t x) { return int((x - s0) % m); };
  auto issue_border = [&](index_t q) {
    if (q >= e) return;
    const index_t lo = imax(s0, q - kb);
    const int len = int(q - lo);  // entries before the diagonal
    for (int t = tid; t <= 2 * len; t += blockDim.x) {
      const index_t r = t <= len ? q : lo + (t - len - 1), c = t <= len ? lo + t : q;
      __pipeline_memcpy_async(w + slot(c) * m + slot(r), band + at(r, c, k), sizeof(P));
    }
  };
  for (index_t q = s0; q < s0 + kb + kAhead; ++q) issue_border(q);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  int js = 0;  // slot(j)
  for (index_t j = s0; j < e; ++j, js = js + 1 == m ? 0 : js + 1) {
    const int kk = int(imin(kb, e - 1 - j));  // rows and columns j+1 .. j+kk
    P piv = w[js * m + js];
    if (refuse(piv, reversed ? s0 + e - 1 - j : j, small, boosted_value, boost, boosted, failures, blockIdx.x)) {
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
    issue_border(j + kb + kAhead);  // into slot(j - 1)
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
    __pipeline_wait_prior(kAhead - 1);  // border j + 1 + kb is in
    __syncthreads();
  }
}

// Wide bands (Auto: k > 32): a right-looking LU in panels of NB columns, G
// thread blocks per partition (report sec. 3.1's multi-block kernel). Panel
// p (columns s0 + p NB ..) belongs to thread block p mod G of its group,
// which applies every update to its columns and, when p's turn comes,
// factors it: (1) its NB x NB diagonal block in shared memory, one column
// at a time with the boosting rule, (2) the rows of L below it (one thread
// a row, U11 from shared memory), and publishes it (the group's counter
// becomes p + 1). At step q every thread block of the group reads panel
// q's L, (a) solves its own columns' rows of U in q's rows with L11 (one
// thread a column) and (b) updates them in the k x k window below: each
// thread keeps R rows of L in registers and streams the tile's columns
// (coalesced in the band's column-major storage), U from shared memory.
// The owner of panel q + 1 updates it first and factors it before its
// other columns (lookahead), so the group waits one panel factorisation
// per step. G > 1 is launched cooperatively (every thread block resident:
// the waits cannot deadlock); per block, the bandwidth k_b bounds the work.
// Every entry a step touches lies inside the block's band (no pivoting: L
// keeps bandwidth k_b, U too); operations reach each entry in the CPU
// reference's order (sap/steps_cpu.cpp), columns ascending.
constexpr int kWideThreads = 256;
constexpr int kNb = 16;           // NB: columns per panel (kNb^2 == kWideThreads: a thread per diagonal-block entry)
constexpr int kRows = 2;          // R: rows of the window per thread per sweep
constexpr int kTilePanels = 8;    // a tile: up to 8 of a thread block's panels
constexpr int kAtOnce = 4;        // window columns a thread updates together
constexpr int kFailed = 0x7fffffff;  // a group counter's value after a refused pivot

// Its length (about 170 lines) is kept on purpose: the steps are already
// named (factor_panel: the diagonal block and L21; update_tile: U12 and the
// A22 update; the loop: the group's wait, L11's load, the lookahead) as
// lambdas over the kernel's shared arrays and its group state (band, block
// bounds, counter, failure slot). As __device__ functions each would take a
// dozen of them as arguments; the kernel is tuned for registers at
// __launch_bounds__(256, 2), and a split would have to be checked for the
// same registers and spills (ptxas -v) and re-timed on a GPU (bench banded)
// to show no cost, so it stays one function.
template <class P>
__global__ void __launch_bounds__(kWideThreads, 2)
    factor_wide_kernel(Bands<P> bands, index_t k, const index_t* starts, const index_t* bandwidths, int G, double small,
                       double boosted_value, bool boost, int* boosted, Failure* failures, int* published) {
  static_assert(kNb * kNb == kWideThreads);
  __shared__ P d[kNb * kNb];                  // the diagonal block being factored, [c * NB + r]
  __shared__ P l11[kNb * kNb];                // panel q's unit L11, [c * NB + r]
  __shared__ P u[kTilePanels * kNb * kNb];    // a tile's U rows, [column * NB + t]
  __shared__ int seen;
  const index_t grp = blockIdx.x / G;
  const int rank = int(blockIdx.x % G), tid = threadIdx.x;
  P* band = bands.band(grp);
  const bool reversed = bands.reversed(grp);
  const index_t b = bands.block(grp), s0 = starts[b], e = starts[b + 1], kb = bandwidths[b];
  const index_t panels = (e - s0 + kNb - 1) / kNb;
  int* counter = published + grp;
  auto A = [&](index_t r, index_t c) -> P& { return band[at(r, c, k)]; };
  auto inside = [&](index_t r, index_t c) { return r - c <= kb && c - r <= kb; };

  // Factors panel p (every update of panels < p applied) and publishes it;
  // true when a pivot is refused (the group's counter then says so).
  auto factor_panel = [&](index_t p) -> bool {
    const index_t j0 = s0 + p * kNb, end = imin(e, j0 + kNb + kb);
    const int jb = int(imin(kNb, e - j0));
    const int tr = tid % kNb, tc = tid / kNb;
    const bool entry = tr < jb && tc < jb && inside(j0 + tr, j0 + tc);
    d[tc * kNb + tr] = entry ? A(j0 + tr, j0 + tc) : P(0);
    __syncthreads();
    for (int c = 0; c < jb; ++c) {  // (1) the diagonal block, column c: multipliers and the rank-1 update
      P piv = d[c * kNb + c];
      const P l = d[c * kNb + tr], uc = d[tc * kNb + c];
      if (refuse(piv, reversed ? s0 + e - 1 - (j0 + c) : j0 + c, small, boosted_value, boost, boosted, failures, grp)) {
        if (tid == 0) {
          __threadfence();
          atomicExch(counter, kFailed);
        }
        return true;
      }
      __syncthreads();
      if (tr == c && tc == c) d[c * kNb + c] = piv;
      else if (tr > c && tc == c) d[c * kNb + tr] = l / piv;
      else if (tr > c && tc > c) d[tc * kNb + tr] -= (l / piv) * uc;
      __syncthreads();
    }
    if (entry) A(j0 + tr, j0 + tc) = d[tc * kNb + tr];
    for (index_t r = j0 + jb + tid; r < end; r += blockDim.x) {  // (2) L21 = A21 U11^{-1}, a row per thread
      asm volatile("" ::: "memory");  // U11 is read from shared memory per row, not hoisted into 136 registers
      P l[kNb];
#pragma unroll
      for (int t = 0; t < kNb; ++t) l[t] = t < jb && r - (j0 + t) <= kb ? A(r, j0 + t) : P(0);
#pragma unroll
      for (int t = 0; t < kNb; ++t) {
        if (t < jb) {
          P v = l[t];
#pragma unroll
          for (int s = 0; s < t; ++s) v -= l[s] * d[t * kNb + s];
          l[t] = v / d[t * kNb + t];
        }
      }
#pragma unroll
      for (int t = 0; t < kNb; ++t)
        if (t < jb && r - (j0 + t) <= kb) A(r, j0 + t) = l[t];
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicExch(counter, int(p + 1));
    return false;
  };

  if (panels > 0 && rank == 0 && factor_panel(0)) return;
  for (index_t q = 0; q < panels; ++q) {
    __syncthreads();  // every thread has read `seen` of step q - 1
    if (tid == 0) {  // panel q published (by this thread block itself when it owns q)
      int v;
      while ((v = *static_cast<volatile int*>(counter)) <= q) __nanosleep(32);
      __threadfence();
      seen = v;
    }
    __syncthreads();
    if (seen == kFailed) return;
    const index_t j0 = s0 + q * kNb, c_lo = j0 + kNb, end = imin(e, j0 + kNb + kb);
    const index_t next_owner = (q + 1) % G;
    if (c_lo >= end) {  // no window below panel q (the last panel, or k_b = 0): q + 1 is factored as it is
      if (q + 1 < panels && next_owner == rank && factor_panel(q + 1)) return;
      continue;
    }
    // Panel q is full (it has columns after it).
    {
      const int tr = tid % kNb, tc = tid / kNb;
      l11[tc * kNb + tr] = tr > tc && inside(j0 + tr, j0 + tc) ? __ldcg(&A(j0 + tr, j0 + tc)) : P(0);
    }
    __syncthreads();
    // One tile: `count` of this thread block's panels from `first`, G apart.
    auto update_tile = [&](index_t first, int count) {
      const int cols = count * kNb;
      auto column = [&](int ci) { return s0 + (first + index_t(ci / kNb) * G) * kNb + ci % kNb; };
      static_assert(kTilePanels * kNb <= kWideThreads);
      const int ci = tid;  // (a) U12 = L11^{-1} A12, a column per thread
      if (const index_t col = column(ci); ci < cols && col < end) {
        P v[kNb];
#pragma unroll
        for (int t = 0; t < kNb; ++t) v[t] = col - (j0 + t) <= kb ? A(j0 + t, col) : P(0);
#pragma unroll
        for (int t = 1; t < kNb; ++t) {
#pragma unroll
          for (int s = 0; s < t; ++s) v[t] -= l11[s * kNb + t] * v[s];
        }
#pragma unroll
        for (int t = 0; t < kNb; ++t) {
          u[ci * kNb + t] = v[t];
          if (col - (j0 + t) <= kb) A(j0 + t, col) = v[t];
        }
      }
      __syncthreads();
      // (b) A22 -= L21 U12: thread (rt, cg) takes rows r0 + rt + i * row_threads
      // and the tile's columns cg * 4 .. (4 at once, their loads in flight
      // together), col_groups apart; narrow windows split the columns too.
      const int rows = int(end - c_lo);
      const int row_threads = int(imin(blockDim.x, ((rows + kRows - 1) / kRows + 31) / 32 * 32));
      const int col_groups = int(blockDim.x) / row_threads, rt = tid % row_threads, cg = tid / row_threads;
      for (index_t r0 = c_lo; cg < col_groups && r0 < end; r0 += kRows * row_threads) {
        P l[kRows][kNb];
        index_t r[kRows];
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
          r[i] = r0 + i * row_threads + rt;
#pragma unroll
          for (int t = 0; t < kNb; ++t) l[i][t] = r[i] < end && r[i] - (j0 + t) <= kb ? __ldcg(&A(r[i], j0 + t)) : P(0);
        }
        for (int c0 = cg * kAtOnce; c0 < cols; c0 += col_groups * kAtOnce) {
          P* a[kAtOnce];
          bool ok[kAtOnce];
          P acc[kAtOnce][kRows];
#pragma unroll
          for (int j = 0; j < kAtOnce; ++j) {
            const index_t col = column(c0 + j);
            ok[j] = c0 + j < cols && col < end;
            a[j] = band + (std::int64_t(col) * (2 * std::int64_t(k) + 1) + k - col);  // a[j][r] = A(r, col)
#pragma unroll
            for (int i = 0; i < kRows; ++i) acc[j][i] = ok[j] && r[i] < end ? a[j][r[i]] : P(0);
          }
#pragma unroll
          for (int t = 0; t < kNb; ++t) {
#pragma unroll
            for (int j = 0; j < kAtOnce; ++j) {
              const P uc = ok[j] ? u[(c0 + j) * kNb + t] : P(0);
#pragma unroll
              for (int i = 0; i < kRows; ++i) acc[j][i] -= l[i][t] * uc;
            }
          }
#pragma unroll
          for (int j = 0; j < kAtOnce; ++j)
#pragma unroll
            for (int i = 0; i < kRows; ++i)
              if (ok[j] && r[i] < end) a[j][r[i]] = acc[j][i];
        }
      }
      __syncthreads();
    };
    const index_t last = (end - 1 - s0) / kNb;  // the window's last panel
    index_t p = q + 1 + (rank - next_owner + G) % G;  // this thread block's first panel in the window
    if (p == q + 1) {  // lookahead: panel q + 1 first, then factored and published
      update_tile(p, 1);
      if (factor_panel(p)) return;
      p += G;
    }
    for (; p <= last; p += index_t(kTilePanels) * G)
      update_tile(p, int(imin(kTilePanels, (last - p) / G + 1)));
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
  return window_bytes<P>(k) + 1024 <= cuda::optin_shared_bytes();
}

namespace {
// Thread blocks per group of the wide kernel: as many as stay resident
// together (the occupancy the kernel gets) with every group served,
// and no more than half the widest window's panels (each needs columns to
// update between the waits).
template <class P>
int wide_group_size(index_t groups, index_t max_bandwidth) {
  int per_sm = 0;
  BALSA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, factor_wide_kernel<P>, kWideThreads, 0));
  if (!cuda::cooperative_launch()) return 1;  // no guarantee that waiting thread blocks are resident
  const std::int64_t resident = std::int64_t(per_sm) * cuda::multiprocessors();
  const std::int64_t useful = std::max<std::int64_t>(1, (max_bandwidth + kNb - 1) / kNb / 2);
  return int(std::clamp<std::int64_t>(resident / std::max<index_t>(groups, 1), 1, useful));
}

// One launch over `bands` (failures of `first`'s blocks reported before `second`'s, as the CPU meets them).
template <class P>
int factor_launch(Bands<P> bands, index_t k, const BoostRule& rule, const DeviceBlocks& blocks, FactorKernel kernel) {
  const index_t kmax = blocks.max_bandwidth;
  const bool window =
      kernel == FactorKernel::Window || (kernel == FactorKernel::Auto && kmax <= kWindowUpTo && window_fits<P>(kmax));
  if (window && !window_fits<P>(kmax))
    throw Error("SaP: the sliding-window factorisation does not fit half-bandwidth k = " + std::to_string(kmax));
  const index_t groups = blocks.count * (bands.second ? 2 : 1);
  cuda::DeviceBuffer<int> boosted(1);
  cuda::DeviceBuffer<Failure> failures(static_cast<std::size_t>(groups));
  boosted.fill_bytes(0);
  failures.fill_bytes(0xff);  // row -1
  const index_t* starts = blocks.starts.data();
  const index_t* bandwidths = blocks.bandwidths.data();
  double small = rule.small(), boosted_value = rule.boosted();
  bool boost = rule.enabled;
  int* boosted_count = boosted.data();
  Failure* failed = failures.data();
  if (window) {
    const std::size_t smem = window_bytes<P>(kmax);
    cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(factor_window_kernel<P>), smem);
    factor_window_kernel<P><<<unsigned(groups), kThreads, smem, cuda::stream()>>>(
        bands, k, starts, bandwidths, small, boosted_value, boost, boosted_count, failed);
    BALSA_CHECK_LAUNCH();
  } else {
    int G = wide_group_size<P>(groups, kmax);
    cuda::DeviceBuffer<int> published(static_cast<std::size_t>(groups));
    published.fill_bytes(0);
    int* counters = published.data();
    const dim3 grid(unsigned(groups * G)), block(kWideThreads);
    if (G > 1) {  // the groups' thread blocks wait for each other: all resident
      void* args[] = {&bands, &k, &starts, &bandwidths, &G, &small, &boosted_value, &boost, &boosted_count, &failed,
                      &counters};
      BALSA_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(factor_wide_kernel<P>), grid, block, args,
                                                   0, cuda::stream()));
    } else {
      factor_wide_kernel<P><<<grid, block, 0, cuda::stream()>>>(bands, k, starts, bandwidths, G, small, boosted_value,
                                                                boost, boosted_count, failed, counters);
    }
    BALSA_CHECK_LAUNCH();
  }
  const std::vector<Failure> f = failures.to_host();
  for (index_t x = 0; x < groups; ++x) {
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

BALSA_FOR_EACH_VALUE_TYPE(BALSA_SAP_GPU_BLOCK_LU)

}  // namespace balsa::sap::gpu
