// KrylovSolver on the GPU against the CPU reference: the same outcome,
// iteration counts within a small margin, solutions within the tolerance;
// exact counts where theory gives them; the status masking (iterations
// enqueued after the stop change nothing); device vectors; bad input.
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <optional>
#include <limits>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cases.hpp"
#include "support/test_support.hpp"
#include "krylov/chebyshev.hpp"
#include "support/poison.hpp"

namespace balsa {
namespace {

template <class T>
class KrylovGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KrylovGpu, ValueTypes);

template <class T>
double tol_for() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-10;
}

// The products with A that a converged solve of `iterations` iterations
// does (krylov.hpp: the initial residual's, then per iteration).
bool matvecs_consistent(const KrylovOptions& o, const KrylovStats& s) {
  const int it = s.iterations, mv = s.matvecs;
  if (it == 0) return mv == 1;
  switch (o.method) {
    case KrylovMethod::Cg: return mv == it + 1;
    case KrylovMethod::BiCgStab: return mv == 2 * it + 1 || mv == 2 * it;  // 2 * it: stopped at the half step
    default: return mv >= 2 * o.l * (it - 1) + 2 && mv <= 2 * o.l * it + 1;  // may stop after a BiCG step
  }
}

KrylovOptions on(Device d, KrylovOptions o) {
  o.device = d;
  return o;
}

// Solves A x = A x_true on the CPU and on the GPU from the same x0 and
// compares. Returns the GPU's stats.
template <class T>
KrylovStats expect_agree(const std::string& what, const Csr<T>& A, const KrylovOptions& o, bool random_x0) {
  SCOPED_TRACE(what);
  const std::vector<T> x_true = random_vector<T>(A.rows, 3);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  const std::vector<T> x0 = random_x0 ? random_vector<T>(A.rows, 8) : std::vector<T>(b.size(), T(0));
  std::vector<T> xc = x0, xg = x0;
  KrylovSolver<T> cpu(A, on(Device::Cpu, o)), gpu(A, on(Device::Cuda, o));
  const KrylovStats c = cpu.solve(std::span<const T>(b), std::span<T>(xc));
  const KrylovStats g = gpu.solve(std::span<const T>(b), std::span<T>(xg));
  EXPECT_EQ(c.outcome, KrylovOutcome::Converged) << c.message;
  EXPECT_EQ(g.outcome, KrylovOutcome::Converged) << g.message;
  // BiCGStab(l) is not a minimisation: a different summation order (block
  // reductions vs OpenMP) moves its count by a few percent (laplace3d 64,
  // BiCGStab(2): CPU 82, GPU 86 on the H200); CG's stays within 2%.
  const bool cg = o.method == KrylovMethod::Cg;
  const int margin = std::max(2, c.iterations / (std::is_same_v<T, float> || !cg ? 10 : 50));
  EXPECT_NEAR(g.iterations, c.iterations, margin) << "cpu " << c.iterations << ", gpu " << g.iterations;
  EXPECT_EQ(g.history.size(), std::size_t(g.iterations) + 1);
  EXPECT_EQ(g.history.back(), g.residual);
  EXPECT_LE(g.residual, o.stopping.tolerance);
  for (std::size_t k = 0; k + 1 < g.history.size(); ++k) EXPECT_GT(g.history[k], o.stopping.tolerance) << "k = " << k;
  EXPECT_NEAR(g.history[0], c.history[0], 1e-5 * c.history[0]);
  EXPECT_TRUE(matvecs_consistent(o, c)) << "cpu: " << c.matvecs << " products in " << c.iterations;
  EXPECT_TRUE(matvecs_consistent(o, g)) << "gpu: " << g.matvecs << " products in " << g.iterations;
  EXPECT_LT(g.true_residual, 100 * o.stopping.tolerance + test::tolerance<T>(1000));
  EXPECT_LE(test::relative_error<T>(xg, x_true), 5000 * o.stopping.tolerance) << g.message;
  EXPECT_LE(test::relative_error<T>(xg, xc), 5000 * o.stopping.tolerance);
  EXPECT_TRUE(g.spmv == "cusparse" || g.spmv == "balsa") << g.spmv;
  EXPECT_EQ(g.device, Device::Cuda);
  if (o.phase_timing && g.iterations > 0) {
    EXPECT_GT(g.phase_samples, 0);
    EXPECT_GT(g.spmv_seconds, 0.0);
    EXPECT_GT(g.vector_seconds, 0.0);
    if (o.preconditioner != PreconditionerKind::None) {
      EXPECT_GT(g.preconditioner_seconds, 0.0);
    }
  }
  return g;
}

