// Multifrontal QR on the GPU (qr/gpu.hpp): S-assembly, the task kernel
// (sparse QR paper sec. 3.2: Factorize, Apply, Apply/Factorize on 32 x 32
// tiles, bundles of up to 3 row tiles; Pack assembly, sec. 3.3.1), and the
// replay of Q's reflectors on right-hand sides. The arithmetic is the host
// oracle's (qr/bucket.cpp); one thread block runs one task. A plan's
// launches run on given windows (qr/gpu_device.cuh): the one arena here,
// a stage's window buffer in qr/gpu_staged.cu.
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <mma.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/setup_trace.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/graph.hpp"
#include "qr/gpu_device.cuh"

namespace balsa::qr {

void GpuFactorDeleter::operator()(GpuFactor* g) const noexcept { delete g; }

namespace {

void check_cusolver(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  const std::string msg = std::string("cuSOLVER call failed (status ") + std::to_string(int(status)) + "): " + call;
  if (status == CUSOLVER_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(msg);
  throw CudaError(msg);
}
#define BALSA_CUSOLVER_CHECK(call) check_cusolver((call), #call)

// The cuSOLVER handle on the current stream (the SparseQR's, cuda/stream.hpp).
cusolverDnHandle_t on_stream(GpuFactor& g) {
  BALSA_CUSOLVER_CHECK(cusolverDnSetStream(g.solver, cuda::stream()));
  return g.solver;
}

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

__device__ double warp_sum(double v) {
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
__device__ void factorize(Shared& s, double* front, std::int64_t ld, const Rows& rows, int M, int col, double* rec) {
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
__device__ void load_vt(Shared& s, const double* front, std::int64_t ld, const Rows& rows, int M, int col,
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
__device__ void update(Shared& s, double* C, std::int64_t ldc, const Rows& rows, int M, int ncols, bool transpose) {
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

__device__ Rows tile_rows(const std::int32_t* tiles, std::int64_t base) {
  Rows r{};
  for (int q = 0; q < 3; ++q) {
    const int t = tiles[q];
    r.base[q] = base + std::int64_t(t < 0 ? 0 : t) * kTile;
  }
  return r;
}

// The pack maps (GpuPlan::cb_*, colmap).
struct PackMaps {
  const std::int64_t* src;
  const std::int64_t* dst;
  const std::int32_t* q;
  const std::int32_t* colmap;
};

__global__ void __launch_bounds__(kThreads) tile_tasks(const DeviceTask* __restrict__ tasks, double* __restrict__ arena,
                                                      double* __restrict__ vt, PackMaps pack) {
  extern __shared__ __align__(128) double shared[];
  const DeviceTask t = tasks[blockIdx.x];
  if (t.kind == kPackTask) {  // a warp per contribution row, its lanes along the row
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (std::int64_t k = t.p0 + (threadIdx.x >> 5); k < t.p1; k += warps) {
      const std::int64_t src = pack.src[k], dst = pack.dst[k];
      for (int l = pack.q[k] + lane; l < t.col; l += 32)
        arena[dst + std::int64_t(t.count) * pack.colmap[t.vt_next + l]] = arena[src + std::int64_t(t.ld) * l];
    }
    return;
  }
  Shared s(shared);
  double* front = arena + t.front;
  const Rows rows = tile_rows(t.tiles, 0);
  const int M = t.count * kTile;
  if (t.kind == int(TileTaskKind::Factorize)) {
    factorize(s, front, t.ld, rows, M, t.col, vt + t.vt);
    return;
  }
  load_vt(s, front, t.ld, rows, M, t.col, vt + t.vt);
  for (int c = t.c0; c < t.c1; ++c) update(s, front + std::int64_t(t.ld) * c * kTile, t.ld, rows, M, kTile, true);
  if (t.kind == int(TileTaskKind::ApplyFactorize))
    factorize(s, front, t.ld, tile_rows(t.next_tiles, 0), t.next_count * kTile, t.c0, vt + t.vt_next);
}

// The solve's replay: a bundle's reflectors on its rows of the rhs arena
// (all nrhs columns, 32 at a time), or a Pack of rows (child -> parent for
// Q^T, parent -> child for Q).
__global__ void __launch_bounds__(kThreads) solve_tasks(const SolveTask* __restrict__ tasks, const double* __restrict__ arena,
                                                       const double* __restrict__ vt, double* __restrict__ rhs,
                                                       std::int64_t rhs_rows, int nrhs, const std::int64_t* __restrict__ src,
                                                       const std::int64_t* __restrict__ dst, bool transpose) {
  extern __shared__ __align__(128) double shared[];
  const SolveTask t = tasks[blockIdx.x];
  if (t.kind == kPackTask) {
    const std::int64_t n = t.vt - t.front;
    for (std::int64_t e = threadIdx.x; e < n * nrhs; e += blockDim.x) {
      const std::int64_t k = t.front + e % n, c = e / n;
      if (transpose) {
        rhs[dst[k] + rhs_rows * c] = rhs[src[k] + rhs_rows * c];
      } else {
        rhs[src[k] + rhs_rows * c] = rhs[dst[k] + rhs_rows * c];
      }
    }
    return;
  }
  Shared s(shared);
  const int M = t.count * kTile;
  load_vt(s, arena + t.front, t.ld, tile_rows(t.tiles, 0), M, t.col, vt + t.vt);
  const Rows rows = tile_rows(t.tiles, t.base);
  for (int c0 = 0; c0 < nrhs; c0 += kTile)
    update(s, rhs + rhs_rows * c0, rhs_rows, rows, M, nrhs - c0 < kTile ? nrhs - c0 : int(kTile), transpose);
}

// out[dst[e]] = values[src[e]] (src null: values[e]); dst -1: none.
__global__ void scatter(const double* __restrict__ values, const std::int64_t* __restrict__ src,
                        const std::int64_t* __restrict__ dst, std::int64_t n, double* __restrict__ out) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n; e += std::int64_t(gridDim.x) * blockDim.x)
    if (dst[e] >= 0) out[dst[e]] = values[src ? src[e] : e];
}

// R's rows out of the arena, a warp per row (FrontFactor's layout).
__global__ void gather_r(const double* __restrict__ arena, const std::int64_t* __restrict__ row,
                         const std::int32_t* __restrict__ ld, const std::int32_t* __restrict__ n,
                         const std::int32_t* __restrict__ first, const std::int64_t* __restrict__ out_at, std::int64_t rows,
                         double* __restrict__ out) {
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x >> 5);
  for (std::int64_t k = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) >> 5; k < rows; k += warps) {
    const int t = first[k];
    for (int l = t + int(threadIdx.x & 31); l < n[k]; l += 32)
      out[out_at[k] + (l - t)] = row[k] < 0 ? 0.0 : arena[row[k] + std::int64_t(ld[k]) * l];
  }
}

__global__ void gather(const double* __restrict__ in, const std::int64_t* __restrict__ src, std::int64_t n,
                       double* __restrict__ out) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n; e += std::int64_t(gridDim.x) * blockDim.x)
    out[e] = src[e] >= 0 ? in[src[e]] : 0.0;
}

// Columns c of two maps: out[to[e] + ldo c] = in[from[e] + ldi c] (skipping -1 on either side; zero where from < 0).
__global__ void move_rows(const double* __restrict__ in, std::int64_t ldi, const std::int64_t* __restrict__ from,
                          double* __restrict__ out, std::int64_t ldo, const std::int64_t* __restrict__ to, std::int64_t n,
                          int ncols) {
  const std::int64_t total = n * ncols;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t k = e % n, c = e / n;
    if (to[k] < 0) continue;
    out[to[k] + ldo * c] = from[k] >= 0 ? in[from[k] + ldi * c] : 0.0;
  }
}


