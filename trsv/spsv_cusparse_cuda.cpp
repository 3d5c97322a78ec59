// cuSPARSE SpSV behind balsa's types: the baseline triangular solver.
#include <string>

#include "balsa/trsv.hpp"
#include "cuda/cusparse.hpp"

namespace balsa::cuda {

using SpSVDescr = detail::CusparseObject<cusparseSpSVDescr_t, cusparseSpSV_destroyDescr>;

template <class T>
struct CusparseSpsv<T>::Impl {
  DeviceCsr<T> A;  // owned: cuSPARSE's analysis refers to it
  detail::CusparseHandle handle;
  detail::CusparseSpMat mat;
  detail::CusparseDnVec b, x;
  SpSVDescr spsv;
  DeviceBuffer<char> work;
};

template <class T>
CusparseSpsv<T>::CusparseSpsv(const Csr<T>& host, Triangle tri, DiagonalKind diag) : impl_(new Impl) {
  try {
    check_triangular_system(host, tri, diag);
    Impl& s = *impl_;
    s.A = to_device(host);
    detail::create(s.handle);
    detail::create_csr(s.mat, s.A);
    cusparseFillMode_t fill = tri == Triangle::Lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t dt = diag == DiagonalKind::Unit ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(s.mat.get(), CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)));
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(s.mat.get(), CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof(dt)));
    // Placeholder vectors for the analysis; solve() binds the caller's.
    DeviceBuffer<T> bs(std::size_t(std::max(s.A.rows, 1))), xs(std::size_t(std::max(s.A.rows, 1)));
    detail::create_vector(s.b, s.A.rows, bs.data());
    detail::create_vector(s.x, s.A.rows, xs.data());
    BALSA_CUSPARSE_CHECK(cusparseSpSV_createDescr(s.spsv.out()));
    const T one = 1;
    std::size_t bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpSV_bufferSize(s.handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.mat.get(),
                                                 s.b.get(), s.x.get(), detail::cuda_value_type<T>,
                                                 CUSPARSE_SPSV_ALG_DEFAULT, s.spsv.get(), &bytes));
    s.work = DeviceBuffer<char>(bytes);
    BALSA_CUSPARSE_CHECK(cusparseSpSV_analysis(s.handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.mat.get(),
                                               s.b.get(), s.x.get(), detail::cuda_value_type<T>,
                                               CUSPARSE_SPSV_ALG_DEFAULT, s.spsv.get(), s.work.data()));
    BALSA_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    delete impl_;
    throw;
  }
}

template <class T>
CusparseSpsv<T>::~CusparseSpsv() {
  delete impl_;
}

template <class T>
index_t CusparseSpsv<T>::rows() const {
  return impl_->A.rows;
}

template <class T>
void CusparseSpsv<T>::solve(const DeviceBuffer<T>& b, DeviceBuffer<T>& x) {
  Impl& s = *impl_;
  if (b.size() != std::size_t(s.A.rows) || x.size() != std::size_t(s.A.rows))
    throw DimensionError("CusparseSpsv: b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                         " entries for " + std::to_string(s.A.rows) + " rows");
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.b.get(), const_cast<T*>(b.data())));
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.x.get(), x.data()));
  const T one = 1;
  BALSA_CUSPARSE_CHECK(cusparseSpSV_solve(s.handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.mat.get(),
                                          s.b.get(), s.x.get(), detail::cuda_value_type<T>, CUSPARSE_SPSV_ALG_DEFAULT,
                                          s.spsv.get()));
}

template class CusparseSpsv<float>;
template class CusparseSpsv<double>;

}  // namespace balsa::cuda
