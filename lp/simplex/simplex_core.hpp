// Internal: the revised simplex on a WorkingLp (thesis Alg. 7.1): a dual
// simplex (dual phase 1 on the auxiliary box problem, then dual phase 2 with
// bound flipping and Harris' ratio test, dual steepest-edge pricing, cost
// perturbation and shifting) followed by a primal simplex clean-up once the
// perturbations are removed.
//
// Every iteration does CHUZR (leaving row), BTRAN (rho_r = B^{-T} e_r), PRICE
// (the pivot row alpha_r = rho_r^T [A I]), CHUZC (bound flipping ratio test),
// FTRAN (the entering column; for the weights also B^{-1} rho_r and the
// flipped columns' sum) and the update of x, d, the weights and the basis
// factor (forrest_tomlin_update).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "lp/basis/basis_solver.hpp"
#include "lp/simplex/working_lp.hpp"

namespace balsa::lp {

enum class Phase { DualPhase1, DualPhase2, Primal };

inline constexpr double kPivotTolerance = 1e-9;  // |alpha| below this never pivots

// f(i) for every position i of v that may be nonzero (all of them when v is dense).
template <class F>
void for_each_nonzero(const SparseVector& v, F&& f) {
  if (v.dense()) {
    for (index_t i = 0; i < v.size(); ++i) f(i);
  } else {
    for (index_t k = 0; k < v.count; ++k) f(v.index[k]);
  }
}

class SimplexCore {
 public:
  SimplexCore(const WorkingLp& lp, const SimplexOptions& options, SimplexStats& stats, Clock::time_point start);
  // From the slack basis, or from `start` (basic variables, m of them: the
  // final basis of another run, e.g. on the scaled LP).
  LpStatus run(const std::vector<index_t>* start = nullptr);
  // The largest reduced cost of the wrong sign once the factors `col` (n)
  // and `row` (m) of a scaling are undone (d_j / col_j, d_{n+i} * row_i).
  double unscaled_dual_infeasibility(const std::vector<double>& col, const std::vector<double>& row) const;
  // The same for the bound violations of the basic variables (x_j * col_j, x_{n+i} / row_i).
  double unscaled_primal_infeasibility(const std::vector<double>& col, const std::vector<double>& row) const;

  // The result (valid after run()): values and reduced costs of every
  // variable (n + m), row duals pi (m) with d = c - [A I]^T pi.
  const std::vector<double>& x() const { return x_; }
  std::vector<double> reduced_costs() const;
  std::vector<double> duals();
  const std::vector<index_t>& basic() const { return basic_; }

 private:
  // ---- simplex_core.cpp: set up, factorisation, recomputation, phases ----
  void crash(const std::vector<index_t>* start);
  void refactorize();  // singular bases are repaired with logicals (counted)
  void reinvert();     // refactorize, then x and d afresh (and, in the dual phases, shifts)
  void load_column(index_t q, SparseVector& v) const;
  void compute_primal();
  void compute_dual();
  void set_nonbasic_value(index_t j);
  bool flip_boxed_dual_infeasibilities();
  void remove_dual_infeasibilities_by_shifting();
  void perturb_costs();
  void restore_costs();
  double primal_infeasibility(index_t i) const;  // of basic position i (signed: < 0 below)
  double objective() const;
  void log_progress(const char* phase, bool force = false);
  bool out_of_time_or_iterations(LpStatus& status) const;
  bool dual_infeasible(index_t j) const;
  double dual_infeasibility(index_t j) const;
  double sum_dual_infeasibilities() const;
  double sum_primal_infeasibilities() const;
  void price(SparseVector& row);  // alpha_r for every nonbasic column from rho_
  LpStatus dual_loop(Phase phase);
  LpStatus primal_loop();
  LpStatus dual_phase1();

  // ---- dual_simplex.cpp ----
  index_t choose_row();
  index_t choose_column(double delta);
  // One dual iteration with leaving row r: Retry when the pivot was rejected
  // (numerically; the basis was refactorised, or the row left out for now).
  enum class Step { Done, Infeasible, Retry };
  void reject_row(index_t r);
  Step dual_iteration(index_t r);
  // Its steps, in order.
  void btran_pivot_row(index_t r);
  bool ftran_entering_column(index_t q, index_t r);
  void ftran_bound_flips();
  void ftran_dse();
  void update_duals(index_t p, index_t q, double alpha);
  void update_primal(index_t p, index_t q, double delta, double alpha);
  void update_dual_weights(index_t r, double alpha);

  // ---- primal_simplex.cpp ----
  index_t choose_entering() const;
  enum class PrimalStep { Done, Unbounded, Retry };
  PrimalStep primal_iteration(index_t q);
  // Its steps, in order.
  index_t primal_ratio_test(double dir, double& theta) const;
  void flip_entering(index_t q, double dir);
  bool pivot_row_agrees(index_t r, index_t q, double alpha);
  void update_primal_step(index_t r, index_t q, double dir, double theta, double alpha);

  bool replace_basic(index_t r, index_t q, double alpha_col);  // factor update + bookkeeping

  const WorkingLp& lp_;
  const SimplexOptions& options_;
  SimplexStats& stats_;
  Clock::time_point start_;
  index_t m_, n_;
  std::vector<double> cost_;          // working costs (perturbed, shifted)
  std::vector<double> lower_, upper_;  // working bounds (the box problem in dual phase 1)
  std::vector<index_t> basic_;        // m: the variable at each basis position
  std::vector<index_t> position_;     // n + m: basis position, -1 nonbasic
  std::vector<double> x_, d_;         // n + m
  std::vector<double> weight_;        // m: dual pricing weights
  BasisSolver basis_;
  SparseVector rho_, column_, tau_, flips_, row_;  // row_: n + m entries
  std::vector<std::uint8_t> row_mark_;
  std::vector<std::pair<double, index_t>> candidates_;
  std::vector<index_t> flipped_;
  std::vector<std::uint8_t> rejected_;  // rows left out of CHUZR until the next basis change
  std::vector<index_t> rejected_list_;
  bool perturbed_ = false, shifted_ = false;
  int updates_since_refactor_ = 0;
  bool fresh_factor_ = false;
  Phase phase_ = Phase::DualPhase2;
  double last_log_ = -1;
};

}  // namespace balsa::lp
