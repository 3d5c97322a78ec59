// KrylovSolver on the CPU: convergence to known solutions, exact iteration
// counts where theory gives them, breakdowns, the stopping logic and every
// bad input.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <numbers>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/krylov.hpp"
#include "balsa/sap.hpp"
#include "balsa/setup_trace.hpp"
#include "balsa/solve.hpp"
#include "support/krylov_cases.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

template <class T>
class KrylovCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KrylovCpu, ValueTypes);

// ---- test matrices (also test::convection_diffusion; the thesis family is
// balsa::thesis_banded_spd, checked against a dense Q Q^T in generators_test) --

// tridiag(-1, 2, -1) of order n: eigenvectors sin(pi k i / (n+1)), distinct eigenvalues.
template <class T>
Csr<T> laplacian_1d(index_t n) {
  return laplacian_2d<T>(n, 1);  // 4 on the diagonal, -1 beside: same eigenvectors
}
template <class T>
std::vector<T> eigen_combination(index_t n, std::initializer_list<int> modes) {
  std::vector<T> b(std::size_t(n), T(0));
  for (const int k : modes)
    for (index_t i = 0; i < n; ++i) b[i] += T(std::sin(std::numbers::pi * k * (i + 1) / (n + 1)));
  return b;
}

template <class T>
double tol_for() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-10;
}

// Solves A x = A x_true from x0 = 0 and checks the solution, the stats and
// the stopping logic (every earlier history entry above the tolerance).
template <class T>
KrylovStats expect_solves(const Csr<T>& A, const KrylovOptions& o, double error_bound, std::uint64_t seed = 3) {
  const std::vector<T> x_true = random_vector<T>(A.rows, seed);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  std::vector<T> x(b.size(), T(0));
  KrylovSolver<T> solver(A, o);
  const KrylovStats st = solver.solve(std::span<const T>(b), std::span<T>(x));
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_LE(st.residual, o.stopping.tolerance);
  EXPECT_EQ(st.history.size(), std::size_t(st.iterations) + 1);
  if (!st.history.empty()) {
    EXPECT_DOUBLE_EQ(st.history.front(), 1.0);  // x0 = 0: r0 = b
    EXPECT_EQ(st.history.back(), st.residual);
    for (std::size_t k = 0; k + 1 < st.history.size(); ++k)
      EXPECT_GT(st.history[k], o.stopping.tolerance) << "k = " << k;
  }
  EXPECT_LE(test::relative_error<T>(x, x_true), error_bound) << st.message;
  EXPECT_LT(st.true_residual, 100 * o.stopping.tolerance + test::tolerance<T>(1000));
  EXPECT_EQ(solver.stats().iterations, st.iterations);
  return st;
}

// ---- convergence --------------------------------------------------------------------

TYPED_TEST(KrylovCpu, CgSolvesLaplacians) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  for (const auto& [name, A] : {std::pair{"2d", laplacian_2d<T>(30, 30)}, std::pair{"3d", laplacian_3d<T>(10, 10, 10)}})
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi})
      for (const auto norm : {StoppingNorm::Infinity, StoppingNorm::Two}) {
        SCOPED_TRACE(std::string(name) + " " + to_string(pre) + (norm == StoppingNorm::Two ? " 2-norm" : " inf-norm"));
        const KrylovStats st = expect_solves<T>(A,
                                                {.method = KrylovMethod::Cg,
                                                 .preconditioner = pre,
                                                 .device = Device::Cpu,
                                                 .stopping = {.tolerance = tol, .norm = norm}},
                                                2000 * tol);
        EXPECT_EQ(st.matvecs, st.iterations + 1);
        EXPECT_GT(st.iterations, 5);
      }
}

TYPED_TEST(KrylovCpu, CgOnThesisFamily) {
  using T = TypeParam;
  if (std::is_same_v<T, float>) GTEST_SKIP() << "cond(A) ~ 1e5: double only";
  for (const double mu : {1e-6, 1e-4, 1e-2}) {
    SCOPED_TRACE("mu = " + std::to_string(mu));
    const Csr<T> A = thesis_banded_spd<T>(100, mu);
    expect_solves<T>(A,
                     {.method = KrylovMethod::Cg,
                      .preconditioner = PreconditionerKind::Jacobi,
                      .device = Device::Cpu,
                      .stopping = {.tolerance = 1e-10, .max_iterations = 5000}},
                     1e-4);
  }
}

