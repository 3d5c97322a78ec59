// BasisFactor::forrest_tomlin_update: the Forrest-Tomlin update (thesis 7.2.2, eq. 7.17).
// The spike s = R_k..R_1 L^{-1} P a_q (kept by the last ftran(keep_ft_spike))
// replaces the U column of slot t (the leaving position's); moving column and
// row t to the end, row t's entries right of the diagonal are eliminated by
// the rows below it: r^T U_(>t) = U_(t,>t), a sparse solve with U^T from row
// t's pattern (eq. 7.45 reach). The row eta R_(k+1) = (t, fresh, r) then maps
// the spike to its new last entry d = s_t - r.s, the new diagonal; the new U
// column `fresh` is s without s_t. Slot t is left as an identity column/row.
// Spike and eta entries are kept unless exactly zero: dropping the spike's
// tiny entries (absolute 1e-14) cost two orders of magnitude of backward
// error after 20 updates on lp_e226 (unscaled) for little sparsity.
#include <algorithm>
#include <cmath>
#include <string>

#include "balsa/error.hpp"
#include "lp/basis/basis_factor_data.hpp"

namespace balsa::lp {

// The checks, then the steps of thesis 7.2.2: the row eta, the test of the new
// diagonal, slot t vacated, the spike appended as U's column `fresh`, the eta appended.
UpdateResult BasisFactor::forrest_tomlin_update(index_t position, double expected_pivot) {
  if (!data_) throw Error("BasisFactor::forrest_tomlin_update: the basis was not factorised");
  Data& d = *data_;
  if (position < 0 || position >= m_)
    throw DimensionError("BasisFactor::forrest_tomlin_update: position " + std::to_string(position) +
                         " is outside [0, " + std::to_string(m_) + ")");
  if (!d.ft_spike_valid)
    throw Error("BasisFactor::forrest_tomlin_update: no spike (call ftran with keep_ft_spike = true after the last "
                "update)");
  if (stats_.updates >= options_.max_updates) return UpdateResult::Refactor;
  const std::int64_t nnz_r = std::int64_t(d.r_idx.size());
  // Growth: nnz(U) + nnz(R) (U's diagonal counted) above 3 nnz(U after factorize) + m.
  if (d.nnz_u + nnz_r > 3 * (d.nnz_u0 + m_)) return UpdateResult::Refactor;

  const index_t t = d.slot_of_position[position];
  const std::size_t r_begin = d.r_idx.size();
  const double dnew = d.ft_row_eta(t);
  if (!d.ft_diagonal_acceptable(t, dnew, expected_pivot, options_.update_check_tolerance)) {
    d.r_idx.resize(r_begin);
    d.r_val.resize(r_begin);
    return UpdateResult::Refactor;
  }
  const index_t fresh = d.n_slots;
  d.ft_vacate_slot(t, fresh);
  d.ft_append_column(t, fresh, position, dnew);
  d.ft_append_eta(t, fresh, r_begin);
  std::sort(d.changed.begin(), d.changed.end());
  d.changed.erase(std::unique(d.changed.begin(), d.changed.end()), d.changed.end());
  d.forget_ft_spike();

  ++stats_.updates;
  stats_.nnz_U = d.nnz_u + m_;
  stats_.nnz_R = std::int64_t(d.r_idx.size());
  return UpdateResult::Ok;
}

// The row eta's entries (eq. 7.17): r^T U_(>t) = U_(t,>t), a sparse solve
// with U^T over the rows of U reached from row t (eq. 7.45), appended to
// r_idx/r_val. Returns the new diagonal d = s_t - r.s.
double BasisFactor::Data::ft_row_eta(index_t t) {
  index_t n = 0;
  {
    const index_t len = urow.len[t];
    const index_t* ix = urow.indices(t);
    const double* vx = urow.values(t);
    index_t* roots = list.data();
    for (index_t k = 0; k < len; ++k) {
      w[ix[k]] = vx[k];
      roots[k] = ix[k];
    }
    n = reach(
        roots, len, [&](index_t s) { return std::pair{urow.idx.data() + urow.start[s], urow.len[s]}; }, topo.data());
    for (index_t k = 0; k < len; ++k)  // roots not reached (a value that was exactly 0)
      if (mark[ix[k]] != stamp) w[ix[k]] = 0.0;
  }
  double dnew = ft_spike[t];
  for (index_t q = n - 1; q >= 0; --q) {
    const index_t j = topo[q];
    if (w[j] == 0.0) continue;
    const double x = w[j] / diag[j];
    w[j] = 0.0;
    if (x == 0.0) continue;
    const index_t len = urow.len[j];
    const index_t* ix = urow.indices(j);
    const double* vx = urow.values(j);
    for (index_t p = 0; p < len; ++p) w[ix[p]] -= vx[p] * x;
    r_idx.push_back(j);
    r_val.push_back(x);
    dnew -= x * ft_spike[j];
  }
  return dnew;
}

// The checks of the new diagonal (thesis 7.2.2): neither (nearly) zero nor
// off the old diagonal times alpha_r (det B_new / det B_old = alpha_r).
bool BasisFactor::Data::ft_diagonal_acceptable(index_t t, double dnew, double expected_pivot,
                                               double tolerance) const {
  double smax = 0.0;
  for (index_t q = 0; q < ft_spike_count; ++q) smax = std::max(smax, std::abs(ft_spike[ft_spike_list[q]]));
  const double expected = diag[t] * expected_pivot;
  const bool tiny = dnew == 0.0 || std::abs(dnew) < 1e-12 * std::max(1.0, smax);
  const bool off = std::abs(dnew - expected) > tolerance * std::max(std::abs(dnew), std::abs(expected));
  return !tiny && !off;
}

// Row t and column t leave U; slot t stays as an identity column and row.
// The changed columns (t, fresh and those that lose row t's entry) are listed.
void BasisFactor::Data::ft_vacate_slot(index_t t, index_t fresh) {
  changed.clear();
  changed.push_back(t);
  changed.push_back(fresh);
  for (index_t k = 0; k < urow.len[t]; ++k) {
    const index_t j = urow.indices(t)[k];
    ucol.remove_at(j, ucol.find(j, t));
    changed.push_back(j);
  }
  nnz_u -= urow.len[t];
  urow.clear(t);
  for (index_t k = 0; k < ucol.len[t]; ++k) {
    const index_t i = ucol.indices(t)[k];
    urow.remove_at(i, urow.find(i, t));
  }
  nnz_u -= ucol.len[t];
  ucol.clear(t);
  diag[t] = 1.0;
  position_of_slot[t] = -1;
}

// The new last column of U, slot `fresh`: the spike without its entry in
// the vacated slot t, diagonal d; basis position `position` moves to it.
void BasisFactor::Data::ft_append_column(index_t t, index_t fresh, index_t position, double dnew) {
  ucol.ensure(fresh, ft_spike_count);
  for (index_t q = 0; q < ft_spike_count; ++q) {
    const index_t i = ft_spike_list[q];
    const double v = ft_spike[i];
    if (i == t || v == 0.0) continue;
    ucol.push(fresh, i, v);
    urow.push(i, fresh, v);
    ++nnz_u;
  }
  diag[fresh] = dnew;
  position_of_slot[fresh] = position;
  slot_of_position[position] = fresh;
  ++n_slots;
}

// The row eta R_(k+1) = (t, fresh, r) with the entries r_idx/r_val from
// r_begin on, each linked into its slot's list (the sparse FTRAN's R phase).
void BasisFactor::Data::ft_append_eta(index_t t, index_t fresh, std::size_t r_begin) {
  const index_t k = index_t(etas.size());
  etas.push_back({t, fresh, index_t(r_begin), index_t(r_idx.size())});
  for (std::size_t e = r_begin; e < r_idx.size(); ++e) {
    const index_t j = r_idx[e];
    r_eta.push_back(k);
    r_next.push_back(r_head[j]);
    r_head[j] = index_t(e);
  }
}

}  // namespace balsa::lp
