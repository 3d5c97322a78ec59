// TrsvAlgorithm::Cusparse: cuSPARSE SpSV behind balsa's interface, the
// baseline of the triangular-solve benchmarks; many right-hand sides go to
// cuSPARSE SpSM (one analysis per column count, kept until it changes).
#include <memory>
#include <string>

#include "cuda/cusparse.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/off_diagonal.hpp"

namespace balsa::trsv_gpu {

namespace {

using SpSVDescr = cuda::detail::CusparseObject<cusparseSpSVDescr_t, cusparseSpSV_destroyDescr>;
using SpSMDescr = cuda::detail::CusparseObject<cusparseSpSMDescr_t, cusparseSpSM_destroyDescr>;

template <class T>
class CusparseSpsv final : public Algorithm<T> {
 public:
  CusparseSpsv(const Csr<T>& host, Triangle tri, DiagonalKind diag) : A_(cuda::to_device(host)) {
    using namespace cuda::detail;
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

  void solve_many(const T* B, T* X, index_t rows, index_t columns) override {
    if (columns <= 1) {
      if (columns == 1) solve(B, X);
      return;
    }
    if (!spsm_ || spsm_->columns != columns) prepare_spsm(rows, columns, B, X);
    BALSA_CUSPARSE_CHECK(cusparseDnMatSetValues(spsm_->b.get(), const_cast<T*>(B)));
    BALSA_CUSPARSE_CHECK(cusparseDnMatSetValues(spsm_->x.get(), X));
    BALSA_CUSPARSE_CHECK(cusparseSpSM_solve(handle_.get(), op, op, &one, mat_.get(), spsm_->b.get(), spsm_->x.get(),
                                            cuda::detail::cuda_value_type<T>, spsm_alg, spsm_->descr.get()));
  }

  void update_values(std::span<const T> values) override {
    A_.values.upload(values);
    analyse();  // cuSPARSE's analysis keeps a copy of (part of) the values
    spsm_.reset();
  }

  void update_values_device(const T* values, std::size_t count) override {
    detail::require_values(count, A_.values.size(), "Cusparse");
    if (count > 0)
      BALSA_CUDA_CHECK(
          cudaMemcpyAsync(A_.values.data(), values, count * sizeof(T), cudaMemcpyDeviceToDevice, cuda::stream()));
    analyse();
    spsm_.reset();
  }

 private:
  static constexpr cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  static constexpr cusparseSpSVAlg_t alg = CUSPARSE_SPSV_ALG_DEFAULT;
  static constexpr T one = T(1);

  void analyse() {
    BALSA_CUSPARSE_CHECK(cusparseSpSV_analysis(handle_.get(), op, &one, mat_.get(), b_.get(), x_.get(),
                                               cuda::detail::cuda_value_type<T>, alg, spsv_.get(), work_.data()));
  }

  // SpSM for one column count: descriptors of B and X, the analysis.
  struct Spsm {
    index_t columns = 0;
    cuda::detail::CusparseDnMat b, x;
    SpSMDescr descr;
    cuda::DeviceBuffer<char> work;
  };
  void prepare_spsm(index_t rows, index_t columns, const T* B, T* X) {
    using namespace cuda::detail;
    spsm_.reset();
    auto s = std::make_unique<Spsm>();
    s->columns = columns;
    create_matrix(s->b, rows, columns, const_cast<T*>(B));
    create_matrix(s->x, rows, columns, X);
    BALSA_CUSPARSE_CHECK(cusparseSpSM_createDescr(s->descr.out()));
    std::size_t bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpSM_bufferSize(handle_.get(), op, op, &one, mat_.get(), s->b.get(), s->x.get(),
                                                 cuda_value_type<T>, spsm_alg, s->descr.get(), &bytes));
    s->work = cuda::DeviceBuffer<char>(std::max<std::size_t>(bytes, 1));
    BALSA_CUSPARSE_CHECK(cusparseSpSM_analysis(handle_.get(), op, op, &one, mat_.get(), s->b.get(), s->x.get(),
                                               cuda_value_type<T>, spsm_alg, s->descr.get(), s->work.data()));
    spsm_ = std::move(s);
  }
  static constexpr cusparseSpSMAlg_t spsm_alg = CUSPARSE_SPSM_ALG_DEFAULT;

  cuda::DeviceCsr<T> A_;  // owned: the analysis refers to it
  cuda::detail::CusparseHandle handle_;  // lent from the pool; get() puts it on the solver's stream
  cuda::detail::CusparseSpMat mat_;
  cuda::detail::CusparseDnVec b_, x_;
  SpSVDescr spsv_;
  cuda::DeviceBuffer<char> work_;
  std::unique_ptr<Spsm> spsm_;
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