TYPED_TEST(KrylovCpu, CgIterationCountsFromTheSpectrum) {
  using T = TypeParam;
  // b in the span of m eigenvectors with distinct eigenvalues: CG's residual
  // vanishes after exactly m iterations (exact arithmetic), and is far from
  // zero after m - 1, so the count is m for any reasonable tolerance.
  const index_t n = 100;
  const Csr<T> A = laplacian_1d<T>(n);
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-9;
  for (const auto& modes : {std::initializer_list<int>{7}, std::initializer_list<int>{1, 40}, std::initializer_list<int>{3, 17, 50, 90}}) {
    const std::vector<T> b = eigen_combination<T>(n, modes);
    std::vector<T> x(b.size(), T(0));
    KrylovSolver<T> cg(A, {.method = KrylovMethod::Cg,
                           .preconditioner = PreconditionerKind::None,
                           .device = Device::Cpu,
                           .stopping = {.tolerance = tol, .norm = StoppingNorm::Two}});
    const KrylovStats st = cg.solve(std::span<const T>(b), std::span<T>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    EXPECT_EQ(st.iterations, int(modes.size()));
  }
  // A diagonal matrix: Jacobi is exact (one iteration); without it, CG needs
  // one iteration per distinct eigenvalue that b touches (here 6).
  Csr<T> D = to_csr(DenseMatrix<T>(6, 6));
  D.row_ptr = {0, 1, 2, 3, 4, 5, 6};
  D.col_idx = {0, 1, 2, 3, 4, 5};
  D.values = {T(1), T(2), T(3), T(4), T(5), T(6)};
  const std::vector<T> b(6, T(1));
  for (const auto& [pre, want] : {std::pair{PreconditionerKind::Jacobi, 1}, std::pair{PreconditionerKind::None, 6}}) {
    std::vector<T> x(6, T(0));
    KrylovSolver<T> cg(
        D, {.method = KrylovMethod::Cg, .preconditioner = pre, .device = Device::Cpu, .stopping = {.tolerance = tol}});
    const KrylovStats st = cg.solve(std::span<const T>(b), std::span<T>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    EXPECT_EQ(st.iterations, want) << to_string(pre);
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(double(x[i]), 1.0 / (i + 1), 100 * tol);
  }
}

TYPED_TEST(KrylovCpu, BiCgStabFamilySolvesNonsymmetricSystems) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const Csr<T> cd = test::convection_diffusion<T>(30, 40.0);
  const Csr<T> banded = banded_dominant<T>(3000, 5, 1.5, 7);
  for (const auto& [name, A] : {std::pair{"convection-diffusion", cd}, std::pair{"banded", banded}})
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi}) {
      KrylovOptions o{.method = KrylovMethod::BiCgStab,
                      .preconditioner = pre,
                      .device = Device::Cpu,
                      .stopping = {.tolerance = tol, .norm = StoppingNorm::Two}};
      {
        SCOPED_TRACE(std::string(name) + " bicgstab " + to_string(pre));
        const KrylovStats st = expect_solves<T>(A, o, 5000 * tol);
        EXPECT_TRUE(st.matvecs == 2 * st.iterations + 1 || st.matvecs == 2 * st.iterations) << st.matvecs;
      }
      for (const int l : {1, 2, 4}) {
        SCOPED_TRACE(std::string(name) + " bicgstab(" + std::to_string(l) + ") " + to_string(pre));
        o.method = KrylovMethod::BiCgStabL;
        o.l = l;
        const KrylovStats st = expect_solves<T>(A, o, 5000 * tol);
        EXPECT_LE(st.matvecs, 2 * l * st.iterations + 1);
        EXPECT_GT(st.matvecs, 2 * l * (st.iterations - 1));
      }
    }
}

