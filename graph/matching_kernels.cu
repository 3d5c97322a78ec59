// Diagonal boosting's GPU stages (graph/matching_kernels.hpp; report sec. 3.3:
// DB-S1 and DB-S4 are "highly parallel" and run on the GPU, DB-S2 and DB-S3
// on the CPU): the weights of eq. (12), the scaling factors, and D_r Q A D_c
// of a device CSR.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "graph/matching_kernels.hpp"

namespace balsa::matching {

namespace {

constexpr int kThreads = 256;
constexpr int kLanes = 8;  // lanes per row (sparse rows: a few to a few tens of entries)

int blocks_for(std::int64_t threads) {
  return int(std::max<std::int64_t>(1, (threads + kThreads - 1) / kThreads));
}

// DB-S1: a group of kLanes lanes per row reduces max |a_ij| (exact, as on
// the CPU) and writes the row's weights. Rows past n run the group with an
// empty range, so every lane of a warp takes part in the shuffles.
template <class T>
__global__ void __launch_bounds__(kThreads) weights_kernel(index_t n, const index_t* ptr, const T* val, double* amax,
                                                           double* c) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = t / kLanes;
  const int lane = int(t % kLanes);
  const bool live = row < n;
  const index_t begin = live ? ptr[row] : 0, end = live ? ptr[row + 1] : 0;
  double m = 0;
  for (index_t p = begin + lane; p < end; p += kLanes) m = fmax(m, fabs(double(val[p])));
  for (int offset = kLanes / 2; offset > 0; offset /= 2) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, offset, kLanes));
  if (!live) return;
  if (lane == 0) amax[row] = m;
  for (index_t p = begin + lane; p < end; p += kLanes) {
    const double a = fabs(double(val[p]));
    c[p] = a == 0 ? double(INFINITY) : weight(m, a);  // +inf: no edge
  }
}

// DB-S4: the scaling factors from the duals.
__global__ void scaling_kernel(index_t n, const double* u, const double* v, const double* amax, double* rs, double* cs) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    rs[i] = row_scale(u[i], amax[i]);
    cs[i] = col_scale(v[i]);
  }
}

// D_r Q A D_c, step 1: the length of every row of B (row k of B is row
// perm[k] of A); slot n is 0, so the exclusive scan of n + 1 values is
// B's row pointer.
__global__ void lengths_kernel(index_t n, const index_t* ptr, const index_t* perm, index_t* len) {
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k <= n;
       k += std::int64_t(gridDim.x) * blockDim.x)
    len[k] = k < n ? ptr[perm[k] + 1] - ptr[perm[k]] : 0;
}

// Step 2: the rows gathered and scaled, a group of kLanes lanes per row,
// each value as T(row_scale * a * col_scale), the CPU's expression.
template <class T>
__global__ void __launch_bounds__(kThreads) gather_kernel(index_t n, const index_t* ptr, const index_t* col,
                                                          const T* val, const index_t* perm, const double* rs,
                                                          const double* cs, const index_t* out_ptr, index_t* out_col,
                                                          T* out_val) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t k = t / kLanes;
  if (k >= n) return;
  const int lane = int(t % kLanes);
  const index_t i = perm[k];
  const double r = rs[i];
  const index_t shift = out_ptr[k] - ptr[i];
  for (index_t p = ptr[i] + lane; p < ptr[i + 1]; p += kLanes) {
    const index_t j = col[p];
    out_col[p + shift] = j;
    out_val[p + shift] = T(r * double(val[p]) * cs[j]);
  }
}

}  // namespace

