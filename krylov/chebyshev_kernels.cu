// Device kernels of the Chebyshev preconditioner (krylov/chebyshev_kernels.hpp).
//
// chebyshev_scaling: a thread per row walks the row once in index order
// (the host reference's order, so the interval has the same bits), writes
// 1 / a_ii and folds the row's Gershgorin ends into a device maximum and
// minimum by atomicMax / atomicMin on their bits (non-negative doubles order
// as their bit patterns); a bad row takes part in an atomicMin of
// (row, fault) so the smallest wins.
// chebyshev_step: one product with A fused with the recurrence's update, a
// group of LANES threads per row (strided over the row, summed by shuffles),
// so one application of degree m is m + 1 launches and no reduction.
#include <cfloat>
#include <climits>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "krylov/chebyshev_kernels.hpp"

namespace balsa::krylov::device {

namespace {

constexpr int kBlock = 256;

// The scaling's result in device memory: bound's bits and the smallest (row, fault) key.
struct ScalingWords {
  unsigned long long upper_bits, lower_bits;
  long long first_fault;  // row * 4 + fault, LLONG_MAX: none
};

template <class T, class P>
__global__ void scaling_kernel(index_t n, const index_t* row_ptr, const index_t* col_idx, const T* values, P* dinv,
                               ScalingWords* words) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double sum = 0, diagonal = 0;
  bool has_diagonal = false, finite = true;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const double v = double(values[k]);
    finite = finite && isfinite(v);
    sum += fabs(v);
    if (col_idx[k] == i) {
      diagonal = v;
      has_diagonal = true;
    }
  }
  DiagonalFault fault = DiagonalFault::None;
  if (!finite)
    fault = DiagonalFault::NotFinite;
  else if (!has_diagonal)
    fault = DiagonalFault::Missing;
  else if (!(diagonal > 0))
    fault = DiagonalFault::NotPositive;
  if (fault != DiagonalFault::None) {
    atomicMin(&words->first_fault, (long long)i * 4 + (long long)fault);
    return;
  }
  dinv[i] = P(1.0 / diagonal);
  const double ratio = sum / diagonal;
  atomicMax(&words->upper_bits, (unsigned long long)__double_as_longlong(ratio));
  atomicMin(&words->lower_bits, (unsigned long long)__double_as_longlong(fmax(0.0, 2.0 - ratio)));
}

template <class P>
__global__ void first_kernel(index_t n, const P* __restrict__ dinv, P c, const P* __restrict__ r, P* __restrict__ out,
                             const int* stopped) {
  if (stopped && *stopped) return;
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = c * dinv[i] * r[i];
}

template <class P, int LANES>
__global__ void step_kernel(CsrView<P> A, const P* dinv, P alpha, P gamma, const P* r, const P* cur, const P* prev,
                            P* out, const int* stopped) {
  if (stopped && *stopped) return;
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t i = index_t(t / LANES);
  const int lane = int(t % LANES);
  const bool active = i < A.n;  // inactive lanes still join the shuffles
  P sum = 0;
  if (active)
    for (std::int64_t k = A.row_ptr[i] + lane; k < A.row_ptr[i + 1]; k += LANES) sum += A.values[k] * cur[A.col_idx[k]];
  for (int off = LANES / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, LANES);
  if (!active || lane != 0) return;
  const P c = cur[i];
  const P p = prev ? prev[i] : P(0);
  out[i] = c + alpha * (c - p) + gamma * dinv[i] * (r[i] - sum);
}

unsigned blocks_for(std::int64_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

template <class P, int LANES>
void launch_step(const CsrView<P>& A, const P* dinv, double alpha, double gamma, const P* r, const P* cur,
                 const P* prev, P* out, const int* stopped) {
  step_kernel<P, LANES><<<blocks_for(std::int64_t(A.n) * LANES), kBlock, 0, cuda::stream()>>>(
      A, dinv, P(alpha), P(gamma), r, cur, prev, out, stopped);
  BALSA_CHECK_LAUNCH();
}

}  // namespace

template <class T, class P>
Scaling chebyshev_scaling(index_t n, const index_t* row_ptr, const index_t* col_idx, const T* values, P* dinv) {
  if (n == 0) return {};
  const ScalingWords start{0ull, 0x7FF0000000000000ull, LLONG_MAX};  // upper 0, lower +Inf
  cuda::DeviceBuffer<ScalingWords> words(1);
  cuda::detail::copy_to_device(words.data(), &start, sizeof start);
  scaling_kernel<T, P><<<blocks_for(n), kBlock, 0, cuda::stream()>>>(n, row_ptr, col_idx, values, dinv, words.data());
  BALSA_CHECK_LAUNCH();
  ScalingWords got{};
  cuda::detail::copy_to_host(&got, words.data(), sizeof got);
  if (got.first_fault != LLONG_MAX)
    return {{index_t(got.first_fault / 4), DiagonalFault(int(got.first_fault % 4))}, {}};
  return {{}, {__builtin_bit_cast(double, got.lower_bits), __builtin_bit_cast(double, got.upper_bits)}};
}

template <class P>
void chebyshev_first(index_t n, const P* dinv, double c, const P* r, P* out, const int* stopped) {
  if (n == 0) return;
  first_kernel<P><<<blocks_for(n), kBlock, 0, cuda::stream()>>>(n, dinv, P(c), r, out, stopped);
  BALSA_CHECK_LAUNCH();
}

template <class P>
void chebyshev_step(const CsrView<P>& A, int lanes, const P* dinv, double alpha, double gamma, const P* r,
                    const P* cur, const P* prev, P* out, const int* stopped) {
  if (A.n == 0) return;
  switch (lanes) {
    case 1: return launch_step<P, 1>(A, dinv, alpha, gamma, r, cur, prev, out, stopped);
    case 2: return launch_step<P, 2>(A, dinv, alpha, gamma, r, cur, prev, out, stopped);
    case 4: return launch_step<P, 4>(A, dinv, alpha, gamma, r, cur, prev, out, stopped);
    case 8: return launch_step<P, 8>(A, dinv, alpha, gamma, r, cur, prev, out, stopped);
    case 16: return launch_step<P, 16>(A, dinv, alpha, gamma, r, cur, prev, out, stopped);
    default: return launch_step<P, 32>(A, dinv, alpha, gamma, r, cur, prev, out, stopped);
  }
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_CHEBYSHEV_KERNELS)
BALSA_CHEBYSHEV_MIXED_KERNELS

}  // namespace balsa::krylov::device
