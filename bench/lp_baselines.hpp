// The baselines of `balsa-bench lp` (balsa's revised simplex, include/balsa/lp.hpp):
//  * CLP (COIN-OR, coinor-libclp-dev), here: run_clp. The LP goes into a
//    ClpSimplex through loadProblem from balsa's own LinearProgram arrays
//    (column-wise A, bounds, costs; +-infinity as +-COIN_DBL_MAX; the sense
//    by setOptimizationDirection), not through CLP's MPS reader, so that CLP
//    and balsa solve the same numbers. The solve is
//    ClpSimplex::initialSolve(ClpSolve) with the dual simplex (useDual),
//    CLP's presolve on (presolveOn, its default passes) and perturbation 50,
//    as the `clp` program's `clp FILE -dualsimplex` does with its defaults
//    (checked: the same iteration counts on all 80 LPs of shared/data/lp);
//    every other setting at CLP's default (scaling, dual steepest edge).
//    (The library's default perturbation, 100, lets CLP decide and takes
//    other paths.) presolve = false gives presolveOff (the dual simplex on the
//    LP as loaded, `clp FILE -presolve off -dualsimplex`). Note:
//    shared/data/lp/reference.csv's clp_iterations are `clp FILE -solve`'s
//    (CLP's automatic choice, idiot crash and primal on some), not these.
//    Timed: initialSolve alone (steady clock), on a fresh copy of the loaded
//    model each repeat (the copy and the load untimed); seconds is the
//    median of the repeats, status/objective/iterations are the first
//    repeat's (CLP is deterministic: the repeats agree). The objective is
//    CLP's objectiveValue() in the LP's sense plus lp.objective_constant
//    (reported whatever the status; meaningful when "optimal"). CLP's log is
//    silenced (log level 0). The integer markers are ignored: the LP
//    relaxation, as balsa solves it.
//  * HiGHS: scripts/lp-highs.py (highspy), run as its own process; its JSON
//    gives the same fields per file.
// Status names are balsa's LpStatus names (to_string): optimal, infeasible,
// unbounded (CLP: dual infeasible), iteration_limit, time_limit,
// numerical_trouble (CLP: stopped on errors, by an event, or postsolve not
// optimal); and two of the benchmark's own: "not_run" (balsa built without
// CLP; error says so) and "error" (CLP threw; error holds its message).
#pragma once

#include <cstdint>
#include <string>

#include "balsa/lp.hpp"

namespace balsa::bench {

struct LpBaselineResult {
  std::string status = "not_run";
  double objective = 0.0;
  std::int64_t iterations = 0;
  double seconds = 0.0;  // median solve time over the repeats
  std::string error;     // empty unless the baseline could not run or failed
};

// CLP's dual simplex on lp, `repeat` times (at least once).
LpBaselineResult run_clp(const balsa::LinearProgram& lp, int repeat, bool presolve = true);

// "CLP 1.17.6", or "not built with CLP".
std::string clp_version();

// Whether this build has the CLP baseline (BALSA_HAS_CLP).
bool clp_available();

}  // namespace balsa::bench