// The SPD systems of the CG comparisons.
template <class T>
std::vector<std::pair<std::string, Csr<T>>> spd_cases() {
  return {{"laplace2d 40", laplacian_2d<T>(40, 40)},
          {"laplace3d 12", laplacian_3d<T>(12, 12, 12)},
          {"random spd", random_spd<T>(5000, 6, 2)}};
}

TYPED_TEST(KrylovGpu, CgAgreesWithCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const double tol = tol_for<T>();
  for (const auto& [name, A] : spd_cases<T>())
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::Ic0,
                           PreconditionerKind::Chebyshev})
      for (const auto norm : {StoppingNorm::Infinity, StoppingNorm::Two})
        for (const bool random_x0 : {false, true})
          expect_agree<T>(
              name + " " + to_string(pre) + (norm == StoppingNorm::Two ? " 2" : " inf") +
                  (random_x0 ? " x0 random" : " x0 = 0"),
              A, {.method = KrylovMethod::Cg, .preconditioner = pre, .stopping = {.tolerance = tol, .norm = norm}},
              random_x0);
}

TYPED_TEST(KrylovGpu, BiCgStabFamilyAgreesWithCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const double tol = tol_for<T>();
  const std::pair<std::string, Csr<T>> cases[] = {{"convection-diffusion", test::convection_diffusion<T>(40, 40.0)},
                                                  {"banded", banded_dominant<T>(20000, 5, 1.5, 7)}};
  for (const auto& [name, A] : cases)
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::Ilu0})
      for (const auto& [method, l] : {std::pair{KrylovMethod::BiCgStab, 2}, std::pair{KrylovMethod::BiCgStabL, 1},
                                      std::pair{KrylovMethod::BiCgStabL, 2}, std::pair{KrylovMethod::BiCgStabL, 4}})
        for (const bool random_x0 : {false, true})
          expect_agree<T>(name + " " + to_string(method) + " l=" + std::to_string(l) + " " + to_string(pre) +
                              (random_x0 ? " x0 random" : " x0 = 0"),
                          A,
                          {.method = method,
                           .preconditioner = pre,
                           .stopping = {.tolerance = tol, .norm = StoppingNorm::Two},
                           .l = l},
                          random_x0);
}

TYPED_TEST(KrylovGpu, LargeSystemsUseEveryBlock) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  // 262,144 rows: the reductions run over hundreds of blocks.
  const Csr<T> A = laplacian_3d<T>(64, 64, 64);
  expect_agree<T>("laplace3d 64 cg", A,
                  {.method = KrylovMethod::Cg,
                   .preconditioner = PreconditionerKind::Jacobi,
                   .stopping = {.tolerance = tol_for<T>()}},
                  false);
  expect_agree<T>("laplace3d 64 bicgstab(2)", A,
                  {.method = KrylovMethod::BiCgStabL,
                   .preconditioner = PreconditionerKind::None,
                   .stopping = {.tolerance = tol_for<T>(), .norm = StoppingNorm::Two}},
                  true);
}

TYPED_TEST(KrylovGpu, EitherSpmv) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  for (const KrylovSpmv spmv : {KrylovSpmv::Cusparse, KrylovSpmv::Balsa}) {
    const std::string name = to_string(spmv);
    const KrylovStats g = expect_agree<T>("spmv " + name, laplacian_2d<T>(50, 50),
                                          {.method = KrylovMethod::Cg,
                                           .preconditioner = PreconditionerKind::None,
                                           .stopping = {.tolerance = tol_for<T>()},
                                           .spmv = spmv},
                                          false);
    EXPECT_EQ(g.spmv, name);
  }
  EXPECT_THROW_MSG(from_string<KrylovSpmv>("nonsense"), Error, "Krylov SpMV");
}

