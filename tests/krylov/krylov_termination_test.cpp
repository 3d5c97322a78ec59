// KrylovSolver's stops that are not convergence (krylov/termination.cpp):
// breakdowns, the iteration limit, stagnation below attainable accuracy; and
// StoppingOptions' defaults in each solver's options. Helpers:
// support/krylov_cpu_cases.hpp.
#include <cmath>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "balsa/sap.hpp"
#include "balsa/solve.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

// ---- stops that are not convergence -----------------------------------------------------

TYPED_TEST(KrylovCpu, BreakdownsAreReported) {
  using T = TypeParam;
  // CG on an indefinite diagonal: p^T A p = 1 - 2 < 0 in the first iteration.
  Csr<T> D;
  D.rows = D.cols = 2;
  D.row_ptr = {0, 1, 2};
  D.col_idx = {0, 1};
  D.values = {T(1), T(-2)};
  const std::vector<T> b = {T(1), T(1)};
  std::vector<T> x(2, T(0));
  KrylovSolver<T> cg(D, {.preconditioner = PreconditionerKind::None, .device = Device::Cpu});
  KrylovStats st = cg.solve(std::span<const T>(b), std::span<T>(x));
  EXPECT_EQ(st.outcome, KrylovOutcome::Breakdown);
  EXPECT_NE(st.message.find("A is not positive definite"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("p^T A p = -1"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("iteration 1"), std::string::npos) << st.message;
  EXPECT_EQ(st.iterations, 0);
  EXPECT_TRUE(std::isfinite(double(x[0])) && std::isfinite(double(x[1])));
  // BiCGStab and BiCGStab(2) on the swap matrix with b = e_0: r0^T A r0 = 0.
  Csr<T> P;
  P.rows = P.cols = 2;
  P.row_ptr = {0, 1, 2};
  P.col_idx = {1, 0};
  P.values = {T(1), T(1)};
  const std::vector<T> e0 = {T(1), T(0)};
  for (const auto& [method, needle] :
       {std::pair{KrylovMethod::BiCgStab, "r0^T v = 0"}, std::pair{KrylovMethod::BiCgStabL, "r0^T u = 0"}}) {
    std::fill(x.begin(), x.end(), T(0));
    KrylovSolver<T> s(P, {.method = method, .preconditioner = PreconditionerKind::None, .device = Device::Cpu});
    st = s.solve(std::span<const T>(e0), std::span<T>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Breakdown) << to_string(method);
    EXPECT_NE(st.message.find(needle), std::string::npos) << st.message;
  }
}

TYPED_TEST(KrylovCpu, MaxIterations) {
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(30, 30);
  const std::vector<T> b(std::size_t(A.rows), T(1));
  for (const auto method : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL})
    for (const int max : {0, 3}) {
      std::vector<T> x(b.size(), T(0));
      KrylovSolver<T> s(A, {.method = method,
                            .preconditioner = PreconditionerKind::None,
                            .device = Device::Cpu,
                            .stopping = {.max_iterations = max}});
      const KrylovStats st = s.solve(std::span<const T>(b), std::span<T>(x));
      EXPECT_EQ(st.outcome, KrylovOutcome::MaxIterations) << to_string(method);
      EXPECT_EQ(st.iterations, max);
      EXPECT_EQ(st.history.size(), std::size_t(max) + 1);
      EXPECT_GT(st.residual, 1e-8);
      EXPECT_NE(st.message.find("not converged after " + std::to_string(max)), std::string::npos) << st.message;
    }
}

// A tolerance below what double precision attains: the recursive residual
// keeps shrinking (to 1e-160 and below) while the true residual stays near
// 1e-16, until a quantity underflows to 0. That is stagnation, not a
// breakdown of CG nor an indefinite preconditioner, and the message says so.
TEST(KrylovCpuAccuracy, ToleranceBelowAttainableAccuracyIsStagnation) {
  const Csr<double> A = laplacian_3d<double>(10, 10, 10);
  const std::vector<double> b = multiply(A, std::span<const double>(random_vector<double>(A.rows, 3)));
  for (const auto& [method, preconditioner] : {std::pair{KrylovMethod::Cg, PreconditionerKind::Ic0},
                                               std::pair{KrylovMethod::Cg, PreconditionerKind::None},
                                               std::pair{KrylovMethod::BiCgStabL, PreconditionerKind::Ilu0}}) {
    std::vector<double> x(b.size(), 0.0);
    KrylovSolver<double> s(A, {.method = method,
                               .preconditioner = preconditioner,
                               .device = Device::Cpu,
                               .stopping = {.tolerance = 1e-300, .max_iterations = 20000}});
    const KrylovStats st = s.solve(std::span<const double>(b), std::span<double>(x));
    SCOPED_TRACE(std::string(to_string(method)) + " " + to_string(preconditioner) + ": " + st.message);
    EXPECT_EQ(st.outcome, KrylovOutcome::Stagnation);
    EXPECT_NE(st.message.find("attainable accuracy"), std::string::npos);
    EXPECT_EQ(st.message.find("the preconditioner is not positive definite"), std::string::npos);
    EXPECT_LT(st.residual, 1e-3 * st.true_residual);
    EXPECT_LT(st.true_residual, 1e-12);  // x itself is as good as double gets
  }
  // A genuine breakdown at the first iteration stays a breakdown (recursive = true residual).
  Csr<double> D;
  D.rows = D.cols = 2;
  D.row_ptr = {0, 1, 2};
  D.col_idx = {0, 1};
  D.values = {1.0, -2.0};
  std::vector<double> x(2, 0.0);
  const std::vector<double> ones = {1.0, 1.0};
  KrylovSolver<double> cg(
      D, {.preconditioner = PreconditionerKind::None, .device = Device::Cpu, .stopping = {.tolerance = 1e-300}});
  EXPECT_EQ(cg.solve(std::span<const double>(ones), std::span<double>(x)).outcome, KrylovOutcome::Breakdown);
}

// StoppingOptions' defaults in each solver's options (include/balsa/
// stopping.hpp and the headers that nest it).
TEST(StoppingOptions, EachSolversDefaults) {
  struct Expected {
    StoppingOptions got;
    double tolerance;
    StoppingNorm norm;
    int max_iterations, stagnation_window;
  };
  for (const Expected& e : {Expected{KrylovOptions{}.stopping, 1e-8, StoppingNorm::Two, 10000, 0},
                            Expected{BandedOptions{}.stopping, 1e-10, StoppingNorm::Two, 1000, 0},
                            Expected{SparseSapOptions{}.stopping, 1e-10, StoppingNorm::Two, 1000, 0},
                            Expected{SolveOptions{}.stopping, 1e-8, StoppingNorm::Two, 2000, 300}}) {
    EXPECT_EQ(e.got.tolerance, e.tolerance);
    EXPECT_EQ(e.got.norm, e.norm);
    EXPECT_EQ(e.got.max_iterations, e.max_iterations);
    EXPECT_EQ(e.got.absolute_tolerance, 0.0);
    EXPECT_EQ(e.got.divergence, 1e10);
    EXPECT_EQ(e.got.stagnation_window, e.stagnation_window);
  }
  EXPECT_STREQ(to_string(KrylovSpmv::Cusparse), "cusparse");
  EXPECT_EQ(KrylovOptions{}.spmv, KrylovSpmv::Auto);
}

}  // namespace
}  // namespace balsa
