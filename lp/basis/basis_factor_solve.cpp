// BasisFactor::ftran / btran. Each triangular phase (L, the row etas R, U;
// transposed in reverse for BTRAN) works on the slot-space work vector w and
// its index list. L and U choose per call: a hypersparse solve (thesis eq.
// 7.45: depth-first reach over the factor's graph from the nonzeros, then
// only the reached slots in topological order) while the list and the
// phase's recent output density (Data::est) are below hypersparse_density,
// else a sweep in slot order that still tracks the nonzeros it creates (a
// stamp per slot), so the next phase knows the count. No allocation: every
// work array is in Data, sized m + max_updates + 1 at the first factorize.
// The row etas are applied by slot (each nonzero pushes r_kj z_j into the
// etas that hold it), which costs O(k + entries touched).
#include <cmath>
#include <string>

#include "balsa/error.hpp"
#include "lp/basis/basis_factor_data.hpp"

namespace balsa::lp {
namespace {

// Only exact zeros leave a solve's output (the finish/emit steps below): an
// absolute drop would lose the tiny duals of badly scaled LPs (a row of
// 1e100s has duals near 1e-100).

void check_vector(const SparseVector& v, index_t m, const char* where) {
  if (v.size() != m)
    throw DimensionError(std::string(where) + ": the vector has " + std::to_string(v.size()) + " entries, the basis " +
                         std::to_string(m) + " rows");
}

}  // namespace

index_t BasisFactor::Data::gather(SparseVector& rhs, const index_t* slot_of, index_t rows) {
  const std::uint32_t st = new_stamp();
  index_t cnt = 0;
  auto take = [&](index_t k) {
    const double v = rhs.values[k];
    if (v == 0.0) return;
    rhs.values[k] = 0.0;
    const index_t s = slot_of[k];
    w[s] = v;
    mark[s] = st;
    list[cnt++] = s;
  };
  if (rhs.count >= 0 && rhs.count <= rows) {
    for (index_t k = 0; k < rhs.count; ++k) take(rhs.index[k]);
  } else {
    for (index_t k = 0; k < rows; ++k) take(k);
  }
  rhs.count = 0;
  return cnt;
}

// What every solve checks and prepares: a factor, rhs of the basis' size,
// room in rhs.index for a listed output.
BasisFactor::Data& BasisFactor::begin_solve(SparseVector& rhs, const char* where) {
  if (!data_) throw Error(std::string(where) + ": the basis was not factorised");
  check_vector(rhs, m_, where);
  if (index_t(rhs.index.size()) < m_) rhs.index.resize(std::size_t(m_));
  return *data_;
}

void BasisFactor::ftran(SparseVector& rhs, bool keep_ft_spike) {
  Data& d = begin_solve(rhs, "BasisFactor::ftran");
  const double hd = options_.hypersparse_density;
  index_t cnt = d.gather(rhs, d.slot_of_row.data(), m_);  // row i -> slot slot_of_row[i] (P)
  cnt = d.ftran_lower(cnt, hd);
  d.record(Data::FtranL, cnt);
  d.ftran_row_etas(cnt);
  if (keep_ft_spike) d.keep_ft_spike(cnt);
  const index_t out = d.ftran_upper(cnt, hd, rhs);
  d.record(Data::FtranU, out);
  rhs.count = out;
}

void BasisFactor::btran(SparseVector& rhs) {
  Data& d = begin_solve(rhs, "BasisFactor::btran");
  const double hd = options_.hypersparse_density;
  index_t cnt = d.gather(rhs, d.slot_of_position.data(), m_);  // position p -> its slot
  cnt = d.btran_upper(cnt, hd);
  d.record(Data::BtranU, cnt);
  d.btran_row_etas(cnt);
  const index_t out = d.btran_lower(cnt, hd, rhs);
  d.record(Data::BtranL, out);
  rhs.count = out;
}

// The hypersparse solve with L or L^T (thesis eq. 7.45), unit diagonal, its
// off-diagonal entries as lists by slot (start, idx, val): the slots reached
// from the cnt listed go to topo in postorder and are eliminated in reverse
// (topological) order. Returns their number.
index_t BasisFactor::Data::unit_hypersparse_solve(const index_t* start, const index_t* idx, const double* val,
                                                  index_t cnt) {
  index_t* tp = topo.data();
  const index_t n =
      reach(list.data(), cnt, [&](index_t s) { return std::pair{idx + start[s], start[s + 1] - start[s]}; }, tp);
  for (index_t q = n - 1; q >= 0; --q) {
    const index_t s = tp[q];
    const double x = w[s];
    if (x == 0.0) continue;
    for (index_t p = start[s]; p < start[s + 1]; ++p) w[idx[p]] -= val[p] * x;
  }
  return n;
}

// ---- FTRAN's phases (thesis 7.18: z = L^{-1} P a, z = R_k..R_1 z, U x = z) ----

// L: z = L^{-1} P a on the cnt listed slots, by reach (eq. 7.45) or by a
// sweep over L's nonempty columns. Returns the new count.
index_t BasisFactor::Data::ftran_lower(index_t cnt, double hd) {
  const index_t* ls = l_start.data();
  const index_t* li = l_idx.data();
  const double* lv = l_val.data();
  if (use_hyper(FtranL, cnt, hd)) {
    const index_t n = unit_hypersparse_solve(ls, li, lv, cnt);
    list.swap(topo);
    return n;
  }
  for (const index_t s : l_cols) {
    const double x = w[s];
    if (x == 0.0) continue;
    scatter_listed(li + ls[s], lv + ls[s], ls[s + 1] - ls[s], x, cnt);
  }
  return cnt;
}

// R: the row etas in order, z[fresh] = z[t] - r.z, z[t] = 0 (eq. 7.17),
// pushed by slot: each listed nonzero adds r_kj z_j to the etas holding j.
void BasisFactor::Data::ftran_row_etas(index_t& cnt) {
  if (etas.empty()) return;
  const index_t ne = index_t(etas.size());
  double* a = acc.data();
  std::fill(a, a + ne, 0.0);
  const index_t* head = r_head.data();
  const index_t* nxt = r_next.data();
  const index_t* eta_of = r_eta.data();
  const double* rv = r_val.data();
  for (index_t q = 0; q < cnt; ++q) {
    const index_t j = list[q];
    const double x = w[j];
    if (x == 0.0) continue;
    for (index_t e = head[j]; e >= 0; e = nxt[e]) a[eta_of[e]] += rv[e] * x;
  }
  for (index_t k = 0; k < ne; ++k) {
    const detail::Eta& eta = etas[k];
    const double v = w[eta.t] - a[k];
    w[eta.t] = 0.0;
    if (v == 0.0) continue;
    w[eta.fresh] = v;
    list_once(eta.fresh, cnt);
    for (index_t e = head[eta.fresh]; e >= 0; e = nxt[e]) a[eta_of[e]] += rv[e] * v;
  }
}

// The Forrest-Tomlin spike (thesis 7.2.2): z before the U solve, kept for
// the next forrest_tomlin_update.
void BasisFactor::Data::keep_ft_spike(index_t cnt) {
  forget_ft_spike();
  index_t sc = 0;
  for (index_t q = 0; q < cnt; ++q) {
    const index_t s = list[q];
    if (w[s] == 0.0) continue;
    ft_spike[s] = w[s];
    ft_spike_list[sc++] = s;
  }
  ft_spike_count = sc;
  ft_spike_valid = true;
}

// U: U x = z, column-oriented (by reach or a backward sweep over the
// slots); x goes to rhs at position_of_slot, w is left zero. Returns the
// count listed in rhs.
index_t BasisFactor::Data::ftran_upper(index_t cnt, double hd, SparseVector& rhs) {
  const index_t* pos_of = position_of_slot.data();
  const double* dg = diag.data();
  const index_t* ustart = ucol.start.data();
  const index_t* ulen = ucol.len.data();
  const index_t* uidx = ucol.idx.data();
  const double* uval = ucol.val.data();
  index_t out = 0;
  double* values = rhs.values.data();
  index_t* index = rhs.index.data();
  auto finish = [&](index_t s) {  // w[s] is final: solve for x[s], scatter its column
    double x = w[s];
    if (x == 0.0) return;
    w[s] = 0.0;
    x /= dg[s];
    const index_t len = ulen[s];
    const index_t* ui = uidx + ustart[s];
    const double* uv = uval + ustart[s];
    for (index_t p = 0; p < len; ++p) w[ui[p]] -= uv[p] * x;
    if (x == 0.0) return;  // underflowed in the division: not listed
    const index_t pos = pos_of[s];
    values[pos] = x;
    index[out++] = pos;
  };
  if (use_hyper(FtranU, cnt, hd)) {
    index_t* tp = topo.data();
    const index_t n = reach(list.data(), cnt, [&](index_t s) { return std::pair{uidx + ustart[s], ulen[s]}; }, tp);
    for (index_t q = n - 1; q >= 0; --q) finish(tp[q]);
  } else {
    for (index_t s = n_slots - 1; s >= 0; --s) finish(s);
  }
  return out;
}

// ---- BTRAN's phases: the transposes in reverse order ----

// U^T y = w, row-oriented (push along the rows of U), by reach or a forward
// sweep. Returns the new count.
index_t BasisFactor::Data::btran_upper(index_t cnt, double hd) {
  const index_t* ustart = urow.start.data();
  const index_t* ulen = urow.len.data();
  const index_t* uidx = urow.idx.data();
  const double* uval = urow.val.data();
  const double* dg = diag.data();
  if (use_hyper(BtranU, cnt, hd)) {
    index_t* tp = topo.data();
    const index_t n = reach(list.data(), cnt, [&](index_t s) { return std::pair{uidx + ustart[s], ulen[s]}; }, tp);
    for (index_t q = n - 1; q >= 0; --q) {
      const index_t s = tp[q];
      if (w[s] == 0.0) continue;
      const double x = w[s] / dg[s];
      w[s] = x;
      const index_t len = ulen[s];
      const index_t* ui = uidx + ustart[s];
      const double* uv = uval + ustart[s];
      for (index_t p = 0; p < len; ++p) w[ui[p]] -= uv[p] * x;
    }
    list.swap(topo);
    return n;
  }
  for (index_t s = 0; s < n_slots; ++s) {
    if (w[s] == 0.0) continue;
    const double x = w[s] / dg[s];
    w[s] = x;
    scatter_listed(uidx + ustart[s], uval + ustart[s], ulen[s], x, cnt);
  }
  return cnt;
}

// R^T in reverse: v = y[fresh]; y[fresh] = 0; y[t] = v; y[j] -= r_j v.
void BasisFactor::Data::btran_row_etas(index_t& cnt) {
  for (auto it = etas.rbegin(); it != etas.rend(); ++it) {
    const double v = w[it->fresh];
    if (v == 0.0) continue;
    w[it->fresh] = 0.0;
    w[it->t] = v;
    list_once(it->t, cnt);
    scatter_listed(r_idx.data() + it->begin, r_val.data() + it->begin, it->end - it->begin, v, cnt);
  }
}

// L^T y = w (push along the rows of L, descending), by reach or a sweep;
// y goes to rhs at row_of_slot, w is left zero. Returns the count listed.
index_t BasisFactor::Data::btran_lower(index_t cnt, double hd, SparseVector& rhs) {
  const index_t* ts = lt_start.data();
  const index_t* ti = lt_idx.data();
  const double* tv = lt_val.data();
  const index_t* row_of = row_of_slot.data();
  double* values = rhs.values.data();
  index_t* index = rhs.index.data();
  index_t out = 0;
  auto emit = [&](index_t s) {
    const double x = w[s];
    if (x == 0.0) return;
    w[s] = 0.0;
    const index_t i = row_of[s];
    values[i] = x;
    index[out++] = i;
  };
  if (use_hyper(BtranL, cnt, hd)) {
    const index_t n = unit_hypersparse_solve(ts, ti, tv, cnt);
    for (index_t q = 0; q < n; ++q) emit(topo[q]);
  } else {
    for (auto it = lt_rows.rbegin(); it != lt_rows.rend(); ++it) {
      const index_t s = *it;
      const double x = w[s];
      if (x == 0.0) continue;
      for (index_t p = ts[s]; p < ts[s + 1]; ++p) w[ti[p]] -= tv[p] * x;
    }
    for (index_t s = 0; s < m; ++s) emit(s);
  }
  return out;
}

}  // namespace balsa::lp