template <class T>
Weights device_weights(const Csr<T>& A) try {
  Weights w;
  const index_t n = A.rows;
  auto t0 = Clock::now();
  cuda::DeviceBuffer<index_t> ptr{std::span<const index_t>(A.row_ptr)};
  cuda::DeviceBuffer<T> val{std::span<const T>(A.values)};
  cuda::DeviceBuffer<double> amax{std::size_t(n)}, c{A.values.size()};
  w.t_transfer = seconds_since(t0);
  t0 = Clock::now();
  if (n > 0) {
    weights_kernel<T><<<blocks_for(std::int64_t(n) * kLanes), kThreads, 0, cuda::stream()>>>(
        n, ptr.data(), val.data(), amax.data(), c.data());
    BALSA_CHECK_LAUNCH();
  }
  cuda::detail::synchronize();  // the kernel's time (the current stream only)
  w.t_kernel = seconds_since(t0);
  t0 = Clock::now();
  w.amax = amax.to_host();
  w.c = c.to_host();
  w.t_transfer += seconds_since(t0);
  return w;
} catch (...) {
  rethrow_as_balsa_error("diagonal boosting (DB-S1 on the GPU)");
}

Scaling device_scaling(std::span<const double> u, std::span<const double> v, std::span<const double> amax) try {
  Scaling s;
  const std::size_t n = u.size();
  if (v.size() != n || amax.size() != n)
    throw DimensionError("diagonal boosting (DB-S4 on the GPU): u, v and a_i differ in length");
  auto t0 = Clock::now();
  cuda::DeviceBuffer<double> du(u), dv(v), da(amax), rs(n), cs(n);
  s.t_transfer = seconds_since(t0);
  t0 = Clock::now();
  if (n > 0) {
    scaling_kernel<<<std::min(blocks_for(std::int64_t(n)), 4096), kThreads, 0, cuda::stream()>>>(
        index_t(n), du.data(), dv.data(), da.data(), rs.data(), cs.data());
    BALSA_CHECK_LAUNCH();
  }
  cuda::detail::synchronize();
  s.t_kernel = seconds_since(t0);
  t0 = Clock::now();
  s.row_scale = rs.to_host();
  s.col_scale = cs.to_host();
  s.t_transfer += seconds_since(t0);
  return s;
} catch (...) {
  rethrow_as_balsa_error("diagonal boosting (DB-S4 on the GPU)");
}

template <class T>
cuda::DeviceCsr<T> apply_boosting(const cuda::DeviceCsr<T>& A, const cuda::DeviceBuffer<index_t>& row_perm,
                                  const cuda::DeviceBuffer<double>& row_scale,
                                  const cuda::DeviceBuffer<double>& col_scale) try {
  const index_t n = A.rows;
  const std::size_t un = std::size_t(n);
  if (A.cols != n || row_perm.size() != un || row_scale.size() != un || col_scale.size() != un ||
      A.row_ptr.size() != un + 1)
    throw DimensionError("apply_boosting (device): A is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                         ", row_perm, row_scale and col_scale have " + std::to_string(row_perm.size()) + ", " +
                         std::to_string(row_scale.size()) + " and " + std::to_string(col_scale.size()) + " entries");
  cuda::DeviceCsr<T> B{n, n, A.nnz, cuda::DeviceBuffer<index_t>(un + 1), cuda::DeviceBuffer<index_t>(A.col_idx.size()),
                       cuda::DeviceBuffer<T>(A.values.size())};
  cuda::DeviceBuffer<index_t> len(un + 1);
  lengths_kernel<<<std::min(blocks_for(std::int64_t(n) + 1), 4096), kThreads, 0, cuda::stream()>>>(
      n, A.row_ptr.data(), row_perm.data(), len.data());
  BALSA_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  BALSA_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, len.data(), B.row_ptr.data(), int(n) + 1, cuda::stream()));
  cuda::DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  BALSA_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, len.data(), B.row_ptr.data(), int(n) + 1, cuda::stream()));
  if (n > 0) {
    gather_kernel<T><<<blocks_for(std::int64_t(n) * kLanes), kThreads, 0, cuda::stream()>>>(
        n, A.row_ptr.data(), A.col_idx.data(), A.values.data(), row_perm.data(), row_scale.data(), col_scale.data(),
        B.row_ptr.data(), B.col_idx.data(), B.values.data());
    BALSA_CHECK_LAUNCH();
  }
  cuda::detail::synchronize();
  return B;
} catch (...) {
  rethrow_as_balsa_error("apply_boosting (device)");
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_MATCHING_DEVICE)

}  // namespace balsa::matching
