// balsa: linear programming (thesis ch. 7): an MPS reader and a revised
// simplex whose basis solves can run on balsa's GPU triangular solvers.
//
//   balsa::LinearProgram lp = balsa::read_mps("afiro.mps.gz");
//   balsa::SimplexSolver solver(lp, {.device = balsa::Device::Auto});
//   balsa::LpSolution s = solver.solve();   // s.status, s.objective, s.x, s.row_dual
//   solver.stats();                         // iterations, Table 7.1's time split, the GPU decision
//
// The problem:  minimise (or maximise)  c^T x + objective_constant
//               subject to  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper,
// bounds may be infinite (+-infinity). Integer markers are read and reported;
// balsa solves the LP relaxation.
//
// Phases: the constructor analyses (checks, presolve, scaling); solve() sets
// up (crash basis, factorisation) and iterates; a solver is solved once.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "balsa/core.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

inline constexpr double lp_infinity = std::numeric_limits<double>::infinity();

enum class ObjectiveSense { Minimize, Maximize };
template <>
struct EnumNames<ObjectiveSense> {
  static constexpr const char* what = "objective sense";
  static constexpr EnumName<ObjectiveSense> names[] = {{ObjectiveSense::Minimize, "minimize"},
                                                       {ObjectiveSense::Maximize, "maximize"}};
};

// An LP in bounded row form. A is rows x cols, column-wise (sorted rows, no
// duplicates, explicit zeros allowed).
struct LinearProgram {
  std::string name;
  ObjectiveSense sense = ObjectiveSense::Minimize;
  Csc<double> A;
  std::vector<double> cost;        // cols
  double objective_constant = 0.0;  // added to c^T x (MPS: minus the objective row's RHS)
  std::vector<double> col_lower, col_upper;  // cols; -inf / +inf allowed
  std::vector<double> row_lower, row_upper;  // rows; -inf / +inf allowed
  std::vector<std::string> row_names, col_names;  // rows / cols, or empty (no names)
  std::string objective_name;
  // cols: 1 where MARKER INTORG or BV/LI/UI bounds made it integer; or
  // empty (no integer columns).
  std::vector<std::uint8_t> integer;
  std::int64_t free_rows_dropped = 0;  // N rows beyond the objective (MPS), not kept
  index_t rows() const { return A.rows; }
  index_t cols() const { return A.cols; }
  std::int64_t integer_columns() const;
};

// Reads a fixed or free format MPS file (gzip-compressed too): NAME, ROWS
// (N/E/L/G), COLUMNS (with integer MARKER lines), RHS (the objective row's
// RHS gives minus the objective constant), RANGES, BOUNDS (UP LO FX FR MI PL BV
// LI UI SC refused), OBJSENSE (MIN/MAX, also OBJSENSE MAXIMIZE on one line),
// ENDATA. Every error is a ParseError "file:line: ...".
//
// Free and fixed format are told apart line by line: a line is split at
// blanks, and read by the fixed columns (names with spaces) when that fails.
// Where readers differ: default bounds [0, +inf), integer columns too (as in
// HiGHS; some readers give them [0, 1]); a negative UP or UI bound on a
// column whose lower bound no earlier line set makes it -inf (as CPLEX and
// HiGHS do); MI leaves the upper bound; RHS, RANGES and BOUNDS lines may
// leave out the set name, and only the first set named in a section counts
// (lines of other sets are ignored); a missing ENDATA is accepted after
// COLUMNS; a second entry for the same (row, column), RHS or range is an
// error; NaN is refused everywhere, Inf in A, c, RHS and RANGES.
LinearProgram read_mps(const std::string& path);
LinearProgram read_mps_text(const std::string& text, const std::string& name = "<string>");

// Checks sizes (DimensionError), A's structure (sorted, in range) and
// finite values (MatrixError), finite c and objective constant, bounds that
// are not NaN, lower bounds not +inf, upper bounds not -inf (Error); lower >
// upper is not an error here (the solver reports such an LP infeasible).
void validate(const LinearProgram& lp);

enum class LpStatus { Optimal, Infeasible, Unbounded, IterationLimit, TimeLimit, NumericalTrouble };
template <>
struct EnumNames<LpStatus> {
  static constexpr const char* what = "LP status";
  static constexpr EnumName<LpStatus> names[] = {
      {LpStatus::Optimal, "optimal"},         {LpStatus::Infeasible, "infeasible"},
      {LpStatus::Unbounded, "unbounded"},     {LpStatus::IterationLimit, "iteration_limit"},
      {LpStatus::TimeLimit, "time_limit"},    {LpStatus::NumericalTrouble, "numerical_trouble"}};
};

enum class DualPricing { SteepestEdge, Devex, Dantzig };
template <>
struct EnumNames<DualPricing> {
  static constexpr const char* what = "dual pricing";
  static constexpr EnumName<DualPricing> names[] = {
      {DualPricing::SteepestEdge, "steepest-edge"}, {DualPricing::Devex, "devex"}, {DualPricing::Dantzig, "dantzig"}};
};

