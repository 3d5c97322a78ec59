// R assembled as one sparse upper-triangular matrix (qr/r_factor.hpp).
#include "qr/r_factor.hpp"

#include <algorithm>
#include <utility>

namespace balsa::qr {

namespace {

// R's columns, and the positions of F's columns (pos) and of A22's permuted
// columns (pos22) among them: the live singletons' in their order, then
// A22's columns whose live flag is set, in its permuted order.
void r_columns(const Csr<double>& F, const Singletons& sg, const Symbolic& s, const std::vector<char>& live, SparseR& r,
               std::vector<index_t>& pos, std::vector<index_t>& pos22) {
  pos.assign(static_cast<std::size_t>(F.cols), -1);
  pos22.assign(static_cast<std::size_t>(s.n), -1);
  for (std::size_t k = 0; k < sg.cols.size(); ++k)
    if (sg.rows[k] >= 0) {
      pos[std::size_t(sg.cols[k])] = index_t(r.column.size());
      r.column.push_back(sg.cols[k]);
      r.singleton_rows.push_back(sg.rows[k]);
    }
  for (index_t j = 0; j < s.n; ++j)
    if (live[std::size_t(j)]) {
      const index_t c = sg.rest_cols[std::size_t(s.q[std::size_t(j)])];
      pos[std::size_t(c)] = pos22[std::size_t(j)] = index_t(r.column.size());
      r.column.push_back(c);
    }
}

// The singletons' rows (R11 R12: F's rows on their live columns, by
// position): pattern into R, each entry's F index into src.
void singleton_rows(const Csr<double>& F, const SparseR& r, const std::vector<index_t>& pos, Csr<double>& R,
                    std::vector<index_t>& src) {
  std::vector<std::pair<index_t, index_t>> row;
  for (index_t i : r.singleton_rows) {
    row.clear();
    for (index_t a = F.row_ptr[i]; a < F.row_ptr[i + 1]; ++a)
      if (const index_t p = pos[std::size_t(F.col_idx[std::size_t(a)])]; p >= 0) row.emplace_back(p, a);
    std::sort(row.begin(), row.end());
    for (const auto& [p, a] : row) {
      R.col_idx.push_back(p);
      src.push_back(a);
    }
    R.row_ptr.push_back(index_t(R.col_idx.size()));
  }
}

}  // namespace

RLayout full_rank_r(const Csr<double>& F, const Singletons& sg, const Symbolic& s, SparseR& r) {
  r = SparseR{};
  RLayout L;
  std::vector<index_t> pos, pos22;
  r_columns(F, sg, s, std::vector<char>(static_cast<std::size_t>(s.n), 1), r, pos, pos22);
  Csr<double>& R = r.R;
  R.rows = R.cols = index_t(r.column.size());
  singleton_rows(F, r, pos, R, L.singleton_src);
  // The fronts' rows: their offsets first, then each front's columns (in parallel).
  const std::size_t nf = s.fronts.size();
  r.front_row.resize(nf);
  for (std::size_t f = 0; f < nf; ++f) {
    const Front& Fr = s.fronts[f];
    r.front_row[f] = index_t(R.row_ptr.size()) - 1;
    for (index_t t = 0; t < Fr.pivots; ++t) R.row_ptr.push_back(R.row_ptr.back() + (Fr.n() - t));
  }
  R.col_idx.resize(std::size_t(R.row_ptr.back()));
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t f = 0; f < nf; ++f) {
    const Front& Fr = s.fronts[f];
    std::size_t e = std::size_t(R.row_ptr[std::size_t(r.front_row[f])]);
    for (index_t t = 0; t < Fr.pivots; ++t)
      for (index_t l = t; l < Fr.n(); ++l) R.col_idx[e++] = pos22[std::size_t(Fr.cols[std::size_t(l)])];
  }
  R.values.resize(R.col_idx.size());
  return L;
}

void singleton_values(const RLayout& L, const Csr<double>& F, std::vector<double>& values) {
  for (std::size_t e = 0; e < L.singleton_src.size(); ++e) values[e] = F.values[std::size_t(L.singleton_src[e])];
}

void front_values(const Symbolic& s, Numeric& num, SparseR& r) {
  const std::size_t nf = s.fronts.size();
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t f = 0; f < nf; ++f) {
    FrontFactor& ff = num.fronts[f];
    const index_t n = s.fronts[f].n();
    for (index_t t = 0; t < ff.live; ++t) {  // R's row front_row[f] + t: front columns t .. n-1
      const auto row = ff.R.begin() + std::ptrdiff_t(ff.r_start[std::size_t(t)]);
      const index_t at = r.R.row_ptr[std::size_t(r.front_row[f] + t)];
      std::copy(row, row + (n - t), r.R.values.begin() + std::ptrdiff_t(at));
    }
    std::vector<double>().swap(ff.R);
    std::vector<std::size_t>().swap(ff.r_start);
  }
}

SparseR assemble_r(const Csr<double>& F, const Singletons& sg, const Symbolic& s, Numeric& num) {
  SparseR r;
  // R's columns: the live singletons' in their order, then A22's live
  // columns in its permuted order (F's column of A22's permuted column j:
  // rest_cols[q[j]]).
  std::vector<char> live(static_cast<std::size_t>(s.n), 0);
  for (std::size_t f = 0; f < s.fronts.size(); ++f)
    for (index_t t = 0; t < num.fronts[f].live; ++t)
      live[std::size_t(s.fronts[f].cols[std::size_t(num.fronts[f].r_col(t))])] = 1;
  std::vector<index_t> pos, pos22;
  r_columns(F, sg, s, live, r, pos, pos22);
  Csr<double>& R = r.R;
  R.rows = R.cols = index_t(r.column.size());
  R.row_ptr.reserve(r.column.size() + 1);
  std::size_t bound = 0;  // R's entries, dead columns included: the arrays grow once
  for (index_t i : r.singleton_rows) bound += std::size_t(F.row_ptr[i + 1] - F.row_ptr[i]);
  for (const FrontFactor& ff : num.fronts) bound += ff.R.size();
  R.col_idx.reserve(bound);
  R.values.reserve(bound);
  std::vector<index_t> src;
  singleton_rows(F, r, pos, R, src);
  for (index_t a : src) R.values.push_back(F.values[std::size_t(a)]);
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
