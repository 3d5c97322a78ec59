// SaP-C's coupling on the GPU (sap/gpu.hpp): the coupling blocks B_i and
// C_{i+1} (T_BC), the truncated spikes V_i^(b), W_{i+1}^(t) (T_SPK, report
// sec. 2.1: bottom blocks of the LU and of the UL, two batched triangular
// solves each, cuBLAS), the reduced systems R_i = (I - W V)^{-1} (T_LUrdcd,
// cuBLAS batched GEMM, LU and inverse) and, per application, the
// corrections of eq. 9-10 (one thread block per interface). The blocks'
// layout, with a picture of the spikes: sap/steps_cpu.hpp.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/handle_pool.hpp"
#include "sap/gpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::sap::gpu {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ std::int64_t at(index_t i, index_t j, index_t k) {
  return std::int64_t(j) * (2 * std::int64_t(k) + 1) + k + i - j;
}
__device__ __forceinline__ std::size_t block_of(index_t i, index_t k) { return std::size_t(i) * k * k; }

// One thread block per interface i (t = start of block i+1): B, C from A.
template <class P>
__global__ void coupling_kernel(const P* A, index_t k, const index_t* starts, P* B, P* C) {
  const index_t i = blockIdx.x, t = starts[i + 1];
  for (std::int64_t q = threadIdx.x; q < std::int64_t(k) * k; q += blockDim.x) {
    const index_t r = index_t(q % k), c = index_t(q / k);
    B[block_of(i, k) + q] = c <= r ? A[at(t - k + r, t + c, k)] : P(0);
    C[block_of(i, k) + q] = r <= c ? A[at(t + r, t - k + c, k)] : P(0);
  }
}

// The spike solves' inputs: X = bottom k x k of block i's LU, Y = bottom
// k x k of block i+1's reversed LU, V = B, Wr = J C (rows reversed).
template <class P>
__global__ void spike_inputs_kernel(const P* lu, const P* ul, index_t k, const index_t* starts, const P* B,
                                    const P* C, P* X, P* Y, P* V, P* Wr) {
  const index_t i = blockIdx.x, t = starts[i + 1], e = starts[i + 2];
  for (std::int64_t q = threadIdx.x; q < std::int64_t(k) * k; q += blockDim.x) {
    const index_t r = index_t(q % k), c = index_t(q / k);
    X[block_of(i, k) + q] = lu[at(t - k + r, t - k + c, k)];
    Y[block_of(i, k) + q] = ul[at(e - k + r, e - k + c, k)];
    V[block_of(i, k) + q] = B[block_of(i, k) + q];
    Wr[block_of(i, k) + q] = C[block_of(i, k) + std::size_t(c) * k + (k - 1 - r)];
  }
}

// W = J Wr (rows reversed back), or (W null) R = I.
template <class P>
__global__ void spike_outputs_kernel(const P* Wr, index_t k, P* W, P* R) {
  const index_t i = blockIdx.x;
  for (std::int64_t q = threadIdx.x; q < std::int64_t(k) * k; q += blockDim.x) {
    const index_t r = index_t(q % k), c = index_t(q / k);
    if (W)
      W[block_of(i, k) + q] = Wr[block_of(i, k) + std::size_t(c) * k + (k - 1 - r)];
    else
      R[block_of(i, k) + q] = r == c ? P(1) : P(0);
  }
}

// y = y0 - M x or y = M x (k x k column-major M), one thread per row.
template <class P>
__device__ void gemv(const P* M, const P* x, const P* y0, P* y, index_t k) {
  for (index_t r = threadIdx.x; r < k; r += blockDim.x) {
    P sum = 0;
    for (index_t c = 0; c < k; ++c) sum += M[std::size_t(c) * k + r] * x[c];
    y[r] = y0 ? y0[r] - sum : sum;
  }
}

// The stride of corrections_kernel's five shared vectors: k + 1 or more,
// even. ptxas may read x[c] and x[c + 1] with one 16-byte load when one is
// needed (a loop's remainder): with a stride of k, x[k] would be the next
// vector's first value, which other threads are writing in that phase (an
// unused value, but a read-write hazard to racecheck: 48 in
// bench/results/2026-11-29-reliability/gpu-racecheck-sap.txt). The padding
// keeps that read inside its own vector.
__host__ __device__ constexpr index_t shared_stride(index_t k) { return (k + 2) & ~index_t(1); }