TYPED_TEST(KrylovCpu, RealNonsymmetricMatrices) {
  using T = TypeParam;
  // Real nonsymmetric matrices that Jacobi-preconditioned BiCGStab(l) solves
  // (watt_2 also BiCGStab; on olm1000 plain BiCGStab breaks down).
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-9;
  for (const auto& [file, method] : {std::pair{"watt_2.mtx", KrylovMethod::BiCgStab},
                                      std::pair{"watt_2.mtx", KrylovMethod::BiCgStabL},
                                      std::pair{"olm1000.mtx", KrylovMethod::BiCgStabL}}) {
    SCOPED_TRACE(std::string(file) + " " + to_string(method));
    const auto A = test::real_matrix_as<T>(test::data_file(file));
    ASSERT_TRUE(A.has_value());
    const std::vector<T> x_true(std::size_t(A->rows), T(1));
    const std::vector<T> b = multiply(*A, std::span<const T>(x_true));
    std::vector<T> x(b.size(), T(0));
    KrylovSolver<T> s(*A, {.method = method,
                           .preconditioner = PreconditionerKind::Jacobi,
                           .device = Device::Cpu,
                           .stopping = {.tolerance = tol, .norm = StoppingNorm::Two, .max_iterations = 5000}});
    const KrylovStats st = s.solve(std::span<const T>(b), std::span<T>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    EXPECT_LT(st.true_residual, 100 * tol);
  }
}

TYPED_TEST(KrylovCpu, IncompletePreconditionersCutIterations) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const Csr<T> spd = laplacian_2d<T>(40, 40);
  const Csr<T> cd = test::convection_diffusion<T>(40, 40.0);
  for (const auto& [name, A, method, pre] :
       {std::tuple{"cg ic0", spd, KrylovMethod::Cg, PreconditionerKind::Ic0},
        std::tuple{"cg ilu0", spd, KrylovMethod::Cg, PreconditionerKind::Ilu0},
        std::tuple{"bicgstab ilu0", cd, KrylovMethod::BiCgStab, PreconditionerKind::Ilu0},
        std::tuple{"bicgstab(2) ilu0", cd, KrylovMethod::BiCgStabL, PreconditionerKind::Ilu0}}) {
    SCOPED_TRACE(name);
    KrylovOptions o{.method = method,
                    .preconditioner = PreconditionerKind::None,
                    .device = Device::Cpu,
                    .stopping = {.tolerance = tol, .norm = StoppingNorm::Two}};
    const int plain = expect_solves<T>(A, o, 5000 * tol).iterations;
    o.preconditioner = pre;
    const int preconditioned = expect_solves<T>(A, o, 5000 * tol).iterations;
    EXPECT_LT(preconditioned, plain);
  }
}

TYPED_TEST(KrylovCpu, InitialGuessAndReuse) {
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(20, 20);
  const std::vector<T> x_true = random_vector<T>(A.rows, 5);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  KrylovSolver<T> cg(
      A, {.preconditioner = PreconditionerKind::None, .device = Device::Cpu, .stopping = {.tolerance = tol_for<T>()}});
  std::vector<T> x = random_vector<T>(A.rows, 11);
  const KrylovStats st = cg.solve(std::span<const T>(b), std::span<T>(x));
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged);
  EXPECT_LE(test::relative_error<T>(x, x_true), 1000 * tol_for<T>());
  // The solution as initial guess: converged at iteration 0, x unchanged.
  const std::vector<T> x1 = x;
  const KrylovStats again = cg.solve(std::span<const T>(b), std::span<T>(x));
  EXPECT_EQ(again.outcome, KrylovOutcome::Converged);
  EXPECT_EQ(again.iterations, 0);
  EXPECT_EQ(again.history.size(), 1u);
  EXPECT_EQ(x, x1);
  // b == 0: x = 0 at once.
  const std::vector<T> zero(b.size(), T(0));
  const KrylovStats z = cg.solve(std::span<const T>(zero), std::span<T>(x));
  EXPECT_EQ(z.outcome, KrylovOutcome::Converged);
  EXPECT_EQ(z.iterations, 0);
  EXPECT_EQ(x, zero);
}

