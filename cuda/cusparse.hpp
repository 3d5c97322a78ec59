// Internal: RAII owners of cuSPARSE objects (CSR and dense-vector
// descriptors; the handle is lent from a pool, cuda/handle_pool.hpp), shared
// by every balsa class that calls cuSPARSE.
#pragma once

#include <type_traits>
#include <utility>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"
#include "cuda/handle_pool.hpp"

namespace balsa::cuda::detail {

template <class T>
inline constexpr cudaDataType cuda_value_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;

// Owns one cuSPARSE object: `destroy` is its cusparseDestroy* function.
template <class H, auto destroy>
class CusparseObject {
 public:
  CusparseObject() = default;
  CusparseObject(const CusparseObject&) = delete;
  CusparseObject& operator=(const CusparseObject&) = delete;
  ~CusparseObject() {
    if (h_) (void)destroy(h_);
  }
  H get() const { return h_; }
  H* out() { return &h_; }  // for the create call, once

 private:
  H h_{};
};

using CusparseSpMat = CusparseObject<cusparseSpMatDescr_t, cusparseDestroySpMat>;
using CusparseDnVec = CusparseObject<cusparseDnVecDescr_t, cusparseDestroyDnVec>;
using CusparseDnMat = CusparseObject<cusparseDnMatDescr_t, cusparseDestroyDnMat>;

// CSR descriptor over a device matrix (32-bit indices, zero-based); the
// matrix must outlive the descriptor.
template <class T>
void create_csr(CusparseSpMat& d, const DeviceCsr<T>& A) {
  BALSA_CUSPARSE_CHECK(cusparseCreateCsr(d.out(), A.rows, A.cols, A.nnz, const_cast<index_t*>(A.row_ptr.data()),
                                         const_cast<index_t*>(A.col_idx.data()), const_cast<T*>(A.values.data()),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                         cuda_value_type<T>));
}

// Dense-vector descriptor of length n, pointing at `data` (re-pointed per call
// with cusparseDnVecSetValues).
template <class T>
void create_vector(CusparseDnVec& d, index_t n, T* data) {
  BALSA_CUSPARSE_CHECK(cusparseCreateDnVec(d.out(), n, data, cuda_value_type<T>));
}

// Dense-matrix descriptor: rows x cols, column-major with leading dimension
// rows, pointing at `data` (re-pointed with cusparseDnMatSetValues).
template <class T>
void create_matrix(CusparseDnMat& d, index_t rows, index_t cols, T* data) {
  BALSA_CUSPARSE_CHECK(
      cusparseCreateDnMat(d.out(), rows, cols, rows, data, cuda_value_type<T>, CUSPARSE_ORDER_COL));
}

}  // namespace balsa::cuda::detail