int grid_for(std::int64_t n) { return int(std::clamp<std::int64_t>((n + 255) / 256, 1, 65536)); }

template <class T>
cuda::DeviceBuffer<T> upload(const std::vector<T>& v) {
  cuda::DeviceBuffer<T> d(std::max<std::size_t>(v.size(), 1));
  if (!v.empty()) cuda::detail::copy_to_device(d.data(), v.data(), v.size() * sizeof(T));
  return d;
}

void ensure(cuda::DeviceBuffer<double>& b, std::size_t n) {
  if (b.size() < n) b = cuda::DeviceBuffer<double>(std::max<std::size_t>(n, 1));
}

// The dense fronts of launch l factored (cuSOLVER dgeqrf on the factor's stream).
void dense_factor(GpuFactor& g, const GpuPlan& plan, std::int64_t l, const Windows& w) {
  for (const DenseFront& d : plan.dense_in(l))
    BALSA_CUSOLVER_CHECK(cusolverDnDgeqrf(on_stream(g), int(d.m), int(d.n), w.arena + d.offset, d.ld, w.tau + d.tau,
                                          g.work.data(), int(g.work.size()), w.info + (&d - plan.dense.data())));
}

void dense_apply(GpuFactor& g, const DenseFront& d, const Windows& w, std::int64_t rhs_rows, int nrhs, bool transpose) {
  const int k = int(std::min(d.m, d.n));
  double* C = g.rhs.data() + d.rhs_base;
  const cublasOperation_t op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lw = 0;
  BALSA_CUSOLVER_CHECK(cusolverDnDormqr_bufferSize(on_stream(g), CUBLAS_SIDE_LEFT, op, int(d.m), nrhs, k, w.arena + d.offset,
                                                   d.ld, w.tau + d.tau, C, int(rhs_rows), &lw));
  if (g.work.size() < std::size_t(lw)) g.work = cuda::DeviceBuffer<double>(std::size_t(lw));
  BALSA_CUSOLVER_CHECK(cusolverDnDormqr(g.solver, CUBLAS_SIDE_LEFT, op, int(d.m), nrhs, k, w.arena + d.offset, d.ld,
                                        w.tau + d.tau, C, int(rhs_rows), g.work.data(), int(g.work.size()), g.info.data()));
}

