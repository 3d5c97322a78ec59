// Internal: balsa::solve's cost model (include/balsa/solve.hpp, Auto): the
// predicted time to the answer of each method on each device, from A's
// features and, for the direct methods, their own symbolic analysis. The
// constants, where they were measured and how they were fitted:
// solve/cost_model.cpp.
#pragma once

#include <string>

#include "balsa/solve.hpp"

namespace balsa::solve_detail {

// What the model knows of the machine.
struct Machine {
  bool gpu = false;     // a usable GPU (balsa::cuda::available())
  int threads = 1;      // host threads the methods will use
};

// The time to the answer of an iterative method on `device` (infinity:
// it does not apply to A), with the prior iterations and per-iteration
// cost in `basis`.
double iterative_seconds(SolveMethod m, Device device, const SolveFeatures& f, const Machine& machine,
                         std::string& basis);

// A direct method's symbolic analysis (ordering included), predicted from
// the size alone (whether it is worth running to learn the direct cost).
double analysis_seconds(const SolveFeatures& f, const Machine& machine);

// A direct method's numeric factorisation and `columns` solves after its
// analysis (stats: the analysis' prediction of fill and flops).
double factor_solve_seconds(const DirectStats& analysed, int columns, const Machine& machine, std::string& basis);

}  // namespace balsa::solve_detail