TEST(KrylovGpuExact, IterationCountsFromTheSpectrum) {
  BALSA_REQUIRE_GPU();
  // b in the span of m eigenvectors of tridiag(-1, 4, -1): m iterations.
  const index_t n = 100;
  const Csr<double> A = laplacian_2d<double>(n, 1);
  for (const auto& modes : {std::vector<int>{7}, std::vector<int>{1, 40}, std::vector<int>{3, 17, 50, 90}}) {
    std::vector<double> b(std::size_t(n), 0.0);
    for (const int k : modes)
      for (index_t i = 0; i < n; ++i) b[i] += std::sin(std::numbers::pi * k * (i + 1) / (n + 1));
    std::vector<double> x(b.size(), 0.0);
    KrylovSolver<double> cg(A, {.method = KrylovMethod::Cg,
                                .preconditioner = PreconditionerKind::None,
                                .device = Device::Cuda,
                                .stopping = {.tolerance = 1e-9, .norm = StoppingNorm::Two}});
    const KrylovStats st = cg.solve(std::span<const double>(b), std::span<double>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    EXPECT_EQ(st.iterations, int(modes.size()));
    EXPECT_EQ(st.matvecs, int(modes.size()) + 1);
  }
}

// Iterations the host enqueued after the stop must not touch x: a solve
// allowed a million iterations ends bit for bit where one allowed exactly
// the iterations it needed ends (balsa's SpMV: deterministic sums).
TYPED_TEST(KrylovGpu, StatusMasksIterationsAfterTheStop) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> spd = laplacian_2d<T>(30, 30), nonsym = test::convection_diffusion<T>(30, 40.0);
  for (const auto method : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL}) {
    SCOPED_TRACE(to_string(method));
    const Csr<T>& A = method == KrylovMethod::Cg ? spd : nonsym;
    const std::vector<T> b = random_vector<T>(A.rows, 4);
    KrylovOptions o{.method = method,
                    .preconditioner = PreconditionerKind::Jacobi,
                    .device = Device::Cuda,
                    .stopping = {.tolerance = tol_for<T>(), .max_iterations = 1000000},
                    .spmv = KrylovSpmv::Balsa};
    std::vector<T> x_long(b.size(), T(0)), x_again(b.size(), T(0)), x_exact(b.size(), T(0)), x_cpu(b.size(), T(0));
    KrylovSolver<T> long_run(A, o);
    const KrylovStats a = long_run.solve(std::span<const T>(b), std::span<T>(x_long));
    const KrylovStats again = long_run.solve(std::span<const T>(b), std::span<T>(x_again));
    ASSERT_EQ(a.outcome, KrylovOutcome::Converged) << a.message;
    o.stopping.max_iterations = a.iterations;
    KrylovSolver<T> exact_run(A, o);
    const KrylovStats e = exact_run.solve(std::span<const T>(b), std::span<T>(x_exact));
    EXPECT_EQ(e.outcome, KrylovOutcome::Converged) << e.message;
    EXPECT_EQ(e.iterations, a.iterations);
    EXPECT_EQ(again.iterations, a.iterations);
    EXPECT_EQ(a.history, e.history);
    EXPECT_EQ(a.matvecs, e.matvecs);
    EXPECT_EQ(x_long, x_exact);
    EXPECT_EQ(x_long, x_again);
    // And the CPU stops at the same place (to rounding).
    o.stopping.max_iterations = 1000000;
    const KrylovStats c = KrylovSolver<T>(A, on(Device::Cpu, o)).solve(std::span<const T>(b), std::span<T>(x_cpu));
    const int margin = std::is_same_v<T, float> ? 3 : 1;
    EXPECT_NEAR(a.iterations, c.iterations, margin);
  }
}

