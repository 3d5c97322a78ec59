// Internal: the dataflow kernel of the sync-free-blocks solve
// (TrsvAlgorithm::SyncFreeBlocks; host: trsv/sync_free_blocks/sync_free_blocks.cu, batches:
// trsv/sync_free_blocks/sync_free_blocks_batches.hpp).
//
// The step kernel (trsv/sync_free_blocks/sync_free_blocks_kernel.cuh) puts a block barrier
// after every level step of a chunk. ncu on the 3D 7-point Laplacian 160^3
// (42,005 steps, 1.2 us each) showed why a step costs that much: its
// instructions form one dependent chain per warp (~14 cycles an instruction
// with two warps a scheduler) and every warp waits at the barrier for the
// slowest. Here no barrier orders the steps: the chunk's x values live in
// shared memory (the whole chunk: it is sized to fit), every entry holding
// the sentinel until its row is solved, and each warp solves its batches of
// up to 32 rows of one step (warp w: batches w, w + warps, ...), waiting on
// each dependency by polling its value: in shared memory for this chunk
// (~30 cycles), in global memory for an earlier chunk (Liu et al. 2016's
// sync-free wait, as in the step kernel). A level then costs one
// shared-memory hand-over between warps instead of a barrier plus the
// slowest warp's chain, and several levels are in flight at once (as many
// as the warps cover).
//
// Measured (H200, lower triangle of the 3D 7-point Laplacian 160^3, 132-198
// chunks): 3.4-4.7 ms in double and 2.9-4.0 ms in float for 256-1024
// threads, against 0.77 / 0.73 ms for the step kernel: an experiment, not the
// default (BALSA_TRSV_BLOCKS_KERNEL=dataflow). Chunk 0 alone (no wait on
// another chunk) took ~3.3 us a level, and ncu counted 24M polls of global
// values a solve (the hand-overs between chunks grew to ~17 us); why a level
// inside a chunk costs that much is not yet understood (candidates: the
// __nanosleep granularity of waiting warps, the generic strong loads of
// shared memory that atomic_ref compiles to). With doubles a chunk fits in
// shared memory only up to ~26.6k positions, so 4.1M rows need more chunks
// than an H200 has multiprocessors (a second wave).
//
// Progress: a warp solves its batches in order; the chunk's earliest
// unsolved batch depends only on solved batches of the chunk and on earlier
// chunks (ticket order, as in the step kernel), so it completes, and by
// induction every batch does. The watchdog bounds every wait.
#pragma once

#include "trsv/sync_free_blocks/sync_free_blocks_batches.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_kernel.cuh"

