// KrylovSolver's methods on the CPU (krylov/cg_cpu.cpp, bicgstab_cpu.cpp,
// bicgstab_l_cpu.cpp): convergence to known solutions, exact iteration counts
// where theory gives them, real nonsymmetric matrices, initial guesses, reuse
// and new values. Helpers: support/krylov_cpu_cases.hpp.
#include <cmath>
#include <initializer_list>
#include <numbers>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

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

}  // namespace
}  // namespace balsa
