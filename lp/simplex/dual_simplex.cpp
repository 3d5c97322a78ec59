// One iteration of the dual simplex (thesis Alg. 7.1 in its dual form):
// CHUZR by dual steepest edge, BTRAN, PRICE, the bound flipping ratio test
// with Harris' tolerances (CHUZC), FTRAN of the entering column, of the
// flipped columns and of rho_r (the steepest-edge update), and the update.
#include <algorithm>
#include <cmath>

#include "lp/simplex/simplex_core.hpp"

namespace balsa::lp {

// CHUZR: the basic variable with the largest infeasibility^2 / weight.
index_t SimplexCore::choose_row() {
  const Clock::time_point t0 = Clock::now();
  index_t best = -1;
  double best_score = 0;
  for (index_t i = 0; i < m_; ++i) {
    const double v = primal_infeasibility(i);
    if (v == 0 || (!rejected_.empty() && rejected_[i])) continue;
    const double score = v * v / weight_[i];
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  stats_.pricing_seconds += seconds_since(t0);
  return best;
}

// PRICE: alpha_rj = rho_r^T a_j for every nonbasic j, row-wise through the
// rows of rho_r's nonzeros when rho_r is sparse, column by column otherwise.
void SimplexCore::price(SparseVector& row) {
  for (index_t k = 0; k < row.count; ++k) {
    row.values[row.index[k]] = 0.0;
    row_mark_[row.index[k]] = 0;
  }
  row.count = 0;
  auto add = [&](index_t j, double v) {
    if (!row_mark_[j]) {
      row_mark_[j] = 1;
      row.index[row.count++] = j;
    }
    row.values[j] += v;
  };
  // Row-wise costs the rows of rho's nonzeros, column-wise all of A.
  bool sparse = !rho_.dense();
  if (sparse) {
    std::int64_t work = 0;
    const std::int64_t limit = std::int64_t(lp_.A.nnz()) / 2;
    for (index_t k = 0; k < rho_.count && work <= limit; ++k)
      work += lp_.rows.row_ptr[rho_.index[k] + 1] - lp_.rows.row_ptr[rho_.index[k]];
    sparse = work <= limit;
  }
  if (sparse) {
    for (index_t k = 0; k < rho_.count; ++k) {
      const index_t i = rho_.index[k];
      const double v = rho_.values[i];
      if (v == 0) continue;
      for (index_t e = lp_.rows.row_ptr[i]; e < lp_.rows.row_ptr[i + 1]; ++e) {
        const index_t j = lp_.rows.col_idx[e];
        if (position_[j] < 0) add(j, v * lp_.rows.values[e]);
      }
      if (position_[n_ + i] < 0) add(n_ + i, v);
    }
  } else {
    const std::vector<double>& rho = rho_.values;
    for (index_t j = 0; j < n_; ++j) {
      if (position_[j] >= 0) continue;
      double s = 0;
      for (index_t e = lp_.A.col_ptr[j]; e < lp_.A.col_ptr[j + 1]; ++e) s += rho[lp_.A.row_idx[e]] * lp_.A.values[e];
      if (s != 0) add(j, s);
    }
    for (index_t i = 0; i < m_; ++i)
      if (position_[n_ + i] < 0 && rho[i] != 0) add(n_ + i, rho[i]);
  }
}

// CHUZC: the bound flipping ratio test (Koberstein's BFRT) with Harris'
// two passes. The leaving variable is below its lower bound (delta < 0) or
// above its upper; t is the dual step length. A candidate j is nonbasic,
// not fixed, and its reduced cost moves towards the wrong sign as t grows;
// its ratio is |d_j| / |alpha_rj|. Breakpoints are passed in groups (all
// candidates within the Harris bound of the smallest relaxed ratio) while the
// slope (the leaving variable's remaining infeasibility) stays positive after
// flipping the group's boxed variables; the entering variable is the group's
// largest |alpha_rj|. Returns -1 when no candidate is left: the dual ray is
// unbounded, the LP primal infeasible.
index_t SimplexCore::choose_column(double delta) {
  const double s = delta < 0 ? 1.0 : -1.0;
  const double tol = options_.dual_tolerance;
  candidates_.clear();
  flipped_.clear();
  for (index_t k = 0; k < row_.count; ++k) {
    const index_t j = row_.index[k];
    if (position_[j] >= 0 || lower_[j] == upper_[j]) continue;
    const double a = s * row_.values[j];
    if (std::abs(a) < kPivotTolerance) continue;
    const bool has_lo = lower_[j] > -lp_infinity, has_up = upper_[j] < lp_infinity;
    double dj;
    if (!has_lo && !has_up) {
      dj = std::abs(d_[j]);
    } else if (has_lo && x_[j] == lower_[j]) {
      if (a > 0) continue;
      dj = d_[j];
    } else if (has_up && x_[j] == upper_[j]) {
      if (a < 0) continue;
      dj = -d_[j];
    } else {  // between bounds: either direction
      dj = std::abs(d_[j]);
    }
    candidates_.emplace_back(std::max(dj, 0.0) / std::abs(a), j);
  }
  double slope = std::abs(delta);
  std::size_t live = candidates_.size();
  while (live > 0) {
    double bound = lp_infinity;
    for (std::size_t k = 0; k < live; ++k) {
      const index_t j = candidates_[k].second;
      bound = std::min(bound, candidates_[k].first + tol / std::abs(row_.values[j]));
    }
    index_t best = -1;
    double best_alpha = 0, reduction = 0;
    for (std::size_t k = 0; k < live; ++k) {
      if (candidates_[k].first > bound) continue;
      const index_t j = candidates_[k].second;
      const double a = std::abs(row_.values[j]);
      reduction += a * (upper_[j] - lower_[j]);  // +inf unless boxed
      if (a > best_alpha) {
        best_alpha = a;
        best = j;
      }
    }
    // Passing the group must leave the leaving variable infeasible by more
    // than the tolerance; otherwise its best candidate enters here.
    if (!(slope - reduction > options_.primal_tolerance)) return best;
    // Every candidate of the group is passed: its boxed variables flip.
    slope -= reduction;
    std::size_t kept = 0;
    for (std::size_t k = 0; k < live; ++k) {
      if (candidates_[k].first > bound)
        candidates_[kept++] = candidates_[k];
      else
        flipped_.push_back(candidates_[k].second);
    }
    live = kept;
  }
  flipped_.clear();
  return -1;
}

// One dual iteration with leaving row r (thesis Alg. 7.1, dual form, as
// HiGHS' iterate(): BTRAN, PRICE and CHUZC, FTRAN, the flips, the DSE FTRAN,
// then the updates of d, x, the weights and the basis factor).
SimplexCore::Step SimplexCore::dual_iteration(index_t r) {
  const index_t p = basic_[r];
  const double delta = primal_infeasibility(r);
  btran_pivot_row(r);
  Clock::time_point t0 = Clock::now();
  price(row_);
  const index_t q = choose_column(delta);
  stats_.pricing_seconds += seconds_since(t0);
  if (q < 0) return Step::Infeasible;
  if (!ftran_entering_column(q, r)) return Step::Retry;
  const double alpha = column_.values[r];
  ftran_bound_flips();
  if (options_.pricing == DualPricing::SteepestEdge) ftran_dse();
  t0 = Clock::now();
  update_duals(p, q, alpha);
  update_primal(p, q, delta, alpha);
  update_dual_weights(r, alpha);
  stats_.update_seconds += seconds_since(t0);
  replace_basic(r, q, alpha);  // the factor's update times itself
  return Step::Done;
}

// BTRAN (thesis Alg. 7.1): rho_r = B^{-T} e_r, its density noted for the
// basis solves' model (eq. 7.45).
void SimplexCore::btran_pivot_row(index_t r) {
  rho_.clear();
  rho_.set(r, 1.0);
  basis_.btran(rho_);
  basis_.note_density(rho_.dense() ? 1.0 : double(rho_.count) / double(m_));
}

// FTRAN of the entering column (keeping the Forrest-Tomlin spike), checked
// against the pivot row's alpha_rq: false (retry) when they disagree or the
// pivot is tiny, after a fresh factor or, on a fresh one, leaving row r out.
bool SimplexCore::ftran_entering_column(index_t q, index_t r) {
  const double alpha_row = row_.values[q];
  load_column(q, column_);
  basis_.ftran(column_, true);
  const double alpha = column_.values[r];
  if (std::abs(alpha - alpha_row) > 1e-7 * (1.0 + std::abs(alpha)) || std::abs(alpha) < kPivotTolerance) {
    if (!fresh_factor_) {  // the factor has drifted: start again from a fresh one
      reinvert();
      return false;
    }
    if (std::abs(alpha) < kPivotTolerance) {  // even fresh: leave this row out for now
      reject_row(r);
      return false;
    }
  }
  return true;
}

// The bound flips of CHUZC (Koberstein's BFRT): the flipped variables move
// to their other bound and x_B follows through an FTRAN of their columns'
// change, B^{-1} sum_j a_j (x_j' - x_j).
void SimplexCore::ftran_bound_flips() {
  if (flipped_.empty()) return;
  Clock::time_point t0 = Clock::now();
  flips_.clear();
  for (index_t j : flipped_) {
    const double to = x_[j] == lower_[j] ? upper_[j] : lower_[j];
    const double step = to - x_[j];
    x_[j] = to;
    if (j < n_) {
      for (index_t e = lp_.A.col_ptr[j]; e < lp_.A.col_ptr[j + 1]; ++e)
        flips_.values[lp_.A.row_idx[e]] += lp_.A.values[e] * step;
    } else {
      flips_.values[j - n_] += step;
    }
  }
  flips_.rebuild_index();
  stats_.update_seconds += seconds_since(t0);
  basis_.ftran(flips_);
  t0 = Clock::now();
  for_each_nonzero(flips_, [&](index_t i) { x_[basic_[i]] -= flips_.values[i]; });
  stats_.bound_flips += std::int64_t(flipped_.size());
  stats_.update_seconds += seconds_since(t0);
}

// Dual steepest edge (Forrest & Goldfarb): tau = B^{-1} rho_r for the
// weights' update.
void SimplexCore::ftran_dse() {
  tau_.clear();
  if (rho_.dense()) {
    tau_.values = rho_.values;
    tau_.rebuild_index();
  } else {
    for (index_t k = 0; k < rho_.count; ++k) tau_.set(rho_.index[k], rho_.values[rho_.index[k]]);
  }
  basis_.ftran(tau_);
}

// The dual step: the entering reduced cost goes to zero (a wrong-signed one,
// allowed by Harris, is shifted to zero first), d -= theta_d alpha_r, and the
// leaving variable p gets -theta_d.
void SimplexCore::update_duals(index_t p, index_t q, double alpha) {
  const double dq = d_[q];
  const bool q_lower = x_[q] == lower_[q] && lower_[q] > -lp_infinity;
  const bool q_upper = x_[q] == upper_[q] && upper_[q] < lp_infinity;
  if ((q_lower && !q_upper && dq < 0) || (q_upper && !q_lower && dq > 0) || (!q_lower && !q_upper && dq != 0)) {
    cost_[q] -= dq;
    d_[q] = 0;
    shifted_ = true;
  }
  const double theta_d = d_[q] / alpha;
  for (index_t k = 0; k < row_.count; ++k) {
    const index_t j = row_.index[k];
    d_[j] -= theta_d * row_.values[j];
  }
  d_[q] = 0.0;
  d_[p] = -theta_d;
}

// The primal step: the leaving variable p goes to its violated bound (below
// it when delta < 0), x_B along the entering column, x_q by theta_p.
void SimplexCore::update_primal(index_t p, index_t q, double delta, double alpha) {
  const double bound = delta < 0 ? lower_[p] : upper_[p];
  const double theta_p = (x_[p] - bound) / alpha;
  for_each_nonzero(column_, [&](index_t i) { x_[basic_[i]] -= theta_p * column_.values[i]; });
  x_[q] += theta_p;
  x_[p] = bound;
}

// The pricing weights of the new basis: dual steepest edge (exact, with tau)
// or Devex (approximate reference framework).
void SimplexCore::update_dual_weights(index_t r, double alpha) {
  const double w_r = weight_[r];
  if (options_.pricing == DualPricing::SteepestEdge) {
    double rho_norm = 0;
    for_each_nonzero(rho_, [&](index_t i) { rho_norm += rho_.values[i] * rho_.values[i]; });
    auto update = [&](index_t i) {
      if (i == r) return;
      const double ratio = column_.values[i] / alpha;
      if (ratio == 0) return;
      weight_[i] = std::max(weight_[i] + ratio * (ratio * rho_norm - 2.0 * tau_.values[i]), 1e-4);
    };
    for_each_nonzero(column_, update);
    weight_[r] = std::max(rho_norm / (alpha * alpha), 1e-4);
  } else if (options_.pricing == DualPricing::Devex) {
    auto update = [&](index_t i) {
      if (i == r) return;
      const double ratio = column_.values[i] / alpha;
      weight_[i] = std::max(weight_[i], ratio * ratio * w_r);
    };
    for_each_nonzero(column_, update);
    weight_[r] = std::max(w_r / (alpha * alpha), 1.0);
  }
}

}  // namespace balsa::lp
