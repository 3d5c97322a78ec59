// balsa::solve (include/balsa/solve.hpp): Auto's plan, the chain, its
// fallbacks, backward errors, several right-hand sides, the time budget and
// the reports, on the CPU; the Krylov solvers' early stops (divergence, no
// progress).
#include <gtest/gtest.h>

#include <omp.h>

#include <chrono>
#include <cmath>

#include "balsa/balsa.hpp"
#include "solve/measures.hpp"
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
  bool spd;  // Auto's direct method is CHOLMOD
};

class SolveReal : public ::testing::TestWithParam<Case> {};

// Small real systems: a direct factorisation takes milliseconds, so Auto
// predicts it fastest and tries it first; the answer's backward error is
// that of a backward-stable solve.
TEST_P(SolveReal, AutoAnswersSmallSystemsDirectlyWithASmallBackwardError) {
  const Csr<double> A = load(GetParam().file);
  const std::vector<double> xs = parabola(A.rows);
  const std::vector<double> b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);  // the initial guess (a direct method overwrites it)
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu});
  ASSERT_TRUE(r.solved) << r.message;
  ASSERT_EQ(r.chain.size(), 1u) << r.message;
  EXPECT_TRUE(r.direct);
  EXPECT_EQ(r.method, r.chain.front().method);
  if (GetParam().spd) {
    EXPECT_EQ(r.method, SolveMethod::Cholmod);
  }
  EXPECT_EQ(r.device, Device::Cpu);
  ASSERT_FALSE(r.plan.empty());
  for (std::size_t i = 0; i + 1 < r.plan.size(); ++i)
    if (r.plan[i + 1].seconds >= 0) {
      EXPECT_LE(r.plan[i].seconds, r.plan[i + 1].seconds);
    }
  EXPECT_LE(r.backward_error, 1e-13);
  EXPECT_GE(r.backward_error, 0.0);
  EXPECT_LE(r.componentwise_backward_error, 1e-10);
  const double res = relative_residual(A, std::span<const double>(x), std::span<const double>(b));
  EXPECT_NEAR(res, r.true_residual, 1e-14 + 1e-6 * res);
  EXPECT_EQ(r.features.n, A.rows);
  EXPECT_EQ(r.features.nnz, A.nnz());
  EXPECT_NE(r.message.find(to_string(r.method)), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Matrices, SolveReal,
                         ::testing::Values(Case{"bcsstk13.mtx", true}, Case{"west0479.mtx", false},
                                           Case{"Pd.mtx", false}, Case{"cryg2500.mtx", false},
                                           Case{"olm1000.mtx", false}, Case{"bayer10.mtx", false}),
                         [](const auto& info) {
                           std::string s = info.param.file;
                           return s.substr(0, s.find('.'));
                         });

TEST(Solve, FeaturesOfA) {
  const Csr<double> L = laplacian_3d<double>(10, 10, 10);
  const SolveReport p = plan_solve(L, {.device = Device::Cpu});
  EXPECT_TRUE(p.features.symmetric);
  EXPECT_TRUE(p.features.positive_diagonal);
  EXPECT_EQ(p.features.zero_diagonal, 0);
  EXPECT_DOUBLE_EQ(p.features.dominant_rows, 1.0);  // |6| >= 6 inside, more on the boundary
  EXPECT_DOUBLE_EQ(p.features.diagonal_spread, 1.0);
  EXPECT_DOUBLE_EQ(p.features.norm_inf, 12.0);
  const Csr<double> W = load("west0479.mtx");
  const SolveReport w = plan_solve(W, {.device = Device::Cpu});
  EXPECT_FALSE(w.features.symmetric);
  EXPECT_FALSE(w.features.positive_diagonal);
  EXPECT_GT(w.features.zero_diagonal, 0);
  ASSERT_FALSE(w.plan.empty());
  const std::vector<double> b(std::size_t(W.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  const SolveReport r = solve(W, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu});
  ASSERT_FALSE(r.chain.empty());
  EXPECT_TRUE(is_direct(r.chain.front().method)) << r.message;  // a 479-row system: direct first
  for (const SolvePrediction& q : w.plan) EXPECT_NE(q.method, SolveMethod::Cg);  // CG needs symmetry
}

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
  EXPECT_LE(std::min(r.backward_error, r.componentwise_backward_error), 1e-8);
}

