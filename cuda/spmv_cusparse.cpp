// SpMV through cuSPARSE's generic API: the baseline that proves the GPU path
// and that later benchmarks compare against.
#include <string>

#include "balsa/cuda.hpp"
#include "cuda/cusparse.hpp"
#include "core/exceptions.hpp"

namespace balsa::cuda {

template <class T>
struct CusparseSpmv<T>::Impl {
  index_t rows = 0, cols = 0;
  detail::CusparseHandle handle;  // lent from the pool, on the current stream at each use
  detail::CusparseSpMat A;
  detail::CusparseDnVec x, y;
  DeviceBuffer<char> work;
};

template <class T>
CusparseSpmv<T>::CusparseSpmv(const DeviceCsr<T>& M) try : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.rows = M.rows;
  s.cols = M.cols;
  detail::create_csr(s.A, M);
  // Placeholder vectors (valid device pointers) to size the work buffer;
  // apply() points the descriptors at the caller's vectors every time.
  DeviceBuffer<T> xs(std::size_t(std::max(M.cols, 1))), ys(std::size_t(std::max(M.rows, 1)));
  detail::create_vector(s.x, M.cols, xs.data());
  detail::create_vector(s.y, M.rows, ys.data());
  const T one = 1, zero = 0;
  std::size_t bytes = 0;
  BALSA_CUSPARSE_CHECK(cusparseSpMV_bufferSize(s.handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.A.get(),
                                               s.x.get(), &zero, s.y.get(), detail::cuda_value_type<T>,
                                               CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  s.work = DeviceBuffer<char>(bytes);
  BALSA_CUSPARSE_CHECK(cusparseSpMV_preprocess(s.handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.A.get(),
                                               s.x.get(), &zero, s.y.get(), detail::cuda_value_type<T>,
                                               CUSPARSE_SPMV_ALG_DEFAULT, s.work.data()));
} catch (...) {
  rethrow_as_balsa_error("CusparseSpmv::CusparseSpmv");
}

template <class T>
CusparseSpmv<T>::~CusparseSpmv() = default;

template <class T>
void CusparseSpmv<T>::apply(T alpha, const DeviceBuffer<T>& x, T beta, DeviceBuffer<T>& y) try {
  const Impl& s = *impl_;
  if (x.size() != std::size_t(s.cols) || y.size() != std::size_t(s.rows))
    throw DimensionError("CusparseSpmv: x has " + std::to_string(x.size()) + " and y " + std::to_string(y.size()) +
                         " elements for a " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " matrix");
  apply(alpha, x.data(), beta, y.data());
} catch (...) {
  rethrow_as_balsa_error("CusparseSpmv::apply");
}

template <class T>
void CusparseSpmv<T>::apply(T alpha, const T* x, T beta, T* y) try {
  Impl& s = *impl_;
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.x.get(), const_cast<T*>(x)));
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.y.get(), y));
  BALSA_CUSPARSE_CHECK(cusparseSpMV(s.handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.A.get(), s.x.get(),
                                    &beta, s.y.get(), detail::cuda_value_type<T>, CUSPARSE_SPMV_ALG_DEFAULT,
                                    s.work.data()));
} catch (...) {
  rethrow_as_balsa_error("CusparseSpmv::apply");
}

template class CusparseSpmv<float>;
template class CusparseSpmv<double>;

}  // namespace balsa::cuda
