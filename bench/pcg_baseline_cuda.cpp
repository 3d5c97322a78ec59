// The cuSPARSE + cuBLAS PCG-IC(0) baseline (bench/pcg_baseline.hpp).
// csric02 is deprecated in CUDA 12-13 but still the library's IC(0).
#define DISABLE_CUSPARSE_DEPRECATED
#include <cublas_v2.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"
#include "cuda/cusparse.hpp"
#include "cuda/handle_pool.hpp"
#include "pcg_baseline.hpp"
#include "core/clock.hpp"

namespace balsa::bench {

namespace {

struct MatDescr {
  cusparseMatDescr_t d = nullptr;
  MatDescr() { BALSA_CUSPARSE_CHECK(cusparseCreateMatDescr(&d)); }
  ~MatDescr() { cusparseDestroyMatDescr(d); }
};
struct Ic0Info {
  csric02Info_t i = nullptr;
  Ic0Info() { BALSA_CUSPARSE_CHECK(cusparseCreateCsric02Info(&i)); }
  ~Ic0Info() { cusparseDestroyCsric02Info(i); }
};
using SpSV = cuda::detail::CusparseObject<cusparseSpSVDescr_t, cusparseSpSV_destroyDescr>;

// One triangular factor with its SpSV analysis.
struct Triangular {
  cuda::detail::CusparseSpMat mat;
  SpSV descr;
  cuda::DeviceBuffer<char> work;
  void set_up(cusparseHandle_t h, const cuda::DeviceCsr<double>& M, cusparseFillMode_t fill,
              cusparseDnVecDescr_t in, cusparseDnVecDescr_t out) {
    cuda::detail::create_csr(mat, M);
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(mat.get(), CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    BALSA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(mat.get(), CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    BALSA_CUSPARSE_CHECK(cusparseSpSV_createDescr(descr.out()));
    const double one = 1.0;
    std::size_t bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat.get(), in, out,
                                                 CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, descr.get(), &bytes));
    work = cuda::DeviceBuffer<char>(std::max<std::size_t>(bytes, 1));
    BALSA_CUSPARSE_CHECK(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat.get(), in, out,
                                               CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, descr.get(), work.data()));
  }
  void solve(cusparseHandle_t h, cusparseDnVecDescr_t in, cusparseDnVecDescr_t out) {
    const double one = 1.0;
    BALSA_CUSPARSE_CHECK(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat.get(), in, out,
                                            CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, descr.get()));
  }
};

// IC(0) of the lower triangle, in place (csric02: analysis, then
// factorisation); "" or why it failed (a zero or negative pivot).
std::string ic0_in_place(cusparseHandle_t h, cuda::DeviceCsr<double>& dL) {
  const int n = dL.rows;
  MatDescr descr;
  BALSA_CUSPARSE_CHECK(cusparseSetMatType(descr.d, CUSPARSE_MATRIX_TYPE_GENERAL));
  BALSA_CUSPARSE_CHECK(cusparseSetMatFillMode(descr.d, CUSPARSE_FILL_MODE_LOWER));
  Ic0Info info;
  int bytes = 0;
  BALSA_CUSPARSE_CHECK(cusparseDcsric02_bufferSize(h, n, dL.nnz, descr.d, dL.values.data(), dL.row_ptr.data(),
                                                   dL.col_idx.data(), info.i, &bytes));
  cuda::DeviceBuffer<char> work(std::size_t(std::max(bytes, 1)));
  BALSA_CUSPARSE_CHECK(cusparseDcsric02_analysis(h, n, dL.nnz, descr.d, dL.values.data(), dL.row_ptr.data(),
                                                 dL.col_idx.data(), info.i, CUSPARSE_SOLVE_POLICY_USE_LEVEL, work.data()));
  BALSA_CUSPARSE_CHECK(cusparseDcsric02(h, n, dL.nnz, descr.d, dL.values.data(), dL.row_ptr.data(),
                                        dL.col_idx.data(), info.i, CUSPARSE_SOLVE_POLICY_USE_LEVEL, work.data()));
  int zero = -1;
  const cusparseStatus_t st = cusparseXcsric02_zeroPivot(h, info.i, &zero);
  if (st == CUSPARSE_STATUS_ZERO_PIVOT)
    return "csric02: zero or negative pivot at row " + std::to_string(zero) + " (the baseline has no shift)";
  return {};
}