TYPED_TEST(KrylovGpu, StopsOtherThanConvergenceMatchTheCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  auto both = [](const Csr<T>& A, const KrylovOptions& o, const std::vector<T>& b) {
    std::vector<T> xc(b.size(), T(0)), xg(b.size(), T(0));
    const KrylovStats c = KrylovSolver<T>(A, on(Device::Cpu, o)).solve(std::span<const T>(b), std::span<T>(xc));
    const KrylovStats g = KrylovSolver<T>(A, on(Device::Cuda, o)).solve(std::span<const T>(b), std::span<T>(xg));
    EXPECT_EQ(g.outcome, c.outcome) << g.message;
    if (c.outcome == KrylovOutcome::Breakdown) {
      EXPECT_EQ(g.message, c.message);
    }
    EXPECT_EQ(g.iterations, c.iterations);
    EXPECT_EQ(g.matvecs, c.matvecs);
    EXPECT_EQ(g.history.size(), c.history.size());
    EXPECT_LE(test::relative_error<T>(xg, xc), test::tolerance<T>(1e4));
    return g;
  };
  // CG on an indefinite diagonal: p^T A p = -1 in iteration 1.
  Csr<T> D;
  D.rows = D.cols = 2;
  D.row_ptr = {0, 1, 2};
  D.col_idx = {0, 1};
  D.values = {T(1), T(-2)};
  const KrylovStats g = both(D, {.preconditioner = PreconditionerKind::None}, {T(1), T(1)});
  EXPECT_EQ(g.outcome, KrylovOutcome::Breakdown);
  EXPECT_NE(g.message.find("p^T A p = -1"), std::string::npos) << g.message;
  // BiCGStab(l) on the swap matrix: r0^T A r0 = 0.
  Csr<T> P;
  P.rows = P.cols = 2;
  P.row_ptr = {0, 1, 2};
  P.col_idx = {1, 0};
  P.values = {T(1), T(1)};
  for (const auto method : {KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL})
    EXPECT_EQ(both(P, {.method = method, .preconditioner = PreconditionerKind::None}, {T(1), T(0)}).outcome,
              KrylovOutcome::Breakdown);
  // max_iterations: 0 and 5.
  const Csr<T> L = laplacian_2d<T>(30, 30);
  const std::vector<T> b(std::size_t(L.rows), T(1));
  for (const auto method : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL})
    for (const int max : {0, 5}) {
      const KrylovStats m = both(
          L, {.method = method, .preconditioner = PreconditionerKind::Jacobi, .stopping = {.max_iterations = max}}, b);
      EXPECT_EQ(m.outcome, KrylovOutcome::MaxIterations);
      EXPECT_EQ(m.iterations, max);
    }
}

// The GPU path says "stagnation" where the CPU path does (the shared check
// after the true residual): a tolerance below attainable accuracy.
TEST(KrylovGpuAccuracy, ToleranceBelowAttainableAccuracyIsStagnation) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_3d<double>(10, 10, 10);
  const std::vector<double> b = multiply(A, std::span<const double>(random_vector<double>(A.rows, 3)));
  for (const auto method : {KrylovMethod::Cg, KrylovMethod::BiCgStabL}) {
    const PreconditionerKind m = method == KrylovMethod::Cg ? PreconditionerKind::Ic0 : PreconditionerKind::Ilu0;
    std::vector<double> x(b.size(), 0.0);
    KrylovSolver<double> s(A, {.method = method,
                               .preconditioner = m,
                               .device = Device::Cuda,
                               .stopping = {.tolerance = 1e-300, .max_iterations = 20000}});
    const KrylovStats st = s.solve(std::span<const double>(b), std::span<double>(x));
    EXPECT_EQ(st.outcome, KrylovOutcome::Stagnation) << st.message;
    EXPECT_NE(st.message.find("attainable accuracy"), std::string::npos) << st.message;
    EXPECT_LT(st.true_residual, 1e-12);
  }
}

// A solver s of A x = b (x its solution from x0 = 0; db: b on the device,
// dx: a device vector): NaN in device b or x is an error naming the index;
// new values 2 A halve the solution.
template <class T>
void expect_named_nan_and_update(KrylovSolver<T>& s, const Csr<T>& A, const std::vector<T>& b,
                                 const std::vector<T>& x, const cuda::DeviceBuffer<T>& db, cuda::DeviceBuffer<T>& dx) {
  std::vector<T> bad = b;
  bad[17] = std::numeric_limits<T>::quiet_NaN();
  cuda::DeviceBuffer<T> dbad{std::span<const T>(bad)};
  EXPECT_THROW_MSG(s.solve(dbad, dx), Error, "right-hand side b at index 17");
  EXPECT_THROW_MSG(s.solve(db, dbad), Error, "initial guess x at index 17");
  // New values (2 A): the solution halves.
  std::vector<T> doubled = A.values;
  for (T& v : doubled) v *= T(2);
  s.update_values(doubled);
  std::vector<T> x2(b.size(), T(0));
  EXPECT_EQ(s.solve(std::span<const T>(b), std::span<T>(x2)).outcome, KrylovOutcome::Converged);
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(double(x2[i]), double(x[i]) / 2, 1e3 * tol_for<T>());
}

