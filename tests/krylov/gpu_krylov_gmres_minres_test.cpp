// GMRES(m) and MINRES on the GPU (krylov/gpu_gmres.cu, gpu_minres.cu) against
// their CPU references (krylov/gmres_cpu.cpp, minres_cpu.cpp) on generated
// and real matrices: the same outcome, iteration counts within a small
// margin, solutions within the tolerance; the status masking (the
// iterations enqueued after the stop leave x alone: a run told to stop at
// the converged iteration gives the same bits); SciPy's absolute tolerance
// on every method; breakdowns named as the CPU names them.
#include <cmath>
#include <optional>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cases.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

template <class T>
class GmresMinresGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GmresMinresGpu, ValueTypes);

template <class T>
double tolerance_of() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-10;
}

// tridiag(-1, 2, -1) - sigma I: symmetric, indefinite for 0 < sigma < 4.
template <class T>
Csr<T> indefinite_tridiagonal(index_t n, double sigma) {
  Coo<T> A;
  A.rows = A.cols = n;
  auto add = [&](index_t i, index_t j, double v) {
    A.row_idx.push_back(i), A.col_idx.push_back(j), A.values.push_back(T(v));
  };
  for (index_t i = 0; i < n; ++i) {
    if (i > 0) add(i, i - 1, -1.0);
    add(i, i, 2.0 - sigma);
    if (i + 1 < n) add(i, i + 1, -1.0);
  }
  return to_csr(A);
}

// The products a solve makes (krylov.hpp): GMRES one per step plus one per
// restart, MINRES one per iteration, after the initial residual's.
int expected_matvecs(const KrylovOptions& o, int iterations) {
  if (o.method == KrylovMethod::Minres || iterations == 0) return iterations + 1;
  return 1 + iterations + (iterations - 1) / o.restart;
}

struct Runs {
  KrylovStats cpu, gpu;
};

// Solves A x = b on both devices from the same x0 (b = A x_true when x_true
// is given) and checks the GPU against the CPU.
template <class T>
Runs expect_agree(const Csr<T>& A, KrylovOptions o, const std::vector<T>& b, const std::vector<T>& x0,
                  const std::vector<T>* x_true) {
  std::vector<T> xc = x0, xg = x0;
  o.device = Device::Cpu;
  const KrylovStats c = KrylovSolver<T>(A, o).solve(std::span<const T>(b), std::span<T>(xc));
  o.device = Device::Cuda;
  const KrylovStats g = KrylovSolver<T>(A, o).solve(std::span<const T>(b), std::span<T>(xg));
  EXPECT_EQ(g.outcome, c.outcome) << "cpu: " << c.message << "\ngpu: " << g.message;
  // The test's relative tolerance with SciPy's atol.
  double bb = 0;
  for (const T v : b) bb += double(v) * double(v);
  const double tol = std::max(o.stopping.tolerance, o.stopping.absolute_tolerance / std::sqrt(bb));
  // Long Lanczos runs on ill-conditioned matrices and BiCGStab stopped early
  // by atol are the most sensitive to rounding: a wider margin there.
  const bool sensitive = !x_true || o.stopping.absolute_tolerance > 0;
  const int margin = std::max(2, c.iterations / (sensitive ? 5 : 10));
  EXPECT_NEAR(g.iterations, c.iterations, margin) << "cpu " << c.iterations << ", gpu " << g.iterations;
  EXPECT_EQ(g.history.size(), std::size_t(g.iterations) + 1);
  EXPECT_EQ(g.history.back(), g.residual);
  EXPECT_NEAR(g.history[0], c.history[0], 1e-5 * c.history[0]);
  if (c.outcome == KrylovOutcome::Converged && o.method == KrylovMethod::Gmres) {
    EXPECT_EQ(c.matvecs, expected_matvecs(o, c.iterations));
    EXPECT_EQ(g.matvecs, expected_matvecs(o, g.iterations));
  }
  if (c.outcome != KrylovOutcome::Converged) return {c, g};
  EXPECT_LE(g.residual, tol);
  EXPECT_LT(g.true_residual, 100 * tol + test::tolerance<T>(1000));
  EXPECT_NEAR(g.true_residual, c.true_residual, 10 * tol + test::tolerance<T>(1000));
  if (x_true) {
    EXPECT_LE(test::relative_error<T>(xg, *x_true), 5000 * tol) << g.message;
  }
  if (o.stopping.absolute_tolerance == 0) {  // (stopped at 1e-4, the iterates differ more)
    EXPECT_LE(test::relative_error<T>(xg, xc), 5000 * tol);
  }
  EXPECT_EQ(g.device, Device::Cuda);
  return {c, g};
}

