// A's pattern as CHOLMOD reads it (qr/cholmod_view.hpp).
#include "qr/cholmod_view.hpp"

namespace balsa::qr {

cholmod_sparse transpose_pattern(const Csr<double>& A, std::vector<SuiteSparse_long>& p, std::vector<SuiteSparse_long>& idx) {
  p.assign(A.row_ptr.begin(), A.row_ptr.end());
  idx.assign(A.col_idx.begin(), A.col_idx.end());
  cholmod_sparse At{};
  At.nrow = std::size_t(A.cols);
  At.ncol = std::size_t(A.rows);
  At.nzmax = idx.size();
  At.p = p.data();
  At.i = idx.data();
  At.stype = 0;
  At.itype = CHOLMOD_LONG;
  At.xtype = CHOLMOD_PATTERN;
  At.dtype = CHOLMOD_DOUBLE;
  At.sorted = 1;
  At.packed = 1;
  return At;
}

}  // namespace balsa::qr
