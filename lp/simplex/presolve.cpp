// The simplex' light presolve and its postsolve (see presolve.hpp).
#include "lp/simplex/presolve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace balsa::lp {

namespace {
constexpr double kFeasibility = 1e-9;  // relative to the magnitudes involved
bool finite(double v) { return std::abs(v) < lp_infinity; }

// The value a column with cost c (minimisation sign) and no rows takes: the
// bound its cost asks for; with no cost the finite bound nearest zero's side.
double best_bound(double c, double lo, double up) {
  return c > 0 ? lo : (c < 0 ? up : (finite(lo) ? lo : (finite(up) ? up : 0.0)));
}

// The first nonzero of list l of a compressed matrix (ptr, idx, values)
// whose index is alive: its index to `at`, its value to `a`.
void first_live_entry(const std::vector<index_t>& ptr, const std::vector<index_t>& idx,
                      const std::vector<double>& values, const std::vector<std::uint8_t>& alive, index_t l,
                      index_t& at, double& a) {
  for (index_t k = ptr[l]; k < ptr[l + 1]; ++k)
    if (alive[idx[k]] && values[k] != 0) {
      at = idx[k];
      a = values[k];
      return;
    }
}

// Row i's activity without column `skip`.
double row_activity(const Csr<double>& R, const std::vector<double>& x, index_t i, index_t skip) {
  double s = 0;
  for (index_t k = R.row_ptr[i]; k < R.row_ptr[i + 1]; ++k)
    if (R.col_idx[k] != skip) s += R.values[k] * x[R.col_idx[k]];
  return s;
}

// c_j - a_j^T y, with the column's cost as it was when the step was taken
// (substitutions change costs; their rows' duals are still zero here,
// restored later).
double reduced_cost(const Csc<double>& A, const std::vector<double>& y, index_t j, double cost) {
  double d = cost;
  for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k) d -= A.values[k] * y[A.row_idx[k]];
  return d;
}
}  // namespace

void Presolve::identity(const LinearProgram& lp) {
  original_ = &lp;
  identity_ = true;
  row_map_.resize(std::size_t(lp.rows()));
  col_map_.resize(std::size_t(lp.cols()));
  for (index_t i = 0; i < lp.rows(); ++i) row_map_[i] = i;
  for (index_t j = 0; j < lp.cols(); ++j) col_map_[j] = j;
  for (index_t j = 0; j < lp.cols(); ++j)
    if (lp.col_lower[j] > lp.col_upper[j]) status_ = LpStatus::Infeasible;
  for (index_t i = 0; i < lp.rows(); ++i)
    if (lp.row_lower[i] > lp.row_upper[i]) status_ = LpStatus::Infeasible;
}

// The reductions' working state (the bounds, costs and live rows and
// columns while reducing; the matrix stays the LP's) and the passes over it.
class Presolve::Reducer {
 public:
  Reducer(const LinearProgram& lp, std::vector<Step>& steps);
  // One pass over the rows (empty, singleton) and one over the columns
  // (fixed, empty, singleton); false when the LP is infeasible.
  bool reduce_rows(bool& changed);
  bool reduce_columns(bool& changed);
  // The live rows and columns as an LP; their original indices to the maps.
  LinearProgram reduced_lp(std::vector<index_t>& row_map, std::vector<index_t>& col_map) const;

 private:
  double row_tol(index_t i) const { return kFeasibility * (1.0 + row_mag_[i]); }
  void remove_column(index_t j, double value);
  void remove_row(index_t i);
  void entry_of_row(index_t i, index_t& j, double& a) const;
  void entry_of_column(index_t j, index_t& i, double& a) const;
  bool singleton_row(index_t i);
  void singleton_column(index_t j, bool& changed);

