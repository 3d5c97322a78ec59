// SpMV through cuSPARSE's generic API: the baseline that proves the GPU path
// and that later benchmarks compare against.
#include <string>
#include <type_traits>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"
#include "sparse/instantiate.hpp"

namespace balsa::cuda {

template <class T>
struct CusparseSpmv<T>::Impl {
  static constexpr cudaDataType value_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
  index_t rows = 0, cols = 0;
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  DeviceBuffer<char> work;

  ~Impl() {
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
    if (A) cusparseDestroySpMat(A);
    if (handle) cusparseDestroy(handle);
  }
};

template <class T>
CusparseSpmv<T>::CusparseSpmv(const DeviceCsr<T>& M) : impl_(new Impl) {
  try {
    Impl& s = *impl_;
    s.rows = M.rows;
    s.cols = M.cols;
    BALSA_CUSPARSE_CHECK(cusparseCreate(&s.handle));
    BALSA_CUSPARSE_CHECK(cusparseCreateCsr(&s.A, M.rows, M.cols, M.nnz, const_cast<index_t*>(M.row_ptr.data()),
                                           const_cast<index_t*>(M.col_idx.data()), const_cast<T*>(M.values.data()),
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                           Impl::value_type));
    // Placeholder vectors (valid device pointers) to size the work buffer;
    // apply() points the descriptors at the caller's vectors every time.
    DeviceBuffer<T> xs(std::size_t(std::max(M.cols, 1))), ys(std::size_t(std::max(M.rows, 1)));
    BALSA_CUSPARSE_CHECK(cusparseCreateDnVec(&s.x, M.cols, xs.data(), Impl::value_type));
    BALSA_CUSPARSE_CHECK(cusparseCreateDnVec(&s.y, M.rows, ys.data(), Impl::value_type));
    const T one = 1, zero = 0;
    std::size_t bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpMV_bufferSize(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.A, s.x, &zero,
                                                 s.y, Impl::value_type, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    s.work = DeviceBuffer<char>(bytes);
    BALSA_CUSPARSE_CHECK(cusparseSpMV_preprocess(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.A, s.x, &zero,
                                                 s.y, Impl::value_type, CUSPARSE_SPMV_ALG_DEFAULT, s.work.data()));
  } catch (...) {
    delete impl_;
    throw;
  }
}

template <class T>
CusparseSpmv<T>::~CusparseSpmv() {
  delete impl_;
}

template <class T>
void CusparseSpmv<T>::apply(T alpha, const DeviceBuffer<T>& x, T beta, DeviceBuffer<T>& y) {
  Impl& s = *impl_;
  if (x.size() != std::size_t(s.cols) || y.size() != std::size_t(s.rows))
    throw DimensionError("CusparseSpmv: x has " + std::to_string(x.size()) + " and y " + std::to_string(y.size()) +
                         " elements for a " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " matrix");
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.x, const_cast<T*>(x.data())));
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.y, y.data()));
  BALSA_CUSPARSE_CHECK(cusparseSpMV(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.A, s.x, &beta, s.y,
                                    Impl::value_type, CUSPARSE_SPMV_ALG_DEFAULT, s.work.data()));
}

template class CusparseSpmv<float>;
template class CusparseSpmv<double>;

}  // namespace balsa::cuda