template <class T>
Runs expect_agree_known(const std::string& what, const Csr<T>& A, const KrylovOptions& o, bool random_x0) {
  SCOPED_TRACE(what + (random_x0 ? ", x0 random" : ", x0 = 0"));
  const std::vector<T> x_true = random_vector<T>(A.rows, 3);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  const std::vector<T> x0 = random_x0 ? random_vector<T>(A.rows, 8) : std::vector<T>(b.size(), T(0));
  const Runs r = expect_agree<T>(A, o, b, x0, &x_true);
  EXPECT_EQ(r.cpu.outcome, KrylovOutcome::Converged) << r.cpu.message;
  return r;
}

TYPED_TEST(GmresMinresGpu, GmresAgreesWithCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const std::pair<std::string, Csr<T>> cases[] = {{"convection-diffusion", test::convection_diffusion<T>(40, 40.0)},
                                                  {"banded", banded_dominant<T>(20000, 5, 1.5, 7)}};
  for (const auto& [name, A] : cases)
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::Ilu0})
      for (const int m : {4, 30})
        for (const bool random_x0 : {false, true}) {
          KrylovOptions o{.method = KrylovMethod::Gmres, .preconditioner = pre,
                          .stopping = {.tolerance = tolerance_of<T>()}};
          o.restart = m;
          expect_agree_known<T>(name + " gmres(" + std::to_string(m) + ") " + to_string(pre), A, o, random_x0);
        }
}

TYPED_TEST(GmresMinresGpu, MinresAgreesWithCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const std::pair<std::string, Csr<T>> cases[] = {{"laplace2d 40", laplacian_2d<T>(40, 40)},
                                                  {"indefinite", indefinite_tridiagonal<T>(3000, 0.7)}};
  for (const auto& [name, A] : cases)
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::Ic0,
                           PreconditionerKind::Chebyshev}) {
      if (name == "indefinite" && pre != PreconditionerKind::None) continue;  // (its diagonal is 1.3: Jacobi is a scaling)
      for (const bool random_x0 : {false, true})
        expect_agree_known<T>(name + " minres " + to_string(pre), A,
                              {.method = KrylovMethod::Minres, .preconditioner = pre,
                               .stopping = {.tolerance = tolerance_of<T>(), .max_iterations = 20000}},
                              random_x0);
    }
}

TYPED_TEST(GmresMinresGpu, RealMatrices) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-8;
  int compared = 0;
  test::for_each_square_real_matrix<T>([&](const Csr<T>& A) {
    const std::vector<T> b(std::size_t(A.rows), T(1));
    const std::vector<T> x0(b.size(), T(0));
    const bool symmetric = first_asymmetry(A, 1e-12).symmetric();
    KrylovOptions o{.method = symmetric ? KrylovMethod::Minres : KrylovMethod::Gmres,
                    .preconditioner = PreconditionerKind::Jacobi,
                    .stopping = {.tolerance = tol, .max_iterations = 3000}};
    SCOPED_TRACE(to_string(o.method));
    try {
      expect_agree<T>(A, o, b, x0, nullptr);
      ++compared;
    } catch (const Error& e) {  // a zero diagonal: Jacobi refused, on both devices alike
      SUCCEED() << e.what();
    }
  });
  EXPECT_GT(compared, 5);
}

TYPED_TEST(GmresMinresGpu, StatusMasksIterationsAfterTheStop) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> spd = indefinite_tridiagonal<T>(900, 0.3), nonsym = test::convection_diffusion<T>(30, 40.0);
  for (const auto method : {KrylovMethod::Gmres, KrylovMethod::Minres}) {
    SCOPED_TRACE(to_string(method));
    const Csr<T>& A = method == KrylovMethod::Minres ? spd : nonsym;
    const std::vector<T> b = random_vector<T>(A.rows, 4);
    KrylovOptions o{.method = method, .preconditioner = PreconditionerKind::Jacobi, .device = Device::Cuda,
                    .stopping = {.tolerance = tolerance_of<T>(), .max_iterations = 1000000},
                    .spmv = KrylovSpmv::Balsa};
    o.restart = 9;
    std::vector<T> x_long(b.size(), T(0)), x_again(b.size(), T(0)), x_exact(b.size(), T(0));
    KrylovSolver<T> long_run(A, o);
    const KrylovStats a = long_run.solve(std::span<const T>(b), std::span<T>(x_long));
    const KrylovStats again = long_run.solve(std::span<const T>(b), std::span<T>(x_again));
    ASSERT_EQ(a.outcome, KrylovOutcome::Converged) << a.message;
    o.stopping.max_iterations = a.iterations;
    const KrylovStats e = KrylovSolver<T>(A, o).solve(std::span<const T>(b), std::span<T>(x_exact));
    EXPECT_EQ(e.outcome, KrylovOutcome::Converged) << e.message;
    EXPECT_EQ(e.iterations, a.iterations);
    EXPECT_EQ(a.history, e.history);
    EXPECT_EQ(a.history, again.history);
    EXPECT_EQ(a.matvecs, e.matvecs);
    EXPECT_EQ(x_long, x_exact);
    EXPECT_EQ(x_long, x_again);
    // A limit inside a cycle: x formed from the cycle's steps, as on the CPU.
    for (const int max : {1, a.iterations / 2}) {
      o.stopping.max_iterations = max;
      std::vector<T> xg(b.size(), T(0)), xc(b.size(), T(0));
      const KrylovStats g = KrylovSolver<T>(A, o).solve(std::span<const T>(b), std::span<T>(xg));
      o.device = Device::Cpu;
      const KrylovStats c = KrylovSolver<T>(A, o).solve(std::span<const T>(b), std::span<T>(xc));
      o.device = Device::Cuda;
      EXPECT_EQ(g.outcome, KrylovOutcome::MaxIterations) << g.message;
      EXPECT_EQ(c.outcome, KrylovOutcome::MaxIterations) << c.message;
      EXPECT_EQ(g.iterations, max);
      EXPECT_LE(test::relative_error<T>(xg, xc), (std::is_same_v<T, float> ? 1e-3 : 1e-8));
    }
  }
}

