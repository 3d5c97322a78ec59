// Checks of a CSR matrix on the device (krylov/device_checks.hpp): a thread
// per row; a bad row takes part in an atomicMin of its key (row * 8 + fault,
// or row-major position for the asymmetry) so the first one wins, and the
// key is copied back once.
#include <climits>
#include <cmath>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "krylov/device_checks.hpp"

namespace balsa::krylov::device {

namespace {

constexpr int kBlock = 256;
unsigned blocks_for(index_t n) { return unsigned((std::int64_t(n) + kBlock - 1) / kBlock); }

template <class T>
__global__ void check_csr_kernel(index_t rows, index_t cols, std::int64_t nnz, const index_t* row_ptr,
                                 const index_t* col_idx, const T* values, long long* first) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const std::int64_t begin = row_ptr[i], end = row_ptr[i + 1];
  CsrFault fault = CsrFault::None;
  if ((i == 0 && begin != 0) || end < begin || end > nnz || (i == rows - 1 && end != nnz)) {
    fault = CsrFault::RowPointer;
  } else {
    for (std::int64_t k = begin; k < end && fault == CsrFault::None; ++k) {
      const index_t j = col_idx[k];
      if (j < 0 || j >= cols)
        fault = CsrFault::ColumnRange;
      else if (k > begin && j <= col_idx[k - 1])
        fault = CsrFault::Unsorted;
      else if (!isfinite(double(values[k])))
        fault = CsrFault::NotFinite;
    }
  }
  if (fault != CsrFault::None) atomicMin(first, (long long)i * 8 + (long long)fault);
}

// Row j's stored value at column i, 0 when absent (a binary search of the sorted row).
template <class T>
__device__ double mirror_of(const index_t* row_ptr, const index_t* col_idx, const T* values, index_t j, index_t i) {
  index_t lo = row_ptr[j], hi = row_ptr[j + 1];
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (col_idx[mid] < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < row_ptr[j + 1] && col_idx[lo] == i ? double(values[lo]) : 0.0;
}

template <class T>
__global__ void asymmetry_kernel(index_t rows, const index_t* row_ptr, const index_t* col_idx, const T* values,
                                 double rtol, long long* first) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    const double a = double(values[k]), b = mirror_of(row_ptr, col_idx, values, j, i);
    if (fabs(a - b) > rtol * fmax(fabs(a), fabs(b))) {
      atomicMin(first, (long long)k);  // row-major order is storage order
      return;
    }
  }
}

// kernel<<<rows>>>(..., word) with word starting at LLONG_MAX; returns the word.
template <class Kernel, class... Args>
long long first_key(Kernel kernel, index_t rows, Args... args) {
  const long long none = LLONG_MAX;
  cuda::DeviceBuffer<long long> word(1);
  cuda::detail::copy_to_device(word.data(), &none, sizeof none);
  kernel<<<blocks_for(rows), kBlock, 0, cuda::stream()>>>(args..., word.data());
  BALSA_CHECK_LAUNCH();
  long long got = none;
  cuda::detail::copy_to_host(&got, word.data(), sizeof got);
  return got;
}

}  // namespace

template <class T>
CsrProblem check_csr(index_t rows, index_t cols, std::int64_t nnz, const index_t* row_ptr, const index_t* col_idx,
                     const T* values) {
  if (rows == 0) return {};
  const long long key = first_key(check_csr_kernel<T>, rows, rows, cols, nnz, row_ptr, col_idx, values);
  if (key == LLONG_MAX) return {};
  return {index_t(key / 8), CsrFault(int(key % 8))};
}

template <class T>
AsymmetricEntry first_asymmetry(index_t rows, const index_t* row_ptr, const index_t* col_idx, const T* values,
                                double rtol) {
  if (rows == 0) return {};
  const long long k = first_key(asymmetry_kernel<T>, rows, rows, row_ptr, col_idx, values, rtol);
  if (k == LLONG_MAX) return {};
  // The entry's row and column (two small copies on the error path).
  index_t col = -1;
  cuda::detail::copy_to_host(&col, col_idx + k, sizeof col);
  index_t lo = 0, hi = rows;  // the row: the last row_ptr[r] <= k, by bisection over copied pointers
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    index_t p = 0;
    cuda::detail::copy_to_host(&p, row_ptr + mid, sizeof p);
    if (p <= k)
      lo = mid;
    else
      hi = mid;
  }
  return {lo, col};
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_KRYLOV_DEVICE_CHECKS)

}  // namespace balsa::krylov::device
