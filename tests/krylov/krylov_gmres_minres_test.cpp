// GMRES(m) and MINRES on the CPU (krylov/gmres_cpu.cpp, minres_cpu.cpp) and
// SciPy's stopping test (absolute_tolerance, the 2-norm by default) on every
// method: convergence to known solutions, full GMRES's n-step termination,
// restarts, indefinite symmetric systems where CG fails, monotone residuals,
// preconditioned variants, and the errors. Helpers: support/krylov_cpu_cases.hpp.
#include <cmath>
#include <limits>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

// tridiag(-1, 2, -1) - sigma I of order n: symmetric; indefinite for 0 < sigma < 4.
template <class T>
Csr<T> shifted_laplacian(index_t n, double sigma) {
  Coo<T> A;
  A.rows = A.cols = n;
  for (index_t i = 0; i < n; ++i) {
    if (i > 0) A.row_idx.push_back(i), A.col_idx.push_back(i - 1), A.values.push_back(T(-1));
    A.row_idx.push_back(i), A.col_idx.push_back(i), A.values.push_back(T(2 - sigma));
    if (i + 1 < n) A.row_idx.push_back(i), A.col_idx.push_back(i + 1), A.values.push_back(T(-1));
  }
  return to_csr(A);
}

// A dense n x n matrix with entries in [-1, 1) and `shift` added to its diagonal: nonsymmetric.
template <class T>
Csr<T> dense_nonsymmetric(index_t n, double shift, std::uint64_t seed) {
  const std::vector<T> v = random_vector<T>(n * n, seed);
  Coo<T> A;
  A.rows = A.cols = n;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      A.row_idx.push_back(i), A.col_idx.push_back(j), A.values.push_back(v[std::size_t(i * n + j)] + T(i == j ? shift : 0));
  return to_csr(A);
}

template <class T>
double slack() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-10;
}

// history[k + 1] <= history[k] (to rounding: a restart's recomputed residual
// may differ from the estimate by a few ulps of ||b||).
void expect_monotone(const std::vector<double>& h, double slack) {
  for (std::size_t k = 0; k + 1 < h.size(); ++k) EXPECT_LE(h[k + 1], h[k] * (1 + slack) + slack * 1e-3) << "k = " << k;
}

template <class T>
KrylovStats run(const Csr<T>& A, const KrylovOptions& o, std::span<const T> b, std::vector<T>& x) {
  KrylovSolver<T> s(A, o);
  return s.solve(b, std::span<T>(x));
}

// ---- GMRES ---------------------------------------------------------------------------

TYPED_TEST(KrylovCpu, GmresFullTerminatesInNSteps) {
  using T = TypeParam;
  const index_t n = 12;
  const Csr<T> A = dense_nonsymmetric<T>(n, 2.0, 5);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  std::vector<std::vector<T>> xs;
  for (const int m : {int(n), 1000}) {  // both are full GMRES (m is capped at n)
    KrylovOptions o{.method = KrylovMethod::Gmres, .preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                    .stopping = {.tolerance = tol}};
    o.restart = m;
    const KrylovStats st = expect_solves<T>(A, o, std::is_same_v<T, float> ? 1e-3 : 1e-9);
    EXPECT_LE(st.iterations, n) << "m = " << m;
    EXPECT_EQ(st.matvecs, st.iterations + 1);
    expect_monotone(st.history, slack<T>());
    const std::vector<T> b = random_vector<T>(n, 9);
    std::vector<T> x(std::size_t(n), T(0));
    run(A, o, std::span<const T>(b), x);
    xs.push_back(x);
  }
  EXPECT_EQ(xs[0], xs[1]);
}

TYPED_TEST(KrylovCpu, GmresSolvesNonsymmetricSystemsPreconditioned) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const Csr<T> A = test::convection_diffusion<T>(30, 40.0);
  for (const auto preset : {KrylovPreset::Gmres, KrylovPreset::GmresJacobi, KrylovPreset::GmresIlu0}) {
    SCOPED_TRACE(to_string(preset));
    KrylovOptions o = krylov_options(preset);
    o.device = Device::Cpu;
    o.stopping.tolerance = tol;
    const KrylovStats st = expect_solves<T>(A, o, 5000 * tol);
    EXPECT_EQ(st.method, KrylovMethod::Gmres);
    EXPECT_GE(st.matvecs, st.iterations + 1);
    if (preset == KrylovPreset::Gmres) {
      expect_monotone(st.history, slack<T>());
    }
  }
}

