// Internal: the device side of the sync-free-blocks solve
// (TrsvAlgorithm::SyncFreeBlocks; host: trsv/sync_free_blocks.cu, layout:
// trsv/sync_free_blocks_layout.hpp).
//
// One block per chunk walks the chunk's level steps (level scheduling,
// Anderson & Saad 1989) with a block barrier between steps; dependencies on
// earlier chunks are awaited sync-free (Liu et al. 2016) by polling the x
// value itself until it is not the sentinel NaN (see sync_free_blocks.cu).
//
// Latency. A step's critical path was a chain of dependent DRAM loads per
// thread (row_ptr -> dep -> x, rows -> b), ~0.6-0.8 us each. Here a step's
// inputs sit in registers before its barrier ends:
//  * the step's slots (dep, value), b (gathered by position before the
//    solve), the diagonal and the row are loaded one step ahead (stage nxt
//    is loaded while step s computes), and the run two steps ahead is
//    prefetched into L2, so those loads are L2 hits issued a step early;
//  * the x values a step reads from earlier steps of the chunk that are
//    complete one step early (positions before the previous step) and the
//    first poll of every earlier-chunk value are also loaded one step ahead,
//    at the end of the previous step, so they fly during its barrier;
//  * the values of the latest v.ring (<= kRing) positions of the chunk (in
//    practice the previous step, the one whose values cannot be fetched
//    early) come from a shared-memory ring (~30 cycles).
// Two stages (a, b) alternate by name (the loop is unrolled by two), so no
// register of a pending load is copied at the back edge (a copy would wait
// for the load). Expected step: barrier (~50 ns) + ring/L1 read (~20 ns) +
// FMAs, divide and the group shuffle (~50-100 ns) + whatever of a one-step
// -early L2 load (~250-300 ns) the barrier did not hide: about 0.2-0.4 us;
// a hand-over from the chunk before adds one L2 round trip of polling.
// A step wider than one pass of the block (B / G rows) loads its further
// passes directly (the old chain); rows longer than cap * G entries read
// their overflow entries directly too.
#pragma once

#include <cuda/atomic>

#include <cstring>

#include "trsv/gpu_common.cuh"
#include "trsv/sync_free_blocks_layout.hpp"

namespace balsa::trsv_gpu::detail::blocks {

// The sentinel's bits: a quiet NaN with a payload that no IEEE operation on
// non-NaN inputs produces (they give the canonical NaN).
template <class T> struct Sentinel;
template <> struct Sentinel<double> {
  using Bits = unsigned long long;
  static constexpr Bits bits = 0x7ff8'5eed'b10c'5eedull;
};
template <> struct Sentinel<float> {
  using Bits = unsigned int;
  static constexpr Bits bits = 0x7fc5'eedbu;
};

template <class T>
__device__ __forceinline__ typename Sentinel<T>::Bits bits_of(T v) {
  typename Sentinel<T>::Bits b;
  memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
__device__ __forceinline__ bool is_sentinel(T v) {
  return bits_of(v) == Sentinel<T>::bits;
}
template <class T>
__device__ __forceinline__ T sentinel_value() {
  T v;
  const typename Sentinel<T>::Bits b = Sentinel<T>::bits;
  memcpy(&v, &b, sizeof v);
  return v;
}

constexpr int kCap = 4;  // ELL slots per lane (all of them in the register stage)
// The ring of the chunk's latest x values: 32 KB.
template <class T>
constexpr index_t kRing = index_t(32768 / sizeof(T));

template <class T>
struct View {
  index_t chunks;
  const index_t* chunk_ptr;   // positions of chunk c
  const index_t* chunk_step;  // steps of chunk c
  const int4* steps;          // SyncFreeBlocksStep per step
  const index_t* dep;         // ELL slots
  const T* val;
  std::size_t slots;
  const index_t* ovf_ptr;     // overflow CSR by position
  const index_t* ovf_dep;
  const T* ovf_val;
  const T* diag;              // by position (1 for Unit)
  const T* bp;                // b by position (gathered before the solve)
  const index_t* rows;        // position -> row
  index_t n;
  index_t ring;               // ring entries used: a power of two <= kRing<T>
};

// What a thread holds for its row of pass 0 of one step (row j = tid / G,
// lane tid % G): the step's meta, its slots, b, diagonal, row, and the x
// values fetched early for deps below pre_hi.
template <class T>
struct Stage {
  int4 meta;
  index_t pre_hi;
  index_t dep[kCap];
  T val[kCap];
  T xv[kCap];
  T bp, diag;
  index_t row;
};

template <class T, int G>
__device__ __forceinline__ void load_stage(const View<T>& v, Stage<T>& st) {
  const index_t W = st.meta.y - st.meta.x, width = st.meta.w & kStepWidthMask;
  const index_t j = index_t(threadIdx.x) / G, g = index_t(threadIdx.x) % G;
  const bool active = j < W;
  if (active) {
    const index_t k = st.meta.x + j;
    st.bp = v.bp[k];
    st.diag = v.diag[k];
    st.row = v.rows[k];
  }
#pragma unroll
  for (int t = 0; t < kCap; ++t) {
    st.dep[t] = -1;
    st.val[t] = T(0);
    if (active && t < width) {
      const index_t slot = st.meta.z + (index_t(t) * W + j) * G + g;
      st.dep[t] = v.dep[slot];
      st.val[t] = v.val[slot];
    }
  }
}

// Early x loads for a stage: deps below hi (complete, or of earlier chunks:
// a relaxed first poll that may still see the sentinel).
template <class T>
__device__ __forceinline__ void prefetch_x(Stage<T>& st, index_t first, index_t hi, const T* xp) {
  st.pre_hi = hi;
#pragma unroll
  for (int t = 0; t < kCap; ++t) {
    const index_t d = st.dep[t];
    st.xv[t] = T(0);
    if (d >= 0 && d < hi) st.xv[t] = d < first ? load_relaxed(xp[d]) : xp[d];
  }
}

__device__ __forceinline__ void prefetch_l2(const void* base, std::size_t elem, std::size_t from, std::size_t to,
                                            std::size_t size) {
  to = to < size ? to : size;
  if (from >= to) return;
  const char* p = static_cast<const char*>(base);
  const std::size_t lo = from * elem / 128, hi = (to * elem + 127) / 128;
  for (std::size_t line = lo + threadIdx.x; line < hi; line += blockDim.x)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + line * 128));
}