// Eq. 9b, 9c and 10 for interface blockIdx.x (see sap/steps_cpu.cpp, coupling_corrections).
template <class P>
__global__ void corrections_kernel(const P* B, const P* C, const P* V, const P* W, const P* R, index_t k,
                                   const index_t* starts, const P* g, P* rhs, const int* stopped) {
  if (stopped && *stopped) return;
  extern __shared__ unsigned char smem_raw[];
  const index_t stride = shared_stride(k);
  P* gb = reinterpret_cast<P*>(smem_raw);
  P* gt = gb + stride;
  P* u = gt + stride;
  P* xt = u + stride;
  P* xb = xt + stride;
  const index_t i = blockIdx.x, t = starts[i + 1];
  const std::size_t o = block_of(i, k);
  for (index_t r = threadIdx.x; r < k; r += blockDim.x) {
    gb[r] = g[t - k + r];
    gt[r] = g[t + r];
  }
  __syncthreads();
  gemv(W + o, gb, gt, u, k);  // u = g^(t) - W g^(b)
  __syncthreads();
  gemv(R + o, u, static_cast<const P*>(nullptr), xt, k);  // x~(t) = R^{-1} u
  __syncthreads();
  gemv(V + o, xt, gb, xb, k);  // x~(b) = g^(b) - V x~(t)
  __syncthreads();
  for (index_t r = threadIdx.x; r < k; r += blockDim.x) {
    P bx = 0, cx = 0;
    for (index_t c = 0; c < k; ++c) {
      bx += B[o + std::size_t(c) * k + r] * xt[c];
      cx += C[o + std::size_t(c) * k + r] * xb[c];
    }
    rhs[t - k + r] -= bx;
    rhs[t + r] -= cx;
  }
}

// cuBLAS per precision.
cublasStatus_t trsm_batched(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int k, const float* const* A,
                            float* const* B, int count) {
  const float one = 1;
  return cublasStrsmBatched(h, CUBLAS_SIDE_LEFT, uplo, CUBLAS_OP_N, diag, k, k, &one, A, k, B, k, count);
}
cublasStatus_t trsm_batched(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int k, const double* const* A,
                            double* const* B, int count) {
  const double one = 1;
  return cublasDtrsmBatched(h, CUBLAS_SIDE_LEFT, uplo, CUBLAS_OP_N, diag, k, k, &one, A, k, B, k, count);
}
cublasStatus_t gemm_minus(cublasHandle_t h, int k, const float* W, const float* V, float* R, int count) {
  const float m1 = -1, one = 1;
  const long long s = (long long)k * k;
  return cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, k, k, k, &m1, W, k, s, V, k, s, &one, R, k, s, count);
}
cublasStatus_t gemm_minus(cublasHandle_t h, int k, const double* W, const double* V, double* R, int count) {
  const double m1 = -1, one = 1;
  const long long s = (long long)k * k;
  return cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, k, k, k, &m1, W, k, s, V, k, s, &one, R, k, s, count);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int k, float* const* A, int* piv, int* info, int count) {
  return cublasSgetrfBatched(h, k, A, k, piv, info, count);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int k, double* const* A, int* piv, int* info, int count) {
  return cublasDgetrfBatched(h, k, A, k, piv, info, count);
}
cublasStatus_t getri_batched(cublasHandle_t h, int k, const float* const* A, const int* piv, float* const* C, int* info,
                             int count) {
  return cublasSgetriBatched(h, k, A, k, piv, C, k, info, count);
}
cublasStatus_t getri_batched(cublasHandle_t h, int k, const double* const* A, const int* piv, double* const* C,
                             int* info, int count) {
  return cublasDgetriBatched(h, k, A, k, piv, C, k, info, count);
}

// Device array of pointers to the count k x k blocks of `base`.
template <class P>
cuda::DeviceBuffer<P*> pointers(P* base, index_t k, index_t count) {
  std::vector<P*> p(static_cast<std::size_t>(count));
  for (index_t i = 0; i < count; ++i) p[std::size_t(i)] = base + std::size_t(i) * k * k;
  return cuda::DeviceBuffer<P*>(std::span<P* const>(p));
}

}  // namespace

template <class P>
void coupling_blocks(const P* A, index_t k, const DeviceBlocks& blocks, P* B, P* C) {
  if (blocks.count < 2 || k == 0) return;
  coupling_kernel<P><<<blocks.count - 1, kThreads, 0, cuda::stream()>>>(A, k, blocks.starts.data(), B, C);
  BALSA_CHECK_LAUNCH();
}