// The one-arena factor's windows.
Windows windows_of(GpuFactor& g) { return {g.arena.data(), g.vt.data(), g.tau.data(), g.info.data()}; }

std::string needs(std::size_t need) {
  return "the fronts, their reflectors and the assembly maps need " + std::to_string(need) + " bytes";
}

// DeviceOutOfMemory when `need` passes the GPU's free memory or `limit`.
void check_fits(std::size_t need, std::size_t limit, const std::string& what) {
  const auto [free, total] = cuda::memory_info();
  if (need > free)
    throw DeviceOutOfMemory("SparseQR on the GPU" + what + ": " + needs(need) + "; the GPU has " + std::to_string(free) +
                            " of " + std::to_string(total) + " free");
  if (limit > 0 && need > limit)
    throw DeviceOutOfMemory("SparseQR on the GPU" + what + ": " + needs(need) + ", more than device_memory_limit (" +
                            std::to_string(limit) + ")");
}

// What both kinds of factor hold: the kernels' shared memory, A22's values,
// the solves' row maps.
GpuFactorPtr new_factor(const GpuPlan& plan, index_t nnz) {
  GpuFactorPtr g(new GpuFactor);
  cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(tile_tasks), kSharedBytes);
  cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(solve_tasks), kSharedBytes);
  g->values = cuda::DeviceBuffer<double>(std::size_t(std::max<index_t>(nnz, 1)));
  g->b_row = upload(plan.b_row);
  g->y_row = upload(plan.y_row);
  return g;
}

}  // namespace