TYPED_TEST(KrylovCpu, UpdateValuesAndProgress) {
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(16, 16);
  std::vector<int> seen;
  KrylovSolver<T> cg(A, {.preconditioner = PreconditionerKind::Jacobi,
                         .device = Device::Cpu,
                         .stopping = {.tolerance = tol_for<T>()},
                         .progress = [&](int k, double) { seen.push_back(k); }});
  const std::vector<T> b(std::size_t(A.rows), T(1));
  std::vector<T> x1(b.size(), T(0)), x2(b.size(), T(0));
  const KrylovStats st = cg.solve(std::span<const T>(b), std::span<T>(x1));
  ASSERT_EQ(seen.size(), std::size_t(st.iterations) + 1);
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], int(k));
  EXPECT_GT(st.spmv_seconds, 0.0);
  EXPECT_EQ(st.phase_samples, st.iterations);
  // 2 A: the solution halves.
  std::vector<T> doubled = A.values;
  for (T& v : doubled) v *= T(2);
  cg.update_values(doubled);
  cg.solve(std::span<const T>(b), std::span<T>(x2));
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(double(x2[i]), double(x1[i]) / 2, 1e3 * tol_for<T>());
  // Bad new values: rejected, the solver keeps the old ones.
  EXPECT_THROW(cg.update_values(std::vector<T>(3)), DimensionError);
  std::vector<T> nan_values = doubled;
  nan_values[5] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(cg.update_values(nan_values), MatrixError, "NaN");
  std::vector<T> x3(b.size(), T(0));
  cg.solve(std::span<const T>(b), std::span<T>(x3));
  EXPECT_EQ(x3, x2);
}

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
// KrylovOptions::threads: checked at set-up; the solver and its nested
// preconditioner leave the caller's OpenMP setting as it was.
TEST(KrylovCpuThreads, RangeCheckedAndCallerSettingKept) {
  const Csr<double> A = laplacian_2d<double>(40, 40);
  EXPECT_THROW_MSG(KrylovSolver<double>(A, {.device = Device::Cpu, .threads = -2}), Error,
                   "KrylovOptions::threads = -2: must be 0");
  EXPECT_THROW_MSG(KrylovSolver<double>(A, {.device = Device::Cpu, .threads = hardware_threads() + 1}), Error,
                   "(this machine's hardware threads)");
  const int before = current_threads();
  KrylovOptions o = krylov_options(KrylovPreset::PcgIc0);
  o.device = Device::Cpu;
  o.threads = 1;
  KrylovSolver<double> pcg(A, o);
  EXPECT_EQ(current_threads(), before);
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  EXPECT_EQ(pcg.solve(std::span<const double>(b), std::span<double>(x)).outcome, KrylovOutcome::Converged);
  EXPECT_EQ(current_threads(), before);
}

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

// ---- multicolour ordering ------------------------------------------------------------------

// A proper colouring of A + A^T: no stored off-diagonal (i, j) joins two rows
// of one colour; perm lists the rows by colour, in increasing order within one.
template <class T>
void expect_valid_colouring(const Csr<T>& A, const Colouring& c) {
  ASSERT_EQ(c.colour.size(), std::size_t(A.rows));
  ASSERT_EQ(c.colour_ptr.size(), std::size_t(c.count) + 1);
  ASSERT_EQ(c.perm.size(), std::size_t(A.rows));
  for (index_t i = 0; i < A.rows; ++i) {
    ASSERT_GE(c.colour[i], 0);
    ASSERT_LT(c.colour[i], c.count);
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (const index_t j = A.col_idx[k]; j != i) {
        ASSERT_NE(c.colour[i], c.colour[j]) << "rows " << i << " and " << j;
      }
  }
  for (index_t k = 0; k < c.count; ++k)
    for (index_t q = c.colour_ptr[k]; q < c.colour_ptr[k + 1]; ++q) {
      EXPECT_EQ(c.colour[c.perm[q]], k);
      if (q > c.colour_ptr[k]) {
        EXPECT_LT(c.perm[q - 1], c.perm[q]);
      }
    }
  EXPECT_EQ(c.colour_ptr.back(), A.rows);
}

