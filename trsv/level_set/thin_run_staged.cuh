// Internal: the staged thin-run kernel of the GPU level-set solver.
//
// Measured on an H200 (bench/results/2026-11-22-trsv-notes.md): with one warp
// walking a chain of one-row levels, the register-prefetch kernel
// (thin_run.cuh) still spends about 0.5 us a level, because issuing the next
// step's loads and address arithmetic, in order, sits on every level's path.
// Here the block instead copies a chunk of consecutive levels' inputs (all
// contiguous by position) into shared memory in one cooperative phase, then
// walks those levels reading only shared memory: per level, level bounds ->
// ELL slots -> ring -> x_i -> barrier. A chunk is as many whole levels as fit
// the staging area (host-side, ThinRunPlan::chunk_levels); a run with a level
// wider than a chunk uses the register-prefetch kernel.
#pragma once

#include <cuda_pipeline.h>

#include "trsv/level_set/thin_run.cuh"

namespace balsa::trsv_gpu::detail {

__host__ __device__ constexpr std::size_t align16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

// Bytes of staging per position (ELL slots, r_k, 1/a_ii, row, overflow
// pointer, level pointer), and the shared-memory carve-up of a staged run.
template <class T, int LANES>
struct StagedLayout {
  static constexpr int S = LANES * ell_per_lane(LANES);
  static constexpr std::size_t per_position = S * (sizeof(T) + sizeof(index_t)) + 2 * sizeof(T) + 3 * sizeof(index_t);
  std::size_t ring, val, rhs, inv, ref, row, ovf, lp, total;  // byte offsets
  __host__ __device__ StagedLayout(index_t ring_entries, index_t capacity) {
    const std::size_t c = std::size_t(capacity);
    ring = 0;
    val = align16((std::size_t(ring_entries) + 1) * sizeof(T));
    rhs = val + align16(c * S * sizeof(T));
    inv = rhs + align16(c * sizeof(T));
    ref = inv + align16(c * sizeof(T));
    row = ref + align16(c * S * sizeof(index_t));
    ovf = row + align16(c * sizeof(index_t));
    lp = ovf + align16((c + 1) * sizeof(index_t));
    total = lp + align16((c + 1) * sizeof(index_t));
  }
};

// Starts asynchronous copies (cp.async) of n elements; the caller commits
// and waits. A plain load-then-store loop left each thread waiting on one
// load at a time: the staging phase took half the kernel's time (ncu,
// banded 1M rows, bench/results/2026-11-22-trsv-notes.md).
template <class V>
__device__ __forceinline__ void copy_to_shared(V* dst, const V* src, std::size_t n) {
  static_assert(sizeof(V) == 4 || sizeof(V) == 8);
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) __pipeline_memcpy_async(dst + i, src + i, sizeof(V));
}

// Position k (staged at index j) by a group of LANES lanes; every lane of
// the warp calls it (group shuffles), inactive ones with active == false.
template <class T, int LANES>
__device__ __forceinline__ void solve_staged(const ThinRun<T>& v, const T* s_val, const index_t* s_ref, const T* s_rhs,
                                             const T* s_inv, const index_t* s_row, const index_t* s_ovf, index_t k,
                                             std::size_t j, bool active, bool to_ring, T* ring, T* x) {
  constexpr int E = Ahead<T, LANES>::E;
  constexpr int S = LANES * E;
  const int lane = int(threadIdx.x % LANES);
  T sum = T(0);
  if (active) {
#pragma unroll
    for (int e = 0; e < E; ++e) sum += s_val[j * S + lane * E + e] * ring[s_ref[j * S + lane * E + e]];
  }
  complete_row<T, LANES>(v, sum, active ? s_ovf[j] : 0, active ? s_ovf[j + 1] : 0, k, active, to_ring, ring, x,
                         [&] { return RowEnd<T>{s_rhs[j], s_inv[j], s_row[j]}; });
}

