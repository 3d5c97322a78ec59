// balsa's own small kernels: fill (poisoning outputs in tests) and a CSR
// SpMV, on the current stream (cuda/stream.hpp).
#include <algorithm>
#include <string>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "cuda/device.hpp"
#include "core/exceptions.hpp"

namespace balsa::cuda {

namespace {

template <class T>
__global__ void fill_kernel(T* __restrict__ x, std::size_t n, T value) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = value;
}

// CSR SpMV with a group of LANES threads per row: each lane sums a strided
// part of the row, then the group reduces with shuffles. LANES is chosen from
// the mean row length so short rows do not leave most of a warp idle.
template <class T, int LANES>
__global__ void spmv_csr_kernel(index_t rows, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                                const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
  static_assert(LANES >= 1 && LANES <= 32 && (LANES & (LANES - 1)) == 0, "LANES: a power of two up to a warp");
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const int lane = threadIdx.x % LANES;
  // `base` is the first thread of this warp, so the loop condition is the same
  // for the whole warp and the shuffles below always see every lane.
  for (std::size_t base = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) & ~std::size_t(31);
       base / LANES < std::size_t(rows); base += stride) {
    const std::size_t row = (base + threadIdx.x % 32) / LANES;
    T sum = T(0);
    if (row < std::size_t(rows))
      // 64-bit k: row_ptr[row + 1] may be within LANES of INT32_MAX.
      for (std::int64_t k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += LANES)
        sum += values[k] * __ldg(&x[col_idx[k]]);
#pragma unroll
    for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
    if (lane == 0 && row < std::size_t(rows)) y[row] = sum;
  }
}

// Grid of 256-thread blocks covering `threads`, capped at 32 blocks per SM
// of the current device (the kernels stride over the rest).
int grid_for(std::size_t threads) {
  const int sms = multiprocessors();
  const std::size_t blocks = (threads + 255) / 256;
  return int(std::min<std::size_t>(blocks, std::size_t(sms) * 32));
}

template <class T, int LANES>
void launch_spmv(const DeviceCsr<T>& A, const T* x, T* y) {
  const int grid = std::max(1, grid_for(std::size_t(A.rows) * LANES));
  spmv_csr_kernel<T, LANES>
      <<<grid, 256, 0, stream()>>>(A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, y);
  BALSA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void fill(DeviceBuffer<T>& x, T value) try {
  if (x.empty()) return;
  fill_kernel<<<std::max(1, grid_for(x.size())), 256, 0, stream()>>>(x.data(), x.size(), value);
  BALSA_CHECK_LAUNCH();
} catch (...) {
  rethrow_as_balsa_error("fill");
}

template <class T>
void spmv(const DeviceCsr<T>& A, const T* x, T* y) try {
  if (A.rows == 0) return;
  const double mean = double(A.nnz) / double(A.rows);
  if (mean <= 2)
    launch_spmv<T, 1>(A, x, y);
  else if (mean <= 6)
    launch_spmv<T, 4>(A, x, y);
  else if (mean <= 12)
    launch_spmv<T, 8>(A, x, y);
  else if (mean <= 24)
    launch_spmv<T, 16>(A, x, y);
  else
    launch_spmv<T, 32>(A, x, y);
} catch (...) {
  rethrow_as_balsa_error("spmv");
}

template <class T>
void spmv(const DeviceCsr<T>& A, const DeviceBuffer<T>& x, DeviceBuffer<T>& y) try {
  if (x.size() != std::size_t(A.cols) || y.size() != std::size_t(A.rows))
    throw DimensionError("spmv: x has " + std::to_string(x.size()) + " and y " + std::to_string(y.size()) +
                         " elements for a " + std::to_string(A.rows) + " x " + std::to_string(A.cols) + " matrix");
  spmv(A, x.data(), y.data());
} catch (...) {
  rethrow_as_balsa_error("spmv");
}

#define BALSA_INSTANTIATE(T)                  \
  template void fill(DeviceBuffer<T>&, T);    \
  template void spmv(const DeviceCsr<T>&, const DeviceBuffer<T>&, DeviceBuffer<T>&); \
  template void spmv(const DeviceCsr<T>&, const T*, T*);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::cuda