DeviceMaps upload_maps(const GpuPlan& plan, const std::vector<std::int64_t>& s_src) {
  DeviceMaps m;
  m.s_src = upload(s_src);
  m.s_dst = upload(plan.s_dst);
  m.cb_src = upload(plan.cb_src);
  m.cb_dst = upload(plan.cb_dst);
  m.cb_q = upload(plan.cb_q);
  m.colmap = upload(plan.colmap);
  m.r_row = upload(plan.r_row);
  m.r_ld = upload(plan.r_ld);
  m.r_n = upload(plan.r_n);
  m.r_t = upload(plan.r_t);
  std::vector<std::int64_t> out_at(plan.r_row.size());
  for (std::size_t k = 0, at = 0; k < out_at.size(); ++k) {
    out_at[k] = std::int64_t(at);
    at += std::size_t(plan.r_n[k] - plan.r_t[k]);
  }
  m.r_out = upload(out_at);
  m.rpack_src = upload(plan.rpack_src);
  m.rpack_dst = upload(plan.rpack_dst);
  m.tasks = upload(plan.tasks);
  m.solve_tasks = upload(plan.solve_tasks);
  return m;
}

void prepare_dense(GpuFactor& g, const GpuPlan& plan, double* a) {
  if (plan.dense.empty()) return;
  BALSA_CUSOLVER_CHECK(cusolverDnCreate(&g.solver));
  const cusolverDnHandle_t solver = on_stream(g);
  int lwork = 1;
  for (const DenseFront& d : plan.dense) {
    int lw = 0;
    BALSA_CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(solver, int(d.m), int(d.n), a, d.ld, &lw));
    lwork = std::max(lwork, lw);
  }
  g.work = cuda::DeviceBuffer<double>(std::size_t(lwork));
  g.info = cuda::DeviceBuffer<int>(plan.dense.size());
}

GpuFactorPtr gpu_prepare(const GpuPlan& plan, index_t nnz, std::size_t limit) {
  const std::size_t need = plan.device_bytes(nnz);
  check_fits(need, limit, "");
  GpuFactorPtr g = new_factor(plan, nnz);
  g->arena = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.arena, 1)));
  g->vt = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.vt_size, 1)));
  g->r_values = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.r_entries(), 1)));
  g->maps = upload_maps(plan);
  g->tau = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.tau_size, 1)));
  prepare_dense(*g, plan, g->arena.data());
  g->summary = GpuFactorInfo{1, need, 0};
  return g;
}

GpuFactorPtr gpu_prepare_staged(const GpuPlan& plan, StagedPlan staged, index_t nnz, std::size_t limit) {
  const std::size_t need = staged.device_bytes(nnz);
  check_fits(need, limit, " in " + std::to_string(staged.stages.size()) + " stages");
  GpuFactorPtr g = new_factor(plan, nnz);
  g->summary = GpuFactorInfo{index_t(staged.stages.size()), need, staged.bytes_to_host()};
  staged_prepare(*g, plan, std::move(staged), nnz);
  return g;
}

std::size_t gpu_budget(std::size_t limit) {
  const std::size_t free = cuda::memory_info().first;
  return limit > 0 ? std::min(limit, free) : free;
}

GpuFactorInfo gpu_info(const GpuFactor& g) { return g.summary; }