TYPED_TEST(KrylovGpu, DeviceVectorsProgressAndUpdates) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> A = laplacian_2d<T>(40, 40);
  std::vector<int> seen;
  KrylovSolver<T> s(A, {.preconditioner = PreconditionerKind::Jacobi,
                        .device = Device::Cuda,
                        .stopping = {.tolerance = tol_for<T>()},
                        .progress = [&](int k, double) { seen.push_back(k); }});
  const std::vector<T> x_true = random_vector<T>(A.rows, 6);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  // Host vectors.
  std::vector<T> x(b.size(), T(0));
  const KrylovStats h = s.solve(std::span<const T>(b), std::span<T>(x));
  ASSERT_EQ(h.outcome, KrylovOutcome::Converged) << h.message;
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), 0);
  EXPECT_EQ(seen.back(), h.iterations);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  // Device vectors: the same solve.
  cuda::DeviceBuffer<T> db{std::span<const T>(b)}, dx(b.size());
  dx.fill_bytes(0);
  const KrylovStats d = s.solve(db, dx);
  EXPECT_EQ(d.outcome, KrylovOutcome::Converged);
  EXPECT_NEAR(d.iterations, h.iterations, 1);  // cuSPARSE's SpMV need not be bitwise reproducible
  EXPECT_LE(test::relative_error<T>(dx.to_host(), x), 100 * tol_for<T>());
  EXPECT_EQ(s.stats().iterations, d.iterations);
  // b == 0 on the device: x = 0.
  cuda::DeviceBuffer<T> zero(b.size());
  zero.fill_bytes(0);
  const KrylovStats z = s.solve(zero, dx);
  EXPECT_EQ(z.outcome, KrylovOutcome::Converged);
  EXPECT_EQ(z.iterations, 0);
  EXPECT_EQ(dx.to_host(), std::vector<T>(b.size(), T(0)));
  cuda::DeviceBuffer<T> short_x(b.size() - 1);
  EXPECT_THROW(s.solve(db, short_x), DimensionError);
  expect_named_nan_and_update(s, A, b, x, db, dx);
}

// The multicolour ordering (krylov.hpp, KrylovOrdering): the GPU path
// (P A P^T on the device, b and x gathered in and scattered out there)
// against the CPU path.
TYPED_TEST(KrylovGpu, MulticolourAgreesWithCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const double tol = tol_for<T>();
  using Cases = std::vector<std::pair<std::string, Csr<T>>>;
  const Cases general = {{"convection-diffusion", test::convection_diffusion<T>(40, 40.0)}};
  for (const auto& [cases, preset] : {std::pair{spd_cases<T>(), KrylovPreset::PcgIc0Mc},
                                      std::pair{general, KrylovPreset::BiCgStabIlu0Mc}})
    for (const auto& [name, A] : cases)
      for (const bool random_x0 : {false, true}) {
        KrylovOptions o = krylov_options(preset);
        o.stopping.tolerance = tol;
        const KrylovStats g = expect_agree<T>(name + " " + to_string(preset) + (random_x0 ? " x0 random" : " x0 = 0"),
                                              A, o, random_x0);
        EXPECT_EQ(g.ordering, KrylovOrdering::Multicolour);
        EXPECT_EQ(g.colours, greedy_colouring(A).count);
        EXPECT_GT(g.ordering_seconds, 0.0);
      }
}

TYPED_TEST(KrylovGpu, MulticolourDeviceVectorsAndUpdates) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> A = laplacian_3d<T>(14, 13, 12);
  KrylovOptions o = krylov_options(KrylovPreset::PcgIc0Mc);
  o.device = Device::Cuda;
  o.stopping.tolerance = tol_for<T>();
  KrylovSolver<T> s(A, o);
  EXPECT_EQ(s.stats().colours, 2);
  const std::vector<T> x_true = random_vector<T>(A.rows, 6);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  std::vector<T> x(b.size(), T(0));
  const KrylovStats h = s.solve(std::span<const T>(b), std::span<T>(x));
  ASSERT_EQ(h.outcome, KrylovOutcome::Converged) << h.message;
  EXPECT_LE(test::relative_error<T>(x, x_true), 1e4 * tol_for<T>());
  // Device vectors (in A's order): the same solve.
  cuda::DeviceBuffer<T> db{std::span<const T>(b)}, dx(b.size());
  dx.fill_bytes(0);
  const KrylovStats d = s.solve(db, dx);
  EXPECT_EQ(d.outcome, KrylovOutcome::Converged);
  EXPECT_NEAR(d.iterations, h.iterations, 1);
  EXPECT_LE(test::relative_error<T>(dx.to_host(), x), 100 * tol_for<T>());
  // x0 = x_true: converged at once, x unchanged.
  cuda::DeviceBuffer<T> exact{std::span<const T>(x_true)};
  EXPECT_EQ(s.solve_device(db.data(), exact.data()).iterations, 0);
  EXPECT_EQ(exact.to_host(), x_true);
  expect_named_nan_and_update(s, A, b, x, db, dx);  // the index in A's order
}

