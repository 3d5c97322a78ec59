// R assembled as one sparse upper-triangular matrix (qr/r_factor.hpp).
#include "qr/r_factor.hpp"

#include <algorithm>
#include <utility>

namespace balsa::qr {

SparseR assemble_r(const Csr<double>& F, const Singletons& sg, const Symbolic& s, Numeric& num) {
  SparseR r;
  // R's columns: the live singletons' in their order, then A22's live
  // columns in its permuted order (F's column of A22's permuted column j:
  // rest_cols[q[j]]).
  std::vector<index_t> pos(static_cast<std::size_t>(F.cols), -1);
  for (std::size_t k = 0; k < sg.cols.size(); ++k)
    if (sg.rows[k] >= 0) {
      pos[std::size_t(sg.cols[k])] = index_t(r.column.size());
      r.column.push_back(sg.cols[k]);
      r.singleton_rows.push_back(sg.rows[k]);
    }
  std::vector<char> live(static_cast<std::size_t>(s.n), 0);
  for (std::size_t f = 0; f < s.fronts.size(); ++f)
    for (index_t t = 0; t < num.fronts[f].live; ++t)
      live[std::size_t(s.fronts[f].cols[std::size_t(num.fronts[f].r_col(t))])] = 1;
  std::vector<index_t> pos22(static_cast<std::size_t>(s.n), -1);  // R's column of A22's permuted column j
  for (index_t j = 0; j < s.n; ++j)
    if (live[std::size_t(j)]) {
      const index_t c = sg.rest_cols[std::size_t(s.q[std::size_t(j)])];
      pos[std::size_t(c)] = pos22[std::size_t(j)] = index_t(r.column.size());
      r.column.push_back(c);
    }
  Csr<double>& R = r.R;
  R.rows = R.cols = index_t(r.column.size());
  R.row_ptr.reserve(r.column.size() + 1);
  std::size_t bound = 0;  // R's entries, dead columns included: the arrays grow once
  for (index_t i : r.singleton_rows) bound += std::size_t(F.row_ptr[i + 1] - F.row_ptr[i]);
  for (const FrontFactor& ff : num.fronts) bound += ff.R.size();
  R.col_idx.reserve(bound);
  R.values.reserve(bound);
  std::vector<std::pair<index_t, double>> row;
  for (index_t i : r.singleton_rows) {  // R11 R12: F's rows, their live columns by position
    row.clear();
    for (index_t a = F.row_ptr[i]; a < F.row_ptr[i + 1]; ++a)
      if (const index_t p = pos[std::size_t(F.col_idx[std::size_t(a)])]; p >= 0) row.emplace_back(p, F.values[std::size_t(a)]);
    std::sort(row.begin(), row.end());
    for (const auto& [p, v] : row) {
      R.col_idx.push_back(p);
      R.values.push_back(v);
    }
    R.row_ptr.push_back(index_t(R.col_idx.size()));
  }
  r.front_row.resize(s.fronts.size());
  for (std::size_t f = 0; f < s.fronts.size(); ++f) {  // the fronts' rows: their columns ascend with j
    const Front& Fr = s.fronts[f];
    FrontFactor& ff = num.fronts[f];
    r.front_row[f] = index_t(R.row_ptr.size()) - 1;
    for (index_t t = 0; t < ff.live; ++t) {
      for (index_t l = ff.r_col(t); l < Fr.n(); ++l)
        if (const index_t p = pos22[std::size_t(Fr.cols[std::size_t(l)])]; p >= 0) {
          R.col_idx.push_back(p);
          R.values.push_back(ff.r(t, l));
        }
      R.row_ptr.push_back(index_t(R.col_idx.size()));
    }
    std::vector<double>().swap(ff.R);
    std::vector<std::size_t>().swap(ff.r_start);
  }
  return r;
}

}  // namespace balsa::qr
