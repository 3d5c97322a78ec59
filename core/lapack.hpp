// Internal: the one place balsa declares BLAS and LAPACK. The prototypes
// come from the libraries' own headers: LAPACK's <lapack.h> (Debian's
// liblapacke-dev; its LAPACK_xxx macros pass Fortran's hidden string
// lengths) and OpenBLAS's <cblas.h> (the C BLAS and OpenBLAS's thread
// count). Below them, float/double overloads of the few routines SaP's CPU
// path calls on its small k x k blocks. Column-major throughout.
#pragma once

#include <algorithm>
#include <complex>
#include <vector>

// <lapack.h> declares the complex routines too; in C++ their types are std::complex.
#ifndef lapack_complex_float
#define lapack_complex_float std::complex<float>
#endif
#ifndef lapack_complex_double
#define lapack_complex_double std::complex<double>
#endif
#include <cblas.h>
#include <lapack.h>

namespace balsa::lapack {

// B = op(A)^{-1} B, A (m x m) triangular ('L'/'U', unit 'U'/'N'), B m x n.
inline void trsm_left(char uplo, char diag, int m, int n, const float* a, int lda, float* b, int ldb) {
  cblas_strsm(CblasColMajor, CblasLeft, uplo == 'L' ? CblasLower : CblasUpper, CblasNoTrans,
              diag == 'U' ? CblasUnit : CblasNonUnit, m, n, 1.0f, a, lda, b, ldb);
}
inline void trsm_left(char uplo, char diag, int m, int n, const double* a, int lda, double* b, int ldb) {
  cblas_dtrsm(CblasColMajor, CblasLeft, uplo == 'L' ? CblasLower : CblasUpper, CblasNoTrans,
              diag == 'U' ? CblasUnit : CblasNonUnit, m, n, 1.0, a, lda, b, ldb);
}
// C = alpha A B + beta C (no transposes).
inline void gemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                 float* c, int ldc) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                 double* c, int ldc) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void getrf(int n, float* a, int* ipiv, int* info) { LAPACK_sgetrf(&n, &n, a, &n, ipiv, info); }
inline void getrf(int n, double* a, int* ipiv, int* info) { LAPACK_dgetrf(&n, &n, a, &n, ipiv, info); }
template <class P>
void getri(int n, P* a, const int* ipiv, int* info) {
  int lwork = -1;
  P query = 0;
  if constexpr (sizeof(P) == 4) LAPACK_sgetri(&n, a, &n, ipiv, &query, &lwork, info);
  else LAPACK_dgetri(&n, a, &n, ipiv, &query, &lwork, info);
  lwork = std::max(1, int(query));
  std::vector<P> work(static_cast<std::size_t>(lwork));
  if constexpr (sizeof(P) == 4) LAPACK_sgetri(&n, a, &n, ipiv, work.data(), &lwork, info);
  else LAPACK_dgetri(&n, a, &n, ipiv, work.data(), &lwork, info);
}

}  // namespace balsa::lapack