TEST(KrylovMulticolour, ColouringIsValid) {
  for (const auto& [n, density] : {std::pair{index_t(50), 0.1}, std::pair{index_t(400), 0.02},
                                   std::pair{index_t(3000), 0.003}, std::pair{index_t(200), 0.3}})
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE("random " + std::to_string(n) + " seed " + std::to_string(seed));
      const Csr<double> A = test::random_sparse<double>(n, n, density, seed);  // a nonsymmetric pattern
      const Colouring c = greedy_colouring(A);
      expect_valid_colouring(A, c);
      EXPECT_EQ(greedy_colouring(A).colour, c.colour);  // deterministic
    }
  const int real = test::for_each_square_real_matrix<double>([](const Csr<double>& A) {
    const Colouring c = greedy_colouring(A);
    expect_valid_colouring(A, c);
    EXPECT_GE(c.count, A.nnz() > A.rows ? 2 : 1);
  });
  EXPECT_GT(real, 10);
  EXPECT_EQ(greedy_colouring(Csr<double>{}).count, 0);
  EXPECT_THROW(greedy_colouring(test::random_sparse<double>(3, 4, 0.5, 1)), DimensionError);
}

TEST(KrylovMulticolour, GridLaplaciansAreRedBlack) {
  for (const auto& [name, A] : {std::pair{"2d", laplacian_2d<double>(31, 17)},
                                std::pair{"3d", laplacian_3d<double>(9, 8, 7)},
                                std::pair{"3d 27-point", laplacian_3d<double>(6, 6, 6, Stencil3d::Point27)}}) {
    SCOPED_TRACE(name);
    const Colouring c = greedy_colouring(A);
    expect_valid_colouring(A, c);
    if (std::string(name) == "3d 27-point") {
      EXPECT_EQ(c.count, 8);  // 2 x 2 x 2 blocks
    } else {
      EXPECT_EQ(c.count, 2);
    }
  }
}

// pcg-ic0-mc reaches the solution pcg-ic0 reaches (b and x in A's order), in
// more iterations than the natural order needs but not many more.
template <class T>
void expect_multicolour_agrees(const Csr<T>& A, KrylovPreset natural, KrylovPreset multicolour, double tol,
                               index_t colours, double error_bound) {
  KrylovOptions n = krylov_options(natural), m = krylov_options(multicolour);
  for (KrylovOptions* o : {&n, &m}) {
    o->device = Device::Cpu;
    o->stopping.tolerance = tol;
    o->stopping.norm = StoppingNorm::Two;
  }
  const KrylovStats sn = expect_solves<T>(A, n, error_bound), sm = expect_solves<T>(A, m, error_bound);
  EXPECT_EQ(sn.ordering, KrylovOrdering::Natural);
  EXPECT_EQ(sn.colours, 0);
  EXPECT_EQ(sm.ordering, KrylovOrdering::Multicolour);
  if (colours > 0) {
    EXPECT_EQ(sm.colours, colours);
  }
  EXPECT_GT(sm.colours, 1);
  EXPECT_GT(sm.ordering_seconds, 0.0);
  EXPECT_LE(sm.ordering_seconds, sm.setup_seconds);
  EXPECT_LE(sm.iterations, 3 * sn.iterations + 10) << sn.iterations;
  EXPECT_LE(sm.factor.levels, sm.colours);  // one level per colour at most
  EXPECT_GE(sm.factor.levels, 2);
}

TYPED_TEST(KrylovCpu, MulticolourSolvesWhatTheNaturalOrderSolves) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  expect_multicolour_agrees<T>(laplacian_2d<T>(30, 30), KrylovPreset::PcgIc0, KrylovPreset::PcgIc0Mc, tol, 2, 1e4 * tol);
  expect_multicolour_agrees<T>(laplacian_3d<T>(12, 12, 12), KrylovPreset::PcgIc0, KrylovPreset::PcgIc0Mc, tol, 2, 1e4 * tol);
  const Csr<T> cd = test::convection_diffusion<T>(30, 40.0);
  expect_multicolour_agrees<T>(cd, KrylovPreset::BiCgStabIlu0, KrylovPreset::BiCgStabIlu0Mc, tol, 2, 1e4 * tol);
  expect_multicolour_agrees<T>(cd, KrylovPreset::BiCgStab2Ilu0, KrylovPreset::BiCgStab2Ilu0Mc, tol, 2, 1e4 * tol);
}