namespace {

// The task kernel's launches [l0, l1) on stream st (unchecked: the caller
// checks, a capture included); returns how many.
index_t tile_launches(const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t l0, std::int64_t l1,
                      cudaStream_t st) {
  index_t launches = 0;
  for (std::int64_t l = l0; l < l1; ++l) {
    const std::int64_t n = plan.launch_start[std::size_t(l) + 1] - plan.launch_start[std::size_t(l)];
    if (n == 0) continue;
    tile_tasks<<<unsigned(n), kThreads, kSharedBytes, st>>>(m.tasks.data() + plan.launch_start[std::size_t(l)], w.arena,
                                                             w.vt, PackMaps{m.cb_src.data(), m.cb_dst.data(), m.cb_q.data(), m.colmap.data()});
    ++launches;
  }
  return launches;
}

// The plan's graphs on window w, captured at the first call: a run starts
// at every launch with dense fronts.
LaunchGraphs& graphs_of(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w) {
  for (LaunchGraphs& G : g.graphs)
    if (G.plan == &plan && G.arena == w.arena) return G;
  LaunchGraphs& G = g.graphs.emplace_back();
  G.plan = &plan;
  G.arena = w.arena;
  const std::int64_t total = std::int64_t(plan.launch_start.size()) - 1;
  G.start.push_back(0);
  for (std::int64_t l = 1; l < total; ++l)
    if (!plan.dense_in(l).empty()) G.start.push_back(l);
  G.start.push_back(std::max<std::int64_t>(total, 0));
  for (std::int64_t l = 0; l < total; ++l) G.launches += plan.launch_start[std::size_t(l) + 1] > plan.launch_start[std::size_t(l)];
  try {
    for (std::size_t k = 0; k + 1 < G.start.size(); ++k) {
      const std::int64_t l0 = G.start[k], l1 = G.start[k + 1];
      if (plan.launch_start[std::size_t(l1)] == plan.launch_start[std::size_t(l0)]) {  // no tile launch in the run
        G.exec.emplace_back();
        continue;
      }
      G.exec.push_back(cuda::capture_graph([&](cudaStream_t s) {
        tile_launches(plan, m, w, l0, l1, s);
        return cudaGetLastError();
      }));
    }
    G.captured = true;
  } catch (const CudaError&) {  // e.g. another thread kept invalidating the capture: plain launches
    G.exec.clear();
  }
  return G;
}

}  // namespace

index_t factor_launches(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t max_launches) {
  const cudaStream_t st = cuda::stream();
  const std::int64_t total = std::int64_t(plan.launch_start.size()) - 1;
  if (max_launches >= 0) {  // (tests: stop after max_launches; no graphs)
    index_t launches = 0;
    for (std::int64_t l = 0; l < std::min(total, max_launches); ++l) {
      dense_factor(g, plan, l, w);
      launches += tile_launches(plan, m, w, l, l + 1, st);
      BALSA_CHECK_LAUNCH();
    }
    return launches;
  }
  LaunchGraphs& G = graphs_of(g, plan, m, w);
  for (std::size_t k = 0; k + 1 < G.start.size(); ++k) {
    dense_factor(g, plan, G.start[k], w);
    if (!G.captured) {
      tile_launches(plan, m, w, G.start[k], G.start[k + 1], st);
      BALSA_CHECK_LAUNCH();
    } else if (G.exec[k].get()) {
      BALSA_CUDA_CHECK(cudaGraphLaunch(G.exec[k].get(), st));
    }
  }
  return G.launches;
}

void scatter_values(const double* values, const std::int64_t* src, const std::int64_t* dst, std::int64_t n, double* arena) {
  if (n == 0) return;
  scatter<<<grid_for(n), 256, 0, cuda::stream()>>>(values, src, dst, n, arena);
  BALSA_CHECK_LAUNCH();
}

void gather_r_rows(const GpuPlan& plan, const DeviceMaps& m, const double* arena, double* out) {
  const std::int64_t rows = std::int64_t(plan.r_row.size());
  if (plan.r_entries() == 0) return;
  gather_r<<<grid_for(rows * 32), 256, 0, cuda::stream()>>>(arena, m.r_row.data(), m.r_ld.data(), m.r_n.data(), m.r_t.data(),
                                                            m.r_out.data(), rows, out);
  BALSA_CHECK_LAUNCH();
}

void check_dense_info(const std::vector<int>& info, const std::vector<index_t>& fronts) {
  for (std::size_t k = 0; k < info.size(); ++k)
    if (info[k] != 0)
      throw CudaError("cuSOLVER dgeqrf of front " + std::to_string(fronts[k]) + " returned info " + std::to_string(info[k]));
}

