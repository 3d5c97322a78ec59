// The simplex' light presolve and its postsolve (see presolve.hpp).
#include "lp/simplex/presolve.hpp"

#include <algorithm>
#include <cmath>

namespace balsa::lp {

namespace {
constexpr double kFeasibility = 1e-9;  // relative to the magnitudes involved
bool finite(double v) { return std::abs(v) < lp_infinity; }

// The value a column with cost c (minimisation sign) and no rows takes: the
// bound its cost asks for; with no cost the finite bound nearest zero's side.
double best_bound(double c, double lo, double up) {
  return c > 0 ? lo : (c < 0 ? up : (finite(lo) ? lo : (finite(up) ? up : 0.0)));
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

void Presolve::run(const LinearProgram& lp) {
  original_ = &lp;
  identity_ = false;
  const index_t m = lp.rows(), n = lp.cols();
  const Csc<double>& A = lp.A;
  const Csr<double> R = to_csr(A);
  LinearProgram w;  // the bounds while reducing (the matrix stays lp's)
  w.row_lower = lp.row_lower;
  w.row_upper = lp.row_upper;
  w.col_lower = lp.col_lower;
  w.col_upper = lp.col_upper;
  w.objective_constant = lp.objective_constant;
  std::vector<double> costs = lp.cost;  // costs after the substitutions
  std::vector<std::uint8_t> row_alive(std::size_t(m), 1), col_alive(std::size_t(n), 1);
  std::vector<index_t> row_count(std::size_t(m), 0), col_count(std::size_t(n), 0);
  // Magnitudes moved into each row's bounds (fixed columns): the scale of the
  // rounding the feasibility tests must allow.
  std::vector<double> row_mag(std::size_t(m), 0.0);
  for (index_t i = 0; i < m; ++i)
    row_mag[i] = std::max(finite(lp.row_lower[i]) ? std::abs(lp.row_lower[i]) : 0.0,
                          finite(lp.row_upper[i]) ? std::abs(lp.row_upper[i]) : 0.0);
  auto row_tol = [&](index_t i) { return kFeasibility * (1.0 + row_mag[i]); };
  for (index_t j = 0; j < n; ++j)
    for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k)
      if (A.values[k] != 0) {
        ++row_count[A.row_idx[k]];
        ++col_count[j];
      }
  auto infeasible = [&] { status_ = LpStatus::Infeasible; };
  auto remove_column = [&](index_t j, double value) {  // its activity into the row bounds
    col_alive[j] = 0;
    for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k) {
      const index_t i = A.row_idx[k];
      if (!row_alive[i] || A.values[k] == 0) continue;
      --row_count[i];
      w.row_lower[i] -= A.values[k] * value;
      w.row_upper[i] -= A.values[k] * value;
      row_mag[i] = std::max(row_mag[i], std::abs(A.values[k] * value));
    }
  };
  auto remove_row = [&](index_t i) {
    row_alive[i] = 0;
    for (index_t k = R.row_ptr[i]; k < R.row_ptr[i + 1]; ++k)
      if (col_alive[R.col_idx[k]] && R.values[k] != 0) --col_count[R.col_idx[k]];
  };
  auto entry_of_row = [&](index_t i, index_t& j, double& a) {  // the live entry of a singleton row
    for (index_t k = R.row_ptr[i]; k < R.row_ptr[i + 1]; ++k)
      if (col_alive[R.col_idx[k]] && R.values[k] != 0) {
        j = R.col_idx[k];
        a = R.values[k];
        return;
      }
  };
  auto entry_of_column = [&](index_t j, index_t& i, double& a) {
    for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k)
      if (row_alive[A.row_idx[k]] && A.values[k] != 0) {
        i = A.row_idx[k];
        a = A.values[k];
        return;
      }
  };

