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
  const index_t m = m_;
  double* w = d.w.data();
  index_t* list = d.list.data();
  const double hd = options_.hypersparse_density;

  // Gather: row i -> slot slot_of_row[i] (the permutation P).
  index_t cnt = d.gather(rhs, d.slot_of_row.data(), m);

  // L: z = L^{-1} P a.
  if (d.use_hyper(Data::FtranL, cnt, hd)) {
    const index_t* ls = d.l_start.data();
    const index_t* li = d.l_idx.data();
    const double* lv = d.l_val.data();
    index_t* topo = d.topo.data();
    const index_t n = d.reach(list, cnt, [&](index_t s) { return std::pair{li + ls[s], ls[s + 1] - ls[s]}; }, topo);
    for (index_t q = n - 1; q >= 0; --q) {
      const index_t s = topo[q];
      const double x = w[s];
      if (x == 0.0) continue;
      for (index_t p = ls[s]; p < ls[s + 1]; ++p) w[li[p]] -= lv[p] * x;
    }
    d.list.swap(d.topo);
    list = d.list.data();
    cnt = n;
  } else {
    const index_t* ls = d.l_start.data();
    const index_t* li = d.l_idx.data();
    const double* lv = d.l_val.data();
    for (const index_t s : d.l_cols) {
      const double x = w[s];
      if (x == 0.0) continue;
      d.scatter_listed(li + ls[s], lv + ls[s], ls[s + 1] - ls[s], x, cnt);
    }
  }
  d.record(Data::FtranL, cnt);

  // R: the row etas, z[fresh] = z[t] - r.z, z[t] = 0.
  if (!d.etas.empty()) {
    const index_t ne = index_t(d.etas.size());
    double* acc = d.acc.data();
    std::fill(acc, acc + ne, 0.0);
    const index_t* head = d.r_head.data();
    const index_t* nxt = d.r_next.data();
    const index_t* eta_of = d.r_eta.data();
    const double* rv = d.r_val.data();
    for (index_t q = 0; q < cnt; ++q) {
      const index_t j = list[q];
      const double x = w[j];
      if (x == 0.0) continue;
      for (index_t e = head[j]; e >= 0; e = nxt[e]) acc[eta_of[e]] += rv[e] * x;
    }
    for (index_t k = 0; k < ne; ++k) {
      const detail::Eta& eta = d.etas[k];
      const double v = w[eta.t] - acc[k];
      w[eta.t] = 0.0;
      if (v == 0.0) continue;
      w[eta.fresh] = v;
      d.list_once(eta.fresh, cnt);
      for (index_t e = head[eta.fresh]; e >= 0; e = nxt[e]) acc[eta_of[e]] += rv[e] * v;
    }
  }

  if (keep_ft_spike) {
    for (index_t q = 0; q < d.ft_spike_count; ++q) d.ft_spike[d.ft_spike_list[q]] = 0.0;
    index_t sc = 0;
    for (index_t q = 0; q < cnt; ++q) {
      const index_t s = list[q];
      if (w[s] == 0.0) continue;
      d.ft_spike[s] = w[s];
      d.ft_spike_list[sc++] = s;
    }
    d.ft_spike_count = sc;
    d.ft_spike_valid = true;
  }

  // U: U x = z, column-oriented; the result goes to position_of_slot.
  const index_t* pos_of = d.position_of_slot.data();
  const double* diag = d.diag.data();
  const index_t* ustart = d.ucol.start.data();
  const index_t* ulen = d.ucol.len.data();
  const index_t* uidx = d.ucol.idx.data();
  const double* uval = d.ucol.val.data();
  index_t out = 0;
  double* values = rhs.values.data();
  index_t* index = rhs.index.data();
  auto finish = [&](index_t s) {  // w[s] is final: solve for x[s], scatter its column
    double x = w[s];
    if (x == 0.0) return;
    w[s] = 0.0;
    x /= diag[s];
    const index_t len = ulen[s];
    const index_t* ui = uidx + ustart[s];
    const double* uv = uval + ustart[s];
    for (index_t p = 0; p < len; ++p) w[ui[p]] -= uv[p] * x;
    if (x == 0.0) return;  // underflowed in the division: not listed
    const index_t pos = pos_of[s];
    values[pos] = x;
    index[out++] = pos;
  };
  if (d.use_hyper(Data::FtranU, cnt, hd)) {
    index_t* topo = d.topo.data();
    const index_t n = d.reach(list, cnt, [&](index_t s) { return std::pair{uidx + ustart[s], ulen[s]}; }, topo);
    for (index_t q = n - 1; q >= 0; --q) finish(topo[q]);
  } else {
    for (index_t s = d.n_slots - 1; s >= 0; --s) finish(s);
  }
  d.record(Data::FtranU, out);
  rhs.count = out;
}