TEST(KrylovMulticolour, RealSpdMatrix) {
  // bcsstk13: IC(0) needs a shift in either order (krylov.hpp: the breakdown policy).
  const std::optional<Csr<double>> A = test::real_matrix_as<double>(test::data_file("bcsstk13.mtx"));
  ASSERT_TRUE(A);
  // cond(A) ~ 1e10: x's error is bounded by cond(A) times the residual.
  expect_multicolour_agrees<double>(*A, KrylovPreset::PcgIc0, KrylovPreset::PcgIc0Mc, 1e-10, 0, 1e-2);
}

TYPED_TEST(KrylovCpu, MulticolourKeepsTheCallersOrder) {
  using T = TypeParam;
  const Csr<T> A = laplacian_3d<T>(7, 6, 5);
  KrylovOptions o = krylov_options(KrylovPreset::PcgIc0Mc);
  o.device = Device::Cpu;
  o.stopping.tolerance = tol_for<T>();
  KrylovSolver<T> pcg(A, o);
  EXPECT_EQ(pcg.rows(), A.rows);
  // x0 = x_true: converged at iteration 0, x unchanged (x0 went in through P).
  const std::vector<T> x_true = random_vector<T>(A.rows, 5);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  std::vector<T> x = x_true;
  const KrylovStats at_once = pcg.solve(std::span<const T>(b), std::span<T>(x));
  EXPECT_EQ(at_once.iterations, 0);
  EXPECT_EQ(x, x_true);
  // Update: 2 A halves the solution; NaN and asymmetric values are named
  // in A's numbering (the solver keeps the old values).
  std::vector<T> x1(b.size(), T(0)), x2(b.size(), T(0));
  pcg.solve(std::span<const T>(b), std::span<T>(x1));
  std::vector<T> doubled = A.values;
  for (T& v : doubled) v *= T(2);
  pcg.update_values(doubled);
  pcg.solve(std::span<const T>(b), std::span<T>(x2));
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(double(x2[i]), double(x1[i]) / 2, 1e3 * tol_for<T>());
  const index_t row = 37, k = A.row_ptr[row] + 1;  // an entry (37, j), j != 37 (row 37's second)
  const index_t col = A.col_idx[k];
  std::vector<T> bad = doubled;
  bad[std::size_t(k)] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(pcg.update_values(bad), MatrixError,
                   "NaN value at (row " + std::to_string(row) + ", column " + std::to_string(col) + ")");
  bad[std::size_t(k)] = T(-7);
  EXPECT_THROW_MSG(pcg.update_values(bad), MatrixError,
                   "A(" + std::to_string(std::min(row, col)) + ", " + std::to_string(std::max(row, col)) + ")");
  std::vector<T> x3(b.size(), T(0));
  pcg.solve(std::span<const T>(b), std::span<T>(x3));
  EXPECT_EQ(x3, x2);
  // b's NaN at its index in the caller's order.
  std::vector<T> nan_b = b;
  nan_b[11] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(pcg.solve(std::span<const T>(nan_b), std::span<T>(x3)), Error, "index 11");
  // An empty system and b = 0.
  KrylovSolver<T> empty(Csr<T>{}, o);
  std::vector<T> none;
  EXPECT_EQ(empty.solve(std::span<const T>(none), std::span<T>(none)).outcome, KrylovOutcome::Converged);
  std::vector<T> zero_b(b.size(), T(0));
  EXPECT_EQ(pcg.solve(std::span<const T>(zero_b), std::span<T>(x3)).iterations, 0);
  EXPECT_EQ(x3, zero_b);
}