  bool changed = true;
  while (changed && status_ == LpStatus::Optimal) {
    changed = false;
    for (index_t i = 0; i < m && status_ == LpStatus::Optimal; ++i) {
      if (!row_alive[i]) continue;
      if (w.row_lower[i] > w.row_upper[i] + row_tol(i)) return infeasible();
      if (row_count[i] == 0) {
        if (w.row_lower[i] > row_tol(i) || w.row_upper[i] < -row_tol(i)) return infeasible();
        remove_row(i);
        steps_.push_back({.kind = Kind::EmptyRow, .row = i});
        changed = true;
      } else if (row_count[i] == 1) {
        index_t j = -1;
        double a = 0;
        entry_of_row(i, j, a);
        double lo = w.row_lower[i] / a, up = w.row_upper[i] / a;
        if (a < 0) std::swap(lo, up);
        steps_.push_back({.kind = Kind::SingletonRow, .row = i, .col = j, .a = a, .lower = w.col_lower[j],
                          .upper = w.col_upper[j], .row_lower = w.row_lower[i], .row_upper = w.row_upper[i],
                          .cost = costs[j]});
        w.col_lower[j] = std::max(w.col_lower[j], lo);
        w.col_upper[j] = std::min(w.col_upper[j], up);
        if (w.col_lower[j] > w.col_upper[j]) {
          if (w.col_lower[j] > w.col_upper[j] + row_tol(i) / std::abs(a) + kFeasibility * std::abs(w.col_upper[j]))
            return infeasible();
          w.col_lower[j] = w.col_upper[j];
        }
        remove_row(i);
        changed = true;
      }
    }
    for (index_t j = 0; j < n && status_ == LpStatus::Optimal; ++j) {
      if (!col_alive[j]) continue;
      const double lo = w.col_lower[j], up = w.col_upper[j];
      if (lo > up + kFeasibility * (1.0 + std::abs(up))) return infeasible();
      if (lo == up) {
        remove_column(j, lo);
        w.objective_constant += costs[j] * lo;
        steps_.push_back({.kind = Kind::FixedColumn, .col = j, .value = lo});
        changed = true;
      } else if (col_count[j] == 0) {
        const double c = costs[j] * (lp.sense == ObjectiveSense::Maximize ? -1.0 : 1.0);
        const double v = best_bound(c, lo, up);
        if (!finite(v)) continue;  // the simplex decides (unbounded if the LP is feasible)
        remove_column(j, v);
        w.objective_constant += costs[j] * v;
        steps_.push_back({.kind = Kind::EmptyColumn, .col = j, .value = v});
        changed = true;
      } else if (col_count[j] == 1) {
        index_t i = -1;
        double a = 0;
        entry_of_column(j, i, a);
        if (costs[j] == 0 && row_count[i] > 1) {  // a slack: its range widens the row's
          const double t1 = a * lo, t2 = a * up;
          steps_.push_back({.kind = Kind::SlackColumn, .row = i, .col = j, .a = a, .lower = lo, .upper = up,
                            .row_lower = w.row_lower[i], .row_upper = w.row_upper[i]});
          w.row_lower[i] -= std::max(t1, t2);
          w.row_upper[i] -= std::min(t1, t2);
          if (std::isnan(w.row_lower[i])) w.row_lower[i] = -lp_infinity;
          if (std::isnan(w.row_upper[i])) w.row_upper[i] = lp_infinity;
          col_alive[j] = 0;
          --row_count[i];
          changed = true;
        } else if (!finite(lo) && !finite(up) && w.row_lower[i] == w.row_upper[i] && row_count[i] > 1) {
          // x_j = (b - a_i' x') / a: c_j x_j leaves the objective for the row's other columns.
          const double b = w.row_lower[i];
          steps_.push_back({.kind = Kind::FreeColumn, .row = i, .col = j, .a = a, .row_lower = b, .row_upper = b,
                            .cost = costs[j]});
          const double f = costs[j] / a;
          for (index_t k = R.row_ptr[i]; k < R.row_ptr[i + 1]; ++k)
            if (col_alive[R.col_idx[k]] && R.col_idx[k] != j) costs[R.col_idx[k]] -= f * R.values[k];
          w.objective_constant += f * b;
          col_alive[j] = 0;
          remove_row(i);
          changed = true;
        }
      }
    }
  }
  if (status_ != LpStatus::Optimal) return;
  // The reduced LP: live rows and columns.
  LinearProgram red;
  red.name = lp.name;
  red.sense = lp.sense;
  red.objective_constant = w.objective_constant;
  row_map_.clear();
  col_map_.clear();
  std::vector<index_t> new_row(std::size_t(m), -1);
  for (index_t i = 0; i < m; ++i)
    if (row_alive[i]) {
      new_row[i] = index_t(row_map_.size());
      row_map_.push_back(i);
      red.row_lower.push_back(w.row_lower[i]);
      red.row_upper.push_back(w.row_upper[i]);
    }
  red.A.rows = index_t(row_map_.size());
  for (index_t j = 0; j < n; ++j) {
    if (!col_alive[j]) continue;
    col_map_.push_back(j);
    red.cost.push_back(costs[j]);
    red.col_lower.push_back(w.col_lower[j]);
    red.col_upper.push_back(w.col_upper[j]);
    for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k)
      if (row_alive[A.row_idx[k]] && A.values[k] != 0) {
        red.A.row_idx.push_back(new_row[A.row_idx[k]]);
        red.A.values.push_back(A.values[k]);
      }
    red.A.col_ptr.push_back(index_t(red.A.row_idx.size()));
  }
  red.A.cols = index_t(col_map_.size());
  red.col_names.resize(col_map_.size());
  red.row_names.resize(row_map_.size());
  red.integer.assign(col_map_.size(), 0);
  reduced_ = std::move(red);
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
  auto row_activity = [&](index_t i, index_t skip) {
    double s = 0;
    for (index_t k = R.row_ptr[i]; k < R.row_ptr[i + 1]; ++k)
      if (R.col_idx[k] != skip) s += R.values[k] * x[R.col_idx[k]];
    return s;
  };
  // With the column's cost as it was when the step was taken (substitutions
  // change costs; their rows' duals are still zero here, restored later).
  auto reduced_cost = [&](index_t j, double cost) {
    double d = cost;
    for (index_t k = lp.A.col_ptr[j]; k < lp.A.col_ptr[j + 1]; ++k) d -= lp.A.values[k] * y[lp.A.row_idx[k]];
    return d;
  };
  const double sense = lp.sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    const Step& s = *it;
    switch (s.kind) {
      case Kind::EmptyRow: y[s.row] = 0; break;
      case Kind::FixedColumn:
      case Kind::EmptyColumn: x[s.col] = s.value; break;
      case Kind::SingletonRow: {
        // When x_j sits at the row's bound and its reduced cost has the wrong
        // sign for its own bounds, the row's dual takes that reduced cost.
        const double v = x[s.col], tol = 1e-9 * (1 + std::abs(v));
        double lo = s.row_lower / s.a, up = s.row_upper / s.a;
        if (s.a < 0) std::swap(lo, up);
        const double d = sense * reduced_cost(s.col, s.cost);  // minimisation sign
        const bool at_own_lo = std::abs(v - s.lower) <= tol, at_own_up = std::abs(v - s.upper) <= tol;
        const double dtol = 1e-9 * (1.0 + std::abs(s.cost));
        const bool own_ok = (at_own_lo && d >= -dtol) || (at_own_up && d <= dtol) || (at_own_lo && at_own_up) ||
                            std::abs(d) <= dtol;
        const bool at_row = (finite(lo) && std::abs(v - lo) <= tol) || (finite(up) && std::abs(v - up) <= tol);
        if (!own_ok && at_row) y[s.row] = reduced_cost(s.col, s.cost) / s.a;
        break;
      }
      case Kind::SlackColumn: {
        // a x_j must bring the row's activity into its bounds.
        const double r = row_activity(s.row, s.col);
        double lo = s.a > 0 ? (s.row_lower - r) / s.a : (s.row_upper - r) / s.a;
        double up = s.a > 0 ? (s.row_upper - r) / s.a : (s.row_lower - r) / s.a;
        if (std::isnan(lo)) lo = -lp_infinity;
        if (std::isnan(up)) up = lp_infinity;
        lo = std::max(lo, s.lower);
        up = std::min(up, s.upper);
        up = std::max(lo, up);
        // Within [lo, up] (the row feasible): with a row dual clearly nonzero
        // the widened row is active at its lower (y > 0 in minimisation terms:
        // x_j maximises a x_j) or upper bound, so x_j takes that end.
        const double yi = sense * y[s.row], ytol = 1e-9;
        double v = std::clamp(0.0, lo, up);
        if (yi > ytol) v = s.a > 0 ? up : lo;
        if (yi < -ytol) v = s.a > 0 ? lo : up;
        if (!finite(v)) v = finite(lo) ? lo : (finite(up) ? up : 0.0);
        x[s.col] = v;
        break;
      }
      case Kind::FreeColumn: {
        x[s.col] = (s.row_lower - row_activity(s.row, s.col)) / s.a;
        y[s.row] = s.cost / s.a;
        break;
      }
    }
  }
}

}  // namespace balsa::lp
