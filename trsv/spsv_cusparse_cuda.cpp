// TrsvAlgorithm::Cusparse: cuSPARSE SpSV behind balsa's interface, the
// baseline of the triangular-solve benchmarks.
#include <string>

#include "cuda/cusparse.hpp"
#include "sparse/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"

namespace balsa::trsv_gpu {

namespace {

using SpSVDescr = cuda::detail::CusparseObject<cusparseSpSVDescr_t, cusparseSpSV_destroyDescr>;

template <class T>
class CusparseSpsv final : public Algorithm<T> {
 public:
  CusparseSpsv(const Csr<T>& host, Triangle tri, DiagonalKind diag) : A_(cuda::to_device(host)) {
    using namespace cuda::detail;
    create(handle_);
    create_csr(mat_, A_);
    cusparseFillMode_t fill = tri == Triangle::Lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t dt = diag == DiagonalKind::Unit ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(mat_.get(), CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)));
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(mat_.get(), CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof(dt)));
    // Placeholder vectors for the analysis; solve() binds the caller's.
    cuda::DeviceBuffer<T> bs(std::size_t(std::max(A_.rows, 1))), xs(std::size_t(std::max(A_.rows, 1)));
    create_vector(b_, A_.rows, bs.data());
    create_vector(x_, A_.rows, xs.data());
    BALSA_CUSPARSE_CHECK(cusparseSpSV_createDescr(spsv_.out()));
    std::size_t bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpSV_bufferSize(handle_.get(), op, &one, mat_.get(), b_.get(), x_.get(),
                                                 cuda_value_type<T>, alg, spsv_.get(), &bytes));
    work_ = cuda::DeviceBuffer<char>(bytes);
    analyse();
  }

  void solve(const T* b, T* x) override {
    BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(b_.get(), const_cast<T*>(b)));
    BALSA_CUSPARSE_CHECK(cusparseDnVecSetValues(x_.get(), x));
    BALSA_CUSPARSE_CHECK(cusparseSpSV_solve(handle_.get(), op, &one, mat_.get(), b_.get(), x_.get(),
                                            cuda::detail::cuda_value_type<T>, alg, spsv_.get()));
  }

  void update_values(std::span<const T> values) override {
    A_.values.upload(values);
    analyse();  // cuSPARSE's analysis keeps a copy of (part of) the values
  }

 private:
  static constexpr cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  static constexpr cusparseSpSVAlg_t alg = CUSPARSE_SPSV_ALG_DEFAULT;
  static constexpr T one = T(1);

  void analyse() {
    BALSA_CUSPARSE_CHECK(cusparseSpSV_analysis(handle_.get(), op, &one, mat_.get(), b_.get(), x_.get(),
                                               cuda::detail::cuda_value_type<T>, alg, spsv_.get(), work_.data()));
  }

  cuda::DeviceCsr<T> A_;  // owned: the analysis refers to it
  cuda::detail::CusparseHandle handle_;
  cuda::detail::CusparseSpMat mat_;
  cuda::detail::CusparseDnVec b_, x_;
  SpSVDescr spsv_;
  cuda::DeviceBuffer<char> work_;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_cusparse(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return std::make_unique<CusparseSpsv<T>>(A, tri, diag);
}

#define BALSA_INSTANTIATE(T) \
  template std::unique_ptr<Algorithm<T>> make_cusparse(const Csr<T>&, Triangle, DiagonalKind);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