template <class P>
void truncated_spikes(const P* lu, const P* ul, index_t k, const DeviceBlocks& blocks, const P* B, const P* C, P* V,
                      P* W) {
  const index_t count = blocks.count - 1;
  if (count < 1 || k == 0) return;
  const std::size_t kk = std::size_t(k) * k * count;
  cuda::DeviceBuffer<P> X(kk), Y(kk), Wr(kk);
  spike_inputs_kernel<P><<<count, kThreads, 0, cuda::stream()>>>(lu, ul, k, blocks.starts.data(), B, C, X.data(),
                                                                  Y.data(), V, Wr.data());
  BALSA_CHECK_LAUNCH();
  const cuda::detail::CublasHandle blas;  // lent by the pool (cuda/handle_pool.hpp), on the current stream
  const cublasHandle_t h = blas.get();
  auto pX = pointers(X.data(), k, count), pY = pointers(Y.data(), k, count), pV = pointers(V, k, count),
       pW = pointers(Wr.data(), k, count);
  const auto cX = reinterpret_cast<const P* const*>(pX.data());
  const auto cY = reinterpret_cast<const P* const*>(pY.data());
  BALSA_CUBLAS_CHECK(trsm_batched(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, k, cX, pV.data(), count));
  BALSA_CUBLAS_CHECK(trsm_batched(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, k, cX, pV.data(), count));
  BALSA_CUBLAS_CHECK(trsm_batched(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, k, cY, pW.data(), count));
  BALSA_CUBLAS_CHECK(trsm_batched(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, k, cY, pW.data(), count));
  spike_outputs_kernel<P><<<count, kThreads, 0, cuda::stream()>>>(Wr.data(), k, W, static_cast<P*>(nullptr));
  BALSA_CHECK_LAUNCH();
  cuda::detail::synchronize();
}

template <class P>
void reduced_systems(const P* V, const P* W, index_t k, index_t count, P* R) {
  if (count < 1 || k == 0) return;
  const std::size_t kk = std::size_t(k) * k * count;
  cuda::DeviceBuffer<P> Q(kk);
  spike_outputs_kernel<P><<<count, kThreads, 0, cuda::stream()>>>(W, k, static_cast<P*>(nullptr), Q.data());  // Q = I
  BALSA_CHECK_LAUNCH();
  const cuda::detail::CublasHandle blas;
  const cublasHandle_t h = blas.get();
  BALSA_CUBLAS_CHECK(gemm_minus(h, k, W, V, Q.data(), count));  // Q = I - W V
  auto pQ = pointers(Q.data(), k, count), pR = pointers(R, k, count);
  cuda::DeviceBuffer<int> piv(static_cast<std::size_t>(k) * count), info(static_cast<std::size_t>(count));
  BALSA_CUBLAS_CHECK(getrf_batched(h, k, pQ.data(), piv.data(), info.data(), count));
  std::vector<int> bad = info.to_host();
  for (index_t i = 0; i < count; ++i)
    if (bad[std::size_t(i)] != 0)
      throw MatrixError("SaP-C: the reduced system of interface " + std::to_string(i) + " (between blocks " +
                        std::to_string(i) + " and " + std::to_string(i + 1) + ") is singular (U(" +
                        std::to_string(bad[std::size_t(i)]) + ", " + std::to_string(bad[std::size_t(i)]) +
                        ") = 0 in its LU); use SaP-D or fewer partitions");
  BALSA_CUBLAS_CHECK(getri_batched(h, k, reinterpret_cast<const P* const*>(pQ.data()), piv.data(), pR.data(),
                                   info.data(), count));
  cuda::detail::synchronize();
}

template <class P>
void coupling_corrections(const P* B, const P* C, const P* V, const P* W, const P* R, index_t k,
                          const DeviceBlocks& blocks, const P* g, P* rhs, const int* stopped) {
  if (blocks.count < 2 || k == 0) return;
  const std::size_t smem = 5 * std::size_t(shared_stride(k)) * sizeof(P);
  if (smem > 48 * 1024) cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(corrections_kernel<P>), smem);
  corrections_kernel<P><<<blocks.count - 1, kThreads, smem, cuda::stream()>>>(B, C, V, W, R, k,
                                                      blocks.starts.data(), g, rhs, stopped);
  BALSA_CHECK_LAUNCH();
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_SAP_GPU_SPIKE_BLOCKS)

}  // namespace balsa::sap::gpu