namespace balsa::trsv_gpu::detail::blocks {

struct DataflowView {
  const int4* batches;        // SyncFreeBlocksBatch per batch
  const index_t* chunk_batch;  // chunk c's batches
};

// What a lane holds for its row of one batch (loaded one batch ahead).
template <class T>
struct BatchStage {
  int4 meta;
  index_t dep[kCap];
  T val[kCap];
  T bp, inv_diag;
  index_t row;
};

template <class T>
__device__ __forceinline__ void load_batch(const View<T>& v, index_t lane, BatchStage<T>& st) {
  // The same loads as the step kernel's load_stage, with the batch's slot
  // base and stride (kept apart: sharing one helper made ptxas spill the
  // step kernel's registers).
  const index_t rows = batch_rows(st.meta.w), width = batch_width(st.meta.w);
  const bool active = lane < rows;
  if (active) {
    const index_t k = st.meta.x + lane;
    st.bp = v.bp[k];
    st.inv_diag = v.inv_diag[k];
    st.row = v.rows[k];
  }
  const index_t* dep = v.dep + st.meta.y + lane;
  const T* val = v.val + st.meta.y + lane;
#pragma unroll
  for (int t = 0; t < kCap; ++t) {
    st.dep[t] = -1;
    st.val[t] = T(0);
    if (active && t < width) {
      st.dep[t] = dep[t * st.meta.z];
      st.val[t] = val[t * st.meta.z];
    }
  }
}

// The value of position d for a row of the chunk starting at `first`
// (xs: the chunk's values in shared memory).
template <class T>
__device__ __forceinline__ T first_look(index_t d, index_t first, const T* xs, const T* xp) {
  if (d >= first) return load_relaxed<T, ::cuda::thread_scope_block>(xs[d - first]);
  if (d >= 0) return load_relaxed(xp[d]);
  return T(0);
}
template <class T>
__device__ __forceinline__ T settle(T x, index_t d, index_t first, const T* xs, const Out<T>& o) {
  if (!is_sentinel(x)) return x;
  return d >= first ? await_value<T, ::cuda::thread_scope_block>(xs + (d - first), o.error, o.epoch) : await_value(o.xp + d, o.error, o.epoch);
}

// One batch: every lane's row from its stage, the overflow entries, then
// x = (b - sum) * (1 / diagonal) published to shared memory (this chunk), xp
// (later chunks), the next solve's xp (the sentinel) and x by row.
template <class T>
__device__ __forceinline__ void solve_batch(const View<T>& v, const Out<T>& o, const BatchStage<T>& st, index_t lane,
                                            index_t first, T* xs) {
  const index_t rows = batch_rows(st.meta.w);
  if (lane >= rows) return;
  T xd[kCap];
#pragma unroll
  for (int t = 0; t < kCap; ++t) xd[t] = first_look(st.dep[t], first, xs, o.xp);  // all loads in flight
  T sum = T(0);
#pragma unroll
  for (int t = 0; t < kCap; ++t) sum += st.val[t] * settle(xd[t], st.dep[t], first, xs, o);
  const index_t k = st.meta.x + lane;
  if (st.meta.w & kBatchOverflow)
    for (index_t e = v.ovf_ptr[k]; e < v.ovf_ptr[k + 1]; ++e) {
      const index_t d = v.ovf_dep[e];
      sum += v.ovf_val[e] * settle(first_look(d, first, xs, o.xp), d, first, xs, o);
    }
  T xi = st.inv_diag != T(0) ? (st.bp - sum) * st.inv_diag : (st.bp - sum) / v.diag[k];
  if (is_sentinel(xi)) xi = quiet_nan<T>();  // only a NaN input gives these bits
  ::cuda::atomic_ref<T, ::cuda::thread_scope_device>(o.xp[k]).store(xi, ::cuda::memory_order_relaxed);
  ::cuda::atomic_ref<T, ::cuda::thread_scope_block>(xs[k - first]).store(xi, ::cuda::memory_order_relaxed);
  o.xp_next[k] = sentinel_value<T>();
  o.x[st.row] = xi;
}

// Batch q of this warp from stage cur; loads stage nxt (batch q + warps)
// first and the meta of batch q + 2 warps into cur.meta last.
template <class T, int B>
__device__ __forceinline__ void run_batch(const View<T>& v, const DataflowView& dv, const Out<T>& o, index_t q,
                                          index_t q_end, index_t first, T* xs, BatchStage<T>& cur,
                                          BatchStage<T>& nxt) {
  constexpr index_t kWarps = B / 32;
  const index_t lane = index_t(threadIdx.x % 32);
  if (q + kWarps < q_end) load_batch(v, lane, nxt);
  const int4 far = q + 2 * kWarps < q_end ? dv.batches[q + 2 * kWarps] : int4{};
  solve_batch(v, o, cur, lane, first, xs);
  cur.meta = far;
}

// counters as in solve_kernel; dynamic shared memory: the largest chunk's x.
template <class T, int B>
__global__ void __launch_bounds__(B, 1)
    dataflow_kernel(View<T> v, DataflowView dv, T* x, T* xp, T* xp_next, int* counters, int epoch) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* xs = reinterpret_cast<T*>(shared_bytes);
  __shared__ int ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(&counters[0], 1);
  __syncthreads();
  const index_t c = ticket;
  if (v.trace && threadIdx.x == 0) v.trace[v.trace_index().start(std::size_t(c))] = global_timer_ns();
  const index_t first = v.chunk_ptr[c], size = v.chunk_ptr[c + 1] - first;
  for (index_t i = index_t(threadIdx.x); i < size; i += B) xs[i] = sentinel_value<T>();
  const Out<T> o{x, xp, xp_next, &counters[2], epoch};
  constexpr index_t kWarps = B / 32;
  const index_t q0 = dv.chunk_batch[c] + index_t(threadIdx.x / 32), q1 = dv.chunk_batch[c + 1];
  const index_t lane = index_t(threadIdx.x % 32);
  BatchStage<T> a, b;
  if (q0 < q1) {
    a.meta = dv.batches[q0];
    load_batch(v, lane, a);
  }
  if (q0 + kWarps < q1) b.meta = dv.batches[q0 + kWarps];
  __syncthreads();  // the sentinels are in place
  for (index_t q = q0; q < q1; q += 2 * kWarps) {  // per warp: its own batches
    run_batch<T, B>(v, dv, o, q, q1, first, xs, a, b);
    if (q + kWarps < q1) run_batch<T, B>(v, dv, o, q + kWarps, q1, first, xs, b, a);
  }
  __syncthreads();
  if (v.trace && threadIdx.x == 0) v.trace[v.trace_index().end(std::size_t(c))] = global_timer_ns();
  if (threadIdx.x == 0 && atomicAdd(&counters[1], 1) == v.chunks - 1) {  // the last block: reset for the next solve
    counters[0] = 0;
    counters[1] = 0;
  }
}

}  // namespace balsa::trsv_gpu::detail::blocks