// Levels chunk_levels[0] .. chunk_levels[chunks] by one block, chunk by
// chunk. A chunk whose levels all fit one warp (narrow[c] != 0) is walked by
// warp 0 alone with __syncwarp between levels (it orders the warp's shared
// and global memory accesses like __syncthreads does the block's); the other
// warps wait at the next chunk's barrier.
template <class T, int LANES>
__global__ void __launch_bounds__(kMaxThinBlock)
    thin_run_staged_kernel(ThinRun<T> v, const RhsAndX<T>* slot, const index_t* chunk_levels, const index_t* narrow,
                           index_t chunks, index_t capacity) {
  constexpr int S = LANES * Ahead<T, LANES>::E;
  extern __shared__ __align__(16) unsigned char smem[];
  const StagedLayout<T, LANES> at(index_t(v.ring_mask + 1), capacity);
  T* ring = reinterpret_cast<T*>(smem + at.ring);
  T* s_val = reinterpret_cast<T*>(smem + at.val);
  T* s_rhs = reinterpret_cast<T*>(smem + at.rhs);
  T* s_inv = reinterpret_cast<T*>(smem + at.inv);
  index_t* s_ref = reinterpret_cast<index_t*>(smem + at.ref);
  index_t* s_row = reinterpret_cast<index_t*>(smem + at.row);
  index_t* s_ovf = reinterpret_cast<index_t*>(smem + at.ovf);
  index_t* s_lp = reinterpret_cast<index_t*>(smem + at.lp);
  T* x = slot->x;
  const index_t g = index_t(threadIdx.x / LANES), per_pass = index_t(blockDim.x / LANES);
  if (threadIdx.x == 0) ring[v.ring_mask + 1] = T(0);  // the zero slot
  for (index_t c = 0; c < chunks; ++c) {
    const index_t l0 = __ldg(chunk_levels + c), l1 = __ldg(chunk_levels + c + 1);
    const index_t p0 = __ldg(v.level_ptr + l0), p1 = __ldg(v.level_ptr + l1);
    const std::size_t count = std::size_t(p1 - p0);
    __syncthreads();  // the previous chunk's staging is no longer read
    copy_to_shared(s_lp, v.level_ptr + l0, std::size_t(l1 - l0) + 1);
    copy_to_shared(s_ref, v.ell_ref + std::size_t(p0 - v.first) * S, count * S);
    copy_to_shared(s_val, v.ell_val + std::size_t(p0 - v.first) * S, count * S);
    copy_to_shared(s_rhs, v.rhs + p0, count);
    copy_to_shared(s_inv, v.inv_diag + p0, count);
    copy_to_shared(s_row, v.rows + p0, count);
    copy_to_shared(s_ovf, v.ovf_ptr + p0, count + 1);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (__ldg(narrow + c)) {
      if (threadIdx.x < 32) {
        const index_t g32 = index_t(threadIdx.x / LANES);
        for (index_t l = 0; l < l1 - l0; ++l) {
          const index_t begin = s_lp[l], end = s_lp[l + 1];
          const index_t k = begin + g32;
          const bool active = k < end;
          solve_staged<T, LANES>(v, s_val, s_ref, s_rhs, s_inv, s_row, s_ovf, k, std::size_t(active ? k - p0 : 0),
                                 active, end - begin <= index_t(v.ring_mask) + 1, ring, x);
          __syncwarp();
        }
      }
      continue;
    }
    for (index_t l = 0; l < l1 - l0; ++l) {
      const index_t begin = s_lp[l], end = s_lp[l + 1];
      const bool to_ring = end - begin <= index_t(v.ring_mask) + 1;
      for (index_t kb = begin; kb < end; kb += per_pass) {  // block-uniform
        const index_t k = kb + g;
        const bool active = k < end;
        solve_staged<T, LANES>(v, s_val, s_ref, s_rhs, s_inv, s_row, s_ovf, k, std::size_t(active ? k - p0 : 0),
                               active, to_ring, ring, x);
      }
      __syncthreads();  // x of this level visible (ring and global) to the next
    }
  }
}

}  // namespace balsa::trsv_gpu::detail