TEST(KrylovMulticolour, NamesAndPresets) {
  EXPECT_EQ(KrylovOptions{}.ordering, KrylovOrdering::Natural);
  EXPECT_STREQ(to_string(KrylovOrdering::Multicolour), "multicolour");
  EXPECT_EQ(from_string<KrylovOrdering>("natural"), KrylovOrdering::Natural);
  const KrylovOptions o = krylov_options(from_string<KrylovPreset>("pcg-ic0-mc"));
  EXPECT_EQ(o.method, KrylovMethod::Cg);
  EXPECT_EQ(o.preconditioner, PreconditionerKind::Ic0);
  EXPECT_EQ(o.ordering, KrylovOrdering::Multicolour);
  EXPECT_EQ(krylov_options(KrylovPreset::BiCgStabIlu0Mc).ordering, KrylovOrdering::Multicolour);
  EXPECT_EQ(krylov_options(KrylovPreset::PcgIc0).ordering, KrylovOrdering::Natural);
}

// ---- bad input ----------------------------------------------------------------------------

TYPED_TEST(KrylovCpu, BadInput) {
  using T = TypeParam;
  const KrylovOptions cpu{.preconditioner = PreconditionerKind::None, .device = Device::Cpu};
  EXPECT_THROW(KrylovSolver<T>(test::random_sparse<T>(3, 4, 0.5, 1), cpu), DimensionError);
  // Not symmetric: CG names the entry; BiCGStab and check_symmetry = false accept it.
  Csr<T> U = to_csr(DenseMatrix<T>(2, 2));
  U.row_ptr = {0, 2, 3};
  U.col_idx = {0, 1, 1};
  U.values = {T(2), T(1), T(2)};
  EXPECT_THROW_MSG(KrylovSolver<T>(U, cpu), MatrixError, "A(0, 1) = 1");
  EXPECT_NO_THROW(KrylovSolver<T>(U, {.preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                                      .check_symmetry = false}));
  EXPECT_NO_THROW(KrylovSolver<T>(U, {.method = KrylovMethod::BiCgStab, .preconditioner = PreconditionerKind::None,
                                      .device = Device::Cpu}));
  // The symmetry check runs beside the preconditioner's set-up, and its error
  // still wins over the set-up's (here IC(0)'s breakdown at a_00 = -1).
  U.values[0] = T(-1);
  KrylovOptions ic0{.preconditioner = PreconditionerKind::Ic0, .device = Device::Cpu};
  ic0.factor.on_breakdown = PivotBreakdown::Fail;
  EXPECT_THROW_MSG(KrylovSolver<T>(U, ic0), MatrixError, "A(0, 1) = 1");
  ic0.check_symmetry = false;
  EXPECT_THROW_MSG(KrylovSolver<T>(U, ic0), MatrixError, "pivot");
  // Unsorted columns, NaN in A.
  Csr<T> bad = laplacian_2d<T>(3, 3);
  std::swap(bad.col_idx[0], bad.col_idx[1]);
  EXPECT_THROW(KrylovSolver<T>(bad, cpu), MatrixError);
  Csr<T> nan = laplacian_2d<T>(3, 3);
  nan.values[4] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(KrylovSolver<T>(nan, cpu), MatrixError, "NaN");
  // Options.
  const Csr<T> A = laplacian_2d<T>(4, 4);
  auto with = [&](auto change) {
    KrylovOptions o = cpu;
    change(o);
    return o;
  };
  EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.stopping.tolerance = 0; })), Error, "tolerance");
  EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.stopping.tolerance = std::nan(""); })), Error, "tolerance");
  EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.stopping.max_iterations = -1; })), Error, "max_iterations");
  for (const int l : {0, 9})
    EXPECT_THROW_MSG(KrylovSolver<T>(A, with([&](auto& o) { o.method = KrylovMethod::BiCgStabL, o.l = l; })), Error,
                     "l in 1..8");
  if constexpr (std::is_same_v<T, float>)
    EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.float_preconditioner = true; })), Error,
                     "float_preconditioner");
  if (!cuda::available()) {
    EXPECT_THROW(KrylovSolver<T>(A, with([](auto& o) { o.device = Device::Cuda; })), CudaError);
  }
  // Vectors.
  KrylovSolver<T> s(A, cpu);
  std::vector<T> b(16, T(1)), x(16, T(0)), short_b(15, T(1));
  EXPECT_THROW_MSG(s.solve(std::span<const T>(short_b), std::span<T>(x)), DimensionError, "b has 15");
  EXPECT_THROW_MSG(s.solve(std::span<const T>(b), std::span<T>(short_b)), DimensionError, "x has 15");
  b[3] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(s.solve(std::span<const T>(b), std::span<T>(x)), Error, "index 3");
  b[3] = T(1);
  x[7] = std::numeric_limits<T>::infinity();
  EXPECT_THROW_MSG(s.solve(std::span<const T>(b), std::span<T>(x)), Error, "initial guess x at index 7");
  cuda::DeviceBuffer<T> db, dx;
  EXPECT_THROW_MSG(s.solve(db, dx), Error, "Device::Cuda");
  // An empty system.
  KrylovSolver<T> empty(Csr<T>{}, cpu);
  std::vector<T> none;
  EXPECT_EQ(empty.solve(std::span<const T>(none), std::span<T>(none)).outcome, KrylovOutcome::Converged);
  // Moved from.
  KrylovSolver<T> moved(std::move(s));
  EXPECT_THROW_MSG(s.rows(), Error, "moved");
  EXPECT_EQ(moved.rows(), 16);
}