TYPED_TEST(KrylovCpu, GmresRestarts) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const Csr<T> A = test::convection_diffusion<T>(20, 40.0);  // positive definite symmetric part: GMRES(m) converges for every m
  int full = 0;
  for (const int m : {400, 20, 5}) {
    SCOPED_TRACE("m = " + std::to_string(m));
    KrylovOptions o{.method = KrylovMethod::Gmres, .preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                    .stopping = {.tolerance = tol}};
    o.restart = m;
    const KrylovStats st = expect_solves<T>(A, o, 5000 * tol);
    EXPECT_EQ(st.matvecs, 1 + st.iterations + (st.iterations - 1) / m);  // one more product per restart
    expect_monotone(st.history, slack<T>());
    if (m == 400) {
      full = st.iterations;
    } else {
      EXPECT_GE(st.iterations, full);  // full GMRES minimises over the largest space
    }
  }
  // From a nonzero initial guess, and a second solve of the same solver.
  const std::vector<T> x_true = random_vector<T>(A.rows, 4);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  std::vector<T> x = random_vector<T>(A.rows, 8);
  KrylovOptions o{.method = KrylovMethod::Gmres, .preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                  .stopping = {.tolerance = tol}};
  o.restart = 7;
  KrylovSolver<T> s(A, o);
  for (int again = 0; again < 2; ++again) {
    const KrylovStats st = s.solve(std::span<const T>(b), std::span<T>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    EXPECT_LE(test::relative_error<T>(x, x_true), 5000 * tol);
    if (again == 1) {
      EXPECT_LE(st.iterations, 1);
    }
  }
}

TYPED_TEST(KrylovCpu, GmresMaxIterationsFormsX) {
  using T = TypeParam;
  const Csr<T> A = test::convection_diffusion<T>(20, 40.0);
  const std::vector<T> b(std::size_t(A.rows), T(1));
  for (const int max : {0, 3, 10}) {
    KrylovOptions o{.method = KrylovMethod::Gmres, .preconditioner = PreconditionerKind::Jacobi, .device = Device::Cpu,
                    .stopping = {.tolerance = 1e-12, .max_iterations = max}};
    o.restart = 5;
    std::vector<T> x(b.size(), T(0));
    const KrylovStats st = run(A, o, std::span<const T>(b), x);
    EXPECT_EQ(st.outcome, KrylovOutcome::MaxIterations) << st.message;
    EXPECT_EQ(st.iterations, max);
    // x is the iterate whose residual the last history entry estimates.
    EXPECT_NEAR(st.true_residual, st.history.back(), 1e-3 * st.history.back() + test::tolerance<T>(100));
  }
}

// ---- MINRES --------------------------------------------------------------------------

TYPED_TEST(KrylovCpu, MinresSolvesIndefiniteSystemsWhereCgFails) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const index_t n = 100;
  const Csr<T> A = shifted_laplacian<T>(n, 1.0);  // eigenvalues in (-1, 3)
  // b = ones: b^T A b = 2 - n < 0, so CG breaks down in its first iteration.
  const std::vector<T> ones(std::size_t(n), T(1));
  std::vector<T> x(std::size_t(n), T(0));
  const KrylovStats cg = run(A, {.method = KrylovMethod::Cg, .preconditioner = PreconditionerKind::None,
                                 .device = Device::Cpu}, std::span<const T>(ones), x);
  EXPECT_EQ(cg.outcome, KrylovOutcome::Breakdown) << cg.message;
  std::fill(x.begin(), x.end(), T(0));
  const KrylovOptions o{.method = KrylovMethod::Minres, .preconditioner = PreconditionerKind::None,
                        .device = Device::Cpu, .stopping = {.tolerance = tol}};
  const KrylovStats st = run(A, o, std::span<const T>(ones), x);
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_LE(st.true_residual, 100 * tol);
  expect_monotone(st.history, slack<T>());
  // A known solution, and the residual MINRES tracks against the true one.
  const KrylovStats known = expect_solves<T>(A, o, 5000 * tol);
  expect_monotone(known.history, slack<T>());
  EXPECT_EQ(known.matvecs, known.iterations + 1);
  EXPECT_EQ(known.method, KrylovMethod::Minres);
}