struct SimplexOptions {
  // Where the basis' triangular solves run: Cpu (hypersparse host solves),
  // Cuda (balsa's TriangularSolver on the GPU for L, U and their transposes),
  // Auto (the thesis' model 7.2.4-7.2.5 decides at every factorisation).
  Device device = Device::Auto;
  std::int64_t max_iterations = 1'000'000;
  double time_limit_seconds = lp_infinity;
  double primal_tolerance = 1e-7;  // bound violation accepted
  double dual_tolerance = 1e-7;    // reduced cost of the wrong sign accepted
  DualPricing pricing = DualPricing::SteepestEdge;
  bool presolve = true;
  bool scale = true;
  bool perturb = true;            // cost perturbation against dual degeneracy (removed at the end)
  int refactor_every = 100;       // Forrest-Tomlin updates before a fresh factorisation
  double pivot_threshold = 0.1;   // LU threshold partial pivoting (0 < u <= 1)
  // Progress through `log` (when set): a line every log_every iterations and
  // one at the end of each phase (log_every 0: those alone).
  std::int64_t log_every = 0;
  void (*log)(const std::string& line, void* user) = nullptr;
  void* log_user = nullptr;
  // The CUDA stream of the GPU basis solves (include/balsa/core.hpp;
  // nullptr: the calling thread's per-thread default stream).
  StreamHandle stream = nullptr;
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
};

struct LpSolution {
  LpStatus status = LpStatus::NumericalTrouble;
  double objective = 0.0;  // in the LP's sense, with the objective constant
  std::vector<double> x;             // cols
  std::vector<double> row_activity;  // rows: A x
  std::vector<double> row_dual;      // rows: y with c - A^T y = reduced costs (the LP's sense)
  std::vector<double> reduced_cost;  // cols
  std::int64_t iterations = 0;
  double max_primal_infeasibility = 0.0;  // largest bound or row violation of x (original LP)
  double max_dual_infeasibility = 0.0;    // largest reduced cost of the wrong sign (original LP)
};

// The thesis' model (7.24-7.48) for one basis: predicted seconds per simplex
// iteration of its basis solves (FTRAN, BTRAN: four triangular solves each
// way, and the Forrest-Tomlin update) on either device, and the choice. The
// CPU's is the measured time of the last factorisation's iterations once
// there is one.
struct BasisSolveModel {
  index_t rows = 0;
  std::int64_t nnz_L = 0, nnz_U = 0;
  index_t levels_L = 0, levels_U = 0;  // counted when the GPU is an option (else 0)
  double density = 0.0;      // mean density of the solves' right-hand sides (eq. 7.45)
  double cpu_seconds = 0.0;  // predicted, per iteration
  double gpu_seconds = 0.0;  // predicted, per iteration
  Device chosen = Device::Cpu;
};

struct SimplexStats {
  LpStatus status = LpStatus::NumericalTrouble;
  Device device = Device::Cpu;  // where the basis solves ran (last factorisation)
  std::int64_t iterations = 0;
  std::int64_t dual_phase1_iterations = 0;
  std::int64_t dual_phase2_iterations = 0;
  std::int64_t primal_iterations = 0;  // primal simplex clean-up
  std::int64_t bound_flips = 0;
  std::int64_t factorizations = 0;
  std::int64_t singular_recoveries = 0;  // singular bases repaired with logicals
  std::int64_t unscaled_restarts = 0;    // optimal when scaled, not unscaled: continued unscaled
  std::int64_t presolve_restarts = 0;    // postsolved answer not optimal: solved again without presolve
  std::int64_t gpu_factorizations = 0;   // factorisations whose solves ran on the GPU
  // Presolve / scaling.
  index_t rows = 0, cols = 0;                  // original
  index_t presolved_rows = 0, presolved_cols = 0;
  std::int64_t integer_columns = 0;
  // Time split (seconds, Table 7.1).
  double presolve_seconds = 0.0;
  double factorization_seconds = 0.0;
  double ftran_seconds = 0.0;
  double btran_seconds = 0.0;
  double pricing_seconds = 0.0;     // CHUZR + row of the tableau (PRICE) + ratio test (CHUZC)
  double update_seconds = 0.0;      // Forrest-Tomlin, weights, primal and dual values
  double gpu_solve_seconds = 0.0;   // of ftran/btran: the time of the GPU's solves
  double total_seconds = 0.0;
  // The model's last decision, and its prediction against what was measured.
  BasisSolveModel model;
  double measured_solve_seconds_per_iteration = 0.0;  // FTRAN + BTRAN + update, last factorisation's iterations
  double max_primal_infeasibility = 0.0;
  double max_dual_infeasibility = 0.0;
};

class SimplexSolver {
 public:
  // Checks (validate) and analyses lp: presolve, scaling. lp is copied.
  explicit SimplexSolver(const LinearProgram& lp, const SimplexOptions& options = {});
  ~SimplexSolver();
  SimplexSolver(SimplexSolver&&) noexcept;
  SimplexSolver& operator=(SimplexSolver&&) noexcept;
  // Sets up and iterates; the result in the original LP's terms.
  LpSolution solve();
  const SimplexStats& stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace balsa
