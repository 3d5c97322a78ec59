// balsa::solve (include/balsa/solve.hpp): the chain, its fallbacks and its
// reports, on the CPU; the Krylov solvers' early stops (divergence, no progress).
#include <gtest/gtest.h>

#include <cmath>

#include "balsa/balsa.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using test::data_file;

Csr<double> load(const std::string& name) { return *test::real_matrix_as<double>(data_file(name)); }

// The SaP report's x* (sec. 4.3): a parabola from 1 up to 400 at n/2 and back.
std::vector<double> parabola(index_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const double t = n > 1 ? double(i) / double(n - 1) : 0.5;
    x[std::size_t(i)] = 1.0 + 399.0 * 4.0 * t * (1.0 - t);
  }
  return x;
}

double error2(const std::vector<double>& x, const std::vector<double>& ref) {
  double d = 0, r = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d += (x[i] - ref[i]) * (x[i] - ref[i]);
    r += ref[i] * ref[i];
  }
  return std::sqrt(d / r);
}

struct Case {
  const char* file;
  SolveMethod first;  // what Auto should try first
};

class SolveReal : public ::testing::TestWithParam<Case> {};

TEST_P(SolveReal, AutoAnswersWithAMeasuredResidual) {
  const Csr<double> A = load(GetParam().file);
  const std::vector<double> xs = parabola(A.rows);
  const std::vector<double> b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu});
  ASSERT_TRUE(r.solved) << r.message;
  ASSERT_FALSE(r.chain.empty());
  EXPECT_EQ(r.chain.front().method, GetParam().first);
  EXPECT_EQ(r.chain.back().method, r.method);
  EXPECT_TRUE(r.chain.back().solved);
  for (std::size_t i = 0; i + 1 < r.chain.size(); ++i) EXPECT_FALSE(r.chain[i].reason.empty());
  const double res = relative_residual(A, std::span<const double>(x), std::span<const double>(b));
  EXPECT_LE(res, 1e-8);
  EXPECT_NEAR(res, r.true_residual, 1e-12 + 1e-6 * res);
  EXPECT_NE(r.message.find(to_string(r.method)), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Matrices, SolveReal,
                         ::testing::Values(Case{"bcsstk13.mtx", SolveMethod::PcgIc0},
                                           Case{"west0479.mtx", SolveMethod::DbBiCgStab2Ilu0},
                                           Case{"Pd.mtx", SolveMethod::DbBiCgStab2Ilu0},
                                           Case{"cryg2500.mtx", SolveMethod::DbBiCgStab2Ilu0},
                                           Case{"olm1000.mtx", SolveMethod::DbBiCgStab2Ilu0}),
                         [](const auto& info) {
                           std::string s = info.param.file;
                           return s.substr(0, s.find('.'));
                         });

TEST(Solve, ZeroDiagonalNeedsBoostingForIlu0) {
  // west0479 has zero diagonals: ILU(0) on A itself cannot start, after DB it solves it.
  const Csr<double> A = load("west0479.mtx");
  ASSERT_FALSE(inspect_diagonal(A).ok());
  const std::vector<double> xs = parabola(A.rows), b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x),
                              {.method = SolveMethod::DbBiCgStab2Ilu0, .device = Device::Cpu, .direct_fallback = false});
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_FALSE(r.direct);
  EXPECT_LE(error2(x, xs), 0.01);
  EXPECT_GT(r.krylov.iterations, 0);
}

TEST(Solve, FallsBackToTheDirectMethodAndSaysSo) {
  const Csr<double> A = load("west0479.mtx");
  const std::vector<double> xs = parabola(A.rows), b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  // No iterations allowed: every iterative method fails, UMFPACK answers.
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x),
                              {.device = Device::Cpu, .max_iterations = 0});
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_TRUE(r.direct);
  EXPECT_EQ(r.method, SolveMethod::Umfpack);
  ASSERT_EQ(r.chain.size(), 5u);
  for (int i = 0; i < 4; ++i) EXPECT_NE(r.chain[std::size_t(i)].reason.find("0 iterations"), std::string::npos)
      << r.chain[std::size_t(i)].reason;
  EXPECT_LE(error2(x, xs), 1e-6);
  EXPECT_NE(r.message.find("direct fallback"), std::string::npos);
  // Without the fallback: not solved, every reason listed, x the best attempt's.
  std::vector<double> y(xs.size(), 0.0);
  const SolveReport f = solve(A, std::span<const double>(b), std::span<double>(y),
                              {.device = Device::Cpu, .max_iterations = 0, .direct_fallback = false});
  EXPECT_FALSE(f.solved);
  EXPECT_EQ(f.chain.size(), 4u);
  EXPECT_NE(f.message.find("no method solved it"), std::string::npos);
  EXPECT_NE(f.message.find("sap-c"), std::string::npos);
  EXPECT_GT(f.true_residual, 1e-8);
}

TEST(Solve, DirectQrAnswersToo) {
  const Csr<double> A = load("west0479.mtx");
  const std::vector<double> xs = parabola(A.rows), b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  const SolveReport r =
      solve(A, std::span<const double>(b), std::span<double>(x), {.method = SolveMethod::DirectQr, .device = Device::Cpu});
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_TRUE(r.direct);
  EXPECT_LE(error2(x, xs), 1e-6);
}

