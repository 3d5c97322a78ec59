// Internal: the device side of the sync-free-blocks solve
// (TrsvAlgorithm::SyncFreeBlocks; host: trsv/sync_free_blocks/sync_free_blocks.cu, layout:
// trsv/sync_free_blocks/sync_free_blocks_layout.hpp).
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
// Measured (ncu, lower triangle of the 3D 7-point Laplacian 160^3, 132
// chunks x 256 threads, 42,005 steps): a step is a chain of dependent
// instructions in few warps (~14 cycles an instruction, two warps a
// scheduler), so its cost is its instruction count: 364 instructions a warp
// a step (with register spills from a lambda-captured spin) took 1.9 us; the
// current code, 259 instructions (L2 prefetches by one warp, the spin out of
// line, 32-bit slot arithmetic, the rare paths apart), 1.2 us, and the solve
// 0.973 -> 0.769 ms. Half the warp time is at the barrier.
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
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"

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

// The ring by its 32-bit shared-memory address, taken once a kernel (in a
// register: see solve_kernel). Indexed through a T* instead, nvcc rebuilt the
// address of every access from SR_CgaCtaId (six dependent instructions, one a
// special-register read: ncu, ~24 a step of the 244). Position d lives in
// slot d & mask. The asm is volatile: it is not moved across the barrier.
template <class T>
struct Ring {
  unsigned base;  // shared address of slot 0
  index_t mask;   // slots - 1 (a power of two)
  __device__ __forceinline__ unsigned at(index_t d) const { return base + unsigned(d & mask) * unsigned(sizeof(T)); }
  __device__ __forceinline__ T load(index_t d) const;
  __device__ __forceinline__ void store(index_t d, T v) const;
};
template <>
__device__ __forceinline__ double Ring<double>::load(index_t d) const {
  double v;
  asm volatile("ld.shared.f64 %0, [%1];" : "=d"(v) : "r"(at(d)));
  return v;
}
template <>
__device__ __forceinline__ float Ring<float>::load(index_t d) const {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(at(d)));
  return v;
}
template <>
__device__ __forceinline__ void Ring<double>::store(index_t d, double v) const {
  asm volatile("st.shared.f64 [%0], %1;" ::"r"(at(d)), "d"(v) : "memory");
}
template <>
__device__ __forceinline__ void Ring<float>::store(index_t d, float v) const {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(at(d)), "f"(v) : "memory");
}

template <class T>
struct View {
  index_t chunks;
  index_t step_count;         // steps over all chunks
  const index_t* chunk_ptr;   // positions of chunk c
  const index_t* chunk_step;  // steps of chunk c
  const int4* steps;          // SyncFreeBlocksStep per step
  const index_t* dep;         // ELL slots
  const T* val;
  std::size_t slots;
  const index_t* ovf_ptr;     // overflow CSR by position
  const index_t* ovf_dep;
  const T* ovf_val;
  const T* inv_diag;          // 1 / diagonal by position (1 for Unit; 0 where not finite)
  const T* diag;              // the diagonal by position: read only where inv_diag is 0
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
  T bp, inv_diag;
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
    st.inv_diag = v.inv_diag[k];
    st.row = v.rows[k];
  }
  const T* val = v.val + st.meta.z + j * G + g;  // slot of t: base + t * W * G
  const index_t* dep = v.dep + st.meta.z + j * G + g;
