// SuiteSparseQR (SPQR) on a balsa::Csr: the reference of the QR tests and
// the baseline of `balsa-bench qr` (SPQR takes CHOLMOD's 64-bit-index
// matrices, cholmod_l_*).
#pragma once

#include <SuiteSparseQR.hpp>

#include <algorithm>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::bench {

struct SpqrResult {
  std::vector<double> x;
  index_t rank = 0;                       // SPQR_istat[4]
  double dropped_norm = 0;                // SPQR_norm_E_fro: ||E||_F of what Heath's rule dropped
  double analyse_s = 0, factorise_s = 0, solve_s = 0, flops = 0;  // SPQR's own timers and count
};

// x = A \ b (least squares, basic solution if rank deficient), or the
// minimum-norm solution (SuiteSparseQR_min2norm); default ordering and tolerance.
inline SpqrResult spqr_solve(const Csr<double>& A, const std::vector<double>& b, bool min2norm = false) {
  cholmod_common cc;
  cholmod_l_start(&cc);
  const Csc<double> C = to_csc(A);
  cholmod_sparse* S = cholmod_l_allocate_sparse(std::size_t(A.rows), std::size_t(A.cols), std::size_t(C.nnz()), 1, 1, 0,
                                                CHOLMOD_REAL, &cc);
  std::copy(C.col_ptr.begin(), C.col_ptr.end(), static_cast<SuiteSparse_long*>(S->p));
  std::copy(C.row_idx.begin(), C.row_idx.end(), static_cast<SuiteSparse_long*>(S->i));
  std::copy(C.values.begin(), C.values.end(), static_cast<double*>(S->x));
  cholmod_dense* B = cholmod_l_allocate_dense(std::size_t(A.rows), 1, std::size_t(A.rows), CHOLMOD_REAL, &cc);
  std::copy(b.begin(), b.end(), static_cast<double*>(B->x));
  cholmod_dense* X = min2norm ? SuiteSparseQR_min2norm<double>(SPQR_ORDERING_DEFAULT, SPQR_DEFAULT_TOL, S, B, &cc)
                              : SuiteSparseQR<double>(SPQR_ORDERING_DEFAULT, SPQR_DEFAULT_TOL, S, B, &cc);
  SpqrResult r;
  r.x.assign(static_cast<double*>(X->x), static_cast<double*>(X->x) + A.cols);
  r.rank = index_t(cc.SPQR_istat[4]);
  r.dropped_norm = cc.SPQR_norm_E_fro;
  r.analyse_s = cc.SPQR_analyze_time;
  r.factorise_s = cc.SPQR_factorize_time;
  r.solve_s = cc.SPQR_solve_time;
  r.flops = cc.SPQR_flopcount;
  cholmod_l_free_dense(&X, &cc);
  cholmod_l_free_dense(&B, &cc);
  cholmod_l_free_sparse(&S, &cc);
  cholmod_l_finish(&cc);
  return r;
}

}  // namespace balsa::bench