// The value of position d for a row of the chunk starting at `first`, when
// d was not fetched early: ring, plain load (complete, this chunk), or a
// sync-free wait (an earlier chunk).
template <class T>
__device__ __forceinline__ T dep_value(index_t d, index_t first, index_t ring_lo, index_t ring_mask, const T* ring,
                                       const T* xp, int* error, int epoch, bool& ok) {
  if (d < 0) return T(0);
  if (d >= ring_lo) return ring[d & (ring_mask)];
  if (d >= first) return xp[d];
  T v;
  ok = spin_until([&] { return !is_sentinel(v = load_relaxed(xp[d])); }, error, epoch) && ok;
  return v;
}

template <class T>
struct Out {
  T* x;
  T* xp;
  T* xp_next;
  int* error;
  int epoch;
};

// Step s of the chunk [.., s_end) from stage cur; loads stage nxt (step s + 1)
// and the meta of step s + 2 into cur.meta; ends with the step's barrier,
// which every thread reaches.
template <class T, int B, int G>
__device__ __forceinline__ void run_step(const View<T>& v, const Out<T>& o, index_t s, index_t s_end,
                                         index_t first, Stage<T>& cur, Stage<T>& nxt, T* ring) {
  constexpr index_t kRows = B / G;  // rows per pass
  const int4 m = cur.meta;
  const index_t begin = m.x, end = m.y, W = end - begin, width = m.w & kStepWidthMask;
  const bool overflow = (m.w & kStepOverflow) != 0;
  const bool has_next = s + 1 < s_end;
  if (has_next) load_stage<T, G>(v, nxt);
  if (s + 2 < s_end) cur.meta = v.steps[s + 2];
  if (has_next) {  // about two steps further on into L2
    const index_t nb = nxt.meta.x, ne = nxt.meta.y;
    const std::size_t zb = std::size_t(nxt.meta.z),
                      zl = std::size_t(ne - nb) * G * std::size_t(nxt.meta.w & kStepWidthMask);
    prefetch_l2(v.dep, sizeof(index_t), zb + zl, zb + 3 * zl, v.slots);
    prefetch_l2(v.val, sizeof(T), zb + zl, zb + 3 * zl, v.slots);
    const std::size_t pe = std::size_t(ne), pl = std::size_t(ne - nb);
    prefetch_l2(v.bp, sizeof(T), pe, pe + 2 * pl, std::size_t(v.n));
    prefetch_l2(v.diag, sizeof(T), pe, pe + 2 * pl, std::size_t(v.n));
    prefetch_l2(v.rows, sizeof(index_t), pe, pe + 2 * pl, std::size_t(v.n));
  }
  // Positions >= ring_lo of this chunk are in the ring: a step writes only
  // its positions >= end - v.ring there (below: no two of them share a slot),
  // and a later write to the slot of d would be of a position >= d + v.ring
  // >= end, which is not written yet.
  const index_t ring_lo = max(first, end - v.ring);
  const index_t g = index_t(threadIdx.x) % G;
  for (index_t j0 = 0; j0 < W; j0 += kRows) {  // passes: the same count in every thread
    const index_t j = j0 + index_t(threadIdx.x) / G, k = begin + j;
    const bool active = j < W;
    T sum = T(0), bk = T(0), dk = T(1);
    index_t row = 0;
    bool ok = true;
    if (j0 == 0) {
      if (active) {
#pragma unroll
        for (int t = 0; t < kCap; ++t) {
          const index_t d = cur.dep[t];
          T xd;
          if (d >= 0 && d < cur.pre_hi) {
            xd = cur.xv[t];
            if (d < first && is_sentinel(xd))
              ok = spin_until([&] { return !is_sentinel(xd = load_relaxed(o.xp[d])); }, o.error, o.epoch) && ok;
          } else {
            xd = dep_value(d, first, ring_lo, v.ring - 1, ring, o.xp, o.error, o.epoch, ok);
          }
          sum += cur.val[t] * xd;
        }
        bk = cur.bp;
        dk = cur.diag;
        row = cur.row;
      }
    } else if (active) {  // a further pass: direct loads
      bk = v.bp[k];
      dk = v.diag[k];
      row = v.rows[k];
      for (index_t t = 0; t < width; ++t) {
        const index_t slot = m.z + (t * W + j) * G + g;
        const index_t d = v.dep[slot];
        if (d >= 0) sum += v.val[slot] * dep_value(d, first, ring_lo, v.ring - 1, ring, o.xp, o.error, o.epoch, ok);
      }
    }
    if (overflow && active)
      for (index_t e = v.ovf_ptr[k] + g; e < v.ovf_ptr[k + 1]; e += G)
        sum += v.ovf_val[e] * dep_value(v.ovf_dep[e], first, ring_lo, v.ring - 1, ring, o.xp, o.error, o.epoch, ok);
    // The row's lanes add up their parts (every lane of the warp takes part).
#pragma unroll
    for (int off = G / 2; off > 0; off /= 2) {
      sum += __shfl_xor_sync(0xffffffffu, sum, off, G);
      ok = __shfl_xor_sync(0xffffffffu, int(ok), off, G) != 0 && ok;
    }
    if (active && g == 0) {
      T xi = (bk - sum) / dk;
      if (!ok || is_sentinel(xi)) xi = quiet_nan<T>();
      if (k >= end - v.ring) ring[k & (v.ring - 1)] = xi;
      ::cuda::atomic_ref<T, ::cuda::thread_scope_device>(o.xp[k]).store(xi, ::cuda::memory_order_relaxed);
      o.xp_next[k] = sentinel_value<T>();
      o.x[row] = xi;
    }
  }
  // Step s + 1's early x loads: positions before this step are complete.
  if (has_next) prefetch_x(nxt, first, min(max(first, nxt.meta.y - v.ring), begin), o.xp);
  __syncthreads();
}