TYPED_TEST(KrylovCpu, MinresPreconditioned) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const Csr<T> A = laplacian_2d<T>(30, 30);
  int plain = 0;
  for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::Ic0,
                         PreconditionerKind::Chebyshev}) {
    SCOPED_TRACE(to_string(pre));
    const KrylovStats st = expect_solves<T>(
        A, {.method = KrylovMethod::Minres, .preconditioner = pre, .device = Device::Cpu, .stopping = {.tolerance = tol}},
        2000 * tol);
    if (pre == PreconditionerKind::None) plain = st.iterations;
    if (pre == PreconditionerKind::Ic0 || pre == PreconditionerKind::Chebyshev) {
      EXPECT_LT(st.iterations, plain);
    }
  }
  // The presets, on the indefinite system.
  const Csr<T> B = shifted_laplacian<T>(200, 0.5);
  for (const auto preset : {KrylovPreset::Minres, KrylovPreset::MinresJacobi}) {
    KrylovOptions o = krylov_options(preset);
    o.device = Device::Cpu;
    o.stopping.tolerance = tol;
    expect_solves<T>(B, o, 1e5 * tol);
  }
}

TYPED_TEST(KrylovCpu, MinresIndefinitePreconditionerBreaksDown) {
  using T = TypeParam;
  // Jacobi on a diagonal of mixed signs is indefinite: r^T M^{-1} r = 1 - 4/2 - 4/3 < 0 for r = (1, 2, 2).
  Csr<T> D;
  D.rows = D.cols = 3;
  D.row_ptr = {0, 1, 2, 3};
  D.col_idx = {0, 1, 2};
  D.values = {T(1), T(-2), T(-3)};
  const std::vector<T> b = {T(1), T(2), T(2)};
  std::vector<T> x(3, T(0));
  const KrylovStats st = run(D, {.method = KrylovMethod::Minres, .preconditioner = PreconditionerKind::Jacobi,
                                 .device = Device::Cpu}, std::span<const T>(b), x);
  EXPECT_EQ(st.outcome, KrylovOutcome::Breakdown);
  EXPECT_NE(st.message.find("the preconditioner is not positive definite"), std::string::npos) << st.message;
  // Without it MINRES solves the diagonal system in 3 iterations (3 distinct eigenvalues).
  const KrylovStats plain = run(D, {.method = KrylovMethod::Minres, .preconditioner = PreconditionerKind::None,
                                    .device = Device::Cpu, .stopping = {.tolerance = tol_for<T>()}},
                                std::span<const T>(b), x);
  EXPECT_EQ(plain.outcome, KrylovOutcome::Converged) << plain.message;
  EXPECT_LE(plain.iterations, 3);
  EXPECT_NEAR(double(x[1]), -1.0, 1e-4);
}

// MINRES and full GMRES minimise ||r||_2 over the affine Krylov space where CG's
// iterate lies too, so on an SPD system they need no more iterations than CG
// (one more for rounding); with a preconditioner MINRES minimises another norm.
TYPED_TEST(KrylovCpu, MinimalResidualMethodsNeedNoMoreIterationsThanCg) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  const Csr<T> A = laplacian_2d<T>(25, 25);
  const std::vector<T> b = random_vector<T>(A.rows, 12);
  auto iterations = [&](KrylovMethod method) {
    KrylovOptions o{.method = method, .preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                    .stopping = {.tolerance = tol}};
    o.restart = 1000;
    std::vector<T> x(b.size(), T(0));
    const KrylovStats st = run(A, o, std::span<const T>(b), x);
    EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    return st.iterations;
  };
  const int cg = iterations(KrylovMethod::Cg), minres = iterations(KrylovMethod::Minres),
            gmres = iterations(KrylovMethod::Gmres);
  EXPECT_LE(minres, cg + 1);
  EXPECT_LE(gmres, cg + 1);
  EXPECT_NEAR(minres, gmres, 2);  // the same minimisation (Lanczos or Arnoldi) for symmetric A
  EXPECT_GE(minres, cg / 2);      // and not a trivially short run
}

// ---- errors ---------------------------------------------------------------------------

