// Internal: balsa::solve's plan (include/balsa/solve.hpp, Auto): which
// methods to attempt, on which device, in which order, and the time budget.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "solve/cost_model.hpp"
#include "solve/links.hpp"

namespace balsa::solve_detail {

// One link of the chain. SolveMethod::Auto stands for the direct method
// DirectSolver's Auto picks (resolved when it runs or when Auto analysed).
struct Step {
  SolveMethod method = SolveMethod::Auto;
  Device device = Device::Cpu;
  double predicted = -1;  // seconds to the answer (-1: no prediction)
  std::string basis;
};

struct Plan {
  std::vector<Step> steps;                 // in the order of attempts
  std::vector<SolvePrediction> predictions;  // every method weighed, fastest first (Auto only)
  double budget = INFINITY;                // seconds from the call's start
  bool user_budget = false;                // the caller's (skips links predicted to overrun it)
  double direct_predicted = -1;            // the direct step's prediction (-1: not analysed)
  double direct_reserve = 0;               // its part still to come after the plan (factorisation, solves)
  std::string why;                         // one line: why this order
};

// Auto's margin: an iterative method goes before an analysed direct method
// only when it is predicted this many times faster (its prior is rough: a
// factor of 3 either way, solve/cost_model.cpp), and only when the direct
// method is predicted to take at least kDirectFloor seconds: below that the
// most an iterative method can save is a few milliseconds, while a wrong
// prior costs up to the budget (UMFPACK took under 50 ms on 61 of the 67
// shared matrices it solved, issue 26's H100 run: the other 6 are where an
// iterative method can pay).
inline constexpr double kIterativeMargin = 3.0;  // plan.cpp's message says "3x"
inline constexpr double kDirectFloor = 0.05;
// The automatic budget: this many times the predicted direct time.
inline constexpr double kBudgetFactor = 1.75;
// The direct analysis is run to learn the direct cost when it is predicted
// to take at most kAnalyseShare of the fastest iterative prediction, or at
// most kAnalyseAlways seconds.
inline constexpr double kAnalyseShare = 0.3, kAnalyseAlways = 0.02;

// The plan for A (may run the direct analysis, kept in shared.analysed).
// `spent`: seconds already used by the call (features).
template <class T>
Plan make_plan(Shared<T>& shared, const Machine& machine, int columns, double spent);

}  // namespace balsa::solve_detail