  const LinearProgram& lp_;
  const Csc<double>& A_;
  const Csr<double> R_;
  std::vector<Step>& steps_;
  const index_t m_, n_;
  LinearProgram w_;             // the bounds while reducing (the matrix stays lp's)
  std::vector<double> costs_;  // costs after the substitutions
  std::vector<std::uint8_t> row_alive_, col_alive_;
  std::vector<index_t> row_count_, col_count_;
  // Magnitudes moved into each row's bounds (fixed columns): the scale of the
  // rounding the feasibility tests must allow.
  std::vector<double> row_mag_;
};

Presolve::Reducer::Reducer(const LinearProgram& lp, std::vector<Step>& steps)
    : lp_(lp),
      A_(lp.A),
      R_(to_csr(lp.A)),
      steps_(steps),
      m_(lp.rows()),
      n_(lp.cols()),
      costs_(lp.cost),
      row_alive_(std::size_t(m_), 1),
      col_alive_(std::size_t(n_), 1),
      row_count_(std::size_t(m_), 0),
      col_count_(std::size_t(n_), 0),
      row_mag_(std::size_t(m_), 0.0) {
  w_.row_lower = lp.row_lower;
  w_.row_upper = lp.row_upper;
  w_.col_lower = lp.col_lower;
  w_.col_upper = lp.col_upper;
  w_.objective_constant = lp.objective_constant;
  for (index_t i = 0; i < m_; ++i)
    row_mag_[i] = std::max(finite(lp.row_lower[i]) ? std::abs(lp.row_lower[i]) : 0.0,
                           finite(lp.row_upper[i]) ? std::abs(lp.row_upper[i]) : 0.0);
  for (index_t j = 0; j < n_; ++j)
    for (index_t k = A_.col_ptr[j]; k < A_.col_ptr[j + 1]; ++k)
      if (A_.values[k] != 0) {
        ++row_count_[A_.row_idx[k]];
        ++col_count_[j];
      }
}

void Presolve::run(const LinearProgram& lp) {
  original_ = &lp;
  identity_ = false;
  Reducer reducer(lp, steps_);
  bool changed = true;
  while (changed && status_ == LpStatus::Optimal) {
    changed = false;
    if (!reducer.reduce_rows(changed) || !reducer.reduce_columns(changed)) status_ = LpStatus::Infeasible;
  }
  if (status_ != LpStatus::Optimal) return;
  reduced_ = reducer.reduced_lp(row_map_, col_map_);
}

// Column j leaves at `value`: its activity moves into the row bounds.
void Presolve::Reducer::remove_column(index_t j, double value) {
  col_alive_[j] = 0;
  for (index_t k = A_.col_ptr[j]; k < A_.col_ptr[j + 1]; ++k) {
    const index_t i = A_.row_idx[k];
    if (!row_alive_[i] || A_.values[k] == 0) continue;
    --row_count_[i];
    w_.row_lower[i] -= A_.values[k] * value;
    w_.row_upper[i] -= A_.values[k] * value;
    row_mag_[i] = std::max(row_mag_[i], std::abs(A_.values[k] * value));
  }
}

void Presolve::Reducer::remove_row(index_t i) {
  row_alive_[i] = 0;
  for (index_t k = R_.row_ptr[i]; k < R_.row_ptr[i + 1]; ++k)
    if (col_alive_[R_.col_idx[k]] && R_.values[k] != 0) --col_count_[R_.col_idx[k]];
}

// The live entry of a singleton row.
void Presolve::Reducer::entry_of_row(index_t i, index_t& j, double& a) const {
  first_live_entry(R_.row_ptr, R_.col_idx, R_.values, col_alive_, i, j, a);
}

// The live entry of a singleton column.
void Presolve::Reducer::entry_of_column(index_t j, index_t& i, double& a) const {
  first_live_entry(A_.col_ptr, A_.row_idx, A_.values, row_alive_, j, i, a);
}