std::vector<double> gpu_arena(const GpuFactor& g) { return g.staged ? staged_arena(g) : g.arena.to_host(); }
std::vector<double> gpu_vt(const GpuFactor& g) { return g.staged ? staged_vt(g) : g.vt.to_host(); }
std::vector<double> gpu_tau(const GpuFactor& g) { return g.staged ? staged_tau(g) : g.tau.to_host(); }

std::vector<double> gpu_factorise(GpuFactor& g, const GpuPlan& plan, std::span<const double> values, index_t& launches,
                                  std::int64_t max_launches) {
  std::vector<double> R(static_cast<std::size_t>(plan.r_entries()));
  gpu_factorise(g, plan, values, launches, R, max_launches);
  return R;
}

void gpu_factorise(GpuFactor& g, const GpuPlan& plan, std::span<const double> values, index_t& launches,
                   std::span<double> r_out, std::int64_t max_launches) {
  const std::int64_t nr = plan.r_entries();
  if (r_out.size() != std::size_t(nr))
    throw DimensionError("gpu_factorise: " + std::to_string(r_out.size()) + " places for R's " + std::to_string(nr) + " entries");
  if (g.staged) return staged_factorise(g, values, launches, r_out);
  const cudaStream_t st = cuda::stream();
  if (!values.empty())
    BALSA_CUDA_CHECK(cudaMemcpyAsync(g.values.data(), values.data(), values.size() * 8, cudaMemcpyHostToDevice, st));
  BALSA_CUDA_CHECK(cudaMemsetAsync(g.arena.data(), 0, g.arena.bytes(), st));
  scatter_values(g.values.data(), nullptr, g.maps.s_dst.data(), std::int64_t(values.size()), g.arena.data());
  launches = factor_launches(g, plan, g.maps, windows_of(g), max_launches);
  std::vector<int> info(plan.dense.size());
  if (!info.empty())
    BALSA_CUDA_CHECK(cudaMemcpyAsync(info.data(), g.info.data(), info.size() * sizeof(int), cudaMemcpyDeviceToHost, st));
  gather_r_rows(plan, g.maps, g.arena.data(), g.r_values.data());
  if (nr > 0) BALSA_CUDA_CHECK(cudaMemcpyAsync(r_out.data(), g.r_values.data(), std::size_t(nr) * 8, cudaMemcpyDeviceToHost, st));
  BALSA_CUDA_CHECK(cudaStreamSynchronize(st));
  std::vector<index_t> fronts;
  for (const DenseFront& d : plan.dense) fronts.push_back(d.front);
  check_dense_info(info, fronts);
}

void gpu_bind_r_rows(GpuFactor& g, const std::vector<std::int64_t>& rows) { g.y_dst = upload(rows); }

void replay_launches(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t R,
                     index_t nrhs, bool transpose) {
  const std::size_t launches = plan.solve_launch_start.size() - 1;
  for (std::size_t k = 0; k < launches; ++k) {
    const std::size_t l = transpose ? k : launches - 1 - k;
    for (const DenseFront& d : plan.dense_in(std::int64_t(l))) dense_apply(g, d, w, R, int(nrhs), transpose);
    const std::int64_t n = plan.solve_launch_start[l + 1] - plan.solve_launch_start[l];
    if (n == 0) continue;
    solve_tasks<<<unsigned(n), kThreads, kSharedBytes, cuda::stream()>>>(
        m.solve_tasks.data() + plan.solve_launch_start[l], w.arena, w.vt, g.rhs.data(), R, int(nrhs),
        m.rpack_src.data(), m.rpack_dst.data(), transpose);
    BALSA_CHECK_LAUNCH();
  }
}

