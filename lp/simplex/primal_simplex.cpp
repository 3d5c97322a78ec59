// The primal simplex of the clean-up (thesis Alg. 7.1, primal form): once the
// dual simplex has reached a primal feasible basis and the cost perturbation
// is removed, the few reduced costs of the wrong sign are driven out by
// primal iterations: Dantzig pricing, FTRAN of the entering column, Harris'
// two-pass ratio test (the entering variable may just move to its other
// bound), BTRAN and PRICE of the pivot row to update d.
#include <algorithm>
#include <cmath>

#include "lp/simplex/simplex_core.hpp"

namespace balsa::lp {

index_t SimplexCore::choose_entering() const {
  const Clock::time_point t0 = Clock::now();
  index_t best = -1;
  double best_d = 0;
  for (index_t j = 0; j < n_ + m_; ++j) {
    if (!dual_infeasible(j)) continue;
    if (std::abs(d_[j]) > best_d) {
      best_d = std::abs(d_[j]);
      best = j;
    }
  }
  stats_.pricing_seconds += seconds_since(t0);
  return best;
}

// One primal iteration with entering variable q (thesis Alg. 7.1, primal
// form): FTRAN, the ratio test (CHUZR), then either a bound flip of x_q or
// BTRAN and PRICE of the pivot row and the updates of x, d and the factor.
SimplexCore::PrimalStep SimplexCore::primal_iteration(index_t q) {
  const double dir = d_[q] < 0 ? 1.0 : -1.0;  // x_q increases when d_q < 0
  load_column(q, column_);
  basis_.ftran(column_, true);
  Clock::time_point t0 = Clock::now();
  double theta = 0;
  const index_t r = primal_ratio_test(dir, theta);
  const double room = dir > 0 ? upper_[q] - x_[q] : x_[q] - lower_[q];  // to the other bound
  stats_.pricing_seconds += seconds_since(t0);
  if (r < 0 && !(room < lp_infinity)) return PrimalStep::Unbounded;
  if (r < 0 || room <= theta) {  // the entering variable reaches its other bound first
    flip_entering(q, dir);
    return PrimalStep::Done;
  }
  const double alpha = column_.values[r];
  if (!pivot_row_agrees(r, q, alpha)) {
    reinvert();
    return PrimalStep::Retry;
  }
  t0 = Clock::now();
  update_primal_step(r, q, dir, theta, alpha);
  stats_.update_seconds += seconds_since(t0);
  replace_basic(r, q, alpha);
  return PrimalStep::Done;
}

// CHUZR by Harris' two passes: pass 1, the smallest step with every bound
// relaxed by the tolerance; pass 2, among the exact ratios within it, the
// largest |alpha|. Returns the leaving position (-1: none) and its step.
index_t SimplexCore::primal_ratio_test(double dir, double& theta) const {
  const double tol = options_.primal_tolerance;
  auto for_each = [&](auto&& f) { for_each_nonzero(column_, f); };
  double relaxed = lp_infinity;
  for_each([&](index_t i) {
    const double a = column_.values[i];
    if (std::abs(a) < kPivotTolerance) return;
    const index_t j = basic_[i];
    const double change = -dir * a;  // of x_j per unit step
    if (change < 0 && lower_[j] > -lp_infinity)
      relaxed = std::min(relaxed, (x_[j] - lower_[j] + tol) / -change);
    else if (change > 0 && upper_[j] < lp_infinity)
      relaxed = std::min(relaxed, (upper_[j] - x_[j] + tol) / change);
  });
  index_t r = -1;
  double best_alpha = 0;
  theta = 0;
  for_each([&](index_t i) {
    const double a = column_.values[i];
    if (std::abs(a) < kPivotTolerance) return;
    const index_t j = basic_[i];
    const double change = -dir * a;
    double ratio;
    if (change < 0 && lower_[j] > -lp_infinity)
      ratio = (x_[j] - lower_[j]) / -change;
    else if (change > 0 && upper_[j] < lp_infinity)
      ratio = (upper_[j] - x_[j]) / change;
    else
      return;
    if (ratio <= relaxed && std::abs(a) > best_alpha) {
      best_alpha = std::abs(a);
      r = i;
      theta = std::max(ratio, 0.0);
    }
  });
  return r;
}

// No basis change: x_q moves to its other bound, x_B along its column.
void SimplexCore::flip_entering(index_t q, double dir) {
  const Clock::time_point t0 = Clock::now();
  const double target = dir > 0 ? upper_[q] : lower_[q];
  const double step = target - x_[q];
  x_[q] = target;
  for_each_nonzero(column_, [&](index_t i) { x_[basic_[i]] -= step * column_.values[i]; });
  ++stats_.bound_flips;
  ++stats_.iterations;
  stats_.update_seconds += seconds_since(t0);
}

// BTRAN and PRICE of the pivot row (for d), checked against the column's
// alpha before x moves: false when they disagree on a factor not fresh.
bool SimplexCore::pivot_row_agrees(index_t r, index_t q, double alpha) {
  rho_.clear();
  rho_.set(r, 1.0);
  basis_.btran(rho_);
  const Clock::time_point t0 = Clock::now();
  price(row_);
  stats_.pricing_seconds += seconds_since(t0);
  const double alpha_row = row_mark_[q] ? row_.values[q] : 0.0;
  return !(std::abs(alpha - alpha_row) > 1e-7 * (1.0 + std::abs(alpha)) && !fresh_factor_);
}

// The primal and dual steps: x_B by theta along the column, the leaving
// variable to the bound it reaches, d -= theta_d alpha_r; the dual weights
// are no longer those of this basis.
void SimplexCore::update_primal_step(index_t r, index_t q, double dir, double theta, double alpha) {
  const index_t p = basic_[r];
  const double change = -dir * alpha;
  const double bound = change < 0 ? lower_[p] : upper_[p];
  for_each_nonzero(column_, [&](index_t i) { x_[basic_[i]] -= dir * theta * column_.values[i]; });
  x_[q] += dir * theta;
  x_[p] = bound;
  const double theta_d = d_[q] / alpha;
  for (index_t k = 0; k < row_.count; ++k) d_[row_.index[k]] -= theta_d * row_.values[row_.index[k]];
  d_[q] = 0.0;
  d_[p] = -theta_d;
  for (double& w : weight_) w = 1.0;
}

}  // namespace balsa::lp
