// The simplex driver (thesis Alg. 7.1): the slack basis, factorisation and
// the recomputation of x and d, dual phase 1 on the auxiliary box problem,
// dual phase 2 with perturbed costs, and the primal clean-up; see
// simplex_core.hpp. The iterations are in dual_simplex.cpp and
// primal_simplex.cpp.
#include "lp/simplex/simplex_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace balsa::lp {

SimplexCore::SimplexCore(const WorkingLp& lp, const SimplexOptions& options, SimplexStats& stats,
                         Clock::time_point start)
    : lp_(lp), options_(options), stats_(stats), start_(start), m_(lp.m), n_(lp.n), basis_(options, stats) {
  const std::size_t N = std::size_t(n_ + m_);
  cost_ = lp.cost;
  lower_ = lp.lower;
  upper_ = lp.upper;
  basic_.resize(std::size_t(m_));
  position_.assign(N, -1);
  x_.assign(N, 0.0);
  d_.assign(N, 0.0);
  weight_.assign(std::size_t(m_), 1.0);
  rho_.resize(m_);
  column_.resize(m_);
  tau_.resize(m_);
  flips_.resize(m_);
  row_.resize(index_t(N));
  row_mark_.assign(N, 0);
}

std::vector<double> SimplexCore::reduced_costs() const {
  std::vector<double> d = d_;
  for (index_t j : basic_) d[j] = 0.0;
  return d;
}

std::vector<double> SimplexCore::duals() {
  SparseVector v;
  v.resize(m_);
  for (index_t k = 0; k < m_; ++k) v.values[k] = cost_[basic_[k]];
  v.rebuild_index();
  basis_.btran(v);
  return std::vector<double>(v.values.begin(), v.values.end());
}

// ---- set up ------------------------------------------------------------------

// The slack basis: every logical basic (B = I, so every dual weight is 1);
// or a given one (its nonbasic variables at the bounds their reduced costs
// ask for once the factor is there: run() recomputes d, then flips).
void SimplexCore::crash(const std::vector<index_t>* start) {
  for (index_t i = 0; i < m_; ++i) basic_[i] = start ? (*start)[i] : n_ + i;
  for (index_t i = 0; i < m_; ++i) position_[basic_[i]] = i;
  for (index_t j = 0; j < n_ + m_; ++j) d_[j] = position_[j] < 0 ? cost_[j] : 0.0;
  for (index_t j = 0; j < n_ + m_; ++j)
    if (position_[j] < 0) set_nonbasic_value(j);
}

double SimplexCore::unscaled_primal_infeasibility(const std::vector<double>& col, const std::vector<double>& row) const {
  double worst = 0;
  for (index_t i = 0; i < m_; ++i) {
    const index_t j = basic_[i];
    const double v = std::max({0.0, lower_[j] - x_[j], x_[j] - upper_[j]});
    worst = std::max(worst, v * (j < n_ ? col[j] : 1.0 / row[j - n_]));
  }
  return worst;
}

double SimplexCore::unscaled_dual_infeasibility(const std::vector<double>& col, const std::vector<double>& row) const {
  double worst = 0;
  for (index_t j = 0; j < n_ + m_; ++j)
    worst = std::max(worst, dual_infeasibility(j) * (j < n_ ? 1.0 / col[j] : row[j - n_]));
  return worst;
}

// A nonbasic variable sits at the bound its reduced cost asks for (boxed), at
// its only finite bound, or at zero (free).
void SimplexCore::set_nonbasic_value(index_t j) {
  const double lo = lower_[j], up = upper_[j];
  const bool has_lo = lo > -lp_infinity, has_up = up < lp_infinity;
  if (has_lo && has_up)
    x_[j] = lo == up ? lo : (d_[j] >= 0 ? lo : up);
  else if (has_lo)
    x_[j] = lo;
  else if (has_up)
    x_[j] = up;
  else
    x_[j] = 0.0;
}