// counters[0]: tickets taken; counters[1]: blocks finished; counters[2]: the
// watchdog's error word.
template <class T, int B, int G>
__global__ void __launch_bounds__(B) solve_kernel(View<T> v, T* x, T* xp, T* xp_next, int* counters, int epoch) {
  __shared__ int ticket;
  __shared__ T ring[kRing<T>];
  if (threadIdx.x == 0) ticket = atomicAdd(&counters[0], 1);
  __syncthreads();
  const index_t c = ticket;
  const index_t first = v.chunk_ptr[c];  // positions below belong to earlier chunks
  const index_t s0 = v.chunk_step[c], s1 = v.chunk_step[c + 1];  // s0 < s1: no chunk is empty
  const Out<T> o{x, xp, xp_next, &counters[2], epoch};
  Stage<T> a, b;
  a.meta = v.steps[s0];
  b.meta = s0 + 1 < s1 ? v.steps[s0 + 1] : a.meta;
  load_stage<T, G>(v, a);
  prefetch_x(a, first, first, xp);  // the first step depends on earlier chunks only
  for (index_t s = s0; s < s1; s += 2) {  // s and s1 are the same in every thread
    run_step<T, B, G>(v, o, s, s1, first, a, b, ring);
    if (s + 1 < s1) run_step<T, B, G>(v, o, s + 1, s1, first, b, a, ring);
  }
  if (threadIdx.x == 0 && atomicAdd(&counters[1], 1) == v.chunks - 1) {  // the last block: reset for the next solve
    counters[0] = 0;
    counters[1] = 0;
  }
}

template <class T>
__global__ void fill_sentinel_kernel(T* xp, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) xp[i] = sentinel_value<T>();
}

}  // namespace balsa::trsv_gpu::detail::blocks
