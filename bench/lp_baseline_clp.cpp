// CLP's dual simplex, the first baseline of `balsa-bench lp` (what is run and
// timed: lp_baselines.hpp). Built only when CMake finds CLP (BALSA_HAS_CLP);
// lp_baseline_no_clp.cpp stands in otherwise.
#include <ClpConfig.h>
#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
#include <CoinError.hpp>
#include <CoinFinite.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_math.hpp"
#include "lp_baselines.hpp"
#include "core/clock.hpp"

namespace balsa::bench {
namespace {

static_assert(std::is_same_v<CoinBigIndex, index_t> && std::is_same_v<int, index_t>,
              "CLP's column starts and row indices must match balsa's index_t");

// CLP's infinite bounds are +-COIN_DBL_MAX.
std::vector<double> clp_bounds(const std::vector<double>& v) {
  std::vector<double> out(v);
  for (double& x : out) {
    if (x == lp_infinity) x = COIN_DBL_MAX;
    if (x == -lp_infinity) x = -COIN_DBL_MAX;
  }
  return out;
}

// balsa's LpStatus names for CLP's status and secondary status (ClpModel.hpp).
std::string clp_status_name(int status, int secondary) {
  switch (status) {
    case 0: return to_string(LpStatus::Optimal);
    case 1: return to_string(LpStatus::Infeasible);
    case 2: return to_string(LpStatus::Unbounded);  // dual infeasible
    case 3: return to_string(secondary == 9 ? LpStatus::TimeLimit : LpStatus::IterationLimit);
    default: return to_string(LpStatus::NumericalTrouble);  // 4 errors, 5 event, -1 postsolve not optimal
  }
}

}  // namespace

bool clp_available() { return true; }

std::string clp_version() { return std::string("CLP ") + CLP_VERSION; }

LpBaselineResult run_clp(const LinearProgram& lp, int repeat, bool presolve) {
  LpBaselineResult r;
  try {
    const index_t m = lp.rows(), n = lp.cols();
    const std::vector<double> col_lower = clp_bounds(lp.col_lower), col_upper = clp_bounds(lp.col_upper);
    const std::vector<double> row_lower = clp_bounds(lp.row_lower), row_upper = clp_bounds(lp.row_upper);
    ClpSimplex loaded;
    loaded.setLogLevel(0);
    loaded.loadProblem(n, m, lp.A.col_ptr.data(), lp.A.row_idx.data(), lp.A.values.data(), col_lower.data(),
                       col_upper.data(), lp.cost.data(), row_lower.data(), row_upper.data());
    loaded.setOptimizationDirection(lp.sense == ObjectiveSense::Maximize ? -1.0 : 1.0);
    // The clp program's "perturbation on" (50); the library's own default, 100,
    // decides by itself and takes other paths (other iteration counts).
    loaded.setPerturbation(50);

    ClpSolve options;  // CLP's defaults otherwise (scaling, dual pricing)
    options.setSolveType(ClpSolve::useDual);
    options.setPresolveType(presolve ? ClpSolve::presolveOn : ClpSolve::presolveOff);

    std::vector<double> times;
    for (int k = 0; k < std::max(repeat, 1); ++k) {
      ClpSimplex model(loaded);  // fresh: no basis, no solution from an earlier repeat
      model.setLogLevel(0);
      const Clock::time_point t0 = Clock::now();
      model.initialSolve(options);
      times.push_back(seconds_since(t0));
      if (k == 0) {
        r.status = clp_status_name(model.status(), model.secondaryStatus());
        r.objective = model.objectiveValue() + lp.objective_constant;
        r.iterations = model.getIterationCount();
      }
    }
    r.seconds = median(times);
  } catch (const CoinError& e) {
    r.status = "error";
    r.error = "CLP: " + e.className() + "::" + e.methodName() + ": " + e.message();
  } catch (const std::exception& e) {
    r.status = "error";
    r.error = std::string("CLP: ") + e.what();
  }
  return r;
}

}  // namespace balsa::bench
