// balsa::SimplexSolver: checks, presolve, scaling, the simplex core, then the
// solution mapped back to the original LP (unscaled, postsolved) and checked.
#include <algorithm>
#include <cmath>
#include <memory>

#include "balsa/lp.hpp"
#include "core/call_scope.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/pimpl.hpp"
#include "lp/simplex/presolve.hpp"
#include "lp/simplex/simplex_core.hpp"
#include "lp/simplex/working_lp.hpp"

namespace balsa {

struct SimplexSolver::Impl {
  static constexpr const char* kOwner = "SimplexSolver";
  LinearProgram lp;
  SimplexOptions options;
  SimplexStats stats;
  lp::Presolve presolve;
  bool solved = false;
};

namespace {

// The largest bound violation of x and of A x, and the largest reduced cost
// of the wrong sign, in the LP's own terms.
void measure_infeasibilities(const LinearProgram& lp, LpSolution& s, double tol) {
  double p = 0, d = 0;
  const double sense = lp.sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
  for (index_t j = 0; j < lp.cols(); ++j) {
    if (!std::isfinite(s.x[j]) || !std::isfinite(s.reduced_cost[j])) p = d = lp_infinity;
    p = std::max({p, lp.col_lower[j] - s.x[j], s.x[j] - lp.col_upper[j]});
    const double dj = sense * s.reduced_cost[j];
    const bool at_lo = s.x[j] <= lp.col_lower[j] + tol, at_up = s.x[j] >= lp.col_upper[j] - tol;
    if (!at_lo) d = std::max(d, dj);    // could decrease: needs d <= 0
    if (!at_up) d = std::max(d, -dj);   // could increase: needs d >= 0
  }
  for (index_t i = 0; i < lp.rows(); ++i) {
    const double r = s.row_activity[i], y = sense * s.row_dual[i];
    if (!std::isfinite(r) || !std::isfinite(y)) p = d = lp_infinity;
    p = std::max({p, lp.row_lower[i] - r, r - lp.row_upper[i]});
    if (r > lp.row_lower[i] + tol) d = std::max(d, y);   // not at its lower bound: y <= 0
    if (r < lp.row_upper[i] - tol) d = std::max(d, -y);  // not at its upper bound: y >= 0
  }
  s.max_primal_infeasibility = p;
  s.max_dual_infeasibility = d;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Every quantity of the solution from x and y on the original data.
void complete_solution(const LinearProgram& lp, LpSolution& s) {
  s.row_activity.assign(std::size_t(lp.rows()), 0.0);
  s.reduced_cost = lp.cost;
  s.objective = lp.objective_constant;
  for (index_t j = 0; j < lp.cols(); ++j) {
    s.objective += lp.cost[j] * s.x[j];
    for (index_t k = lp.A.col_ptr[j]; k < lp.A.col_ptr[j + 1]; ++k) {
      s.row_activity[lp.A.row_idx[k]] += lp.A.values[k] * s.x[j];
      s.reduced_cost[j] -= lp.A.values[k] * s.row_dual[lp.A.row_idx[k]];
    }
  }
}

}  // namespace

SimplexSolver::SimplexSolver(const LinearProgram& lp, const SimplexOptions& options) try
    : impl_(std::make_unique<Impl>()) {
  const CallScope on(options, "SimplexOptions");
  validate(lp);
  if (!(options.primal_tolerance > 0 && options.primal_tolerance < 1) ||
      !(options.dual_tolerance > 0 && options.dual_tolerance < 1))
    throw Error("SimplexSolver: the primal and dual tolerances must lie in (0, 1)");
  if (std::isnan(options.time_limit_seconds) || options.time_limit_seconds <= 0)
    throw Error("SimplexSolver: time_limit_seconds must be positive (infinity: no limit)");
  if (options.max_iterations < 0) throw Error("SimplexSolver: max_iterations must not be negative");
  if (!(options.pivot_threshold > 0 && options.pivot_threshold <= 1))
    throw Error("SimplexSolver: pivot_threshold must lie in (0, 1]");
  if (options.refactor_every < 1 || options.refactor_every > 1000)
    throw Error("SimplexSolver: refactor_every must lie in [1, 1000]");
  impl_->lp = lp;
  impl_->options = options;
  impl_->stats.rows = lp.rows();
  impl_->stats.cols = lp.cols();
  impl_->stats.integer_columns = lp.integer_columns();
  const Clock::time_point t0 = Clock::now();
  if (options.presolve) impl_->presolve.run(impl_->lp);
  else impl_->presolve.identity(impl_->lp);
  impl_->stats.presolve_seconds = seconds_since(t0);
  impl_->stats.presolved_rows = impl_->presolve.reduced().rows();
  impl_->stats.presolved_cols = impl_->presolve.reduced().cols();
} catch (...) {
  rethrow_as_balsa_error("SimplexSolver::SimplexSolver");
}

SimplexSolver::~SimplexSolver() = default;
SimplexSolver::SimplexSolver(SimplexSolver&&) noexcept = default;
SimplexSolver& SimplexSolver::operator=(SimplexSolver&&) noexcept = default;

const SimplexStats& SimplexSolver::stats() const { return live_impl(impl_).stats; }

LpSolution SimplexSolver::solve() try {
  Impl& im = live_impl(impl_);
  const CallScope on(im.options, "SimplexOptions");
  if (im.solved) throw Error("SimplexSolver::solve: this solver has solved its LP already (build a new one)");
  im.solved = true;
  const Clock::time_point t0 = Clock::now();
  SimplexStats& st = im.stats;
  const LinearProgram& reduced = im.presolve.reduced();
  LpSolution s;
  LpStatus status = im.presolve.status();  // presolve may decide alone (infeasible bounds, empty LP)
  std::vector<double> x, y;
  if (status == LpStatus::Optimal && reduced.rows() > 0) {
    lp::Scaling scaling;
    const lp::WorkingLp w = lp::make_working_lp(reduced, im.options.scale, scaling);
    auto core = std::make_unique<lp::SimplexCore>(w, im.options, st, t0);
    status = core->run();
    // Optimal for the scaled LP but not within the tolerance once unscaled
    // (a column scaled far down): the simplex goes on from that basis on the
    // unscaled LP.
    lp::WorkingLp unscaled;
    if (status == LpStatus::Optimal && im.options.scale &&
        (core->unscaled_dual_infeasibility(scaling.col, scaling.row) > im.options.dual_tolerance ||
         core->unscaled_primal_infeasibility(scaling.col, scaling.row) > im.options.primal_tolerance)) {
      const std::vector<index_t> basis = core->basic();
      unscaled = lp::make_working_lp(reduced, false, scaling);
      core = std::make_unique<lp::SimplexCore>(unscaled, im.options, st, t0);
      status = core->run(&basis);
      ++st.unscaled_restarts;
    }
    const double sense = reduced.sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
    x.resize(std::size_t(reduced.cols()));
    for (index_t j = 0; j < reduced.cols(); ++j) x[j] = core->x()[j] * scaling.col[j];
    const std::vector<double> pi = core->duals();
    y.resize(std::size_t(reduced.rows()));
    for (index_t i = 0; i < reduced.rows(); ++i) y[i] = sense * pi[i] * scaling.row[i];
  } else if (status == LpStatus::Optimal) {
    status = im.presolve.solve_without_rows(x);
    y.clear();
  }
  im.presolve.postsolve(x, y, s.x, s.row_dual);
  s.status = status;
  s.iterations = st.iterations;
  complete_solution(im.lp, s);
  measure_infeasibilities(im.lp, s, im.options.primal_tolerance);
  // An "optimal" answer that is not, in the LP's own terms (beyond a loose
  // 1e-6 relative check): never reported as optimal.
  if (s.status == LpStatus::Optimal && !(s.max_primal_infeasibility <= 1e-6 * (1.0 + max_abs(s.row_activity)) &&
                                         s.max_dual_infeasibility <= 1e-6 * (1.0 + max_abs(im.lp.cost)))) {
    if (im.options.presolve) {  // the presolved path went wrong: once more on the LP as it is
      SimplexOptions again = im.options;
      again.presolve = false;
      SimplexSolver plain(im.lp, again);
      LpSolution p = plain.solve();
      const double presolve_seconds = st.presolve_seconds, first = seconds_since(t0);
      st = plain.stats();
      st.presolve_seconds = presolve_seconds;
      st.total_seconds += first + presolve_seconds;
      ++st.presolve_restarts;
      return p;
    }
    s.status = status = LpStatus::NumericalTrouble;
  }
  st.status = status;
  st.max_primal_infeasibility = s.max_primal_infeasibility;
  st.max_dual_infeasibility = s.max_dual_infeasibility;
  st.total_seconds = seconds_since(t0) + st.presolve_seconds;
  return s;
} catch (...) {
  rethrow_as_balsa_error("SimplexSolver::solve");
}

}  // namespace balsa