TEST(Solve, FallsBackToADirectMethodAndSaysSo) {
  const Csr<double> A = load("west0479.mtx");
  const std::vector<double> xs = parabola(A.rows), b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  // No iterations allowed: the iterative method fails, a direct one answers.
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x),
                              {.method = SolveMethod::DbBiCgStab2Ilu0,
                               .device = Device::Cpu,
                               .stopping = {.norm = StoppingNorm::Two, .max_iterations = 0, .stagnation_window = 300}});
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_TRUE(r.direct);
  EXPECT_TRUE(is_direct(r.method));
  ASSERT_EQ(r.chain.size(), 2u);
  EXPECT_NE(r.chain[0].reason.find("0 iterations"), std::string::npos) << r.chain[0].reason;
  EXPECT_LE(error2(x, xs), 1e-6);
  EXPECT_NE(r.message.find("direct fallback"), std::string::npos);
  EXPECT_GT(r.direct_stats.factor_entries, 0);
  // Without the fallback: not solved, the reason listed, x the best attempt's.
  std::vector<double> y(xs.size(), 0.0);
  const SolveReport f = solve(A, std::span<const double>(b), std::span<double>(y),
                              {.method = SolveMethod::DbBiCgStab2Ilu0,
                               .device = Device::Cpu,
                               .stopping = {.norm = StoppingNorm::Two, .max_iterations = 0, .stagnation_window = 300},
                               .direct_fallback = false});
  EXPECT_FALSE(f.solved);
  EXPECT_EQ(f.chain.size(), 1u);
  EXPECT_NE(f.message.find("no method solved it"), std::string::npos);
  EXPECT_GT(f.true_residual, 1e-8);
}

TEST(Solve, EveryDirectMethodByName) {
  const Csr<double> S = load("bcsstk13.mtx");
  const Csr<double> U = load("west0479.mtx");
  for (const SolveMethod m : {SolveMethod::Cholmod, SolveMethod::Umfpack, SolveMethod::Klu, SolveMethod::DirectQr}) {
    SCOPED_TRACE(to_string(m));
    const Csr<double>& A = m == SolveMethod::Cholmod ? S : U;
    const std::vector<double> xs = parabola(A.rows), b = multiply(A, std::span<const double>(xs));
    std::vector<double> x(xs.size(), 0.0);
    const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x), {.method = m, .device = Device::Cpu});
    ASSERT_TRUE(r.solved) << r.message;
    EXPECT_EQ(r.method, m);
    EXPECT_TRUE(r.direct);
    EXPECT_LE(r.backward_error, 1e-12);
    EXPECT_LE(error2(x, xs), 1e-6);
  }
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
  ASSERT_FALSE(r.chain.empty());
  EXPECT_TRUE(is_direct(r.chain.back().method));
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
  DenseMatrix<double> B(3, 2), X;
  EXPECT_THROW(solve(A, B, X), DimensionError);  // B with the wrong number of rows
  bw[5] = INFINITY;
  EXPECT_THROW(solve(A, std::span<const double>(bw), std::span<double>(xw)), Error);
  bw[5] = 1;
  A.values[7] = std::nan("");
  EXPECT_THROW(solve(A, std::span<const double>(bw), std::span<double>(xw)), MatrixError);
  const Csr<double> W = load("west0479.mtx");
  const auto bad = [&](const SolveOptions& o) { solve(W, std::span<const double>(bw), std::span<double>(xw), o); };
  EXPECT_THROW(bad({.stopping = {.tolerance = 0}}), Error);
  // Bad options are errors, not chain failures the fallback would hide.
  EXPECT_THROW(bad({.stopping = {.divergence = 0.5}}), Error);
  EXPECT_THROW(bad({.time_budget = 0.0}), Error);
  EXPECT_THROW(bad({.time_budget = -1.0}), Error);
  EXPECT_THROW(bad({.time_budget = std::nan("")}), Error);
  EXPECT_THROW(bad({.threads = -1}), Error);
  try {
    bad({.threads = 1 << 20});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos) << e.what();
  }
  if (!cuda::available()) {
    EXPECT_THROW(bad({.device = Device::Cuda}), CudaError);
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
  const SolveReport r = solve(
      A, std::span<const float>(b), std::span<float>(x),
      {.device = Device::Cpu,
       .stopping = {.tolerance = 1e-5, .norm = StoppingNorm::Two, .max_iterations = 2000, .stagnation_window = 300}});
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_LE(r.backward_error, 1e-5);
}