namespace {

// The solves' rhs arena (rhs_rows x nrhs) zeroed; returns its leading dimension.
std::int64_t clear_rhs(GpuFactor& g, const GpuPlan& plan, index_t nrhs) {
  const std::int64_t R = std::max<std::int64_t>(plan.rhs_rows, 1);
  ensure(g.rhs, std::size_t(R) * std::size_t(nrhs));
  BALSA_CUDA_CHECK(cudaMemsetAsync(g.rhs.data(), 0, std::size_t(R) * std::size_t(nrhs) * 8, cuda::stream()));
  return R;
}

// The factorisation's launches replayed on the rhs arena: forward with the
// reflectors' Q^T (and packs child -> parent), or backward with Q (packs
// parent -> child): Q = B_0 B_1 ..., the dense fronts at their launch;
// staged: stage by stage (qr/gpu_staged.cu).
void replay(GpuFactor& g, const GpuPlan& plan, std::int64_t R, index_t nrhs, bool transpose) {
  if (g.staged) {
    staged_replay(g, R, nrhs, transpose);
  } else {
    replay_launches(g, plan, g.maps, windows_of(g), R, nrhs, transpose);
  }
}

}  // namespace

void gpu_q_transpose(GpuFactor& g, const GpuPlan& plan, std::span<const double> B2, index_t M, index_t nrhs,
                     cuda::DeviceBuffer<double>& Y, index_t ldy) {
  const cudaStream_t st = cuda::stream();
  const std::int64_t R = clear_rhs(g, plan, nrhs);
  if (M > 0) {  // S-assembly of B2's rows into their fronts, column by column
    ensure(g.b2, B2.size());
    BALSA_CUDA_CHECK(cudaMemcpyAsync(g.b2.data(), B2.data(), B2.size() * 8, cudaMemcpyHostToDevice, st));
    for (index_t c = 0; c < nrhs; ++c) scatter_values(g.b2.data() + std::size_t(M) * c, nullptr, g.b_row.data(), M, g.rhs.data() + R * c);
  }
  replay(g, plan, R, nrhs, true);
  const std::int64_t ny = std::int64_t(plan.y_row.size());
  if (ny > 0) {
    move_rows<<<grid_for(ny * nrhs), 256, 0, st>>>(g.rhs.data(), R, g.y_row.data(), Y.data(), ldy, g.y_dst.data(), ny,
                                                   int(nrhs));
    BALSA_CHECK_LAUNCH();
  }
}

std::vector<double> gpu_q_times(GpuFactor& g, const GpuPlan& plan, const cuda::DeviceBuffer<double>& Y, index_t ldy,
                                index_t M, index_t nrhs) {
  const cudaStream_t st = cuda::stream();
  const std::int64_t R = clear_rhs(g, plan, nrhs);
  const std::int64_t ny = std::int64_t(plan.y_row.size());
  if (ny > 0) {  // Z's rows into the fronts' R rows
    move_rows<<<grid_for(ny * nrhs), 256, 0, st>>>(Y.data(), ldy, g.y_dst.data(), g.rhs.data(), R, g.y_row.data(), ny,
                                                   int(nrhs));
    BALSA_CHECK_LAUNCH();
  }
  replay(g, plan, R, nrhs, false);
  std::vector<double> X(std::size_t(M) * std::size_t(nrhs));
  if (M > 0) {
    ensure(g.b2, X.size());
    for (index_t c = 0; c < nrhs; ++c) {
      gather<<<grid_for(M), 256, 0, st>>>(g.rhs.data() + R * c, g.b_row.data(), M, g.b2.data() + std::size_t(M) * c);
      BALSA_CHECK_LAUNCH();
    }
    BALSA_CUDA_CHECK(cudaMemcpyAsync(X.data(), g.b2.data(), X.size() * 8, cudaMemcpyDeviceToHost, st));
  }
  BALSA_CUDA_CHECK(cudaStreamSynchronize(st));
  return X;
}

void gpu_synchronize(GpuFactor&) { BALSA_CUDA_CHECK(cudaStreamSynchronize(cuda::stream())); }

}  // namespace balsa::qr