TEST(KrylovGpuMixed, FloatPreconditionerInADoubleIteration) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_2d<double>(60, 60);
  for (const auto& [method, pre] : {std::pair{KrylovMethod::Cg, PreconditionerKind::Ic0},
                                    std::pair{KrylovMethod::BiCgStab, PreconditionerKind::Ilu0},
                                    std::pair{KrylovMethod::Cg, PreconditionerKind::Chebyshev}})
    expect_agree<double>(
        std::string("mixed ") + to_string(method), A,
        {.method = method, .preconditioner = pre, .stopping = {.tolerance = 1e-10}, .float_preconditioner = true},
        false);
}

// ---- the Chebyshev preconditioner's kernels against its host path (krylov/chebyshev.cpp) ----

// The symmetric matrices with a positive diagonal: the SPD cases and the
// real matrices of tests/data whose scaling the host accepts.
template <class T>
std::vector<std::pair<std::string, Csr<T>>> chebyshev_cases() {
  std::vector<std::pair<std::string, Csr<T>>> cases = spd_cases<T>();
  cases.emplace_back("laplace3d 40", laplacian_3d<T>(40, 40, 40));
  for (const auto& file : test::real_matrices()) {
    const std::optional<Csr<T>> A = test::real_matrix_as<T>(file);
    if (!A || A->rows != A->cols) continue;
    std::vector<T> dinv(std::size_t(A->rows));
    if (krylov::chebyshev_scaling<T, T>(*A, std::span<const T>(A->values), std::span<T>(dinv)).problem.row < 0)
      cases.emplace_back(file.filename().string(), *A);
  }
  return cases;
}

// The GPU preconditioner as KrylovSolver sets it up: A's device copy, then its values.
template <class T>
std::unique_ptr<krylov::Preconditioner<T>> device_chebyshev(const cuda::DeviceCsr<T>& dA, const Csr<T>& A,
                                                            KrylovOptions o) {
  o.device = Device::Cuda;
  auto M = krylov::make_chebyshev(A, o);
  EXPECT_TRUE(M->awaits_values());
  M->use_device_matrix(dA);
  M->update_values_device(dA.values);
  return M;
}

TYPED_TEST(KrylovGpu, ChebyshevScalingAndApplicationMatchTheHost) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  int real = 0;
  for (const auto& [name, A] : chebyshev_cases<T>()) {
    SCOPED_TRACE(name);
    real += name.find(".mtx") != std::string::npos;
    const cuda::DeviceCsr<T> dA = cuda::to_device(A);
    // The scaling: the same bits.
    std::vector<T> dinv(std::size_t(A.rows));
    const krylov::device::Scaling hs =
        krylov::chebyshev_scaling<T, T>(A, std::span<const T>(A.values), std::span<T>(dinv));
    cuda::DeviceBuffer<T> ddinv(std::size_t(A.rows));
    test::poison(ddinv);
    const krylov::device::Scaling ds = krylov::device::chebyshev_scaling<T, T>(
        A.rows, dA.row_ptr.data(), dA.col_idx.data(), dA.values.data(), ddinv.data());
    ASSERT_EQ(ds.problem.row, -1);
    EXPECT_EQ(ds.spectrum.upper, hs.spectrum.upper);
    EXPECT_EQ(ds.spectrum.lower, hs.spectrum.lower);
    const double hb = hs.spectrum.upper;
    EXPECT_EQ(ddinv.to_host(), dinv);
    // The application, every degree's buffer rotation.
    for (const int degree : {0, 1, 2, 7, 12}) {
      SCOPED_TRACE("degree " + std::to_string(degree));
      KrylovOptions o{.preconditioner = PreconditionerKind::Chebyshev, .device = Device::Cpu};
      o.chebyshev.degree = degree;
      auto host = krylov::make_chebyshev(A, o);
      auto gpu = device_chebyshev(dA, A, o);
      const std::vector<T> r = random_vector<T>(A.rows, 11);
      std::vector<T> z(r.size());
      host->apply(std::span<const T>(r), std::span<T>(z));
      const cuda::DeviceBuffer<T> dr{std::span<const T>(r)};
      cuda::DeviceBuffer<T> dz(r.size());
      test::poison(dz);
      gpu->apply_device(dr.data(), dz.data());
      const std::vector<T> got = dz.to_host();
      EXPECT_EQ(test::count_poisoned<T>(std::span<const T>(got)), 0u);
      EXPECT_LE(test::relative_error<T>(got, z), test::tolerance<T>(100 + 20 * degree));
      KrylovStats st;
      gpu->describe(st);
      EXPECT_EQ(st.spectrum_bound, hb);
      EXPECT_EQ(st.chebyshev_degree, degree);
    }
  }
  EXPECT_GE(real, 2);
}