// ---- several right-hand sides: one set-up ---------------------------------------

DenseMatrix<double> columns_of(const Csr<double>& A, index_t k) {
  DenseMatrix<double> B(A.rows, k);
  for (index_t c = 0; c < k; ++c) {
    const std::vector<double> xs = random_vector<double>(A.rows, std::uint64_t(c) + 7);
    const std::vector<double> bc = multiply(A, std::span<const double>(xs));
    std::copy(bc.begin(), bc.end(), B.column(c).begin());
  }
  return B;
}

void expect_columns_solved(const Csr<double>& A, const DenseMatrix<double>& B, const DenseMatrix<double>& X,
                           double tolerance) {
  ASSERT_EQ(X.rows, B.rows);
  ASSERT_EQ(X.cols, B.cols);
  for (index_t c = 0; c < B.cols; ++c)
    EXPECT_LE(relative_residual(A, X.column(c), B.column(c)), tolerance) << "column " << c;
}

TEST(SolveMany, ADirectMethodFactorsOnceForEveryColumn) {
  const Csr<double> A = load("bcsstk13.mtx");
  DenseMatrix<double> B = columns_of(A, 4), X(A.rows, 4, 0.0);
  std::fill(B.column(2).begin(), B.column(2).end(), 0.0);  // a zero column among them
  const SolveReport r = solve(A, B, X, {.method = SolveMethod::Cholmod, .device = Device::Cpu});
  ASSERT_TRUE(r.solved) << r.message;
  ASSERT_EQ(r.columns.size(), 4u);
  EXPECT_EQ(r.chain.size(), 1u);
  EXPECT_EQ(r.direct_stats.factorizations, 1);
  EXPECT_EQ(r.direct_stats.columns_solved, 4);
  for (const SolveAttempt& a : r.columns) {
    EXPECT_TRUE(a.solved) << a.reason;
    EXPECT_LE(a.backward_error, 1e-13);
  }
  for (std::size_t c = 1; c < r.columns.size(); ++c) EXPECT_EQ(r.columns[c].setup_seconds, 0.0);
  expect_columns_solved(A, B, X, 1e-10);
  for (double v : X.column(2)) EXPECT_EQ(v, 0.0);
}

TEST(SolveMany, AnIterativeMethodIsSetUpOnce) {
  const Csr<double> A = laplacian_3d<double>(12, 12, 12);
  const DenseMatrix<double> B = columns_of(A, 3);
  DenseMatrix<double> X;  // sized by solve
  const SolveReport r = solve(A, B, X, {.method = SolveMethod::PcgIc0, .device = Device::Cpu});
  ASSERT_TRUE(r.solved) << r.message;
  ASSERT_EQ(r.columns.size(), 3u);
  EXPECT_EQ(r.chain.size(), 1u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(r.columns[c].method, SolveMethod::PcgIc0);
    EXPECT_GT(r.columns[c].iterations, 0);
    if (c > 0) {
      EXPECT_EQ(r.columns[c].setup_seconds, 0.0);
    }
  }
  expect_columns_solved(A, B, X, 1e-8);
}

// ---- acceptance by backward error -------------------------------------------------

TEST(SolveAcceptance, BackwardErrorsByTheirDefinitions) {
  // A = diag(1e10, 1), x off by 0.1 in its second entry: the normwise
  // backward error sees ||A|| = 1e10 and calls it tiny, the componentwise
  // one sees row 1 alone.
  Coo<double> c;
  c.rows = c.cols = 2;
  c.row_idx = {0, 1};
  c.col_idx = {0, 1};
  c.values = {1e10, 1};
  const Csr<double> A = to_csr(c);
  const std::vector<double> b = {1e10, 1}, x = {1, 1.1};
  const solve_detail::BackwardErrors e =
      solve_detail::backward_errors(A, 1e10, std::span<const double>(b), std::span<const double>(x));
  EXPECT_NEAR(e.normwise, 0.1 / (1e10 * 1.1 + 1e10), 1e-25);
  EXPECT_NEAR(e.componentwise, 0.1 / (1.1 + 1.0), 1e-15);
  EXPECT_NEAR(e.relative_residual, 0.1 / std::sqrt(1e20 + 1), 1e-22);
  EXPECT_TRUE(solve_detail::accepted(e, 1e-8, Acceptance::Either));
  EXPECT_TRUE(solve_detail::accepted(e, 1e-8, Acceptance::Normwise));
  EXPECT_FALSE(solve_detail::accepted(e, 1e-8, Acceptance::Componentwise));
  const std::vector<double> bad = {1, NAN};
  const solve_detail::BackwardErrors n =
      solve_detail::backward_errors(A, 1e10, std::span<const double>(b), std::span<const double>(bad));
  EXPECT_FALSE(solve_detail::accepted(n, 1e-8, Acceptance::Either));
}

