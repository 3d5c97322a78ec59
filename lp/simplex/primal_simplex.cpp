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

SimplexCore::PrimalStep SimplexCore::primal_iteration(index_t q) {
  const double dir = d_[q] < 0 ? 1.0 : -1.0;  // x_q increases when d_q < 0
  load_column(q, column_);
  basis_.ftran(column_, true);

  Clock::time_point t0 = Clock::now();
  // Harris pass 1: the smallest step with every bound relaxed by the
  // tolerance; pass 2: among exact ratios within it, the largest |alpha|.
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
  double theta = 0, best_alpha = 0;
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
  const double room = dir > 0 ? upper_[q] - x_[q] : x_[q] - lower_[q];  // to the other bound
  stats_.pricing_seconds += seconds_since(t0);
  if (r < 0 && !(room < lp_infinity)) return PrimalStep::Unbounded;

  t0 = Clock::now();
  if (r < 0 || room <= theta) {  // the entering variable reaches its other bound first
    const double target = dir > 0 ? upper_[q] : lower_[q];
    const double step = target - x_[q];
    x_[q] = target;
    for_each([&](index_t i) { x_[basic_[i]] -= step * column_.values[i]; });
    ++stats_.bound_flips;
    ++stats_.iterations;
    stats_.update_seconds += seconds_since(t0);
    return PrimalStep::Done;
  }
  const index_t p = basic_[r];
  const double alpha = column_.values[r];
  stats_.update_seconds += seconds_since(t0);

  // The pivot row (for d), checked against the column before x moves.
  rho_.clear();
  rho_.set(r, 1.0);
  basis_.btran(rho_);
  t0 = Clock::now();
  price(row_);
  stats_.pricing_seconds += seconds_since(t0);
  const double alpha_row = row_mark_[q] ? row_.values[q] : 0.0;
  if (std::abs(alpha - alpha_row) > 1e-7 * (1.0 + std::abs(alpha)) && !fresh_factor_) {
    reinvert();
    return PrimalStep::Retry;
  }
  t0 = Clock::now();
  const double change = -dir * alpha;
  const double bound = change < 0 ? lower_[p] : upper_[p];
  for_each([&](index_t i) { x_[basic_[i]] -= dir * theta * column_.values[i]; });
  x_[q] += dir * theta;
  x_[p] = bound;
  const double theta_d = d_[q] / alpha;
  for (index_t k = 0; k < row_.count; ++k) d_[row_.index[k]] -= theta_d * row_.values[row_.index[k]];
  d_[q] = 0.0;
  d_[p] = -theta_d;
  for (double& w : weight_) w = 1.0;  // the dual weights are no longer those of this basis
  stats_.update_seconds += seconds_since(t0);
  replace_basic(r, q, alpha);
  return PrimalStep::Done;
}

}  // namespace balsa::lp