void SimplexCore::refactorize() {
  const std::vector<index_t> before = basic_;
  const FactorResult f = basis_.factorize(lp_.A, basic_);
  for (std::size_t k = 0; k < f.missing_positions.size(); ++k) {
    const index_t pos = f.missing_positions[k];
    const index_t gone = before[pos];
    position_[gone] = -1;
    // Out of the basis at the bound nearest its value.
    const double lo = lower_[gone], up = upper_[gone];
    if (lo > -lp_infinity && up < lp_infinity)
      x_[gone] = std::abs(x_[gone] - lo) <= std::abs(up - x_[gone]) ? lo : up;
    else
      set_nonbasic_value(gone);
    position_[basic_[pos]] = pos;
    weight_[pos] = 1.0;
    ++stats_.singular_recoveries;
  }
  ++stats_.factorizations;
  updates_since_refactor_ = 0;
  fresh_factor_ = true;
}

void SimplexCore::reject_row(index_t r) {
  if (rejected_.empty()) rejected_.assign(std::size_t(m_), 0);
  if (!rejected_[r]) rejected_list_.push_back(r);
  rejected_[r] = 1;
}

// A fresh factor and x, d computed from it; in the dual phases any reduced
// cost of the wrong sign is then flipped or shifted away (the primal phase
// keeps them: they are its work).
void SimplexCore::reinvert() {
  refactorize();
  compute_primal();
  compute_dual();
  if (phase_ != Phase::Primal) remove_dual_infeasibilities_by_shifting();
}

// Column q of [A I] into v (row-indexed, v cleared first).
void SimplexCore::load_column(index_t q, SparseVector& v) const {
  v.clear();
  if (q < n_) {
    for (index_t e = lp_.A.col_ptr[q]; e < lp_.A.col_ptr[q + 1]; ++e)
      if (lp_.A.values[e] != 0) v.set(lp_.A.row_idx[e], lp_.A.values[e]);
  } else {
    v.set(q - n_, 1.0);
  }
}

// x_B = B^{-1} (-N x_N).
void SimplexCore::compute_primal() {
  SparseVector& v = column_;
  v.clear();
  for (index_t j = 0; j < n_; ++j) {
    if (position_[j] >= 0 || x_[j] == 0.0) continue;
    for (index_t k = lp_.A.col_ptr[j]; k < lp_.A.col_ptr[j + 1]; ++k)
      v.values[lp_.A.row_idx[k]] -= lp_.A.values[k] * x_[j];
  }
  for (index_t i = 0; i < m_; ++i)
    if (position_[n_ + i] < 0) v.values[i] -= x_[n_ + i];
  v.rebuild_index();
  basis_.ftran(v);
  for (index_t k = 0; k < m_; ++k) x_[basic_[k]] = v.values[k];
  v.clear();
}

// pi = B^{-T} c_B, d_j = c_j - a_j^T pi (logicals: -pi_i).
void SimplexCore::compute_dual() {
  SparseVector& v = rho_;
  v.clear();
  for (index_t k = 0; k < m_; ++k) v.values[k] = cost_[basic_[k]];
  v.rebuild_index();
  basis_.btran(v);
  for (index_t j = 0; j < n_; ++j) {
    if (position_[j] >= 0) {
      d_[j] = 0;
      continue;
    }
    double s = cost_[j];
    for (index_t k = lp_.A.col_ptr[j]; k < lp_.A.col_ptr[j + 1]; ++k) s -= lp_.A.values[k] * v.values[lp_.A.row_idx[k]];
    d_[j] = s;
  }
  for (index_t i = 0; i < m_; ++i) d_[n_ + i] = position_[n_ + i] >= 0 ? 0.0 : cost_[n_ + i] - v.values[i];
  v.clear();
}