// balsa::set_setup_trace (include/balsa/setup_trace.hpp): a set-up's phases
// go to the file while it is set, none after "" stops it.
TEST(KrylovSetupTrace, WritesTheTimelineWhileSet) {
  const std::string path = ::testing::TempDir() + "balsa-setup-trace.txt";
  std::remove(path.c_str());
  const Csr<double> A = laplacian_2d<double>(8, 8);
  const auto lines = [&] {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text;
  };
  set_setup_trace(path);
  KrylovSolver<double>(A, {.device = Device::Cpu});
  set_setup_trace("");
  const std::string traced = lines();
  EXPECT_NE(traced.find("setup-trace 0 "), std::string::npos) << traced;
  EXPECT_NE(traced.find(" krylov: checks\n"), std::string::npos) << traced;
  KrylovSolver<double>(A, {.device = Device::Cpu});
  EXPECT_EQ(lines(), traced);
  std::remove(path.c_str());
  EXPECT_THROW_MSG(set_setup_trace(::testing::TempDir() + "no-such-dir/trace.txt"), Error, "cannot open");
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
  for (const Expected& e : {Expected{KrylovOptions{}.stopping, 1e-8, StoppingNorm::Infinity, 10000, 0},
                            Expected{BandedOptions{}.stopping, 1e-10, StoppingNorm::Two, 1000, 0},
                            Expected{SparseSapOptions{}.stopping, 1e-10, StoppingNorm::Two, 1000, 0},
                            Expected{SolveOptions{}.stopping, 1e-8, StoppingNorm::Two, 2000, 300}}) {
    EXPECT_EQ(e.got.tolerance, e.tolerance);
    EXPECT_EQ(e.got.norm, e.norm);
    EXPECT_EQ(e.got.max_iterations, e.max_iterations);
    EXPECT_EQ(e.got.divergence, 1e10);
    EXPECT_EQ(e.got.stagnation_window, e.stagnation_window);
  }
  EXPECT_STREQ(to_string(KrylovSpmv::Cusparse), "cusparse");
  EXPECT_EQ(KrylovOptions{}.spmv, KrylovSpmv::Auto);
}

TEST(KrylovNames, ToString) {
  EXPECT_STREQ(to_string(KrylovMethod::BiCgStabL), "bicgstab(l)");
  EXPECT_STREQ(to_string(PreconditionerKind::Ic0), "ic0");
  EXPECT_STREQ(to_string(KrylovOutcome::NonFinite), "non-finite");
  EXPECT_STREQ(to_string(KrylovOutcome::Stagnation), "stagnation");
}

}  // namespace
}  // namespace balsa
