// BasisFactor::factorize: the LU factorisation of a simplex basis (thesis
// 7.1.2). One right-looking elimination on the active submatrix (columns with
// values, rows as a pattern, count lists for both):
//   phase 1, triangular singletons: column singletons (no L column, the row's
//     other entries become a U row), then row singletons (the column's other
//     entries over the pivot become an L column) while they pass the threshold
//     test; neither makes fill;
//   phase 2, the bump: Markowitz pivots (r-1)(c-1) with threshold partial
//     pivoting |a_ij| >= u max_k |a_kj|, searched by increasing count (columns
//     with count k, then rows with count k) and stopped a few candidates after
//     one is found (Suhl & Suhl).
// A column without an acceptable pivot (empty, or largest entry below
// pivot_tolerance) is singular: it is left out, and at the end each is paired
// with a row left without a pivot; that row's logical takes its place.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "balsa/error.hpp"
#include "lp/basis/basis_factor_data.hpp"

namespace balsa::lp {
namespace {

using detail::LuWork;

constexpr int kSearchLimit = 4;  // rows/columns searched once a candidate is known

std::uint32_t next_stamp(std::uint32_t& stamp, std::vector<std::uint32_t>& marks) {
  if (++stamp == 0) {
    std::fill(marks.begin(), marks.end(), 0u);
    stamp = 1;
  }
  return stamp;
}

struct Lu {
  LuWork& W;
  const BasisFactorOptions& opt;
  index_t m;
  index_t active_cols = 0;

  double col_max(index_t j) {
    double& c = W.col_max[j];
    if (c >= 0.0) return c;
    double mx = 0.0;
    const index_t len = W.cols.len[j];
    const double* v = W.cols.values(j);
    for (index_t k = 0; k < len; ++k) mx = std::max(mx, std::abs(v[k]));
    return c = mx;
  }
  void col_changed(index_t j) {
    W.col_max[j] = -1.0;
    const index_t k = W.cols.len[j];
    W.col_count.move(j, k);
    if (W.collect_cols && k == 1) W.colq.push_back(j);
  }
  void row_changed(index_t i) {
    const index_t k = W.rows.len[i];
    W.row_count.move(i, k);
    if (W.collect_rows && k == 1) W.rowq.push_back(i);
  }
  void remove_from_row(index_t i, index_t j) { W.rows.remove_at(i, W.rows.find(i, j)); }

  // Column c has no acceptable pivot: it leaves the active submatrix.
  void drop_column(index_t c) {
    const index_t len = W.cols.len[c];
    for (index_t k = 0; k < len; ++k) {
      const index_t i = W.cols.indices(c)[k];
      remove_from_row(i, c);
      row_changed(i);
    }
    W.cols.clear(c);
    W.col_count.remove(c);
    W.col_state[c] = 2;
    W.singular_cols.push_back(c);
    --active_cols;
  }

