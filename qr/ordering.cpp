// Column orderings for sparse QR (qr/ordering.hpp).
#include "qr/ordering.hpp"

#include <cholmod.h>
#include <metis.h>

#include "qr/cholmod_view.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace balsa::qr {

namespace {

// COLAMD through CHOLMOD, as SPQR calls it (CHOLMOD's knobs: no dense-row
// pruning; the order followed by a postorder of the column elimination
// tree): equal orders give SPQR's Heath rank decisions.
std::vector<index_t> colamd_ordering(const Csr<double>& A) {
  cholmod_common c;
  cholmod_l_start(&c);
  struct Finish {
    cholmod_common& c;
    ~Finish() { cholmod_l_finish(&c); }
  } finish{c};
  // A^T as CHOLMOD sees it (n x m, column i = row i of A): COLAMD orders its rows.
  std::vector<SuiteSparse_long> p, idx;
  cholmod_sparse At = transpose_pattern(A, p, idx);
  std::vector<SuiteSparse_long> perm(static_cast<std::size_t>(A.cols));
  if (!cholmod_l_colamd(&At, nullptr, 0, 1, perm.data(), &c) || c.status < CHOLMOD_OK)
    throw Error("QR ordering: COLAMD failed (CHOLMOD status " + std::to_string(c.status) + ")");
  return std::vector<index_t>(perm.begin(), perm.end());
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
