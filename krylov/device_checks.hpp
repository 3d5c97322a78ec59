// Internal: the checks of a CSR matrix that is already on the device
// (KrylovSolver's device constructor, krylov/krylov_solver.cpp), run by
// kernels on the current stream; each waits for its result (a few bytes
// copied back) and names the first bad row. Kernels in
// krylov/device_checks.cu, stand-ins in device_checks_no_cuda.cpp.
#pragma once

#include <cstdint>

#include "balsa/sparse.hpp"

namespace balsa::krylov::device {

// What is wrong with a row of a device CSR, the first such row (-1: none).
enum class CsrFault : int { None = 0, RowPointer = 1, ColumnRange = 2, Unsorted = 3, NotFinite = 4 };
struct CsrProblem {
  index_t row = -1;
  CsrFault fault = CsrFault::None;
};
// row_ptr[0] == 0, row_ptr non-decreasing up to nnz, columns in [0, cols),
// strictly increasing in each row (canonical), values finite.
template <class T>
CsrProblem check_csr(index_t rows, index_t cols, std::int64_t nnz, const index_t* row_ptr, const index_t* col_idx,
                     const T* values);

// The first (row-major) stored (i, j) with |a_ij - a_ji| > rtol max(|a_ij|,
// |a_ji|), a missing a_ji counting as 0, of a canonical square CSR; row = -1
// when symmetric. The host's first_asymmetry (include/balsa/sparse.hpp) on the device.
struct AsymmetricEntry {
  index_t row = -1, col = -1;
};
template <class T>
AsymmetricEntry first_asymmetry(index_t rows, const index_t* row_ptr, const index_t* col_idx, const T* values,
                                double rtol);

#define BALSA_KRYLOV_DEVICE_CHECKS(T)                                                                          \
  template CsrProblem check_csr<T>(index_t, index_t, std::int64_t, const index_t*, const index_t*, const T*); \
  template AsymmetricEntry first_asymmetry<T>(index_t, const index_t*, const index_t*, const T*, double);

}  // namespace balsa::krylov::device
