// Internal: the GPU stages of diagonal boosting (include/balsa/reorder.hpp;
// report sec. 3.3: "DB implements a hybrid strategy; it relies on GPU
// computing for DB-S1 and DB-S4 and on CPU computing for DB-S2 and DB-S3"),
// implemented in graph/matching_kernels.cu; without CUDA,
// graph/matching_kernels_no_cuda.cpp throws CudaError.
//
// The formulas the CPU path (graph/matching.cpp) and the kernels share are
// written once, here, so that both evaluate the same expressions: the
// weights then differ at most by the last bit of the two math libraries'
// log, and the matchings agree (exactly, where the optimum is unique).
#pragma once

#include <math.h>

#include <span>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

#if defined(__CUDACC__)
#define BALSA_DB_HD __host__ __device__ __forceinline__
#else
#define BALSA_DB_HD inline
#endif

namespace balsa::matching {

// Eq. (12), DB-S1: c_ij = log a_i - log |a_ij| (a_i = max_j |a_ij| > 0,
// a = |a_ij| > 0), evaluated as log(a_i / a): the ratio is rounded once (equal
// entries of a row get bit-equal weights on either device) and the absolute
// error stays ~1e-16 where log a_i - log a loses ulp(log a_i). Falls back to
// the difference when the ratio overflows (a_i ~ 1e300, a ~ 1e-300).
BALSA_DB_HD double weight(double amax, double a) {
  const double ratio = amax / a;
  return ratio <= 1.7976931348623157e308 ? ::log(ratio) : ::log(amax) - ::log(a);
}

// DB-S4: D_r(i) = exp(u_i) / a_i, as exp(u_i - log a_i) (no overflow of
// exp(u_i) alone), and D_c(j) = exp(v_j).
BALSA_DB_HD double row_scale(double u, double amax) { return ::exp(u - ::log(amax)); }
BALSA_DB_HD double col_scale(double v) { return ::exp(v); }

// ---- the device stages (synchronise; host vectors in and out) -------------

// DB-S1: per row a_i = max_j |a_ij| (0 for a row without nonzeros) and the
// weight of every stored entry (+inf for a stored zero: no edge). A square,
// canonical and finite (the caller checks).
struct Weights {
  std::vector<double> amax;  // n
  std::vector<double> c;     // nnz, in A's CSR order
  double t_kernel = 0, t_transfer = 0;
};
template <class T>
Weights device_weights(const Csr<T>& A);

// DB-S4: row_scale(u_i, a_i) and col_scale(v_j) for every row and column.
struct Scaling {
  std::vector<double> row_scale, col_scale;
  double t_kernel = 0, t_transfer = 0;
};
Scaling device_scaling(std::span<const double> u, std::span<const double> v, std::span<const double> amax);

// D_r Q A D_c of a device CSR (the GPU twin of balsa::apply_boosting):
// B(k, j) = T(row_scale[row_perm[k]] * a(row_perm[k], j) * col_scale[j]), rows
// gathered in Q's order, columns kept (so B is canonical when A is).
// row_scale by row of A, col_scale by column; all arrays on the device.
template <class T>
cuda::DeviceCsr<T> apply_boosting(const cuda::DeviceCsr<T>& A, const cuda::DeviceBuffer<index_t>& row_perm,
                                  const cuda::DeviceBuffer<double>& row_scale,
                                  const cuda::DeviceBuffer<double>& col_scale);

// The explicit instantiations for T, one list for the kernels (matching_kernels.cu) and their stand-ins (matching_kernels_no_cuda.cpp).
#define BALSA_MATCHING_DEVICE(T) \
  template Weights device_weights<T>(const Csr<T>&); \
  template cuda::DeviceCsr<T> apply_boosting<T>(const cuda::DeviceCsr<T>&, const cuda::DeviceBuffer<index_t>&, \
  const cuda::DeviceBuffer<double>&, const cuda::DeviceBuffer<double>&);

}  // namespace balsa::matching