// How far d_j is on the wrong side of zero for where x_j sits (0: fine).
double SimplexCore::dual_infeasibility(index_t j) const {
  if (position_[j] >= 0 || lower_[j] == upper_[j]) return 0.0;
  const bool has_lo = lower_[j] > -lp_infinity, has_up = upper_[j] < lp_infinity;
  if (has_lo && x_[j] == lower_[j]) return std::max(0.0, -d_[j]);
  if (has_up && x_[j] == upper_[j]) return std::max(0.0, d_[j]);
  return std::abs(d_[j]);  // free, or between bounds (after a repair): d must vanish
}

bool SimplexCore::dual_infeasible(index_t j) const { return dual_infeasibility(j) > options_.dual_tolerance; }

double SimplexCore::sum_dual_infeasibilities() const {
  double s = 0;
  for (index_t j = 0; j < n_ + m_; ++j)
    if (dual_infeasible(j)) s += std::abs(d_[j]);
  return s;
}

double SimplexCore::primal_infeasibility(index_t i) const {
  const index_t j = basic_[i];
  const double v = x_[j];
  if (v < lower_[j] - options_.primal_tolerance) return v - lower_[j];
  if (v > upper_[j] + options_.primal_tolerance) return v - upper_[j];
  return 0.0;
}

double SimplexCore::sum_primal_infeasibilities() const {
  double s = 0;
  for (index_t i = 0; i < m_; ++i) s += std::abs(primal_infeasibility(i));
  return s;
}

double SimplexCore::objective() const {
  double z = 0;
  for (index_t j = 0; j < n_; ++j) z += lp_.cost[j] * x_[j];
  return z;
}

// Boxed nonbasic variables whose reduced cost has the wrong sign move to
// their other bound; true when any did (x_B must then be recomputed).
bool SimplexCore::flip_boxed_dual_infeasibilities() {
  bool flipped = false;
  for (index_t j = 0; j < n_ + m_; ++j) {
    if (!dual_infeasible(j)) continue;
    const bool boxed = lower_[j] > -lp_infinity && upper_[j] < lp_infinity;
    if (boxed && (x_[j] == lower_[j] || x_[j] == upper_[j])) {
      x_[j] = x_[j] == lower_[j] ? upper_[j] : lower_[j];
      flipped = true;
    }
  }
  return flipped;
}

// Nonbasic variables whose reduced cost has the wrong sign: a boxed one moves
// to its other bound (x_B is recomputed), any other gets its cost shifted so
// that d_j is zero (removed at the end).
void SimplexCore::remove_dual_infeasibilities_by_shifting() {
  const bool flipped = flip_boxed_dual_infeasibilities();
  for (index_t j = 0; j < n_ + m_; ++j) {
    if (!dual_infeasible(j)) continue;
    cost_[j] -= d_[j];
    d_[j] = 0.0;
    shifted_ = true;
  }
  if (flipped) compute_primal();
}

// Cost perturbation against dual degeneracy: structural costs move away from
// zero reduced cost in the direction their bound allows, by a random amount
// relative to the cost.
void SimplexCore::perturb_costs() {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double cmax = 0;
  for (index_t j = 0; j < n_; ++j) cmax = std::max(cmax, std::abs(lp_.cost[j]));
  const double base = 5e-7 * std::min(std::max(cmax, 1.0), 1e3);
  for (index_t j = 0; j < n_; ++j) {
    if (lower_[j] == upper_[j]) continue;
    const bool has_lo = lower_[j] > -lp_infinity, has_up = upper_[j] < lp_infinity;
    if (!has_lo && !has_up) continue;
    const double p = base * (1.0 + std::abs(lp_.cost[j])) * (1.0 + u(rng));
    double dir;
    if (position_[j] >= 0)
      dir = has_lo && (!has_up || std::abs(x_[j] - lower_[j]) <= std::abs(upper_[j] - x_[j])) ? 1.0 : -1.0;
    else
      dir = x_[j] == lower_[j] ? 1.0 : -1.0;
    cost_[j] += dir * p;
    if (position_[j] < 0) d_[j] += dir * p;
  }
  perturbed_ = true;
  compute_dual();
}

