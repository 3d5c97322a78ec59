// KrylovSolver's preconditioners on the CPU (krylov/preconditioner.cpp,
// ordering.cpp): incomplete factorisations cut iterations; the multicolour
// ordering is a valid colouring, red-black on grid Laplacians, and solves
// what the natural order solves in the caller's order. Helpers:
// support/krylov_cpu_cases.hpp.
#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

// ---- preconditioners ------------------------------------------------------------------------

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

}  // namespace
}  // namespace balsa
