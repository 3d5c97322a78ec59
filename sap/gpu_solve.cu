// SaP's block solves on the GPU (sap/gpu.hpp, solve_blocks): x_i =
// U_i^{-1} L_i^{-1} x_i for every diagonal block (report sec. 3.1; the
// application of SaP-D, and the two block solves of SaP-C, sec. 3.4).
//
// One thread block per partition; inside it the sweep is a chain of chunks
// of C <= 32 rows. A chunk's rows first take their products with the k
// rows solved before it (every thread: a row each, the columns split over
// the thread groups, partial sums reduced in shared memory), then warp 0
// solves the chunk's C x C triangle with shuffles. What a chunk reads of
// the band (its C rows, k + C columns) and of the right-hand side is copied
// into shared memory asynchronously (cp.async) S - 1 chunks ahead, so the
// chain waits on shared memory, not on DRAM; the solved rows the next
// chunks need stay in a shared ring of the last k + C values.
//
// The backward sweep with U is the forward sweep of J A J: the band array
// read from its end is J A J's band (sparse.hpp, Banded), so one sweep
// serves both, the second with U's diagonal.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "sap/gpu.hpp"
#include "sap/gpu_band.cuh"
#include "core/instantiate.hpp"

namespace balsa::sap::gpu {

namespace {

constexpr int kMaxChunk = 32;  // one warp's triangle

// Chunk rows C, pipeline stages S, ring length (a power of two >= k + C).
struct Geometry {
  int chunk, stages, ring;
};

// A sweep's view of block storage: rows and columns are the sweep's (for
// Up, row i is A's row n - 1 - i).
template <class P, bool Up>
struct Sweep {
  const P* band;
  P* x;
  index_t n, k;
  std::int64_t last;  // n (2k + 1) - 1
  __device__ const P* entry(index_t i, index_t j) const { return Up ? band + (last - at(i, j, k)) : band + at(i, j, k); }
  __device__ P* xi(index_t i) const { return Up ? x + (n - 1 - i) : x + i; }
};

// Rows s0 .. e-1 of the sweep: x_i = (x_i - sum_{c<i} T(i, c) x_c) / T(i, i)
// with T = L (unit diagonal) or J U J, of bandwidth k (the block's, <= s.k).
template <class P, bool Up>
__device__ void sweep(const Sweep<P, Up>& s, index_t s0, index_t e, index_t k, Geometry g, P* smem) {
  const int C = g.chunk, S = g.stages, width = int(k) + C;
  const int stage_size = C * width + C;  // the tile, [column][row], then the C right-hand sides
  P* ring = smem + std::size_t(S) * stage_size;
  P* partial = ring + g.ring;  // [group][row]
  const int tid = threadIdx.x, lane = tid & 31, row = tid % C, group = tid / C, groups = blockDim.x / C;
  const index_t chunks = (e - s0 + C - 1) / C;
  auto issue = [&](index_t q) {  // chunk q's copies into stage q mod S
    if (q < chunks) {
      P* tile = smem + std::size_t(q % S) * stage_size;
      const index_t j0 = s0 + q * C, i = j0 + row;
      if (i < e) {
        // The row's band: columns max(s0, i - k) .. i, tile columns lo .. k + row.
        const int lo = int(imax(row, k - (j0 - s0)));
        for (int cc = lo + group; cc <= int(k) + row; cc += groups)
          __pipeline_memcpy_async(tile + cc * C + row, s.entry(i, j0 - k + cc), sizeof(P));
        if (group == 0) __pipeline_memcpy_async(tile + width * C + row, s.xi(i), sizeof(P));
      }
    }
    __pipeline_commit();
  };
  for (int q = 0; q < S - 1; ++q) issue(q);
  for (index_t q = 0; q < chunks; ++q) {
    issue(q + S - 1);
    __pipeline_wait_prior(S - 1);
    __syncthreads();  // chunk q's stage is in; the ring holds the rows before it
    const P* tile = smem + std::size_t(q % S) * stage_size;
    const index_t j0 = s0 + q * C;
    const int jb = int(imin(C, e - j0));
    P sum = 0;
    if (row < jb) {
      const int lo = int(imax(row, k - (j0 - s0)));  // columns >= s0 and within the row's band
      for (int cc = group; cc < int(k); cc += groups)
        if (cc >= lo) sum += tile[cc * C + row] * ring[(j0 - k + cc) & (g.ring - 1)];
    }
    partial[group * C + row] = sum;
    // Warp 0 takes the triangle's rows, the diagonal and the right-hand side
    // into registers before the stage can be refilled.
    P l[kMaxChunk];
    P inverse = 1, v = 0;  // 1 / U's diagonal (Up): a multiply, not a division, in the chain below
    if (tid < 32) {
      const int first = int(imax(0, lane - k));  // the row's band inside the chunk: columns first .. lane-1
#pragma unroll
      for (int t = 0; t < kMaxChunk; ++t)
        l[t] = (t < C && lane < jb && t >= first && t < lane) ? tile[(int(k) + t) * C + lane] : P(0);
      if (lane < jb) {
        v = tile[width * C + lane];
        if (Up) inverse = P(1) / tile[(int(k) + lane) * C + lane];
      }
    }
    __syncthreads();  // partial sums in
    if (tid < 32) {
      if (lane < C)
        for (int gi = 0; gi < groups; ++gi) v -= partial[gi * C + lane];
#pragma unroll
      for (int t = 0; t < kMaxChunk; ++t) {
        if (t < C) {
          if (Up && lane == t) v *= inverse;
          v -= l[t] * __shfl_sync(0xffffffffu, v, t);
        }
      }
      if (lane < jb) {
        *s.xi(j0 + lane) = v;
        ring[(j0 + lane) & (g.ring - 1)] = v;
      }
    }
  }
  __pipeline_wait_prior(0);
  __syncthreads();
}

template <class P>
__global__ void solve_kernel(const P* band, index_t n, index_t k, const index_t* starts, const index_t* bandwidths,
                             Geometry g, P* x, const int* stopped) {
  if (stopped && *stopped) return;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  P* smem = reinterpret_cast<P*>(smem_raw);
  const index_t s0 = starts[blockIdx.x], e = starts[blockIdx.x + 1], kb = bandwidths[blockIdx.x];
  const std::int64_t last = std::int64_t(n) * (2 * std::int64_t(k) + 1) - 1;
  sweep(Sweep<P, false>{band, x, n, k, last}, s0, e, kb, g, smem);
  sweep(Sweep<P, true>{band, x, n, k, last}, n - e, n - s0, kb, g, smem);
}

int threads_for(index_t k) { return k <= 32 ? 32 : k <= 64 ? 64 : k <= 128 ? 128 : 256; }

std::size_t smem_bytes(index_t k, const Geometry& g, int threads, std::size_t value) {
  return value * (std::size_t(g.stages) * (std::size_t(g.chunk) * std::size_t(k + g.chunk) + g.chunk) +
                  std::size_t(g.ring) + std::size_t(threads));
}

// The widest chunk, then the deepest pipeline, that fits in shared memory.
template <class P>
Geometry geometry(index_t k, int threads, std::size_t limit) {
  for (int c : {32, 16, 8, 4, 2, 1})
    for (int st : {3, 2}) {
      int ring = 1;
      while (ring < k + c) ring *= 2;
      const Geometry g{c, st, ring};
      if (smem_bytes(k, g, threads, sizeof(P)) <= limit) return g;
    }
  throw DeviceOutOfMemory("SaP: half-bandwidth k = " + std::to_string(k) +
                          " is too wide for the GPU block solves' shared memory (" + std::to_string(limit) + " bytes)");
}


}  // namespace

template <class P>
void solve_blocks(const P* band, index_t n, index_t k, const DeviceBlocks& blocks, P* x, const int* stopped) {
  if (blocks.count == 0) return;
  // Per call, as the factorisations do: the attribute belongs to the current
  // device. Always the opt-in maximum, so concurrent solvers never lower it.
  BALSA_CUDA_CHECK(cudaFuncSetAttribute(solve_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(cuda::optin_shared_bytes())));
  const index_t kmax = blocks.max_bandwidth;  // the geometry fits the widest block
  const int threads = threads_for(kmax);
  const Geometry g = geometry<P>(kmax, threads, cuda::optin_shared_bytes());
  solve_kernel<P><<<blocks.count, threads, smem_bytes(kmax, g, threads, sizeof(P)), cuda::stream()>>>(
      band, n, k, blocks.starts.data(), blocks.bandwidths.data(), g, x, stopped);
  BALSA_CHECK_LAUNCH();
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_SAP_GPU_SOLVE)

}  // namespace balsa::sap::gpu