TYPED_TEST(GmresMinresGpu, AbsoluteToleranceOnEveryMethod) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> A = laplacian_2d<T>(30, 30);
  const std::vector<T> b = random_vector<T>(A.rows, 2);
  double bb = 0;
  for (const T v : b) bb += double(v) * double(v);
  const double atol = 1e-4 * std::sqrt(bb);
  for (const auto method : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL, KrylovMethod::Gmres,
                            KrylovMethod::Minres}) {
    SCOPED_TRACE(to_string(method));
    KrylovOptions o{.method = method, .preconditioner = PreconditionerKind::Jacobi,
                    .stopping = {.tolerance = 1e-12, .absolute_tolerance = atol}};
    const std::vector<T> x0(b.size(), T(0));
    const Runs r = expect_agree<T>(A, o, b, x0, nullptr);
    EXPECT_EQ(r.gpu.outcome, KrylovOutcome::Converged) << r.gpu.message;
    EXPECT_LE(r.gpu.residual * std::sqrt(bb), atol * (1 + 1e-9));
    EXPECT_GT(r.gpu.history[r.gpu.history.size() - 2] * std::sqrt(bb), atol);
    // b = 0: x = 0 at once, whatever x0 held.
    const std::vector<T> zero(b.size(), T(0));
    std::vector<T> x = random_vector<T>(A.rows, 6);
    o.device = Device::Cuda;
    const KrylovStats z = KrylovSolver<T>(A, o).solve(std::span<const T>(zero), std::span<T>(x));
    EXPECT_EQ(z.outcome, KrylovOutcome::Converged);
    EXPECT_EQ(z.iterations, 0);
    EXPECT_EQ(x, zero);
  }
}

TYPED_TEST(GmresMinresGpu, BreakdownsAndDeviceVectorsMatchTheCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  // MINRES with Jacobi on a diagonal of mixed signs: an indefinite preconditioner.
  Csr<T> D;
  D.rows = D.cols = 3;
  D.row_ptr = {0, 1, 2, 3};
  D.col_idx = {0, 1, 2};
  D.values = {T(1), T(-2), T(-3)};
  const std::vector<T> b3 = {T(1), T(2), T(2)};  // r^T M^{-1} r = 1 - 4/2 - 4/3 < 0
  const Runs r = expect_agree<T>(D, {.method = KrylovMethod::Minres, .preconditioner = PreconditionerKind::Jacobi},
                              b3, std::vector<T>(3, T(0)), nullptr);
  EXPECT_EQ(r.gpu.outcome, KrylovOutcome::Breakdown);
  EXPECT_EQ(r.gpu.message, r.cpu.message);
  // Device vectors (x0 = 0 on the device; the host copy poisoned before the download).
  const Csr<T> A = test::convection_diffusion<T>(20, 40.0);
  const std::vector<T> x_true = random_vector<T>(A.rows, 3);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  KrylovOptions o{.method = KrylovMethod::Gmres, .preconditioner = PreconditionerKind::Ilu0, .device = Device::Cuda,
                  .stopping = {.tolerance = tolerance_of<T>()}};
  o.restart = 6;
  KrylovSolver<T> s(A, o);
  const cuda::DeviceBuffer<T> db{std::span<const T>(b)};
  cuda::DeviceBuffer<T> dx(std::span<const T>(std::vector<T>(b.size(), T(0))));
  const KrylovStats st = s.solve(db, dx);
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  std::vector<T> x = test::poisoned<T>(b.size());
  dx.download(std::span<T>(x));
  EXPECT_LE(test::relative_error<T>(x, x_true), 5000 * tolerance_of<T>());
}

}  // namespace
}  // namespace balsa
