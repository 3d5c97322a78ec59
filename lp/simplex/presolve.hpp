// Internal: a light presolve for the simplex and its postsolve. Reductions,
// repeated until none applies:
//   inconsistent bounds          -> infeasible
//   empty row                    -> removed (infeasible if 0 is outside its bounds); y_i = 0
//   fixed column (l = u)         -> removed, its activity moved into the row bounds
//   empty column                 -> removed at the bound its cost asks for (kept when that bound is infinite)
//   singleton row  l <= a x_j <= u  -> a bound on x_j, row removed; y_i recovered from d_j
//   zero-cost singleton column   -> removed, its range moved into its row's bounds (a slack)
//   free singleton column in an equality row -> substituted out of the objective, row and column removed
// The postsolve undoes them in reverse order, recovering x and y (reduced
// costs follow from c - A^T y on the original data).
#pragma once

#include <vector>

#include "balsa/lp.hpp"

namespace balsa::lp {

class Presolve {
 public:
  // lp is kept by reference: it must outlive this Presolve.
  void identity(const LinearProgram& lp);
  void run(const LinearProgram& lp);
  const LinearProgram& reduced() const { return identity_ ? *original_ : reduced_; }
  // Optimal: go on with reduced(); Infeasible (or Unbounded) when presolve
  // found it alone.
  LpStatus status() const { return status_; }
  // reduced() has no rows: every column at the bound its cost asks for.
  LpStatus solve_without_rows(std::vector<double>& x) const;
  // x, y of reduced() (empty if not solved) -> x, y of the original LP.
  void postsolve(const std::vector<double>& x_reduced, const std::vector<double>& y_reduced, std::vector<double>& x,
                 std::vector<double>& y) const;

 private:
  enum class Kind { EmptyRow, FixedColumn, EmptyColumn, SingletonRow, SlackColumn, FreeColumn };
  struct Step {
    Kind kind;
    index_t row = -1, col = -1;
    double a = 0, value = 0;
    double lower = 0, upper = 0;          // SingletonRow: the column's bounds before; SlackColumn: x_j's
    double row_lower = 0, row_upper = 0;  // SlackColumn / FreeColumn: the row's bounds before
    double cost = 0;                      // FreeColumn, SingletonRow: c_j when the step was taken
  };
  class Reducer;  // presolve.cpp: run's working state and passes
  // postsolve's steps that recover more than a stored value.
  void undo_singleton_row(const Step& s, const std::vector<double>& x, std::vector<double>& y) const;
  void undo_slack_column(const Step& s, const Csr<double>& R, std::vector<double>& x,
                         const std::vector<double>& y) const;

  const LinearProgram* original_ = nullptr;
  bool identity_ = false;
  LinearProgram reduced_;
  LpStatus status_ = LpStatus::Optimal;
  std::vector<Step> steps_;
  std::vector<index_t> row_map_, col_map_;  // reduced index -> original
};

}  // namespace balsa::lp