#pragma unroll
  for (int t = 0; t < kCap; ++t) {
    st.dep[t] = -1;
    st.val[t] = T(0);
    if (active && t < width) {
      st.dep[t] = dep[t * W * G];
      st.val[t] = val[t * W * G];
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

// One warp's L2 prefetch of [from, to) elements of `elem` bytes (lane-strided lines).
__device__ __forceinline__ void prefetch_l2(const void* base, unsigned elem, unsigned from, unsigned to, unsigned size,
                                            unsigned lane) {
  to = to < size ? to : size;
  if (from >= to) return;
  const char* p = static_cast<const char*>(base);
  const std::size_t lo = std::size_t(from) * elem / 128, hi = (std::size_t(to) * elem + 127) / 128;
  for (std::size_t line = lo + lane; line < hi; line += 32) asm volatile("prefetch.global.L2 [%0];" ::"l"(p + line * 128));
}

// About two steps after `next` into L2 (its slots, b, diagonal and rows).
// Done by the block's last warp only: the warps with rows skip it.
template <class T, int G>
__device__ __forceinline__ void prefetch_ahead(const View<T>& v, int4 next, unsigned lane) {
  const unsigned nb = unsigned(next.x), ne = unsigned(next.y);
  const unsigned zb = unsigned(next.z), zl = (ne - nb) * unsigned(G) * unsigned(next.w & kStepWidthMask);
  prefetch_l2(v.dep, sizeof(index_t), zb + zl, zb + 3 * zl, unsigned(v.slots), lane);
  prefetch_l2(v.val, sizeof(T), zb + zl, zb + 3 * zl, unsigned(v.slots), lane);
  const unsigned pl = ne - nb, n = unsigned(v.n);
  prefetch_l2(v.bp, sizeof(T), ne, ne + 2 * pl, n, lane);
  prefetch_l2(v.inv_diag, sizeof(T), ne, ne + 2 * pl, n, lane);
  prefetch_l2(v.rows, sizeof(index_t), ne, ne + 2 * pl, n, lane);
}

// The value of an earlier chunk's position: relaxed polls until it is not
// the sentinel; NaN when the watchdog fired (the solve reports it). Out of
// line: only a wait takes this path, and the spin's state stays out of the
// step's registers.
template <class T>
__device__ __noinline__ T await_value(const T* p, int* error, int epoch) {
  std::uint64_t start = 0;  // the watchdog's clock starts after the first checks (a timer read is slow)
  for (unsigned polls = 1;; ++polls) {
    const T v = load_relaxed(*p);
    if (!is_sentinel(v)) return v;
    if (polls % kPollsBetweenChecks == 0) {
      if (load_relaxed(*error) == epoch) return quiet_nan<T>();
      const std::uint64_t now = global_timer_ns();
      if (start == 0) start = now;
      if (now - start > watchdog_ns) {
        ::cuda::atomic_ref<int, ::cuda::thread_scope_device>(*error).store(epoch, ::cuda::memory_order_relaxed);
        return quiet_nan<T>();
      }
    }
    if (polls > kPollsBeforeSleep) __nanosleep(kSleepNs);
  }
}

template <class T>
struct Out {
  T* x;
  T* xp;
  T* xp_next;
  int* error;
  int epoch;
};

// The value of position d when it was not fetched early: ring, plain load
// (complete, this chunk), or a wait (an earlier chunk).
template <class T>
__device__ __forceinline__ T dep_value(index_t d, index_t first, index_t ring_lo, const Ring<T>& ring,
                                       const Out<T>& o) {
  if (d >= ring_lo) return ring.load(d);
  if (d < 0) return T(0);
  if (d >= first) return o.xp[d];
  const T v = load_relaxed(o.xp[d]);
  if (!is_sentinel(v)) return v;
  return await_value(o.xp + d, o.error, o.epoch);
}

// Row k's value from its lanes' partial sums: x = (b - sum) * (1 / diagonal)
// (the reciprocal is taken when the values are set: a divide is a dependent
// chain of ~10 instructions; the result may differ from a divide by an ulp),
// published to the ring (the chunk's latest positions), xp (for later
// chunks), the next solve's xp (the sentinel) and x by row.
template <class T, int G>
__device__ __forceinline__ void finish_row(T sum, T bk, T inv_dk, index_t k, index_t row, bool active, index_t end,
                                           const View<T>& v, const Out<T>& o, const Ring<T>& ring) {
#pragma unroll
  for (int off = G / 2; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off, G);
  if (active && threadIdx.x % G == 0) {
    // A diagonal below 1 / max has no finite reciprocal (stored 0): divide.
    T xi = inv_dk != T(0) ? (bk - sum) * inv_dk : (bk - sum) / v.diag[k];
    if (is_sentinel(xi)) xi = quiet_nan<T>();  // only a NaN input gives these bits
    if (k >= end - v.ring) ring.store(k, xi);
    ::cuda::atomic_ref<T, ::cuda::thread_scope_device>(o.xp[k]).store(xi, ::cuda::memory_order_relaxed);
    o.xp_next[k] = sentinel_value<T>();
    o.x[row] = xi;
  }
}

// Rare paths (separate branches of the step). A row's entries beyond the
// stage's width * G slots (the overflow CSR by position), lane-strided.
template <class T, int G>
__device__ __forceinline__ T overflow_sum(const View<T>& v, const Out<T>& o, index_t k, bool active, index_t first,
                                          index_t ring_lo, const Ring<T>& ring) {
  T sum = T(0);
  if (!active) return sum;
  const index_t g = index_t(threadIdx.x) % G;
  for (index_t e = v.ovf_ptr[k] + g; e < v.ovf_ptr[k + 1]; e += G)
    sum += v.ovf_val[e] * dep_value(v.ovf_dep[e], first, ring_lo, ring, o);
  return sum;
}

// Passes 1, 2, ... of a step wider than one pass of the block (B / G rows):
// direct loads.
template <class T, int B, int G>
__device__ __forceinline__ void further_passes(const View<T>& v, const Out<T>& o, int4 m, index_t first, index_t ring_lo,
                                            const Ring<T>& ring) {
  constexpr index_t kRows = B / G;
  const index_t begin = m.x, end = m.y, W = end - begin, width = m.w & kStepWidthMask;
  const index_t g = index_t(threadIdx.x) % G;
  for (index_t j0 = kRows; j0 < W; j0 += kRows) {  // the same count in every thread
    const index_t j = j0 + index_t(threadIdx.x) / G, k = begin + j;
    const bool active = j < W;
    T sum = T(0), bk = T(0), dk = T(1);
    index_t row = 0;
    if (active) {
      bk = v.bp[k];
      dk = v.inv_diag[k];
      row = v.rows[k];
      for (index_t t = 0; t < width; ++t) {
        const index_t slot = m.z + (t * W + j) * G + g;
        const index_t d = v.dep[slot];
        if (d >= 0) sum += v.val[slot] * dep_value(d, first, ring_lo, ring, o);
      }
    }
    if (m.w & kStepOverflow) sum += overflow_sum<T, G>(v, o, k, active, first, ring_lo, ring);
    finish_row<T, G>(sum, bk, dk, k, row, active, end, v, o, ring);
  }
}

// Step s of the chunk [.., s_end) from stage cur; loads stage nxt (step s + 1)
// and the meta of step s + 2 into cur.meta; ends with the step's barrier,
// which every thread reaches. Instructions are the step's cost (a step is a
// chain of dependent instructions in few warps: ncu measured ~14 cycles an
// instruction), so the common case (one pass, no overflow) reads only the
// stage's registers and the ring.
template <class T, int B, int G>
__device__ __forceinline__ void run_step(const View<T>& v, const Out<T>& o, index_t s, index_t s_end,
                                         index_t first, Stage<T>& cur, Stage<T>& nxt, const Ring<T>& ring) {
  constexpr index_t kRows = B / G;  // rows per pass
  const int4 m = cur.meta;
  const index_t begin = m.x, end = m.y, W = end - begin;
  const bool has_next = s + 1 < s_end;
  if (has_next) load_stage<T, G>(v, nxt);
  if (s + 2 < s_end) cur.meta = v.steps[s + 2];
  if (has_next && threadIdx.x >= B - 32) prefetch_ahead<T, G>(v, nxt.meta, threadIdx.x % 32);
  // Positions >= ring_lo of this chunk are in the ring: a step writes only
  // its positions >= end - v.ring there (below: no two of them share a slot),
  // and a later write to the slot of d would be of a position >= d + v.ring
  // >= end, which is not written yet.
  const index_t ring_lo = max(first, end - v.ring);
  {  // pass 0: the stage's registers
    const index_t j = index_t(threadIdx.x) / G;
    const bool active = j < W;
    T sum = T(0);
    if (active) {
#pragma unroll
      for (int t = 0; t < kCap; ++t) {
        const index_t d = cur.dep[t];
        T xd;
        if (d >= ring_lo) {
          xd = ring.load(d);
        } else if (d >= 0 && d < cur.pre_hi) {
          xd = cur.xv[t];
          if (d < first && is_sentinel(xd)) {
            xd = await_value(o.xp + d, o.error, o.epoch);
          }
        } else {
          xd = dep_value(d, first, ring_lo, ring, o);
        }
        sum += cur.val[t] * xd;
      }
    }
    if (m.w & kStepOverflow) sum += overflow_sum<T, G>(v, o, begin + j, active, first, ring_lo, ring);
    finish_row<T, G>(sum, cur.bp, cur.inv_diag, begin + j, cur.row, active, end, v, o, ring);
  }
  if (W > kRows) further_passes<T, B, G>(v, o, m, first, ring_lo, ring);
  // Step s + 1's early x loads: positions before this step are complete.
  if (has_next) prefetch_x(nxt, first, min(max(first, nxt.meta.y - v.ring), begin), o.xp);
  __syncthreads();
}

// counters[0]: tickets taken; counters[1]: blocks finished; counters[2]: the
// watchdog's error word.
// __launch_bounds__(B, 1): one block an SM is all the solve needs (one chunk
// per SM). Without the explicit 1, ptxas sometimes aims at 3 blocks of 256
// threads an SM and caps the registers at 80, spilling ~170 bytes a thread
// (seen when the divide left the step: its slow-path call had hidden this).
template <class T, int B, int G>
__global__ void __launch_bounds__(B, 1) solve_kernel(View<T> v, T* x, T* xp, T* xp_next, int* counters, int epoch) {
  __shared__ int ticket;
  __shared__ T ring_slots[kRing<T>];
  if (threadIdx.x == 0) ticket = atomicAdd(&counters[0], 1);
  __syncthreads();
  const index_t c = ticket;
  const index_t first = v.chunk_ptr[c];  // positions below belong to earlier chunks
  const index_t s0 = v.chunk_step[c], s1 = v.chunk_step[c + 1];  // s0 < s1: no chunk is empty
  const Out<T> o{x, xp, xp_next, &counters[2], epoch};
  // The base goes through an opaque move: as a plain value ptxas
  // rematerialised it (S2R SR_CgaCtaId and five more) at every access.
  unsigned ring_base;
  asm volatile("mov.u32 %0, %1;" : "=r"(ring_base) : "r"(unsigned(__cvta_generic_to_shared(ring_slots))));
  const Ring<T> ring{ring_base, v.ring - 1};
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