// Inconsistent row bounds: infeasible; an empty row: removed (infeasible if
// 0 is outside its bounds); a singleton row: a bound on its column.
bool Presolve::Reducer::reduce_rows(bool& changed) {
  for (index_t i = 0; i < m_; ++i) {
    if (!row_alive_[i]) continue;
    if (w_.row_lower[i] > w_.row_upper[i] + row_tol(i)) return false;
    if (row_count_[i] == 0) {
      if (w_.row_lower[i] > row_tol(i) || w_.row_upper[i] < -row_tol(i)) return false;
      remove_row(i);
      steps_.push_back({.kind = Kind::EmptyRow, .row = i});
      changed = true;
    } else if (row_count_[i] == 1) {
      if (!singleton_row(i)) return false;
      changed = true;
    }
  }
  return true;
}

// l <= a x_j <= u becomes a bound on x_j and the row goes; false when the
// bounds then cross by more than the rounding allows.
bool Presolve::Reducer::singleton_row(index_t i) {
  index_t j = -1;
  double a = 0;
  entry_of_row(i, j, a);
  double lo = w_.row_lower[i] / a, up = w_.row_upper[i] / a;
  if (a < 0) std::swap(lo, up);
  steps_.push_back({.kind = Kind::SingletonRow, .row = i, .col = j, .a = a, .lower = w_.col_lower[j],
                    .upper = w_.col_upper[j], .row_lower = w_.row_lower[i], .row_upper = w_.row_upper[i],
                    .cost = costs_[j]});
  w_.col_lower[j] = std::max(w_.col_lower[j], lo);
  w_.col_upper[j] = std::min(w_.col_upper[j], up);
  if (w_.col_lower[j] > w_.col_upper[j]) {
    if (w_.col_lower[j] > w_.col_upper[j] + row_tol(i) / std::abs(a) + kFeasibility * std::abs(w_.col_upper[j]))
      return false;
    w_.col_lower[j] = w_.col_upper[j];
  }
  remove_row(i);
  return true;
}

// Crossed column bounds: infeasible; a fixed column: removed, its activity
// into the row bounds; an empty column: removed at the bound its cost asks
// for (kept when that bound is infinite); a singleton column, see below.
bool Presolve::Reducer::reduce_columns(bool& changed) {
  for (index_t j = 0; j < n_; ++j) {
    if (!col_alive_[j]) continue;
    const double lo = w_.col_lower[j], up = w_.col_upper[j];
    if (lo > up + kFeasibility * (1.0 + std::abs(up))) return false;
    if (lo == up) {
      remove_column(j, lo);
      w_.objective_constant += costs_[j] * lo;
      steps_.push_back({.kind = Kind::FixedColumn, .col = j, .value = lo});
      changed = true;
    } else if (col_count_[j] == 0) {
      const double c = costs_[j] * (lp_.sense == ObjectiveSense::Maximize ? -1.0 : 1.0);
      const double v = best_bound(c, lo, up);
      if (!finite(v)) continue;  // the simplex decides (unbounded if the LP is feasible)
      remove_column(j, v);
      w_.objective_constant += costs_[j] * v;
      steps_.push_back({.kind = Kind::EmptyColumn, .col = j, .value = v});
      changed = true;
    } else if (col_count_[j] == 1) {
      singleton_column(j, changed);
    }
  }
  return true;
}