// U = L^T as CSR (the CSC of L), on the device.
cuda::DeviceCsr<double> upper_of(cusparseHandle_t h, const cuda::DeviceCsr<double>& dL) {
  const int n = dL.rows;
  cuda::DeviceCsr<double> dU;
  dU.rows = dU.cols = n;
  dU.nnz = dL.nnz;
  dU.row_ptr = cuda::DeviceBuffer<index_t>(std::size_t(n) + 1);
  dU.col_idx = cuda::DeviceBuffer<index_t>(std::size_t(dL.nnz));
  dU.values = cuda::DeviceBuffer<double>(std::size_t(dL.nnz));
  std::size_t bytes = 0;
  BALSA_CUSPARSE_CHECK(cusparseCsr2cscEx2_bufferSize(
      h, n, n, dL.nnz, dL.values.data(), dL.row_ptr.data(), dL.col_idx.data(), dU.values.data(), dU.row_ptr.data(),
      dU.col_idx.data(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
  cuda::DeviceBuffer<char> work(std::max<std::size_t>(bytes, 1));
  BALSA_CUSPARSE_CHECK(cusparseCsr2cscEx2(h, n, n, dL.nnz, dL.values.data(), dL.row_ptr.data(), dL.col_idx.data(),
                                          dU.values.data(), dU.row_ptr.data(), dU.col_idx.data(), CUDA_R_64F,
                                          CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
                                          work.data()));
  return dU;
}

// PCG's device state (x = 0, r = b, the work vectors and their descriptors,
// L and U with their SpSV analyses, A for SpMV) and its iteration.
struct Pcg {
  cusparseHandle_t sp;
  cublasHandle_t bl;
  int n;
  cuda::DeviceBuffer<double> x, r, z, y, p, q;
  cuda::detail::CusparseDnVec vr, vz, vy, vp, vq;
  Triangular L, U;
  cuda::detail::CusparseSpMat mA;
  cuda::DeviceBuffer<char> spmv_work;

  Pcg(cusparseHandle_t sp_, cublasHandle_t bl_, std::span<const double> b, const cuda::DeviceCsr<double>& dA,
      const cuda::DeviceCsr<double>& dL, const cuda::DeviceCsr<double>& dU)
      : sp(sp_), bl(bl_), n(dA.rows), x(std::size_t(n)), r{b}, z(std::size_t(n)), y(std::size_t(n)),
        p(std::size_t(n)), q(std::size_t(n)) {
    cuda::fill(x, 0.0);
    cuda::detail::create_vector(vr, n, r.data());
    cuda::detail::create_vector(vz, n, z.data());
    cuda::detail::create_vector(vy, n, y.data());
    cuda::detail::create_vector(vp, n, p.data());
    cuda::detail::create_vector(vq, n, q.data());
    L.set_up(sp, dL, CUSPARSE_FILL_MODE_LOWER, vr.get(), vy.get());
    U.set_up(sp, dU, CUSPARSE_FILL_MODE_UPPER, vy.get(), vz.get());
    cuda::detail::create_csr(mA, dA);
    const double one = 1.0, zero = 0.0;
    std::size_t spmv_bytes = 0;
    BALSA_CUSPARSE_CHECK(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA.get(), vp.get(),
                                                 &zero, vq.get(), CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &spmv_bytes));
    spmv_work = cuda::DeviceBuffer<char>(std::max<std::size_t>(spmv_bytes, 1));
  }

  // The stopping norm of a device vector, on the host (as the thesis' loop).
  double norm_of(const double* v, StoppingNorm norm) const {
    if (norm == StoppingNorm::Two) {
      double s = 0;
      BALSA_CUBLAS_CHECK(cublasDnrm2(bl, n, v, 1, &s));
      return s;
    }
    int at = 0;
    BALSA_CUBLAS_CHECK(cublasIdamax(bl, n, v, 1, &at));
    double value = 0;
    cuda::detail::copy_to_host(&value, v + (at - 1), sizeof value);
    return std::abs(value);
  }

  // Saad Alg. 9.1 with the thesis' stopping test; the iterations, b's and r's norms.
  int iterate(double tol, int maxit, StoppingNorm norm, double& bnorm, double& rnorm) {
    bnorm = n > 0 ? norm_of(r.data(), norm) : 0.0;
    rnorm = bnorm;
    L.solve(sp, vr.get(), vy.get());
    U.solve(sp, vy.get(), vz.get());
    BALSA_CUBLAS_CHECK(cublasDcopy(bl, n, z.data(), 1, p.data(), 1));
    double rho = 0;
    BALSA_CUBLAS_CHECK(cublasDdot(bl, n, r.data(), 1, z.data(), 1, &rho));
    const double one = 1.0, zero = 0.0;
    int k = 0;
    while (bnorm > 0 && rnorm > tol * bnorm && k < maxit) {
      BALSA_CUSPARSE_CHECK(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA.get(), vp.get(), &zero,
                                        vq.get(), CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, spmv_work.data()));
      double pq = 0;
      BALSA_CUBLAS_CHECK(cublasDdot(bl, n, p.data(), 1, q.data(), 1, &pq));
      const double alpha = rho / pq, minus_alpha = -alpha;
      BALSA_CUBLAS_CHECK(cublasDaxpy(bl, n, &alpha, p.data(), 1, x.data(), 1));
      BALSA_CUBLAS_CHECK(cublasDaxpy(bl, n, &minus_alpha, q.data(), 1, r.data(), 1));
      ++k;
      rnorm = norm_of(r.data(), norm);
      if (!(rnorm > tol * bnorm)) break;
      L.solve(sp, vr.get(), vy.get());
      U.solve(sp, vy.get(), vz.get());
      double rho_new = 0;
      BALSA_CUBLAS_CHECK(cublasDdot(bl, n, r.data(), 1, z.data(), 1, &rho_new));
      const double beta = rho_new / rho;
      rho = rho_new;
      BALSA_CUBLAS_CHECK(cublasDscal(bl, n, &beta, p.data(), 1));
      BALSA_CUBLAS_CHECK(cublasDaxpy(bl, n, &one, z.data(), 1, p.data(), 1));
    }
    return k;
  }
};

}  // namespace

