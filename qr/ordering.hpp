// Internal: fill-reducing column orderings for QR (sec. 2 of the sparse QR
// paper: COLAMD family), from SuiteSparse's COLAMD and METIS.
#pragma once

#include <vector>

#include "balsa/qr.hpp"

namespace balsa::qr {

// q: permuted column j is A's column q[j].
//   Colamd: COLAMD on A's pattern (A^T A never formed).
//   Metis:  METIS nested dissection of A^T A's graph (formed: the option
//           costs sum over rows of nnz(row)^2).
//   Natural: the identity.
std::vector<index_t> column_ordering(const Csr<double>& A, QrOrdering ordering);

}  // namespace balsa::qr