// A zero-cost singleton column is a slack: its range widens its row's
// bounds. A free singleton column in an equality row is substituted out:
// x_j = (b - a_i' x') / a, so c_j x_j moves to the row's other columns.
void Presolve::Reducer::singleton_column(index_t j, bool& changed) {
  const double lo = w_.col_lower[j], up = w_.col_upper[j];
  index_t i = -1;
  double a = 0;
  entry_of_column(j, i, a);
  if (costs_[j] == 0 && row_count_[i] > 1) {
    const double t1 = a * lo, t2 = a * up;
    steps_.push_back({.kind = Kind::SlackColumn, .row = i, .col = j, .a = a, .lower = lo, .upper = up,
                      .row_lower = w_.row_lower[i], .row_upper = w_.row_upper[i]});
    w_.row_lower[i] -= std::max(t1, t2);
    w_.row_upper[i] -= std::min(t1, t2);
    if (std::isnan(w_.row_lower[i])) w_.row_lower[i] = -lp_infinity;
    if (std::isnan(w_.row_upper[i])) w_.row_upper[i] = lp_infinity;
    col_alive_[j] = 0;
    --row_count_[i];
    changed = true;
  } else if (!finite(lo) && !finite(up) && w_.row_lower[i] == w_.row_upper[i] && row_count_[i] > 1) {
    const double b = w_.row_lower[i];
    steps_.push_back({.kind = Kind::FreeColumn, .row = i, .col = j, .a = a, .row_lower = b, .row_upper = b,
                      .cost = costs_[j]});
    const double f = costs_[j] / a;
    for (index_t k = R_.row_ptr[i]; k < R_.row_ptr[i + 1]; ++k)
      if (col_alive_[R_.col_idx[k]] && R_.col_idx[k] != j) costs_[R_.col_idx[k]] -= f * R_.values[k];
    w_.objective_constant += f * b;
    col_alive_[j] = 0;
    remove_row(i);
    changed = true;
  }
}

LinearProgram Presolve::Reducer::reduced_lp(std::vector<index_t>& row_map, std::vector<index_t>& col_map) const {
  LinearProgram red;
  red.name = lp_.name;
  red.sense = lp_.sense;
  red.objective_constant = w_.objective_constant;
  row_map.clear();
  col_map.clear();
  std::vector<index_t> new_row(std::size_t(m_), -1);
  for (index_t i = 0; i < m_; ++i)
    if (row_alive_[i]) {
      new_row[i] = index_t(row_map.size());
      row_map.push_back(i);
      red.row_lower.push_back(w_.row_lower[i]);
      red.row_upper.push_back(w_.row_upper[i]);
    }
  red.A.rows = index_t(row_map.size());
  for (index_t j = 0; j < n_; ++j) {
    if (!col_alive_[j]) continue;
    col_map.push_back(j);
    red.cost.push_back(costs_[j]);
    red.col_lower.push_back(w_.col_lower[j]);
    red.col_upper.push_back(w_.col_upper[j]);
    for (index_t k = A_.col_ptr[j]; k < A_.col_ptr[j + 1]; ++k)
      if (row_alive_[A_.row_idx[k]] && A_.values[k] != 0) {
        red.A.row_idx.push_back(new_row[A_.row_idx[k]]);
        red.A.values.push_back(A_.values[k]);
      }
    red.A.col_ptr.push_back(index_t(red.A.row_idx.size()));
  }
  red.A.cols = index_t(col_map.size());
  red.col_names.resize(col_map.size());
  red.row_names.resize(row_map.size());
  red.integer.assign(col_map.size(), 0);
  return red;
}

LpStatus Presolve::solve_without_rows(std::vector<double>& x) const {
  const LinearProgram& r = reduced();
  x.assign(std::size_t(r.cols()), 0.0);
  const double sense = r.sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
  for (index_t j = 0; j < r.cols(); ++j) {
    const double c = sense * r.cost[j], lo = r.col_lower[j], up = r.col_upper[j];
    const double v = best_bound(c, lo, up);
    if (!finite(v)) return LpStatus::Unbounded;
    x[j] = v;
  }
  return LpStatus::Optimal;
}