void BasisFactor::btran(SparseVector& rhs) {
  Data& d = begin_solve(rhs, "BasisFactor::btran");
  const index_t m = m_;
  double* w = d.w.data();
  index_t* list = d.list.data();
  const double hd = options_.hypersparse_density;

  // Gather: position p -> its slot.
  index_t cnt = d.gather(rhs, d.slot_of_position.data(), m);

  // U^T y = w, row-oriented (push along the rows of U).
  {
    const index_t* ustart = d.urow.start.data();
    const index_t* ulen = d.urow.len.data();
    const index_t* uidx = d.urow.idx.data();
    const double* uval = d.urow.val.data();
    const double* diag = d.diag.data();
    if (d.use_hyper(Data::BtranU, cnt, hd)) {
      index_t* topo = d.topo.data();
      const index_t n = d.reach(list, cnt, [&](index_t s) { return std::pair{uidx + ustart[s], ulen[s]}; }, topo);
      for (index_t q = n - 1; q >= 0; --q) {
        const index_t s = topo[q];
        if (w[s] == 0.0) continue;
        const double x = w[s] / diag[s];
        w[s] = x;
        const index_t len = ulen[s];
        const index_t* ui = uidx + ustart[s];
        const double* uv = uval + ustart[s];
        for (index_t p = 0; p < len; ++p) w[ui[p]] -= uv[p] * x;
      }
      d.list.swap(d.topo);
      list = d.list.data();
      cnt = n;
    } else {
      const index_t ns = d.n_slots;
      for (index_t s = 0; s < ns; ++s) {
        if (w[s] == 0.0) continue;
        const double x = w[s] / diag[s];
        w[s] = x;
        d.scatter_listed(uidx + ustart[s], uval + ustart[s], ulen[s], x, cnt);
      }
    }
    d.record(Data::BtranU, cnt);
  }

  // R^T in reverse: v = y[fresh]; y[fresh] = 0; y[t] = v; y[j] -= r_j v.
  {
    for (auto it = d.etas.rbegin(); it != d.etas.rend(); ++it) {
      const double v = w[it->fresh];
      if (v == 0.0) continue;
      w[it->fresh] = 0.0;
      w[it->t] = v;
      d.list_once(it->t, cnt);
      d.scatter_listed(d.r_idx.data() + it->begin, d.r_val.data() + it->begin, it->end - it->begin, v, cnt);
    }
  }

  // L^T y = w (push along the rows of L, descending), result to row_of_slot.
  const index_t* ts = d.lt_start.data();
  const index_t* ti = d.lt_idx.data();
  const double* tv = d.lt_val.data();
  const index_t* row_of = d.row_of_slot.data();
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
  if (d.use_hyper(Data::BtranL, cnt, hd)) {
    index_t* topo = d.topo.data();
    const index_t n = d.reach(list, cnt, [&](index_t s) { return std::pair{ti + ts[s], ts[s + 1] - ts[s]}; }, topo);
    for (index_t q = n - 1; q >= 0; --q) {
      const index_t s = topo[q];
      const double x = w[s];
      if (x == 0.0) continue;
      for (index_t p = ts[s]; p < ts[s + 1]; ++p) w[ti[p]] -= tv[p] * x;
    }
    for (index_t q = 0; q < n; ++q) emit(topo[q]);
  } else {
    for (auto it = d.lt_rows.rbegin(); it != d.lt_rows.rend(); ++it) {
      const index_t s = *it;
      const double x = w[s];
      if (x == 0.0) continue;
      for (index_t p = ts[s]; p < ts[s + 1]; ++p) w[ti[p]] -= tv[p] * x;
    }
    for (index_t s = 0; s < m; ++s) emit(s);
  }
  d.record(Data::BtranL, out);
  rhs.count = out;
}

}  // namespace balsa::lp
