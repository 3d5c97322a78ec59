// Column orderings for sparse QR (qr/ordering.hpp).
#include "qr/ordering.hpp"

#include <colamd.h>
#include <metis.h>

#include <algorithm>
#include <numeric>
#include <string>

namespace balsa {
const char* to_string(QrOrdering o) {
  return o == QrOrdering::Colamd ? "colamd" : o == QrOrdering::Metis ? "metis" : "natural";
}
}  // namespace balsa

namespace balsa::qr {

namespace {

std::vector<index_t> colamd_ordering(const Csr<double>& A) {
  const Csc<double> C = to_csc(A);
  const std::size_t alen = colamd_recommended(C.nnz(), A.rows, A.cols);
  if (alen == 0) throw Error("QR ordering: COLAMD cannot take a matrix this large");
  std::vector<int> rows(alen), p(C.col_ptr.begin(), C.col_ptr.end());
  std::copy(C.row_idx.begin(), C.row_idx.end(), rows.begin());
  double knobs[COLAMD_KNOBS];
  int stats[COLAMD_STATS];
  colamd_set_defaults(knobs);
  if (!colamd(A.rows, A.cols, int(alen), rows.data(), p.data(), knobs, stats))
    throw Error("QR ordering: COLAMD failed (status " + std::to_string(stats[COLAMD_STATUS]) + ")");
  return std::vector<index_t>(p.begin(), p.begin() + A.cols);
}

std::vector<index_t> metis_ordering(const Csr<double>& A) {
  const index_t n = A.cols;
  // The graph of A^T A: columns joined when a row holds both.
  std::vector<std::vector<idx_t>> adj(static_cast<std::size_t>(n));
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a)
      for (index_t b = A.row_ptr[i]; b < A.row_ptr[i + 1]; ++b)
        if (A.col_idx[a] != A.col_idx[b]) adj[std::size_t(A.col_idx[a])].push_back(A.col_idx[b]);
  std::vector<idx_t> xadj{0}, adjncy;
  for (auto& list : adj) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    adjncy.insert(adjncy.end(), list.begin(), list.end());
    xadj.push_back(idx_t(adjncy.size()));
  }
  std::vector<idx_t> perm(static_cast<std::size_t>(n)), iperm(perm);
  idx_t nv = n;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  if (n > 0 && METIS_NodeND(&nv, xadj.data(), adjncy.data(), nullptr, options, perm.data(), iperm.data()) != METIS_OK)
    throw Error("QR ordering: METIS_NodeND failed");
  return std::vector<index_t>(perm.begin(), perm.end());
}

}  // namespace

std::vector<index_t> column_ordering(const Csr<double>& A, QrOrdering ordering) {
  if (ordering == QrOrdering::Colamd && A.cols > 0) return colamd_ordering(A);
  if (ordering == QrOrdering::Metis && A.cols > 0) return metis_ordering(A);
  std::vector<index_t> q(static_cast<std::size_t>(A.cols));
  std::iota(q.begin(), q.end(), 0);
  return q;
}

}  // namespace balsa::qr
