// Internal (qr/gpu_multifrontal.cu only): the arithmetic of the task
// kernel's tiles in shared memory (sparse QR paper sec. 3.2): Householder
// QR of a bundle's stack (Factorize, sec. 3.2.1), its T, and the block
// reflector's Apply (sec. 3.2.2), whose products run on the FP64 tensor
// cores (DMMA through WMMA). The host oracle of the same arithmetic is
// qr/bucket.cpp's run_task_host.
#pragma once

#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>

#include "qr/bucket.hpp"

namespace balsa::qr::tiles {

constexpr int kThreads = 256;
// Shared stacks: 96 rows, +2 so that the 8 x 8 x 4 DMMA fragments' rows
// start 32-byte aligned and their leading dimensions are even (WMMA's
// rules for double); the products that walk across columns are DMMA's.
constexpr int kLd = kTile * kBundleTiles + 2;
constexpr int kLdT = kTile + 2;
// Shared memory of a tile task: V (or the stack being factored), T, A's
// chunk, W, and tau.
constexpr std::size_t kSharedDoubles = 2 * std::size_t(kLd) * kTile + 2 * std::size_t(kLdT) * kTile + kTile;
constexpr std::size_t kSharedBytes = 8 * kSharedDoubles;

struct Shared {
  double* V;  // kLd x 32: the bundle's V (unit lower trapezoidal), or the stack factored
  double* T;  // kLdT x 32
  double* A;  // kLd x 32: a chunk of the rows updated
  double* W;  // kLdT x 32
  double* tau;
  __device__ explicit Shared(double* s)
      : V(s), T(s + kLd * kTile), A(T + kLdT * kTile), W(A + kLd * kTile), tau(W + kLdT * kTile) {}
};

// Row i of a bundle's stack: row base[i / 32] + i % 32 of the matrix.
struct Rows {
  std::int64_t base[3];
  __device__ std::int64_t operator()(int i) const { return base[i >> 5] + (i & 31); }
};

// FP64 tensor cores (DMMA, sm_80+): 8 x 8 tiles, k steps of 4, through
// CUDA's WMMA interface. Each product below gives a warp whole 8 x 8 tiles
// of its result (all operands in shared memory, column-major).
namespace wmma = nvcuda::wmma;
using Acc = wmma::fragment<wmma::accumulator, 8, 8, 4, double>;
template <class Layout>
using FragA = wmma::fragment<wmma::matrix_a, 8, 8, 4, double, Layout>;
using FragB = wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major>;

// acc += X^T Y over k rows: X (k x 32, ldx) gives the tile's rows r0.., Y
// (k x 32, ldy) its columns c0..; k a multiple of 4.
__device__ __forceinline__ void mma_tn(Acc& acc, const double* X, int ldx, const double* Y, int ldy, int k, int r0,
                                       int c0) {
  FragA<wmma::row_major> a;  // X^T read row-major: X column-major
  FragB b;
  for (int i0 = 0; i0 < k; i0 += 4) {
    wmma::load_matrix_sync(a, X + i0 + ldx * r0, ldx);
    wmma::load_matrix_sync(b, Y + i0 + ldy * c0, ldy);
    wmma::mma_sync(acc, a, b, acc);
  }
}

// acc += sign op(X) Y (32 inner): op(X) = X (column-major) or X^T, ldx;
// Y (32 x 32, ldy); the tile's rows r0.. and columns c0...
template <class Layout>
__device__ __forceinline__ void mma_n(Acc& acc, const double* X, int ldx, const double* Y, int ldy, int r0, int c0,
                                      double sign) {
  FragA<Layout> a;
  FragB b;
  for (int k0 = 0; k0 < kTile; k0 += 4) {
    // column-major X: tile (r0.., k0..) at X + r0 + ldx k0; X^T: at X + k0 + ldx r0 (row-major)
    constexpr bool col = std::is_same_v<Layout, wmma::col_major>;
    wmma::load_matrix_sync(a, col ? X + r0 + ldx * k0 : X + k0 + ldx * r0, ldx);
    for (int e = 0; e < a.num_elements; ++e) a.x[e] *= sign;
    wmma::load_matrix_sync(b, Y + k0 + ldy * c0, ldy);
    wmma::mma_sync(acc, a, b, acc);
  }
}

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Householder QR of the stack in shared memory (dgeqr2, one column at a
// time): R on and above the diagonal, v below it (unit head implied), tau.
__device__ __forceinline__ void householder_columns(Shared& s, int M, int tid, int lane, int warp, int warps) {
  for (int c = 0; c < kTile; ++c) {
    double* x = s.V + kLd * c;
    if (warp == 0) {
      double sigma = 0;
      for (int i = c + 1 + lane; i < M; i += 32) sigma += x[i] * x[i];
      sigma = warp_sum(sigma);
      if (lane == 0) {
        const double alpha = x[c];
        if (sigma == 0) {
          s.tau[c] = 0;
          s.W[0] = 0;
        } else {
          const double beta = -copysign(sqrt(alpha * alpha + sigma), alpha);
          s.tau[c] = (beta - alpha) / beta;
          s.W[0] = 1.0 / (alpha - beta);  // the scale of v below its head
          s.W[1] = beta;
        }
      }
    }
    __syncthreads();
    const double tau = s.tau[c];
    if (tau != 0) {
      const double scale = s.W[0];
      for (int i = c + 1 + tid; i < M; i += blockDim.x) x[i] *= scale;
    }
    __syncthreads();
    if (tau != 0) {
      for (int d = c + 1 + warp; d < kTile; d += warps) {  // y -= tau (v^T y) v, v = [1; x(c+1:)]
        double* y = s.V + kLd * d;
        const double head = y[c];
        __syncwarp();
        double w = 0;
        for (int i = c + 1 + lane; i < M; i += 32) w += x[i] * y[i];
        w = tau * (warp_sum(w) + head);
        for (int i = c + 1 + lane; i < M; i += 32) y[i] -= w * x[i];
        if (lane == 0) y[c] = head - w;
        __syncwarp();
      }
      if (tid == 0) x[c] = s.W[1];
    }
    __syncthreads();
  }
}

// T (dlarft, forward columnwise): G(k, c) = v_k^T v_c (k < c) into W,
// then T(0:c, c) = -tau_c T(0:c, 0:c) G(0:c, c), column by column (warp 0).
__device__ __forceinline__ void form_t(Shared& s, int M, int tid, int lane, int warp) {
  for (int e = tid; e < M * kTile; e += blockDim.x) {  // V made explicit (unit diagonal, zeros above) in A
    const int i = e % M, c = e / M;
    s.A[i + kLd * c] = i < c ? 0.0 : (i == c ? 1.0 : s.V[i + kLd * c]);
  }
  __syncthreads();
  for (int t = warp; t < 16; t += blockDim.x >> 5) {  // G = V^T V by 8 x 8 tiles (the upper ones used)
    const int r0 = (t & 3) * 8, c0 = (t >> 2) * 8;
    if (r0 > c0) continue;
    Acc g;
    wmma::fill_fragment(g, 0.0);
    mma_tn(g, s.A, kLd, s.A, kLd, M, r0, c0);
    wmma::store_matrix_sync(s.W + r0 + kLdT * c0, g, kLdT, wmma::mem_col_major);
  }
  __syncthreads();
  if (warp == 0) {
    for (int c = 0; c < kTile; ++c) {
      double t = 0;
      if (lane < c) {
        for (int i = lane; i < c; ++i) t += s.T[lane + kLdT * i] * s.W[i + kLdT * c];
        t *= -s.tau[c];
      }
      __syncwarp();
      if (lane < c) s.T[lane + kLdT * c] = t;
      if (lane == c) s.T[c + kLdT * c] = s.tau[c];
      __syncwarp();
    }
  }
  __syncthreads();
}

// Factorize (sec. 3.2.1): the stack (M = 32 count rows) of column tile
// `col` factored in shared memory; R to the top tile (zeros below its
// diagonal), V below it in place, the top tile's V and T to the VT record.
__device__ inline void factorize(Shared& s, double* front, std::int64_t ld, const Rows& rows, int M, int col, double* rec) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = blockDim.x >> 5;
  const double* a = front + ld * std::int64_t(col) * kTile;
  for (int e = tid; e < M * kTile; e += blockDim.x) {
    const int i = e % M, c = e / M;
    s.V[i + kLd * c] = a[rows(i) + ld * c];
  }
  __syncthreads();
  householder_columns(s, M, tid, lane, warp, warps);
  form_t(s, M, tid, lane, warp);
  double* out = front + ld * std::int64_t(col) * kTile;
  for (int e = tid; e < M * kTile; e += blockDim.x) {
    const int i = e % M, c = e / M;
    out[rows(i) + ld * c] = (i < kTile && i > c) ? 0.0 : s.V[i + kLd * c];
  }
  for (int e = tid; e < kVtRows * kTile; e += blockDim.x) {
    const int i = e % kVtRows, c = e / kVtRows;
    rec[e] = i <= c ? s.T[i + kLdT * c] : (i == c + 1 ? 0.0 : s.V[(i - 1) + kLd * c]);
  }
  __syncthreads();
}

// A bundle's V (unit lower trapezoidal, M x 32) and T into shared memory.
__device__ inline void load_vt(Shared& s, const double* front, std::int64_t ld, const Rows& rows, int M, int col,
                        const double* rec) {
  const double* a = front + ld * std::int64_t(col) * kTile;
  for (int e = threadIdx.x; e < M * kTile; e += blockDim.x) {
    const int i = e % M, c = e / M;
    double v;
    if (i < kTile) {
      v = i < c ? 0.0 : (i == c ? 1.0 : rec[(i + 1) + kVtRows * c]);
    } else {
      v = a[rows(i) + ld * c];
    }
    s.V[i + kLd * c] = v;
  }
  for (int e = threadIdx.x; e < kTile * kTile; e += blockDim.x) {
    const int i = e % kTile, c = e / kTile;
    s.T[i + kLdT * c] = i <= c ? rec[i + kVtRows * c] : 0.0;
  }
  __syncthreads();
}

// C(rows, 0 .. ncols) -= V op(T) V^T C(rows, ..) (Apply, sec. 3.2.2; op(T)
// = T^T for Q^T, T for Q); C column-major with stride ldc; ncols <= 32.
// The three products on the tensor cores (DMMA), 8 x 8 tiles a warp.
__device__ inline void update(Shared& s, double* C, std::int64_t ldc, const Rows& rows, int M, int ncols, bool transpose) {
  const int tid = threadIdx.x, warp = tid >> 5, warps = blockDim.x >> 5;
  for (int e = tid; e < M * kTile; e += blockDim.x) {
    const int i = e % M, c = e / M;
    s.A[i + kLd * c] = c < ncols ? C[rows(i) + ldc * c] : 0.0;
  }
  __syncthreads();
  for (int t = warp; t < 16; t += warps) {  // W = V^T A
    const int r0 = (t & 3) * 8, c0 = (t >> 2) * 8;
    Acc w;
    wmma::fill_fragment(w, 0.0);
    mma_tn(w, s.V, kLd, s.A, kLd, M, r0, c0);
    wmma::store_matrix_sync(s.W + r0 + kLdT * c0, w, kLdT, wmma::mem_col_major);
  }
  __syncthreads();
  {  // W = op(T) W: every warp's tiles in registers before any is stored
    Acc z[2];
    for (int q = 0; q < 2; ++q) {
      const int t = warp + q * warps;
      wmma::fill_fragment(z[q], 0.0);
      if (t >= 16) continue;
      const int r0 = (t & 3) * 8, c0 = (t >> 2) * 8;
      if (transpose) {
        mma_n<wmma::row_major>(z[q], s.T, kLdT, s.W, kLdT, r0, c0, 1.0);
      } else {
        mma_n<wmma::col_major>(z[q], s.T, kLdT, s.W, kLdT, r0, c0, 1.0);
      }
    }
    __syncthreads();
    for (int q = 0; q < 2; ++q) {
      const int t = warp + q * warps;
      if (t < 16) wmma::store_matrix_sync(s.W + (t & 3) * 8 + kLdT * ((t >> 2) * 8), z[q], kLdT, wmma::mem_col_major);
    }
  }
  __syncthreads();
  for (int t = warp; t < (M / 8) * 4; t += warps) {  // A -= V W, in place: a warp owns its tiles of A
    const int r0 = (t % (M / 8)) * 8, c0 = (t / (M / 8)) * 8;
    Acc a;
    wmma::load_matrix_sync(a, s.A + r0 + kLd * c0, kLd, wmma::mem_col_major);
    mma_n<wmma::col_major>(a, s.V, kLd, s.W, kLdT, r0, c0, -1.0);
    wmma::store_matrix_sync(s.A + r0 + kLd * c0, a, kLd, wmma::mem_col_major);
  }
  __syncthreads();
  for (int e = tid; e < M * kTile; e += blockDim.x) {
    const int i = e % M, c = e / M;
    if (c < ncols) C[rows(i) + ldc * c] = s.A[i + kLd * c];
  }
  __syncthreads();
}

__device__ inline Rows tile_rows(const std::int32_t* tiles, std::int64_t base) {
  Rows r{};
  for (int q = 0; q < 3; ++q) {
    const int t = tiles[q];
    r.base[q] = base + std::int64_t(t < 0 ? 0 : t) * kTile;
  }
  return r;
}

}  // namespace balsa::qr::tiles
