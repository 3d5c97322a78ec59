// Checks and gathers of new values that are already on the device
// (TriangularSolver::update_values(DeviceBuffer)): the finiteness and
// nonzero-diagonal rules of check_triangular_system, without a host copy.
#include <cuda/std/limits>

#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"

namespace balsa::trsv_gpu {

namespace {

constexpr unsigned long long kNone = ~0ull;

template <class T>
__global__ void find_non_finite_kernel(const T* v, std::size_t n, unsigned long long* first) {
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += std::size_t(gridDim.x) * blockDim.x)
    if (!isfinite(v[e])) atomicMin(first, (unsigned long long)e);
}

template <class T>
__global__ void find_zero_diagonal_kernel(const T* v, const index_t* diag_pos, index_t rows, unsigned long long* first) {
  // 64-bit i: i + stride must not wrap for rows near the index_t limit
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows;
       i += std::int64_t(gridDim.x) * blockDim.x)
    if (diag_pos[i] >= 0 && v[diag_pos[i]] == T(0)) atomicMin(first, (unsigned long long)diag_pos[i]);
}

template <class T>
__global__ void gather_kernel(const index_t* pos, const T* from, T* to, std::size_t n, T missing) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < n) to[e] = pos[e] < 0 ? missing : from[pos[e]];
}

template <class T>
__global__ void gather_reciprocal_kernel(const index_t* pos, const T* from, T* to, std::size_t n) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n) return;
  const T r = pos[e] < 0 ? T(1) : T(1) / from[pos[e]];
  to[e] = isfinite(r) ? r : T(0);  // |a| below 1 / max: 0, and the solve divides instead
}

unsigned grid_for(std::size_t n) { return unsigned(std::min<std::size_t>((n + 255) / 256, 4096)); }

}  // namespace

template <class T>
BadValue find_bad_value(const T* values, std::size_t count, const index_t* diag_pos, index_t rows) {
  cuda::DeviceBuffer<unsigned long long> first(2);
  first.fill_bytes(0xFF);
  if (count > 0) {
    find_non_finite_kernel<T><<<grid_for(count), 256, 0, cuda::stream()>>>(values, count, first.data());
    BALSA_CHECK_LAUNCH();
  }
  if (rows > 0 && diag_pos) {
    find_zero_diagonal_kernel<T>
        <<<grid_for(std::size_t(rows)), 256, 0, cuda::stream()>>>(values, diag_pos, rows, first.data() + 1);
    BALSA_CHECK_LAUNCH();
  }
  const std::vector<unsigned long long> f = first.to_host();  // waits for the stream
  BadValue bad;
  if (f[0] != kNone && (f[1] == kNone || f[0] <= f[1])) {
    bad.position = std::int64_t(f[0]);
  } else if (f[1] != kNone) {
    bad.position = std::int64_t(f[1]);
    bad.zero_diagonal = true;
  }
  return bad;
}

template <class T>
void gather_device(const index_t* pos, const T* from, T* to, std::size_t count, T missing) {
  if (count == 0) return;
  gather_kernel<T><<<unsigned((count + 255) / 256), 256, 0, cuda::stream()>>>(pos, from, to, count, missing);
  BALSA_CHECK_LAUNCH();
}

template <class T>
void gather_reciprocal_device(const index_t* pos, const T* from, T* to, std::size_t count) {
  if (count == 0) return;
  gather_reciprocal_kernel<T><<<unsigned((count + 255) / 256), 256, 0, cuda::stream()>>>(pos, from, to, count);
  BALSA_CHECK_LAUNCH();
}

#define BALSA_INSTANTIATE(T)                                                          \
  template BadValue find_bad_value(const T*, std::size_t, const index_t*, index_t); \
  template void gather_device(const index_t*, const T*, T*, std::size_t, T);       \
  template void gather_reciprocal_device(const index_t*, const T*, T*, std::size_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