// ---- the time budget ---------------------------------------------------------------

TEST(SolveBudget, AStepThatCannotFinishInTimeIsStoppedAndSaysSo) {
  // CG without a preconditioner creeps on bcsstk13 (thousands of
  // iterations); 20 ms are far too few.
  const Csr<double> A = load("bcsstk13.mtx");
  const std::vector<double> xs = parabola(A.rows), b = multiply(A, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  const auto t0 = std::chrono::steady_clock::now();
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x),
                              {.method = SolveMethod::Cg,
                               .device = Device::Cpu,
                               .stopping = {.norm = StoppingNorm::Two, .max_iterations = 1000000},
                               .direct_fallback = false,
                               .time_budget = 0.02});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.solved);
  ASSERT_EQ(r.chain.size(), 1u);
  EXPECT_TRUE(r.chain[0].stopped_early) << r.chain[0].reason;
  EXPECT_NE(r.chain[0].reason.find("time budget"), std::string::npos) << r.chain[0].reason;
  EXPECT_LT(took, 0.5);
  EXPECT_DOUBLE_EQ(r.budget_seconds, 0.02);
  // With the fallback: CG is stopped from its measured rate once a quarter
  // of the budget has passed (it needs seconds), and the direct method
  // answers in the time left.
  const SolveReport f = solve(A, std::span<const double>(b), std::span<double>(x),
                              {.method = SolveMethod::Cg,
                               .device = Device::Cpu,
                               .stopping = {.norm = StoppingNorm::Two, .max_iterations = 1000000},
                               .time_budget = 0.5});
  ASSERT_TRUE(f.solved) << f.message;
  EXPECT_TRUE(f.direct) << f.message;
  ASSERT_EQ(f.chain.size(), 2u);
  EXPECT_TRUE(f.chain[0].stopped_early) << f.chain[0].reason;
}

TEST(SolveBudget, ASpentBudgetSkipsWhatIsLeft) {
  const Csr<double> A = load("west0479.mtx");
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  // The features alone take longer than a nanosecond: every link is skipped.
  const SolveReport r =
      solve(A, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu, .time_budget = 1e-9});
  EXPECT_FALSE(r.solved);
  ASSERT_FALSE(r.chain.empty());
  for (const SolveAttempt& a : r.chain) {
    EXPECT_TRUE(a.stopped_early);
    EXPECT_NE(a.reason.find("skipped: the time budget"), std::string::npos) << a.reason;
  }
  EXPECT_NE(r.message.find("no method solved it"), std::string::npos);
}

TEST(SolveBudget, ThreadsOptionLeavesTheProcessSettingAlone) {
  const int before = omp_get_max_threads();
  const Csr<double> A = load("west0479.mtx");
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x), {.device = Device::Cpu, .threads = 1});
  EXPECT_TRUE(r.solved) << r.message;
  EXPECT_EQ(omp_get_max_threads(), before);
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
  o.stopping.divergence = 1.5;
  o.stopping.max_iterations = 5000;
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
  EXPECT_THROW(KrylovSolver<double>(A, {.stopping = {.divergence = 0.5}}), Error);
}

TEST(KrylovEarlyStop, NoProgressStopsAfterTheWindow) {
  const Csr<double> A = load("bcsstk13.mtx");  // CG without a preconditioner creeps
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  KrylovOptions o = krylov_options(KrylovPreset::Cg);
  o.device = Device::Cpu;
  o.stopping.stagnation_window = 3;
  o.stopping.divergence = 0;
  KrylovSolver<double> k(A, o);
  const KrylovStats st = k.solve(b, x);
  EXPECT_EQ(st.outcome, KrylovOutcome::Stagnation) << st.message;
  EXPECT_NE(st.message.find("no progress"), std::string::npos) << st.message;
  EXPECT_LT(st.iterations, 10000);
  EXPECT_THROW(KrylovSolver<double>(A, {.stopping = {.stagnation_window = -1}}), Error);
}

}  // namespace
}  // namespace balsa