void SimplexCore::restore_costs() {
  cost_ = lp_.cost;
  perturbed_ = shifted_ = false;
  compute_dual();
}

bool SimplexCore::out_of_time_or_iterations(LpStatus& status) const {
  if (stats_.iterations >= options_.max_iterations) {
    status = LpStatus::IterationLimit;
    return true;
  }
  if ((stats_.iterations & 15) == 0 && seconds_since(start_) > options_.time_limit_seconds) {
    status = LpStatus::TimeLimit;
    return true;
  }
  return false;
}

void SimplexCore::log_progress(const char* phase, bool force) {
  if (!options_.log) return;
  if (!force && (options_.log_every <= 0 || stats_.iterations % options_.log_every != 0)) return;
  if (!force && stats_.iterations == last_log_) return;
  last_log_ = double(stats_.iterations);
  char line[160];
  std::snprintf(line, sizeof line, "%9lld %18.10e %11.3e %11.3e %9.3fs  %s%s", static_cast<long long>(stats_.iterations),
                objective(), sum_primal_infeasibilities(), sum_dual_infeasibilities(), seconds_since(start_), phase,
                basis_.on_gpu() ? " (gpu)" : "");
  options_.log(line, options_.log_user);
}

// ---- phases --------------------------------------------------------------

// Dual phase 1 (the auxiliary problem): every bound replaced by a box
// (free [-1000, 1000], lower only [0, 1], upper only [-1, 0], boxed [0, 0]),
// so that every basis is dual feasible after flips; its dual phase 2 drives
// the dual infeasibilities of the original bounds out. What is left is
// shifted away (dual infeasible LP: the primal clean-up reports unbounded).
LpStatus SimplexCore::dual_phase1() {
  bool any = false;
  for (index_t j = 0; j < n_ + m_ && !any; ++j) {
    const bool boxed = lower_[j] > -lp_infinity && upper_[j] < lp_infinity;
    any = !boxed && dual_infeasible(j);
  }
  if (!any) return LpStatus::Optimal;
  const std::vector<double> lo = lower_, up = upper_;
  for (index_t j = 0; j < n_ + m_; ++j) {
    const bool has_lo = lo[j] > -lp_infinity, has_up = up[j] < lp_infinity;
    lower_[j] = has_lo ? 0.0 : (has_up ? -1.0 : -1000.0);
    upper_[j] = has_up ? 0.0 : (has_lo ? 1.0 : 1000.0);
  }
  for (index_t j = 0; j < n_ + m_; ++j)
    if (position_[j] < 0) set_nonbasic_value(j);
  compute_primal();
  phase_ = Phase::DualPhase1;
  const std::int64_t before = stats_.iterations;
  const LpStatus s = dual_loop(Phase::DualPhase1);
  stats_.dual_phase1_iterations += stats_.iterations - before;
  lower_ = lo;
  upper_ = up;
  for (index_t j = 0; j < n_ + m_; ++j)
    if (position_[j] < 0) set_nonbasic_value(j);
  compute_primal();
  for (double& w : weight_) w = 1.0;
  // The box problem's phase 2 cannot be infeasible (x = 0 is feasible for
  // it); anything but a limit leaves a basis to continue from.
  return s == LpStatus::IterationLimit || s == LpStatus::TimeLimit ? s : LpStatus::Optimal;
}

