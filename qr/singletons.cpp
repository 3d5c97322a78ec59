// Column singletons of sparse QR (qr/singletons.hpp): found breadth first,
// as SuiteSparseQR's pre-pass defines them; the remaining matrix.
#include "qr/singletons.hpp"

#include <algorithm>
#include <cmath>

namespace balsa::qr {

index_t Singletons::live() const { return index_t(std::count_if(rows.begin(), rows.end(), [](index_t i) { return i >= 0; })); }

Singletons find_singletons(const Csr<double>& A, double tol) {
  const Csc<double> C = to_csc(A);
  const index_t m = A.rows, n = A.cols;
  auto big = [&](double v) { return tol < 0 || std::abs(v) > tol; };
  // degree[j]: column j's entries in rows not yet taken; -1 once queued.
  std::vector<index_t> degree(static_cast<std::size_t>(n));
  std::vector<char> taken(static_cast<std::size_t>(m), 0);
  Singletons s;
  for (index_t j = 0; j < n; ++j) {
    const index_t d = C.col_ptr[j + 1] - C.col_ptr[j];
    degree[std::size_t(j)] = d;
    if (d == 0 || (d == 1 && big(C.values[std::size_t(C.col_ptr[j])]))) {
      s.cols.push_back(j);
      s.rows.push_back(d == 0 ? -1 : C.row_idx[std::size_t(C.col_ptr[j])]);
      degree[std::size_t(j)] = -1;
    }
  }
  for (std::size_t k = 0; k < s.cols.size(); ++k) {
    const index_t i = s.rows[k];
    if (i < 0) continue;
    if (taken[std::size_t(i)]) {  // an earlier singleton took this row: dead
      s.rows[k] = -1;
      continue;
    }
    taken[std::size_t(i)] = 1;
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a) {  // row i leaves: its columns lose a row
      const index_t j = A.col_idx[std::size_t(a)];
      index_t& d = degree[std::size_t(j)];
      if (d < 0) continue;
      if (--d == 0) {
        s.cols.push_back(j);
        s.rows.push_back(-1);
        d = -1;
      } else if (d == 1) {  // its one row left: a singleton if the entry is big enough
        for (index_t b = C.col_ptr[j]; b < C.col_ptr[j + 1]; ++b) {
          const index_t r = C.row_idx[std::size_t(b)];
          if (!taken[std::size_t(r)]) {
            if (big(C.values[std::size_t(b)])) {
              s.cols.push_back(j);
              s.rows.push_back(r);
              d = -1;
            }
            break;
          }
        }
      }
    }
  }
  for (index_t i = 0; i < m; ++i)
    if (!taken[std::size_t(i)]) s.rest_rows.push_back(i);
  for (index_t j = 0; j < n; ++j)
    if (degree[std::size_t(j)] >= 0) s.rest_cols.push_back(j);
  return s;
}

Csr<double> remaining_matrix(const Csr<double>& A, const Singletons& s) {
  std::vector<index_t> col_map(static_cast<std::size_t>(A.cols), -1);
  for (std::size_t j = 0; j < s.rest_cols.size(); ++j) col_map[std::size_t(s.rest_cols[j])] = index_t(j);
  Csr<double> R;
  R.rows = index_t(s.rest_rows.size());
  R.cols = index_t(s.rest_cols.size());
  R.row_ptr.reserve(s.rest_rows.size() + 1);
  for (index_t i : s.rest_rows) {
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a) {
      const index_t j = col_map[std::size_t(A.col_idx[std::size_t(a)])];
      if (j < 0) continue;  // cannot happen: a remaining row has no singleton columns
      R.col_idx.push_back(j);
      R.values.push_back(A.values[std::size_t(a)]);
    }
    R.row_ptr.push_back(index_t(R.col_idx.size()));
  }
  return R;
}

}  // namespace balsa::qr
