// cuSPARSE SpSV behind balsa's types: the baseline triangular solver.
#include <string>
#include <type_traits>

#include "balsa/trsv.hpp"
#include "cuda/check.hpp"
#include "sparse/instantiate.hpp"

namespace balsa::cuda {

template <class T>
struct CusparseSpsv<T>::Impl {
  static constexpr cudaDataType value_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
  DeviceCsr<T> A;
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t b = nullptr, x = nullptr;
  cusparseSpSVDescr_t spsv = nullptr;
  DeviceBuffer<char> work;

  ~Impl() {
    if (spsv) cusparseSpSV_destroyDescr(spsv);
    if (b) cusparseDestroyDnVec(b);
    if (x) cusparseDestroyDnVec(x);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }
};

template <class T>
CusparseSpsv<T>::CusparseSpsv(const Csr<T>& host, Triangle tri, DiagonalKind diag) : impl_(new Impl) {
  try {
    check_triangular_system(host, tri, diag);
    Impl& s = *impl_;
    s.A = to_device(host);
    BALSA_CUSPARSE_CHECK(cusparseCreate(&s.handle));
    BALSA_CUSPARSE_CHECK(cusparseCreateCsr(&s.mat, s.A.rows, s.A.cols, s.A.nnz, s.A.row_ptr.data(), s.A.col_idx.data(),
                                           s.A.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, Impl::value_type));
    cusparseFillMode_t fill = tri == Triangle::Lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t dt = diag == DiagonalKind::Unit ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(s.mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)));
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(s.mat, CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof(dt)));
    // Placeholder vectors for the analysis; solve() binds the caller's.
    DeviceBuffer<T> bs(std::size_t(std::max(s.A.rows, 1))), xs(std::size_t(std::max(s.A.rows, 1)));
    BALSA_CUSPARSE_CHECK(cusparseCreateDnVec(&s.b, s.A.rows, bs.data(), Impl::value_type));
    BALSA_CUSPARSE_CHECK(cusparseCreateDnVec(&s.x, s.A.rows, xs.data(), Impl::value_type));
    BALSA_CUSPARSE_CHECK(cusparseSpSV_createDescr(&s.spsv));
    const T one = 1;
    std::size_t bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpSV_bufferSize(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.mat, s.b, s.x,
                                                 Impl::value_type, CUSPARSE_SPSV_ALG_DEFAULT, s.spsv, &bytes));
    s.work = DeviceBuffer<char>(bytes);
    BALSA_CUSPARSE_CHECK(cusparseSpSV_analysis(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.mat, s.b, s.x,
                                               Impl::value_type, CUSPARSE_SPSV_ALG_DEFAULT, s.spsv, s.work.data()));
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
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.b, const_cast<T*>(b.data())));
  BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(s.x, x.data()));
  const T one = 1;
  BALSA_CUSPARSE_CHECK(cusparseSpSV_solve(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.mat, s.b, s.x,
                                          Impl::value_type, CUSPARSE_SPSV_ALG_DEFAULT, s.spsv));
}

template class CusparseSpsv<float>;
template class CusparseSpsv<double>;

}  // namespace balsa::cuda