TYPED_TEST(KrylovCpu, GmresMinresBadOptions) {
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(5, 5);
  auto message = [&](const KrylovOptions& o) {
    try {
      KrylovSolver<T> s(A, o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const int m : {0, -1, 1001}) {
    KrylovOptions o{.method = KrylovMethod::Gmres, .device = Device::Cpu};
    o.restart = m;
    EXPECT_NE(message(o).find("restart (m) in 1..1000, got " + std::to_string(m)), std::string::npos) << message(o);
  }
  EXPECT_NE(message({.method = KrylovMethod::Minres, .preconditioner = PreconditionerKind::Ilu0, .device = Device::Cpu})
                .find("MINRES needs a symmetric positive definite preconditioner"),
            std::string::npos);
  for (const auto method : {KrylovMethod::Gmres, KrylovMethod::Minres})
    EXPECT_NE(message({.method = method, .preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                       .stopping = {.norm = StoppingNorm::Infinity}})
                  .find("tests the residual's 2-norm"),
              std::string::npos);
  // An asymmetric A: MINRES refuses it (a MatrixError naming the entry), GMRES takes it.
  const Csr<T> N = test::convection_diffusion<T>(5, 40.0);
  try {
    KrylovSolver<T> s(N, {.method = KrylovMethod::Minres, .preconditioner = PreconditionerKind::None, .device = Device::Cpu});
    ADD_FAILURE() << "no error";
  } catch (const MatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("MINRES needs a symmetric matrix: A("), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(KrylovSolver<T>(N, {.method = KrylovMethod::Gmres, .preconditioner = PreconditionerKind::Ilu0,
                                      .device = Device::Cpu}));
}

// ---- SciPy's stopping test ----------------------------------------------------------------

TYPED_TEST(KrylovCpu, AbsoluteToleranceOnEveryMethod) {
  using T = TypeParam;
  EXPECT_EQ(KrylovOptions{}.stopping.norm, StoppingNorm::Two);
  EXPECT_EQ(StoppingOptions{}.absolute_tolerance, 0.0);
  const Csr<T> A = laplacian_2d<T>(20, 20);
  const std::vector<T> b = random_vector<T>(A.rows, 2);
  double normb = 0;
  for (const T v : b) normb += double(v) * double(v);
  normb = std::sqrt(normb);
  for (const auto method : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL, KrylovMethod::Gmres,
                            KrylovMethod::Minres}) {
    SCOPED_TRACE(to_string(method));
    KrylovOptions o{.method = method, .preconditioner = PreconditionerKind::Jacobi, .device = Device::Cpu,
                    .stopping = {.tolerance = 1e-12}};
    std::vector<T> x(b.size(), T(0));
    const KrylovStats rel = run(A, o, std::span<const T>(b), x);
    // atol above tolerance * ||b||: the test stops at ||r|| <= atol, earlier.
    o.stopping.absolute_tolerance = 1e-3 * normb;
    std::fill(x.begin(), x.end(), T(0));
    const KrylovStats abs = run(A, o, std::span<const T>(b), x);
    EXPECT_EQ(abs.outcome, KrylovOutcome::Converged) << abs.message;
    EXPECT_LE(abs.residual * normb, o.stopping.absolute_tolerance * (1 + 1e-12));
    EXPECT_GT(abs.history[abs.history.size() - 2] * normb, o.stopping.absolute_tolerance);
    EXPECT_LT(abs.iterations, rel.iterations);
    // atol >= ||r0||: converged before the first iteration, x left as given.
    o.stopping.absolute_tolerance = 2 * normb;
    std::fill(x.begin(), x.end(), T(0));
    const KrylovStats none = run(A, o, std::span<const T>(b), x);
    EXPECT_EQ(none.outcome, KrylovOutcome::Converged) << none.message;
    EXPECT_EQ(none.iterations, 0);
    EXPECT_EQ(x, std::vector<T>(b.size(), T(0)));
    // b = 0 with atol > 0: x = 0, converged at iteration 0 (SciPy's answer).
    std::vector<T> x0 = random_vector<T>(A.rows, 3);
    const KrylovStats z = run(A, o, std::span<const T>(std::vector<T>(b.size(), T(0))), x0);
    EXPECT_TRUE(z.outcome == KrylovOutcome::Converged && z.iterations == 0) << z.message;
    EXPECT_EQ(x0, std::vector<T>(b.size(), T(0)));
  }
}

TYPED_TEST(KrylovCpu, AbsoluteToleranceIsChecked) {
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(4, 4);
  for (const double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    try {
      KrylovSolver<T> s(A, {.device = Device::Cpu, .stopping = {.absolute_tolerance = bad}});
      ADD_FAILURE() << "no error for " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("absolute_tolerance must be >= 0 and finite"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace balsa
