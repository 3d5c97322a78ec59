// Internal: the few BLAS/LAPACK routines the CPU SaP path calls on its small
// dense k x k blocks (OpenBLAS), overloaded on float and double. Column-major.
#pragma once

#include <algorithm>
#include <vector>

extern "C" {
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
}

namespace balsa::sap::blas {

// B = op(A)^{-1} B, A (m x m) triangular ('L'/'U', unit 'U'/'N'), B m x n.
inline void trsm_left(char uplo, char diag, int m, int n, const float* a, int lda, float* b, int ldb) {
  const float one = 1;
  strsm_("L", &uplo, "N", &diag, &m, &n, &one, a, &lda, b, &ldb);
}
inline void trsm_left(char uplo, char diag, int m, int n, const double* a, int lda, double* b, int ldb) {
  const double one = 1;
  dtrsm_("L", &uplo, "N", &diag, &m, &n, &one, a, &lda, b, &ldb);
}
// C = alpha A B + beta C (no transposes).
inline void gemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                 float* c, int ldc) {
  sgemm_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
inline void gemm(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                 double* c, int ldc) {
  dgemm_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
inline void getrf(int n, float* a, int* ipiv, int* info) { sgetrf_(&n, &n, a, &n, ipiv, info); }
inline void getrf(int n, double* a, int* ipiv, int* info) { dgetrf_(&n, &n, a, &n, ipiv, info); }
template <class P>
void getri(int n, P* a, const int* ipiv, int* info) {
  int lwork = -1;
  P query = 0;
  if constexpr (sizeof(P) == 4) sgetri_(&n, a, &n, ipiv, &query, &lwork, info);
  else dgetri_(&n, a, &n, ipiv, &query, &lwork, info);
  lwork = std::max(1, int(query));
  std::vector<P> work(static_cast<std::size_t>(lwork));
  if constexpr (sizeof(P) == 4) sgetri_(&n, a, &n, ipiv, work.data(), &lwork, info);
  else dgetri_(&n, a, &n, ipiv, work.data(), &lwork, info);
}

}  // namespace balsa::sap::blas
