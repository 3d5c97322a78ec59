// Internal: the kernels of the GPU level-set solver's thin runs (data layout
// and the reasoning behind it: trsv/level_set/thin_run_layout.hpp).
//
// Per run, two launches: a grid-wide prepass that folds b and the external
// entries into r_k, then one block that walks the run's levels. A "step" of
// the block is one pass over a level (a level with more rows than the block
// has row groups takes several); barriers separate levels, not passes. While
// finishing step s, each thread has already issued the loads of its row in
// step s + 1: all of them are addressed by position alone (r_k, a_ii, the row
// number, the ELL slots, the overflow range), so none waits for another, and
// level boundaries are loaded one level ahead.
#pragma once

#include "trsv/gpu_common.cuh"
#include "trsv/level_set/thin_run_layout.hpp"

namespace balsa::trsv_gpu::detail {

constexpr int kMaxThinBlock = 1024;

// The level-ordered CSR system (all positions; see LevelRows in level_set.cu).
template <class T>
struct CsrRows {
  const index_t* row_ptr;
  const index_t* ext_end;  // thin-run positions: end of the external entries
  const index_t* ref;      // original column
  const T* values;
  const index_t* rows;  // position k is row rows[k] of A
};

// sum over entries [begin, end) of values[p] * x[ref[p]], by LANES lanes
// (lane 0 of the group gets the total); every lane of the warp must call it.
template <class T, int LANES>
__device__ __forceinline__ T group_row_sum(const CsrRows<T>& m, std::int64_t begin, std::int64_t end, const T* x) {
  const int lane = threadIdx.x % LANES;
  T sum = T(0);
  for (std::int64_t p = begin + lane; p < end; p += LANES) sum += m.values[p] * x[m.ref[p]];
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
  return sum;
}

// Prepass of a run: rhs[k] = b_i - sum of position k's external entries, for
// positions [first, last) (grid-stride, LANES per row).
template <class T, int LANES>
__global__ void __launch_bounds__(256)
    thin_run_rhs_kernel(CsrRows<T> m, const RhsAndX<T>* slot, T* rhs, index_t first, index_t last) {
  const T* b = slot->b;
  const T* x = slot->x;
  const std::size_t count = std::size_t(last - first);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t base = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) & ~std::size_t(31); base / LANES < count;
       base += stride) {  // warp-uniform
    const std::size_t r = (base + threadIdx.x % 32) / LANES;
    const index_t k = first + index_t(r < count ? r : 0);
    const T ext = group_row_sum<T, LANES>(m, r < count ? m.row_ptr[k] : 0, r < count ? m.ext_end[k] : 0, x);
    if (r < count && threadIdx.x % LANES == 0) rhs[k] = b[m.rows[k]] - ext;
  }
}

// The run's position-addressed inputs.
template <class T>
struct ThinRun {
  const T* rhs;       // from the prepass
  const T* inv_diag;  // 1 / a_ii, or 0 where that is not finite (then divide by diag)
  const T* diag;
  const index_t* rows;
  const index_t* ovf_ptr;
  const index_t* ovf_ref;
  const T* ovf_val;
  const index_t* ell_ref;  // this run's slots (from its ell_offset)
  const T* ell_val;
  const index_t* level_ptr;
  index_t first;  // first position of the run
  unsigned ring_mask;  // ring size - 1; slot ring_mask + 1 holds 0
};

// E consecutive values from a 4E-byte aligned address, as wide loads.
template <int E, class V>
__device__ __forceinline__ void load_slots(const V* p, V (&out)[E]) {
  static_assert(E == 2 || E == 4);
  if constexpr (sizeof(V) * E == 16) {  // int x4, float x4, double x2
    using W = std::conditional_t<sizeof(V) == 4, int4, double2>;
    const W w = __ldg(reinterpret_cast<const W*>(p));
    const V* v = reinterpret_cast<const V*>(&w);
#pragma unroll
    for (int j = 0; j < E; ++j) out[j] = v[j];
  } else if constexpr (sizeof(V) * E == 32) {  // double x4
    const double2 a = __ldg(reinterpret_cast<const double2*>(p)), b = __ldg(reinterpret_cast<const double2*>(p) + 1);
    out[0] = a.x, out[1] = a.y, out[2] = b.x, out[3] = b.y;
  } else {  // 8 bytes: int x2, float x2
    using W = std::conditional_t<sizeof(V) == 4, int2, double>;
    const W w = __ldg(reinterpret_cast<const W*>(p));
    const V* v = reinterpret_cast<const V*>(&w);
#pragma unroll
    for (int j = 0; j < E; ++j) out[j] = v[j];
  }
}

// One lane's share of a position, loaded one step ahead.
template <class T, int LANES>
struct Ahead {
  static constexpr int E = ell_per_lane(LANES);
  T rhs, inv_diag;
  index_t i, ovf_begin, ovf_end;
  index_t ref[E];
  T val[E];
};