void Presolve::postsolve(const std::vector<double>& x_reduced, const std::vector<double>& y_reduced,
                         std::vector<double>& x, std::vector<double>& y) const {
  const LinearProgram& lp = *original_;
  x.assign(std::size_t(lp.cols()), 0.0);
  y.assign(std::size_t(lp.rows()), 0.0);
  if (status_ != LpStatus::Optimal) {  // nothing solved: a point within the column bounds
    for (index_t j = 0; j < lp.cols(); ++j)
      x[j] = std::clamp(0.0, std::min(lp.col_lower[j], lp.col_upper[j]), lp.col_upper[j]);
    return;
  }
  for (std::size_t k = 0; k < col_map_.size() && k < x_reduced.size(); ++k) x[col_map_[k]] = x_reduced[k];
  for (std::size_t k = 0; k < row_map_.size() && k < y_reduced.size(); ++k) y[row_map_[k]] = y_reduced[k];
  const Csr<double> R = steps_.empty() ? Csr<double>{} : to_csr(lp.A);
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    const Step& s = *it;
    switch (s.kind) {
      case Kind::EmptyRow: y[s.row] = 0; break;
      case Kind::FixedColumn:
      case Kind::EmptyColumn: x[s.col] = s.value; break;
      case Kind::SingletonRow: undo_singleton_row(s, x, y); break;
      case Kind::SlackColumn: undo_slack_column(s, R, x, y); break;
      case Kind::FreeColumn: {
        x[s.col] = (s.row_lower - row_activity(R, x, s.row, s.col)) / s.a;
        y[s.row] = s.cost / s.a;
        break;
      }
    }
  }
}

// When x_j sits at the row's bound and its reduced cost has the wrong sign
// for its own bounds, the row's dual takes that reduced cost.
void Presolve::undo_singleton_row(const Step& s, const std::vector<double>& x, std::vector<double>& y) const {
  const LinearProgram& lp = *original_;
  const double sense = lp.sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
  const double v = x[s.col], tol = 1e-9 * (1 + std::abs(v));
  double lo = s.row_lower / s.a, up = s.row_upper / s.a;
  if (s.a < 0) std::swap(lo, up);
  const double d = sense * reduced_cost(lp.A, y, s.col, s.cost);  // minimisation sign
  const bool at_own_lo = std::abs(v - s.lower) <= tol, at_own_up = std::abs(v - s.upper) <= tol;
  const double dtol = 1e-9 * (1.0 + std::abs(s.cost));
  const bool own_ok =
      (at_own_lo && d >= -dtol) || (at_own_up && d <= dtol) || (at_own_lo && at_own_up) || std::abs(d) <= dtol;
  const bool at_row = (finite(lo) && std::abs(v - lo) <= tol) || (finite(up) && std::abs(v - up) <= tol);
  if (!own_ok && at_row) y[s.row] = reduced_cost(lp.A, y, s.col, s.cost) / s.a;
}

// a x_j must bring the row's activity into its bounds. Within [lo, up] (the
// row feasible): with a row dual clearly nonzero the widened row is active
// at its lower (y > 0 in minimisation terms: x_j maximises a x_j) or upper
// bound, so x_j takes that end.
void Presolve::undo_slack_column(const Step& s, const Csr<double>& R, std::vector<double>& x,
                                 const std::vector<double>& y) const {
  const double sense = original_->sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
  const double r = row_activity(R, x, s.row, s.col);
  double lo = s.a > 0 ? (s.row_lower - r) / s.a : (s.row_upper - r) / s.a;
  double up = s.a > 0 ? (s.row_upper - r) / s.a : (s.row_lower - r) / s.a;
  if (std::isnan(lo)) lo = -lp_infinity;
  if (std::isnan(up)) up = lp_infinity;
  lo = std::max(lo, s.lower);
  up = std::min(up, s.upper);
  up = std::max(lo, up);
  const double yi = sense * y[s.row], ytol = 1e-9;
  double v = std::clamp(0.0, lo, up);
  if (yi > ytol) v = s.a > 0 ? up : lo;
  if (yi < -ytol) v = s.a > 0 ? lo : up;
  if (!finite(v)) v = finite(lo) ? lo : (finite(up) ? up : 0.0);
  x[s.col] = v;
}

}  // namespace balsa::lp