LpStatus SimplexCore::run(const std::vector<index_t>* start) {
  crash(start);
  refactorize();
  compute_dual();
  if (start)
    for (index_t j = 0; j < n_ + m_; ++j)
      if (position_[j] < 0) set_nonbasic_value(j);
  compute_primal();
  LpStatus status = dual_phase1();
  if (status != LpStatus::Optimal) return status;
  remove_dual_infeasibilities_by_shifting();
  if (options_.perturb) perturb_costs();
  for (int round = 0; round < 8; ++round) {
    phase_ = Phase::DualPhase2;
    const std::int64_t before = stats_.iterations;
    status = dual_loop(Phase::DualPhase2);
    stats_.dual_phase2_iterations += stats_.iterations - before;
    if (status != LpStatus::Optimal) return status;
    // Primal feasible for the working costs: back to the LP's own costs.
    // The reduced costs left of the wrong sign (boxed ones too: flipping them
    // would undo primal feasibility) go to the primal simplex.
    if (perturbed_ || shifted_) restore_costs();
    phase_ = Phase::Primal;
    const std::int64_t before_primal = stats_.iterations;
    status = primal_loop();
    stats_.primal_iterations += stats_.iterations - before_primal;
    if (status != LpStatus::Optimal) return status;
    reinvert();
    if (sum_primal_infeasibilities() == 0 && sum_dual_infeasibilities() == 0) return LpStatus::Optimal;
    for (double& w : weight_) w = 1.0;
    remove_dual_infeasibilities_by_shifting();
  }
  return LpStatus::NumericalTrouble;
}

LpStatus SimplexCore::dual_loop(Phase phase) {
  const char* name = phase == Phase::DualPhase1 ? "dual phase 1" : "dual phase 2";
  int retries = 0;
  for (;;) {
    LpStatus status;
    if (out_of_time_or_iterations(status)) return status;
    const index_t r = choose_row();
    if (r < 0 && !rejected_list_.empty()) {  // only rows whose pivots were rejected are left
      for (index_t i : rejected_list_) rejected_[i] = 0;
      rejected_list_.clear();
      if (++retries > 50) return LpStatus::NumericalTrouble;
      reinvert();
      continue;
    }
    if (r < 0) {
      if (!fresh_factor_) {  // confirm on a fresh factor
        reinvert();
        continue;
      }
      log_progress(name, true);
      return LpStatus::Optimal;
    }
    const Step s = dual_iteration(r);
    if (s == Step::Infeasible) {
      if (!fresh_factor_) {
        reinvert();
        continue;
      }
      log_progress(name, true);
      return LpStatus::Infeasible;
    }
    if (s == Step::Retry) {
      if (++retries > 50) return LpStatus::NumericalTrouble;
      continue;
    }
    retries = 0;
    log_progress(name);
  }
}

LpStatus SimplexCore::primal_loop() {
  int retries = 0;
  for (;;) {
    LpStatus status;
    if (out_of_time_or_iterations(status)) return status;
    const index_t q = choose_entering();
    if (q < 0) {
      log_progress("primal", true);
      return LpStatus::Optimal;
    }
    const PrimalStep s = primal_iteration(q);
    if (s == PrimalStep::Unbounded) {
      if (!fresh_factor_) {
        reinvert();
        continue;
      }
      return LpStatus::Unbounded;
    }
    if (s == PrimalStep::Retry) {
      if (++retries > 50) return LpStatus::NumericalTrouble;
      continue;
    }
    retries = 0;
    log_progress("primal");
  }
}

// After a pivot: the basis factor follows (Forrest-Tomlin), or is computed
// afresh when the update asks for it; x and d are then recomputed.
bool SimplexCore::replace_basic(index_t r, index_t q, double alpha_col) {
  const index_t p = basic_[r];
  basic_[r] = q;
  position_[q] = r;
  position_[p] = -1;
  ++stats_.iterations;
  fresh_factor_ = false;
  ++updates_since_refactor_;
  for (index_t i : rejected_list_) rejected_[i] = 0;
  rejected_list_.clear();
  if (basis_.forrest_tomlin_update(r, alpha_col) == UpdateResult::Refactor || updates_since_refactor_ >= options_.refactor_every) {
    reinvert();
    return false;
  }
  return true;
}

}  // namespace balsa::lp