TEST(Solve, NumericallySingularIsReportedNotSolved) {
  // Rows 0 and 1 equal: structurally nonsingular, numerically singular.
  Coo<double> c;
  c.rows = c.cols = 4;
  c.row_idx = {0, 0, 1, 1, 2, 3};
  c.col_idx = {0, 1, 0, 1, 2, 3};
  c.values = {1, 2, 1, 2, 3, 4};
  const Csr<double> A = to_csr(c);
  const std::vector<double> b = {1, 2, 3, 4};  // inconsistent: no x solves it
  std::vector<double> x(4, 0.0);
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu});
  EXPECT_FALSE(r.solved) << r.message;
  EXPECT_EQ(r.chain.back().method, SolveMethod::Umfpack);
  EXPECT_NE(r.chain.back().reason.find("singular"), std::string::npos) << r.chain.back().reason;
}

TEST(Solve, BadInputIsAnError) {
  Coo<double> c;
  c.rows = c.cols = 3;
  c.row_idx = {0, 1, 2, 0};
  c.col_idx = {0, 0, 2, 2};
  c.values = {1, 2, 3, 4};
  const Csr<double> singular = to_csr(c);
  std::vector<double> b(3, 1.0), x(3, 0.0);
  try {
    solve(singular, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu});
    FAIL() << "no error";
  } catch (const StructurallySingular& e) {
    EXPECT_EQ(e.structural_rank(), 2);
  }
  const Csr<double> rect = load("lp_e226.mtx");
  std::vector<double> br(std::size_t(rect.rows), 1.0), xr(std::size_t(rect.rows), 0.0);
  EXPECT_THROW(solve(rect, std::span<const double>(br), std::span<double>(xr)), DimensionError);
  Csr<double> A = load("west0479.mtx");
  std::vector<double> bw(std::size_t(A.rows), 1.0), xw(std::size_t(A.rows), 0.0), short_b(3, 1.0);
  EXPECT_THROW(solve(A, std::span<const double>(short_b), std::span<double>(xw)), DimensionError);
  bw[5] = INFINITY;
  EXPECT_THROW(solve(A, std::span<const double>(bw), std::span<double>(xw)), Error);
  bw[5] = 1;
  A.values[7] = std::nan("");
  EXPECT_THROW(solve(A, std::span<const double>(bw), std::span<double>(xw)), MatrixError);
  EXPECT_THROW(solve(load("west0479.mtx"), std::span<const double>(bw), std::span<double>(xw), {.tolerance = 0}),
               Error);
  // Bad options are errors, not chain failures the fallback would hide.
  EXPECT_THROW(solve(load("west0479.mtx"), std::span<const double>(bw), std::span<double>(xw), {.divergence = 0.5}),
               Error);
  if (!cuda::available()) {
    EXPECT_THROW(solve(load("west0479.mtx"), std::span<const double>(bw), std::span<double>(xw), {.device = Device::Cuda}),
                 CudaError);
  }
}

TEST(Solve, ZeroRightHandSideAndEmptySystem) {
  const Csr<double> A = load("west0479.mtx");
  std::vector<double> b(std::size_t(A.rows), 0.0), x(std::size_t(A.rows), 5.0);
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu});
  EXPECT_TRUE(r.solved);
  for (double v : x) EXPECT_EQ(v, 0.0);
}

TEST(Solve, FloatSystems) {
  const Csr<float> A = *test::real_matrix_as<float>(data_file("west0479.mtx"));
  const std::vector<float> xs(std::size_t(A.rows), 1.0f);
  const std::vector<float> b = multiply(A, std::span<const float>(xs));
  std::vector<float> x(xs.size(), 0.0f);
  const SolveReport r =
      solve(A, std::span<const float>(b), std::span<float>(x), {.device = Device::Cpu, .tolerance = 1e-5});
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_LE(r.true_residual, 1e-5);
}

// ---- the Krylov solvers' early stops ------------------------------------------

TEST(KrylovEarlyStop, DivergenceStopsAtOnce) {
  // BiCGStab without a preconditioner on west0479 (zero diagonals, far from
  // definite): its residual leaves its best by far more than 1.5x.
  const Csr<double> A = load("west0479.mtx");
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  KrylovOptions o = krylov_options(KrylovPreset::BiCgStab);
  o.device = Device::Cpu;
  o.divergence = 1.5;
  o.max_iterations = 5000;
  KrylovSolver<double> k(A, o);
  const KrylovStats st = k.solve(b, x);
  EXPECT_EQ(st.outcome, KrylovOutcome::Diverged) << st.message;
  EXPECT_NE(st.message.find("diverged"), std::string::npos);
  double best = st.history.front();
  for (std::size_t i = 0; i + 1 < st.history.size(); ++i) {
    best = std::min(best, st.history[i]);
    EXPECT_LE(st.history[i], 1.5 * best) << "a divergence at " << i << " was missed";
  }
  EXPECT_GT(st.history.back(), 1.5 * best);
  EXPECT_THROW(KrylovSolver<double>(A, {.divergence = 0.5}), Error);
}

TEST(KrylovEarlyStop, NoProgressStopsAfterTheWindow) {
  const Csr<double> A = load("bcsstk13.mtx");  // CG without a preconditioner creeps
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  KrylovOptions o = krylov_options(KrylovPreset::Cg);
  o.device = Device::Cpu;
  o.stagnation_window = 3;
  o.divergence = 0;
  KrylovSolver<double> k(A, o);
  const KrylovStats st = k.solve(b, x);
  EXPECT_EQ(st.outcome, KrylovOutcome::Stagnation) << st.message;
  EXPECT_NE(st.message.find("no progress"), std::string::npos) << st.message;
  EXPECT_LT(st.iterations, 10000);
  EXPECT_THROW(KrylovSolver<double>(A, {.stagnation_window = -1}), Error);
}

}  // namespace
}  // namespace balsa
