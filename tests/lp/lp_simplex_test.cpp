// The revised simplex (include/balsa/lp.hpp): Netlib LPs against HiGHS'
// objectives (tests/data/lp/reference.csv), every result checked by the
// optimality conditions (primal and dual feasibility, complementary
// slackness, objective = the dual bound), small LPs built by hand for each
// status, bounds and rows of every kind, random LPs, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "balsa/lp.hpp"
#include "lp/simplex/simplex_core.hpp"
#include "lp/simplex/working_lp.hpp"
#include "support/test_support.hpp"

namespace {

using balsa::Device;
using balsa::index_t;
using balsa::LinearProgram;
using balsa::LpSolution;
using balsa::LpStatus;
using balsa::SimplexOptions;
using balsa::SimplexSolver;
constexpr double inf = balsa::lp_infinity;

// The optimality conditions in the LP's terms: x within its bounds, A x
// within the row bounds, reduced costs and row duals of the right sign (zero
// for a variable or row strictly inside its bounds), and c^T x equal to the
// dual objective.
void expect_optimal_kkt(const LinearProgram& lp, const LpSolution& s, double tol = 1e-6) {
  ASSERT_EQ(s.x.size(), std::size_t(lp.cols()));
  ASSERT_EQ(s.row_dual.size(), std::size_t(lp.rows()));
  const double sense = lp.sense == balsa::ObjectiveSense::Maximize ? -1.0 : 1.0;
  double scale = 1;
  for (double c : lp.cost) scale = std::max(scale, std::abs(c));
  double dual_objective = lp.objective_constant;
  for (index_t j = 0; j < lp.cols(); ++j) {
    const double x = s.x[j], d = sense * s.reduced_cost[j], t = tol * (1 + std::abs(x));
    EXPECT_GE(x, lp.col_lower[j] - t) << "column " << j;
    EXPECT_LE(x, lp.col_upper[j] + t) << "column " << j;
    if (x > lp.col_lower[j] + t) {
      EXPECT_LE(d, tol * scale) << "column " << j;
    }
    if (x < lp.col_upper[j] - t) {
      EXPECT_GE(d, -tol * scale) << "column " << j;
    }
    dual_objective += s.reduced_cost[j] * x;
  }
  for (index_t i = 0; i < lp.rows(); ++i) {
    const double r = s.row_activity[i], y = sense * s.row_dual[i], t = tol * (1 + std::abs(r));
    EXPECT_GE(r, lp.row_lower[i] - t) << "row " << i;
    EXPECT_LE(r, lp.row_upper[i] + t) << "row " << i;
    if (r > lp.row_lower[i] + t) {
      EXPECT_LE(y, tol * scale) << "row " << i;
    }
    if (r < lp.row_upper[i] - t) {
      EXPECT_GE(y, -tol * scale) << "row " << i;
    }
    dual_objective += s.row_dual[i] * r;
  }
  EXPECT_NEAR(dual_objective, s.objective, 1e-6 * (1 + std::abs(s.objective)));
}

struct NetlibCase {
  const char* file;
  LpStatus status;
  double objective;  // HiGHS' (reference.csv)
};

class Netlib : public ::testing::TestWithParam<NetlibCase> {};

TEST_P(Netlib, SolvesToHighsObjective) {
  const NetlibCase c = GetParam();
  const LinearProgram lp = balsa::read_mps(balsa::test::data_file(std::string("lp/") + c.file).string());
  for (const bool presolve : {true, false}) {
    SCOPED_TRACE(presolve ? "presolve" : "no presolve");
    SimplexSolver solver(lp, {.device = Device::Cpu, .presolve = presolve});
    const LpSolution s = solver.solve();
    ASSERT_EQ(s.status, c.status) << balsa::to_string(s.status);
    EXPECT_EQ(solver.stats().status, c.status);
    if (!presolve) {
      EXPECT_GT(solver.stats().factorizations, 0);
    }
    if (c.status != LpStatus::Optimal) continue;
    EXPECT_NEAR(s.objective, c.objective, 1e-6 * std::max(1.0, std::abs(c.objective)));
    expect_optimal_kkt(lp, s);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lp, Netlib,
    ::testing::Values(NetlibCase{"afiro.mps.gz", LpStatus::Optimal, -464.75314285714285},
                      NetlibCase{"adlittle.mps.gz", LpStatus::Optimal, 225494.9631623804},
                      NetlibCase{"boeing2.mps.gz", LpStatus::Optimal, -315.0187280152029},
                      NetlibCase{"bore3d.mps.gz", LpStatus::Optimal, 1373.0803942084929},
                      NetlibCase{"gfrd-pnc.mps.gz", LpStatus::Optimal, 6902235.999548809},
                      NetlibCase{"kb2.mps.gz", LpStatus::Optimal, -1749.9001299062056},
                      NetlibCase{"sc50a.mps.gz", LpStatus::Optimal, -64.5750770585645},
                      NetlibCase{"vtpbase.mps.gz", LpStatus::Optimal, 129831.46246136137},
                      NetlibCase{"itest2.mps.gz", LpStatus::Infeasible, 0},
                      NetlibCase{"cplex2.mps.gz", LpStatus::Infeasible, 0},
                      NetlibCase{"woodinfe.mps.gz", LpStatus::Infeasible, 0}),
    [](const auto& info) {
      std::string n = info.param.file;
      n = n.substr(0, n.find('.'));
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// An LP from dense rows (row bounds, column bounds, costs).
LinearProgram dense_lp(const std::vector<std::vector<double>>& rows, std::vector<double> row_lower,
                       std::vector<double> row_upper, std::vector<double> cost, std::vector<double> col_lower,
                       std::vector<double> col_upper) {
  LinearProgram lp;
  const index_t m = index_t(rows.size()), n = index_t(cost.size());
  lp.A.rows = m;
  lp.A.cols = n;
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < m; ++i)
      if (rows[i][j] != 0) {
        lp.A.row_idx.push_back(i);
        lp.A.values.push_back(rows[i][j]);
      }
    lp.A.col_ptr.push_back(index_t(lp.A.row_idx.size()));
  }
  lp.cost = std::move(cost);
  lp.row_lower = std::move(row_lower);
  lp.row_upper = std::move(row_upper);
  lp.col_lower = std::move(col_lower);
  lp.col_upper = std::move(col_upper);
  lp.integer.assign(std::size_t(n), 0);
  return lp;
}

LpSolution solve(const LinearProgram& lp, SimplexOptions o = {.device = Device::Cpu}) {
  SimplexSolver s(lp, o);
  return s.solve();
}

TEST(LpSimplex, SmallLpEveryPathAgrees) {
  // max 3x + 2y  s.t. x + y <= 4, x + 3y <= 6, x <= 3, x, y >= 0: x = 3, y = 1, 11.
  LinearProgram lp = dense_lp({{1, 1}, {1, 3}}, {-inf, -inf}, {4, 6}, {3, 2}, {0, 0}, {3, inf});
  lp.sense = balsa::ObjectiveSense::Maximize;
  lp.objective_constant = 0.5;
  for (const bool presolve : {true, false})
    for (const bool scale : {true, false})
      for (const auto pricing : {balsa::DualPricing::SteepestEdge, balsa::DualPricing::Devex, balsa::DualPricing::Dantzig}) {
        const LpSolution s = solve(lp, {.device = Device::Cpu, .pricing = pricing, .presolve = presolve, .scale = scale});
        ASSERT_EQ(s.status, LpStatus::Optimal);
        EXPECT_NEAR(s.objective, 11.5, 1e-9);
        EXPECT_NEAR(s.x[0], 3, 1e-9);
        EXPECT_NEAR(s.x[1], 1, 1e-9);
        expect_optimal_kkt(lp, s);
      }
}

TEST(LpSimplex, FreeVariablesRangesAndEqualities) {
  // min x - y + 2z  s.t.  x + y + z = 2,  -1 <= x - y <= 1 (a range),  y + z >= 0.5,
  // x free, y in [-1, 1.5], z <= 3 (no lower bound).
  const LinearProgram lp =
      dense_lp({{1, 1, 1}, {1, -1, 0}, {0, 1, 1}}, {2, -1, 0.5}, {2, 1, inf}, {1, -1, 2}, {-inf, -1, -inf}, {inf, 1.5, 3});
  for (const bool presolve : {true, false}) {
    const LpSolution s = solve(lp, {.device = Device::Cpu, .presolve = presolve});
    ASSERT_EQ(s.status, LpStatus::Optimal) << balsa::to_string(s.status);
    expect_optimal_kkt(lp, s);
  }
}

TEST(LpSimplex, UnboundedAndInfeasible) {
  // min -x - y s.t. x - y <= 1: unbounded.
  const LinearProgram unbounded = dense_lp({{1, -1}}, {-inf}, {1}, {-1, -1}, {0, 0}, {inf, inf});
  EXPECT_EQ(solve(unbounded).status, LpStatus::Unbounded);
  EXPECT_EQ(solve(unbounded, {.device = Device::Cpu, .presolve = false}).status, LpStatus::Unbounded);
  // x + y >= 3, x + y <= 2: infeasible.
  const LinearProgram infeasible = dense_lp({{1, 1}, {1, 1}}, {3, -inf}, {inf, 2}, {1, 1}, {0, 0}, {inf, inf});
  EXPECT_EQ(solve(infeasible).status, LpStatus::Infeasible);
  EXPECT_EQ(solve(infeasible, {.device = Device::Cpu, .presolve = false}).status, LpStatus::Infeasible);
  // Inconsistent bounds are an infeasible LP, not an error.
  const LinearProgram crossed = dense_lp({{1, 1}}, {0}, {10}, {1, 1}, {2, 0}, {1, inf});
  EXPECT_EQ(solve(crossed).status, LpStatus::Infeasible);
  EXPECT_EQ(solve(crossed, {.device = Device::Cpu, .presolve = false}).status, LpStatus::Infeasible);
  const LinearProgram crossed_row = dense_lp({{1, 1}}, {5}, {4}, {1, 1}, {0, 0}, {inf, inf});
  EXPECT_EQ(solve(crossed_row).status, LpStatus::Infeasible);
}

// Coefficients near the ends of double's range: scaling must not turn them
// into 0, inf or NaN. min x0 + 2 x1 s.t. v x0 + v x1 >= v: x = (1, 0); with
// v tiny the row's violation at x = 0 is below the absolute tolerance, so x = 0
// is an accepted answer too (as for CLP and HiGHS): finite, within tolerance.
TEST(LpSimplex, ExtremeCoefficientsScaleSafely) {
  for (const double v : {1e-170, 1e-100, 1e100, 1e170}) {
    SCOPED_TRACE(v);
    const LinearProgram lp = dense_lp({{v, v}}, {v}, {inf}, {1, 2}, {0, 0}, {inf, inf});
    for (const bool presolve : {true, false}) {
      const LpSolution s = solve(lp, {.device = Device::Cpu, .presolve = presolve});
      ASSERT_EQ(s.status, LpStatus::Optimal) << balsa::to_string(s.status);
      ASSERT_TRUE(std::isfinite(s.x[0]) && std::isfinite(s.x[1]));
      EXPECT_LE(s.max_primal_infeasibility, 1e-7);
      if (v > 1) {
        EXPECT_NEAR(s.objective, 1.0, 1e-9);
        EXPECT_NEAR(s.x[0], 1.0, 1e-9);
      }
    }
  }
}

// Primal and dual infeasible at once: reported infeasible.
TEST(LpSimplex, PrimalAndDualInfeasible) {
  // x0 - x1 >= 1, -x0 + x1 >= 1 (infeasible); min -x0 - x1 (unbounded direction).
  const LinearProgram lp = dense_lp({{1, -1}, {-1, 1}}, {1, 1}, {inf, inf}, {-1, -1}, {0, 0}, {inf, inf});
  EXPECT_EQ(solve(lp).status, LpStatus::Infeasible);
  EXPECT_EQ(solve(lp, {.device = Device::Cpu, .presolve = false}).status, LpStatus::Infeasible);
}

TEST(LpSimplex, EmptyAndRowlessProblems) {
  const LinearProgram none = dense_lp({}, {}, {}, {}, {}, {});
  const LpSolution s = solve(none);
  EXPECT_EQ(s.status, LpStatus::Optimal);
  EXPECT_EQ(s.objective, 0.0);
  // No rows: each column at the bound its cost asks for.
  const LinearProgram rowless = dense_lp({}, {}, {}, {1, -2, 0}, {-1, 0, -5}, {4, 3, 5});
  const LpSolution r = solve(rowless);
  ASSERT_EQ(r.status, LpStatus::Optimal);
  EXPECT_EQ(r.x[0], -1);
  EXPECT_EQ(r.x[1], 3);
  EXPECT_NEAR(r.objective, -7, 1e-12);
  const LinearProgram unbounded = dense_lp({}, {}, {}, {-1}, {0}, {inf});
  EXPECT_EQ(solve(unbounded).status, LpStatus::Unbounded);
}

// Random feasible LPs (a known interior point) with boxed, one-sided and free
// columns and rows of every kind: each result must satisfy the optimality
// conditions, with and without presolve and scaling, and both agree.
TEST(LpSimplex, RandomLpsSatisfyOptimality) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 40; ++trial) {
    const index_t m = 5 + index_t(rng() % 40), n = 5 + index_t(rng() % 60);
    std::vector<std::vector<double>> rows(std::size_t(m), std::vector<double>(std::size_t(n), 0.0));
    for (auto& r : rows)
      for (double& v : r)
        if (rng() % 4 == 0) v = std::round(u(rng) * 100) / 10;
    const std::size_t nn = static_cast<std::size_t>(n), mm = static_cast<std::size_t>(m);
    std::vector<double> x0(nn), cl(nn), cu(nn), c(nn);
    for (index_t j = 0; j < n; ++j) {
      x0[j] = u(rng) * 3;
      const int kind = int(rng() % 4);
      cl[j] = kind == 3 ? -inf : x0[j] - 1 - std::abs(u(rng));
      cu[j] = kind == 1 || kind == 3 ? inf : x0[j] + 1 + std::abs(u(rng));
      c[j] = u(rng);
    }
    std::vector<double> rl(mm), ru(mm);
    for (index_t i = 0; i < m; ++i) {
      double a = 0;
      for (index_t j = 0; j < n; ++j) a += rows[i][j] * x0[j];
      const int kind = int(rng() % 4);
      rl[i] = kind == 1 ? -inf : a - (kind == 0 ? 0.0 : std::abs(u(rng)));
      ru[i] = kind == 2 ? inf : (kind == 0 ? rl[i] : a + std::abs(u(rng)));
      if (kind == 1) ru[i] = a + std::abs(u(rng));
    }
    // Free columns with a cost would make most of these unbounded: bound the objective.
    for (index_t j = 0; j < n; ++j)
      if (cl[j] == -inf && cu[j] == inf) c[j] = 0;
    const LinearProgram lp = dense_lp(rows, rl, ru, c, cl, cu);
    SCOPED_TRACE("trial " + std::to_string(trial));
    const LpSolution a = solve(lp);
    const LpSolution b = solve(lp, {.device = Device::Cpu, .presolve = false, .scale = false});
    ASSERT_EQ(a.status, b.status);
    if (a.status == LpStatus::Optimal) {
      expect_optimal_kkt(lp, a);
      expect_optimal_kkt(lp, b);
      EXPECT_NEAR(a.objective, b.objective, 1e-7 * (1 + std::abs(a.objective)));
    } else {
      EXPECT_EQ(a.status, LpStatus::Unbounded) << balsa::to_string(a.status);  // x0 is feasible
    }
  }
}