TEST(KrylovGpuChebyshev, BadDiagonalsAndNaNAreNamed) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_2d<double>(30, 30);
  KrylovOptions o{.preconditioner = PreconditionerKind::Chebyshev, .device = Device::Cuda};
  for (const auto& [value, words] : {std::pair{-4.0, std::string("row 17 is not positive")},
                                     std::pair{0.0, std::string("row 17 is not positive")}}) {
    Csr<double> B = A;
    for (index_t k = B.row_ptr[17]; k < B.row_ptr[18]; ++k)
      if (B.col_idx[k] == 17) B.values[std::size_t(k)] = value;
    try {
      KrylovSolver<double> s(B, o);
      ADD_FAILURE() << "no error";
    } catch (const MatrixError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
  // NaN in device values handed to the set-up: named by its row.
  const cuda::DeviceCsr<double> dA = cuda::to_device(A);
  auto M = krylov::make_chebyshev(A, o);
  M->use_device_matrix(dA);
  std::vector<double> v = A.values;
  v[std::size_t(A.row_ptr[123] + 1)] = std::numeric_limits<double>::quiet_NaN();
  const cuda::DeviceBuffer<double> bad{std::span<const double>(v)};
  try {
    M->update_values_device(bad);
    ADD_FAILURE() << "no error";
  } catch (const MatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("NaN or Inf among the values of row 123"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(M->awaits_values());
  // New values through the solver: the old scaling kept after an error, the new one used after a good update.
  KrylovSolver<double> s(A, o);
  const double b0 = s.stats().spectrum_bound;
  EXPECT_DOUBLE_EQ(b0, 2.0);
  std::vector<double> w = A.values;
  for (index_t k = A.row_ptr[5]; k < A.row_ptr[6]; ++k)
    if (A.col_idx[k] == 5) w[std::size_t(k)] = -1;
  EXPECT_THROW(s.update_values(std::span<const double>(w)), MatrixError);
  EXPECT_EQ(s.stats().spectrum_bound, b0);
}

// ---- KrylovSolver from a matrix already on the device (no host set-up) ----

// A's arrays uploaded as they are (cuda::to_device would validate them first).
template <class T>
cuda::DeviceCsr<T> raw_device(const Csr<T>& A) {
  return {A.rows, A.cols, A.nnz(), cuda::DeviceBuffer<index_t>(std::span<const index_t>(A.row_ptr)),
          cuda::DeviceBuffer<index_t>(std::span<const index_t>(A.col_idx)),
          cuda::DeviceBuffer<T>(std::span<const T>(A.values))};
}

TYPED_TEST(KrylovGpu, DeviceMatrixSolvesAsTheHostMatrixDoes) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const double tol = tol_for<T>();
  for (const auto& [name, A] : spd_cases<T>())
    for (const auto pre : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::Chebyshev}) {
      SCOPED_TRACE(name + " " + to_string(pre));
      const KrylovOptions o{.method = KrylovMethod::Cg, .preconditioner = pre, .device = Device::Cuda,
                            .stopping = {.tolerance = tol, .norm = StoppingNorm::Two}};
      const std::vector<T> x_true = random_vector<T>(A.rows, 3);
      const std::vector<T> b = multiply(A, std::span<const T>(x_true));
      KrylovSolver<T> host(A, o);
      std::optional<KrylovSolver<T>> dev;
      {
        const cuda::DeviceCsr<T> dA = cuda::to_device(A);
        dev.emplace(dA, o);
      }  // the solver keeps its own copy
      std::vector<T> xh(b.size(), T(0)), xd = test::poisoned<T>(b.size());
      std::fill(xd.begin(), xd.end(), T(0));
      const KrylovStats sh = host.solve(std::span<const T>(b), std::span<T>(xh));
      const KrylovStats sd = dev->solve(std::span<const T>(b), std::span<T>(xd));
      EXPECT_EQ(sd.outcome, KrylovOutcome::Converged) << sd.message;
      EXPECT_NEAR(sd.iterations, sh.iterations, std::max(2, sh.iterations / 50));
      EXPECT_LE(test::relative_error<T>(xd, xh), 5000 * tol);
      EXPECT_EQ(sd.spectrum_bound, sh.spectrum_bound);
      EXPECT_EQ(sd.preconditioner, pre);
      // New values (A scaled by 2): the solution halves.
      std::vector<T> twice = A.values;
      for (T& v : twice) v *= T(2);
      dev->update_values(std::span<const T>(twice));
      std::fill(xd.begin(), xd.end(), T(0));
      EXPECT_EQ(dev->solve(std::span<const T>(b), std::span<T>(xd)).outcome, KrylovOutcome::Converged);
      for (T& v : xd) v *= T(2);
      EXPECT_LE(test::relative_error<T>(xd, xh), 5000 * tol);
    }
}

TEST(KrylovGpuDeviceMatrix, BadInputIsNamed) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_2d<double>(12, 12);
  const KrylovOptions cheb{.preconditioner = PreconditionerKind::Chebyshev, .device = Device::Cuda};
  const auto expect_error = [&](const Csr<double>& B, const KrylovOptions& o, const std::string& words) {
    SCOPED_TRACE(words);
    try {
      const cuda::DeviceCsr<double> dB = raw_device(B);
      KrylovSolver<double> s(dB, o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  Csr<double> unsorted = A;
  std::swap(unsorted.col_idx[std::size_t(unsorted.row_ptr[20])], unsorted.col_idx[std::size_t(unsorted.row_ptr[20]) + 1]);
  expect_error(unsorted, cheb, "row 20: its columns are not strictly increasing");
  Csr<double> range = A;
  range.col_idx[std::size_t(range.row_ptr[31] + 1)] = 500;
  expect_error(range, cheb, "row 31: a column index is out of range");
  Csr<double> nan = A;
  nan.values[std::size_t(nan.row_ptr[40])] = std::numeric_limits<double>::quiet_NaN();
  expect_error(nan, cheb, "row 40: a value is NaN or Inf");
  Csr<double> asym = A;
  asym.values[std::size_t(asym.row_ptr[50])] *= 2;  // (50, 38): its mirror (38, 50) keeps -1
  expect_error(asym, cheb, "CG needs a symmetric matrix: A(38, 50)");
  Csr<double> negative = A;
  for (index_t k = negative.row_ptr[7]; k < negative.row_ptr[8]; ++k)
    if (negative.col_idx[k] == 7) negative.values[std::size_t(k)] = -4;
  expect_error(negative, cheb, "row 7 is not positive");
  expect_error(negative, {.preconditioner = PreconditionerKind::Jacobi, .device = Device::Cuda},
               "Jacobi preconditioner: the diagonal entry of row 7");
  expect_error(A, {.preconditioner = PreconditionerKind::Ic0, .device = Device::Cuda}, "needs a host analysis");
  expect_error(A, {.preconditioner = PreconditionerKind::Chebyshev, .device = Device::Cpu}, "needs the GPU");
  KrylovOptions mc = cheb;
  mc.ordering = KrylovOrdering::Multicolour;
  expect_error(A, mc, "only the natural ordering");
  const Csr<double> rect = test::random_sparse<double>(10, 12, 0.3, 1);
  expect_error(rect, cheb, "not square");
  // A bad update keeps the solver usable.
  const cuda::DeviceCsr<double> dA = cuda::to_device(A);
  KrylovSolver<double> s(dA, cheb);
  EXPECT_THROW(s.update_values(std::span<const double>(nan.values)), MatrixError);
  EXPECT_THROW(s.update_values(std::span<const double>(A.values.data(), 5)), DimensionError);
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  EXPECT_EQ(s.solve(std::span<const double>(b), std::span<double>(x)).outcome, KrylovOutcome::Converged);
}

}  // namespace
}  // namespace balsa