  void eliminate(index_t r, index_t c, double pv);
  std::uint32_t take_l_column(index_t r, index_t c, double pv);
  void take_u_row_pattern(index_t r, index_t c);
  void schur_update(index_t j, double u, std::uint32_t lst);
  bool search(index_t& r, index_t& c, double& pv);
  void column_singletons();
  void row_singletons();
  void markowitz_bump();
};

// Pivot on (r, c) (thesis 7.1.2): the L column from column c, the U row
// from row r, and the Schur update a_ij -= l_i u_j on the columns of row r.
void Lu::eliminate(index_t r, index_t c, double pv) {
  W.piv_row.push_back(r);
  W.piv_col.push_back(c);
  W.piv_val.push_back(pv);
  const std::uint32_t lst = take_l_column(r, c, pv);
  take_u_row_pattern(r, c);
  for (const index_t j : W.urow_tmp) {
    const std::int64_t q = W.cols.find(j, r);
    const double u = W.cols.val[q];
    W.cols.remove_at(j, q);
    if (std::abs(u) >= opt.drop_tolerance) {
      W.u_pos.push_back(j);
      W.u_val.push_back(u);
      if (!W.lrows.empty()) schur_update(j, u, lst);
    }
    col_changed(j);
  }
  W.u_start.push_back(index_t(W.u_pos.size()));
  for (const index_t i : W.touched) row_changed(i);
}

// Column c over the pivot becomes L's column l = a_ic / pv (entries below
// drop_tolerance dropped); its rows are marked with the returned stamp and
// listed in lrows (kept) and touched (all). Column c leaves.
std::uint32_t Lu::take_l_column(index_t r, index_t c, double pv) {
  const std::uint32_t lst = next_stamp(W.lstamp, W.lmark);
  W.lrows.clear();
  W.touched.clear();
  const index_t len = W.cols.len[c];
  for (index_t k = 0; k < len; ++k) {
    const index_t i = W.cols.indices(c)[k];
    if (i == r) continue;
    const double l = W.cols.values(c)[k] / pv;
    remove_from_row(i, c);
    W.touched.push_back(i);
    if (std::abs(l) < opt.drop_tolerance) continue;
    W.lmark[i] = lst;
    W.lval[i] = l;
    W.lrows.push_back(i);
    W.l_row.push_back(i);
    W.l_val.push_back(l);
  }
  W.l_start.push_back(index_t(W.l_row.size()));
  W.cols.clear(c);
  W.col_count.remove(c);
  W.col_state[c] = 1;
  --active_cols;
  return lst;
}

// Row r's other columns (the U row's pattern) into urow_tmp; row r leaves.
void Lu::take_u_row_pattern(index_t r, index_t c) {
  W.urow_tmp.clear();
  for (index_t k = 0; k < W.rows.len[r]; ++k) {
    const index_t j = W.rows.indices(r)[k];
    if (j != c) W.urow_tmp.push_back(j);
  }
  W.rows.clear(r);
  W.row_count.remove(r);
  W.row_state[r] = 1;
}

// Column j of the Schur complement: a_ij -= l_i u for the rows of L's new
// column (stamp lst); entries that cancel below drop_tolerance go, the
// others of l u are fill.
void Lu::schur_update(index_t j, double u, std::uint32_t lst) {
  const double drop = opt.drop_tolerance;
  const std::uint32_t vst = next_stamp(W.vstamp, W.vis);
  for (std::int64_t p = W.cols.start[j]; p < std::int64_t(W.cols.start[j]) + W.cols.len[j];) {
    const index_t i = W.cols.idx[p];
    if (W.lmark[i] == lst) {
      W.vis[i] = vst;
      const double a = W.cols.val[p] - W.lval[i] * u;
      if (std::abs(a) < drop) {  // cancelled: drop the entry
        W.cols.remove_at(j, p);
        remove_from_row(i, j);
        continue;
      }
      W.cols.val[p] = a;
    }
    ++p;
  }
  for (const index_t i : W.lrows) {
    if (W.vis[i] == vst) continue;
    const double v = -W.lval[i] * u;
    if (std::abs(v) < drop) continue;
    W.cols.push(j, i, v);  // fill
    W.rows.push(i, j, 0.0);
  }
}

// Markowitz search by increasing count (Suhl & Suhl): columns with count k,
// then rows with count k; stops when no candidate left can beat the best or
// kSearchLimit rows/columns were looked at after a candidate was found.
bool Lu::search(index_t& r, index_t& c, double& pv) {
  const double u = opt.pivot_threshold, tol = opt.pivot_tolerance;
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  double best_ratio = 0.0;
  index_t br = -1, bc = -1;
  double bv = 0.0;
  int searched = 0;
  auto consider = [&](index_t i, index_t j, double a, double mx, std::int64_t cost) {
    const double ratio = std::abs(a) / mx;
    if (cost < best || (cost == best && ratio > best_ratio)) {
      best = cost;
      best_ratio = ratio;
      br = i;
      bc = j;
      bv = a;
    }
  };
  auto done = [&] {
    r = br;
    c = bc;
    pv = bv;
    return true;
  };
  for (index_t k = 1; k <= m; ++k) {
    const std::int64_t k1 = k - 1;
    for (index_t j = W.col_count.head[k], nx; j >= 0; j = nx) {
      nx = W.col_count.next[j];
      const double mx = col_max(j);
      if (mx < tol) {
        drop_column(j);
        continue;
      }
      const double thr = std::max(u * mx, tol);
      const index_t* ix = W.cols.indices(j);
      const double* vx = W.cols.values(j);
      for (index_t q = 0; q < k; ++q)
        if (std::abs(vx[q]) >= thr) consider(ix[q], j, vx[q], mx, std::int64_t(W.rows.len[ix[q]] - 1) * k1);
      ++searched;
      if (bc >= 0 && (searched >= kSearchLimit || best <= k1 * k1)) return done();
    }
    if (bc >= 0 && best <= k * k1) return done();
    for (index_t i = W.row_count.head[k]; i >= 0; i = W.row_count.next[i]) {
      for (index_t q = 0; q < k; ++q) {
        const index_t j = W.rows.indices(i)[q];
        const double mx = col_max(j);
        if (mx < tol) continue;  // singular: dropped when its column is searched
        const double a = W.cols.val[W.cols.find(j, i)];
        if (std::abs(a) >= std::max(u * mx, tol)) consider(i, j, a, mx, k1 * std::int64_t(W.cols.len[j] - 1));
      }
      ++searched;
      if (bc >= 0 && (searched >= kSearchLimit || best <= k1 * k)) return done();
    }
    if (bc >= 0 && best <= std::int64_t(k) * k) return done();
  }
  if (bc >= 0) return done();
  return false;
}

// Phase 1a, column singletons (thesis 7.1.2): no L column, no fill; a
// column that becomes a singleton on the way is queued too.
void Lu::column_singletons() {
  W.colq.clear();
  for (index_t k = 0; k < m; ++k)
    if (W.cols.len[k] == 1) W.colq.push_back(k);
  W.collect_cols = true;
  while (!W.colq.empty()) {
    const index_t c = W.colq.back();
    W.colq.pop_back();
    if (W.col_state[c] != 0 || W.cols.len[c] != 1) continue;
    const index_t r = W.cols.indices(c)[0];
    const double v = W.cols.values(c)[0];
    if (std::abs(v) < opt.pivot_tolerance) drop_column(c);
    else eliminate(r, c, v);
  }
  W.collect_cols = false;
}

// Phase 1b, row singletons (thesis 7.1.2): the column's other entries over
// the pivot become an L column, while the pivot passes the threshold test.
void Lu::row_singletons() {
  W.rowq.clear();
  for (index_t i = 0; i < m; ++i)
    if (W.row_state[i] == 0 && W.rows.len[i] == 1) W.rowq.push_back(i);
  W.collect_rows = true;
  while (!W.rowq.empty()) {
    const index_t r = W.rowq.back();
    W.rowq.pop_back();
    if (W.row_state[r] != 0 || W.rows.len[r] != 1) continue;
    const index_t c = W.rows.indices(r)[0];
    const double v = W.cols.val[W.cols.find(c, r)];
    if (std::abs(v) >= std::max(opt.pivot_threshold * col_max(c), opt.pivot_tolerance))
      eliminate(r, c, v);  // else left to the bump
  }
  W.collect_rows = false;
}

// Phase 2, the bump (thesis 7.1.2): Markowitz pivots with threshold partial
// pivoting until every column is pivoted or singular; then the rows left
// without a pivot, as many as the singular columns.
void Lu::markowitz_bump() {
  while (active_cols > 0) {
    while (W.col_count.head[0] >= 0) drop_column(W.col_count.head[0]);
    if (active_cols == 0) break;
    index_t r, c;
    double pv;
    if (!search(r, c, pv)) continue;  // every column it met was singular and left
    eliminate(r, c, pv);
  }
  for (index_t i = 0; i < m; ++i)
    if (W.row_state[i] == 0) W.missing_rows.push_back(i);
  if (W.missing_rows.size() != W.singular_cols.size())
    throw Error("BasisFactor::factorize: internal error: " + std::to_string(W.missing_rows.size()) +
                " rows but " + std::to_string(W.singular_cols.size()) + " columns without a pivot");
}

// The count lists, marks and pivot lists of a new elimination on the m x m
// active submatrix just loaded.
void reset_elimination(LuWork& W, index_t m) {
  W.col_count.reset(m, m);
  W.row_count.reset(m, m);
  for (index_t k = 0; k < m; ++k) W.col_count.insert(k, W.cols.len[k]);
  for (index_t i = 0; i < m; ++i) W.row_count.insert(i, W.rows.len[i]);
  W.col_max.assign(std::size_t(m), -1.0);
  W.lmark.assign(std::size_t(m), 0u);
  W.vis.assign(std::size_t(m), 0u);
  W.lstamp = W.vstamp = 0;
  W.lval.assign(std::size_t(m), 0.0);
  for (auto* v : {&W.piv_row, &W.piv_col, &W.u_pos, &W.l_row, &W.singular_cols, &W.missing_rows}) v->clear();
  W.piv_val.clear();
  W.u_val.clear();
  W.l_val.clear();
  W.u_start.assign(1, 0);
  W.l_start.assign(1, 0);
  W.piv_row.reserve(std::size_t(m));
  W.piv_col.reserve(std::size_t(m));
  W.piv_val.reserve(std::size_t(m));
}

// The checks made before the old factor is touched: m basic variables,
// each in [0, n + m) and none twice.
void check_basis(const Csc<double>& A, const std::vector<index_t>& basic) {
  const index_t m = A.rows, n = A.cols;
  if (index_t(basic.size()) != m)
    throw DimensionError("BasisFactor::factorize: " + std::to_string(basic.size()) + " basic variables for " +
                         std::to_string(m) + " rows");
  std::vector<char> seen(std::size_t(n) + std::size_t(m), 0);
  for (index_t k = 0; k < m; ++k) {
    const index_t j = basic[k];
    if (j < 0 || j >= n + m)
      throw Error("BasisFactor::factorize: basic[" + std::to_string(k) + "] = " + std::to_string(j) +
                  " is outside [0, " + std::to_string(n + m) + ")");
    if (seen[j]) throw Error("BasisFactor::factorize: variable " + std::to_string(j) + " is basic twice");
    seen[j] = 1;
  }
}

// The basis matrix B as the active submatrix (thesis 7.1.2): its columns
// with values, its rows as a pattern, both in count lists; empty pivot
// lists. Entries of A below `drop` are left out. Returns nnz(B).
std::int64_t load_active_submatrix(LuWork& W, const Csc<double>& A, const std::vector<index_t>& basic,
                                   double drop) {
  const index_t m = A.rows, n = A.cols;
  std::int64_t nnz_b = 0;
  W.col_state.assign(std::size_t(m), 0);
  W.row_state.assign(std::size_t(m), 0);
  std::vector<index_t>& row_len = W.urow_tmp;  // scratch until the elimination
  row_len.assign(std::size_t(m), 0);
  for (index_t k = 0; k < m; ++k) {
    const index_t j = basic[k];
    if (j >= n) {
      ++row_len[j - n];
      ++nnz_b;
      continue;
    }
    for (index_t p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p)
      if (std::abs(A.values[p]) >= drop && A.values[p] != 0.0) {
        ++row_len[A.row_idx[p]];
        ++nnz_b;
      }
  }
  W.cols.reset(m, 3 * (nnz_b + 2 * std::int64_t(m)), true);
  W.rows.reset(m, 3 * (nnz_b + 2 * std::int64_t(m)), false);
  for (index_t i = 0; i < m; ++i) W.rows.place(i, row_len[i] + 2);
  for (index_t k = 0; k < m; ++k) {
    const index_t j = basic[k];
    if (j >= n) {
      W.cols.place(k, 1);
      W.cols.push(k, j - n, 1.0);
      W.rows.push(j - n, k, 0.0);
      continue;
    }
    W.cols.place(k, A.col_ptr[j + 1] - A.col_ptr[j] + 2);
    for (index_t p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p)
      if (std::abs(A.values[p]) >= drop && A.values[p] != 0.0) {
        W.cols.push(k, A.row_idx[p], A.values[p]);
        W.rows.push(A.row_idx[p], k, 0.0);
      }
  }
  reset_elimination(W, m);
  return nnz_b;
}

// Phase 2's repair (thesis 7.1.2): the logical of each row left without a
// pivot replaces a singular column, as a unit pivot; basic[] follows.
FactorResult repair_singular_columns(LuWork& W, index_t n, std::vector<index_t>& basic) {
  FactorResult result;
  result.rank = index_t(W.piv_row.size());
  for (std::size_t q = 0; q < W.singular_cols.size(); ++q) {
    const index_t pos = W.singular_cols[q], row = W.missing_rows[q];
    result.missing_positions.push_back(pos);
    result.missing_rows.push_back(row);
    basic[pos] = n + row;
    W.piv_row.push_back(row);
    W.piv_col.push_back(pos);
    W.piv_val.push_back(1.0);
    W.u_start.push_back(index_t(W.u_pos.size()));
    W.l_start.push_back(index_t(W.l_row.size()));
  }
  return result;
}

}  // namespace

// The steps of thesis 7.1.2: B as the active submatrix, phase 1 (the
// triangular singletons), phase 2 (the bump), the repair with logicals, then
// the factor in slot space with no updates yet.
FactorResult BasisFactor::factorize(const Csc<double>& A, std::vector<index_t>& basic) {
  check_basis(A, basic);
  const index_t m = A.rows;
  if (!data_ || data_->m != m || data_->max_updates != options_.max_updates) {
    data_ = std::make_shared<Data>();
    data_->allocate(m, options_.max_updates);
  }
  m_ = m;
  Data& d = *data_;
  LuWork& W = d.lu;
  const std::int64_t nnz_b = load_active_submatrix(W, A, basic, options_.drop_tolerance);
  Lu lu{W, options_, m};
  lu.active_cols = m;
  lu.column_singletons();
  lu.row_singletons();
  const index_t singletons = index_t(W.piv_row.size());
  lu.markowitz_bump();
  FactorResult result = repair_singular_columns(W, A.cols, basic);

  d.store_pivots();
  const std::size_t nnz_l = d.store_lower();
  const std::int64_t nnz_u = d.store_upper();
  d.clear_updates();

  stats_ = {};
  stats_.nnz_L = std::int64_t(nnz_l);
  stats_.nnz_U = nnz_u + m;
  stats_.nnz_R = 0;
  stats_.nnz_basis = nnz_b;
  stats_.singletons = singletons;
  stats_.bump = m - singletons;
  stats_.updates = 0;
  return result;
}

// ---- the factor in slot space (basis_factor.hpp: pivot k owns slot k) ----

// The permutations and U's diagonal from the pivot order.
void BasisFactor::Data::store_pivots() {
  n_slots = m;
  std::fill(position_of_slot.begin(), position_of_slot.end(), -1);
  std::fill(diag.begin(), diag.end(), 1.0);
  for (index_t s = 0; s < m; ++s) {
    slot_of_row[lu.piv_row[s]] = s;
    row_of_slot[s] = lu.piv_row[s];
    position_of_slot[s] = lu.piv_col[s];
    slot_of_position[lu.piv_col[s]] = s;
    diag[s] = lu.piv_val[s];
  }
}

// L by columns (pivot order = slot order) and by rows; returns nnz(L).
std::size_t BasisFactor::Data::store_lower() {
  const std::size_t nnz_l = lu.l_row.size();
  l_start.assign(lu.l_start.begin(), lu.l_start.end());
  l_idx.resize(nnz_l);
  l_val.assign(lu.l_val.begin(), lu.l_val.end());
  l_cols.clear();
  lt_start.assign(std::size_t(m) + 1, 0);
  for (std::size_t p = 0; p < nnz_l; ++p) {
    l_idx[p] = slot_of_row[lu.l_row[p]];
    ++lt_start[l_idx[p] + 1];
  }
  for (index_t s = 0; s < m; ++s) {
    if (l_start[s + 1] > l_start[s]) l_cols.push_back(s);
    lt_start[s + 1] += lt_start[s];
  }
  lt_idx.resize(nnz_l);
  lt_val.resize(nnz_l);
  std::vector<index_t>& fill = lu.urow_tmp;
  fill.assign(lt_start.begin(), lt_start.end() - 1);
  for (index_t s = 0; s < m; ++s)
    for (index_t p = l_start[s]; p < l_start[s + 1]; ++p) {
      const index_t q = fill[l_idx[p]]++;
      lt_idx[q] = s;
      lt_val[q] = l_val[p];
    }
  lt_rows.clear();
  for (index_t s = 0; s < m; ++s)
    if (lt_start[s + 1] > lt_start[s]) lt_rows.push_back(s);
  return nnz_l;
}

// U by rows and by columns, off-diagonal (the repaired positions' entries
// go); returns their number.
std::int64_t BasisFactor::Data::store_upper() {
  const std::vector<signed char>& repaired = lu.col_state;  // 2: singular position
  std::vector<index_t>& col_len = lu.urow_tmp;
  col_len.assign(std::size_t(m), 0);
  std::int64_t nnz = 0;
  for (std::size_t p = 0; p < lu.u_pos.size(); ++p)
    if (repaired[lu.u_pos[p]] != 2) {
      ++col_len[slot_of_position[lu.u_pos[p]]];
      ++nnz;
    }
  urow.reset(capacity, 2 * nnz + 4 * std::int64_t(capacity), true);
  ucol.reset(capacity, 2 * nnz + 4 * std::int64_t(capacity), true);
  for (index_t s = 0; s < m; ++s) {
    urow.place(s, lu.u_start[s + 1] - lu.u_start[s] + 2);
    ucol.place(s, col_len[s] + 1);
  }
  for (index_t s = 0; s < m; ++s)
    for (index_t p = lu.u_start[s]; p < lu.u_start[s + 1]; ++p) {
      if (repaired[lu.u_pos[p]] == 2) continue;
      const index_t j = slot_of_position[lu.u_pos[p]];
      urow.push(s, j, lu.u_val[p]);
      ucol.push(j, s, lu.u_val[p]);
    }
  nnz_u = nnz_u0 = nnz;
  return nnz;
}

// No Forrest-Tomlin updates yet: no row etas, no spike kept.
void BasisFactor::Data::clear_updates() {
  etas.clear();
  r_idx.clear();
  r_val.clear();
  r_eta.clear();
  r_next.clear();
  std::fill(r_head.begin(), r_head.end(), -1);
  forget_ft_spike();
  changed.clear();
}

}  // namespace balsa::lp