TEST(LpSimplex, IterationAndTimeLimits) {
  const LinearProgram lp = balsa::read_mps(balsa::test::data_file("lp/gfrd-pnc.mps.gz").string());
  const LpSolution s = solve(lp, {.device = Device::Cpu, .max_iterations = 3, .presolve = false});
  EXPECT_EQ(s.status, LpStatus::IterationLimit);
  EXPECT_LE(s.iterations, 3);
  EXPECT_EQ(s.x.size(), std::size_t(lp.cols()));  // a point to look at, not an answer
  const LpSolution t = solve(lp, {.device = Device::Cpu, .time_limit_seconds = 1e-9, .presolve = false});
  EXPECT_EQ(t.status, LpStatus::TimeLimit);
}

// A singular basis (two equal columns basic together) is repaired with
// logicals, counted, and the simplex goes on to the optimum.
TEST(LpSimplex, SingularBasisIsRepairedAndCounted) {
  // min -x0 - x1 - 2 x2  s.t.  x0 + x1 + x2 <= 4,  2 x0 + 2 x1 + x2 <= 6,  x <= 3.
  const LinearProgram lp = dense_lp({{1, 1, 1}, {2, 2, 1}}, {-inf, -inf}, {4, 6}, {-1, -1, -2}, {0, 0, 0}, {3, 3, 3});
  balsa::lp::Scaling scaling;
  const balsa::lp::WorkingLp w = balsa::lp::make_working_lp(lp, false, scaling);
  balsa::SimplexStats stats;
  const SimplexOptions o{.device = Device::Cpu};
  balsa::lp::SimplexCore core(w, o, stats, balsa::Clock::now());
  const std::vector<index_t> singular = {0, 1};  // columns 0 and 1 are parallel
  ASSERT_EQ(core.run(&singular), LpStatus::Optimal);
  EXPECT_GE(stats.singular_recoveries, 1);
  double z = 0;
  for (index_t j = 0; j < 3; ++j) z += lp.cost[j] * core.x()[j];
  EXPECT_NEAR(z, -7, 1e-9);  // x2 = 3, x0 + x1 = 1
}

