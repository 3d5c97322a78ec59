// Internal: column singletons, the pre-pass of SuiteSparseQR (Davis,
// "Algorithm 915, SuiteSparseQR", ACM TOMS 38(1), 2011; the seed paper
// leaves it out): singletons are found before the fill-reducing ordering. A column with a single
// entry a_ij (|a_ij| > tol) among the rows not yet taken is a singleton:
// row i becomes a row of R as it stands (Q = I there) and is taken out,
// which can make more singletons. A column left with no rows is a dead
// singleton (no pivot). With p, q the rows and columns in singleton order,
//   A(p, q) = [R11 R12; 0 A22],  R11 upper triangular (squeezed where dead),
// and only A22, the remaining matrix, goes through the multifrontal QR.
#pragma once

#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::qr {

struct Singletons {
  std::vector<index_t> cols;       // singleton columns, in the order found
  std::vector<index_t> rows;       // rows[k]: the pivot row of cols[k]; -1: dead (no pivot)
  std::vector<index_t> rest_rows;  // A22's rows (A's numbering), ascending
  std::vector<index_t> rest_cols;  // A22's columns, ascending
  index_t live() const;            // singletons with a pivot row (R11's rows)
  bool operator==(const Singletons&) const = default;
};

// Singletons of A (m x n, canonical CSR): a singleton's entry must be
// > tol in magnitude (tol < 0: every stored entry counts, the pattern
// alone decides). Degrees count stored entries, as SPQR does.
Singletons find_singletons(const Csr<double>& A, double tol);

// A22 = A(rest_rows, rest_cols), renumbered (values gathered from A).
Csr<double> remaining_matrix(const Csr<double>& A, const Singletons& s);

}  // namespace balsa::qr