template <class T, int LANES>
__device__ __forceinline__ void load_ahead(const ThinRun<T>& v, index_t k, bool active, Ahead<T, LANES>& a) {
  constexpr int E = Ahead<T, LANES>::E;
  const int lane = threadIdx.x % LANES;
  if (!active) {
#pragma unroll
    for (int j = 0; j < E; ++j) a.ref[j] = index_t(v.ring_mask + 1), a.val[j] = T(0);
    a.ovf_begin = a.ovf_end = 0;
    return;
  }
  const std::size_t s = (std::size_t(k - v.first) * LANES + lane) * E;
  load_slots<E>(v.ell_ref + s, a.ref);
  load_slots<E>(v.ell_val + s, a.val);
  a.ovf_begin = __ldg(v.ovf_ptr + k);
  a.ovf_end = __ldg(v.ovf_ptr + k + 1);
  if (lane == 0) {
    a.rhs = __ldg(v.rhs + k);  // written by the prepass, an earlier launch
    a.inv_diag = __ldg(v.inv_diag + k);
    a.i = __ldg(v.rows + k);
  }
}

// What the lane that writes x_i needs of position k.
template <class T>
struct RowEnd {
  T rhs, inv_diag;  // r_k; 1 / a_ii, or 0 (then divide by diag[k])
  index_t i;        // the row of A
};

// The end of position k in both thin-run kernels; every lane of the warp
// calls it. `sum` is this lane's ELL part; its overflow entries
// [ovf_begin, ovf_end) (long rows, and dependencies the ring may have
// dropped: the rare path) are added, the group reduces, and lane 0 of an
// active group writes x_i = (r_k - sum) / a_ii to x and, if to_ring, to the
// ring. row_end() is called by that lane only.
template <class T, int LANES, class RowEndOf>
__device__ __forceinline__ void complete_row(const ThinRun<T>& v, T sum, index_t ovf_begin, index_t ovf_end, index_t k,
                                             bool active, bool to_ring, T* ring, T* x, RowEndOf row_end) {
  for (index_t p = ovf_begin + index_t(threadIdx.x % LANES); p < ovf_end; p += LANES) {
    const index_t ref = v.ovf_ref[p];
    // ~ref: x written by this block before the last barrier (plain load)
    sum += v.ovf_val[p] * (ref >= 0 ? ring[ref] : x[~ref]);
  }
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
  if (active && threadIdx.x % LANES == 0) {
    const RowEnd<T> e = row_end();
    const T xi = e.inv_diag != T(0) ? (e.rhs - sum) * e.inv_diag : (e.rhs - sum) / v.diag[k];
    if (to_ring) ring[unsigned(k) & v.ring_mask] = xi;
    x[e.i] = xi;
  }
}

// Completes position k from its prefetch; every lane of the warp calls it.
// The ELL part is branch-free (unused slots: value 0 times the zero slot).
template <class T, int LANES>
__device__ __forceinline__ void finish(const ThinRun<T>& v, const Ahead<T, LANES>& a, index_t k, bool active,
                                       bool to_ring, T* ring, T* x) {
  T sum = T(0);
#pragma unroll
  for (int j = 0; j < Ahead<T, LANES>::E; ++j) sum += a.val[j] * ring[a.ref[j]];
  complete_row<T, LANES>(v, sum, a.ovf_begin, a.ovf_end, k, active, to_ring, ring, x,
                         [&] { return RowEnd<T>{a.rhs, a.inv_diag, a.i}; });
}

// Levels [first_level, last_level) by one block (dynamic shared memory: the ring).
template <class T, int LANES>
__global__ void __launch_bounds__(kMaxThinBlock)
    thin_run_kernel(ThinRun<T> v, const RhsAndX<T>* slot, index_t first_level, index_t last_level) {
  extern __shared__ __align__(16) unsigned char ring_bytes[];
  T* ring = reinterpret_cast<T*>(ring_bytes);
  T* x = slot->x;
  if (threadIdx.x == 0) ring[v.ring_mask + 1] = T(0);  // the zero slot
  __syncthreads();
  const index_t per_pass = index_t(blockDim.x / LANES);
  const index_t g = index_t(threadIdx.x / LANES);
  // The current step covers positions [k0, k0 + per_pass) of a level ending at
  // `end`; `next_end` is where the following level ends (loaded a level early).
  index_t level = first_level;
  index_t k0 = __ldg(v.level_ptr + level), end = __ldg(v.level_ptr + level + 1), begin = k0;
  index_t next_end = level + 1 < last_level ? __ldg(v.level_ptr + level + 2) : end;
  Ahead<T, LANES> cur, nxt;
  load_ahead<T, LANES>(v, k0 + g, k0 + g < end, cur);
  for (;;) {  // block-uniform control flow
    index_t nk0 = k0 + per_pass, n_end = end, n_next_end = next_end, n_level = level;
    const bool level_done = nk0 >= end;
    if (level_done) {
      n_level = level + 1;
      nk0 = end;
      n_end = next_end;
      n_next_end = n_level + 1 < last_level ? __ldg(v.level_ptr + n_level + 2) : next_end;
    }
    const bool more = n_level < last_level;
    load_ahead<T, LANES>(v, nk0 + g, more && nk0 + g < n_end, nxt);
    // A level wider than the ring is never read from it (thin_run_layout.hpp);
    // not writing it there also keeps its positions from racing for slots.
    finish<T, LANES>(v, cur, k0 + g, k0 + g < end, end - begin <= index_t(v.ring_mask) + 1, ring, x);
    if (!more) break;
    if (level_done) __syncthreads();  // x of this level visible (ring and global) to the next
    cur = nxt;
    k0 = nk0;
    if (level_done) begin = nk0;
    end = n_end;
    next_end = n_next_end;
    level = n_level;
  }
}

}  // namespace balsa::trsv_gpu::detail