BaselineResult cusparse_pcg_ic0(const Csr<double>& A, std::span<const double> b, double tol, int maxit,
                                StoppingNorm norm, std::vector<double>* x_out) {
  BaselineResult res;
  if (!cuda::available()) {
    res.note = "no CUDA GPU: no cuSPARSE baseline";
    return res;
  }
  res.ran = true;
  const auto t_setup = Clock::now();
  cuda::DeviceCsr<double> dA = cuda::to_device(A);
  cuda::DeviceCsr<double> dL = cuda::to_device(extract_triangle(A, Triangle::Lower));
  // The library handles lent by balsa's pool (cuda/handle_pool.hpp), on the
  // current stream: the calling thread's default stream, never the legacy one.
  const cuda::detail::CusparseHandle sp;
  const cuda::detail::CublasHandle blas;
  const auto t_factor = Clock::now();
  res.note = ic0_in_place(sp.get(), dL);
  if (!res.note.empty()) {
    res.ran = false;
    return res;
  }
  cuda::detail::synchronize();
  res.factor_seconds = seconds_since(t_factor);
  const cuda::DeviceCsr<double> dU = upper_of(sp.get(), dL);
  Pcg pcg(sp.get(), blas.get(), b, dA, dL, dU);
  cuda::detail::synchronize();
  res.setup_seconds = seconds_since(t_setup);

  const auto t_solve = Clock::now();
  double bnorm = 0, rnorm = 0;
  const int k = pcg.iterate(tol, maxit, norm, bnorm, rnorm);
  cuda::detail::synchronize();
  res.solve_seconds = seconds_since(t_solve);
  res.iterations = k;
  res.converged = bnorm == 0 || rnorm <= tol * bnorm;
  res.residual = bnorm > 0 ? rnorm / bnorm : 0.0;
  const std::vector<double> xh = pcg.x.to_host();
  res.true_residual = relative_residual(A, std::span<const double>(xh), b);
  if (x_out) *x_out = xh;
  return res;
}

}  // namespace balsa::bench