// Integer markers are reported; the LP relaxation is solved.
TEST(LpSimplex, IntegerColumnsAreRelaxed) {
  LinearProgram lp = dense_lp({{2, 2}}, {-inf}, {3}, {-1, -1}, {0, 0}, {inf, inf});
  lp.integer = {1, 1};
  SimplexSolver s(lp, {.device = Device::Cpu});
  EXPECT_EQ(s.stats().integer_columns, 2);
  const LpSolution r = s.solve();
  ASSERT_EQ(r.status, LpStatus::Optimal);
  EXPECT_NEAR(r.objective, -1.5, 1e-12);  // the relaxation's, not the integer optimum -1
}

TEST(LpSimplex, BadInputIsAnError) {
  LinearProgram lp = dense_lp({{1, 1}}, {0}, {1}, {1, 1}, {0, 0}, {1, 1});
  LinearProgram bad = lp;
  bad.cost.pop_back();
  EXPECT_THROW(SimplexSolver(bad, {}), balsa::Error);
  bad = lp;
  bad.A.values[0] = std::nan("");
  EXPECT_THROW(SimplexSolver(bad, {}), balsa::Error);
  bad = lp;
  bad.col_lower[0] = std::nan("");
  EXPECT_THROW(SimplexSolver(bad, {}), balsa::Error);
  EXPECT_THROW(SimplexSolver(lp, {.primal_tolerance = 0}), balsa::Error);
  EXPECT_THROW(SimplexSolver(lp, {.pivot_threshold = 2}), balsa::Error);
  EXPECT_THROW(SimplexSolver(lp, {.max_iterations = -1}), balsa::Error);
  EXPECT_THROW(SimplexSolver(lp, {.time_limit_seconds = std::nan("")}), balsa::Error);
  EXPECT_THROW(SimplexSolver(lp, {.primal_tolerance = inf}), balsa::Error);
  SimplexSolver moved(lp, {.device = Device::Cpu});
  SimplexSolver taken = std::move(moved);
  EXPECT_THROW(moved.solve(), balsa::Error);  // NOLINT(bugprone-use-after-move): on purpose
  SimplexSolver once(lp, {.device = Device::Cpu});
  EXPECT_EQ(once.solve().status, LpStatus::Optimal);
  EXPECT_THROW(once.solve(), balsa::Error);
}

}  // namespace
