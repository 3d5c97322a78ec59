// ILU(0) and IC(0) on the GPU against the CPU reference: random matrices of
// several shapes, generator matrices, the real matrices of tests/data; the
// shift path (same alpha, attempts and breakdown row), breakdown errors
// (same messages), refactor from host and device values with the output
// poisoned before each run.
//
// The kernels perform the reference's operations in its order with explicit
// rounding (factor/incomplete.cu), so the factors should agree to the bit;
// the check allows a working-precision relative error and reports the
// entries that differ at all.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "support/factor_checks.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

template <class T>
class FactorGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactorGpu, ValueTypes);

constexpr IncompleteKind kKinds[] = {IncompleteKind::Ilu0, IncompleteKind::Ic0};

IncompleteOptions on(Device device, IncompleteKind kind, IncompleteOptions o = {}) {
  o.kind = kind;
  o.device = device;
  return o;
}

// NaN into the factors the GPU holds, so that a refactor that skipped an
// entry shows (test-only: device_values() is read-only for users).
template <class T>
void poison(const IncompleteFactorization<T>& f) {
  cuda::fill(const_cast<cuda::DeviceBuffer<T>&>(f.device_values()), std::numeric_limits<T>::quiet_NaN());
}

template <class T>
void expect_same_factors(const Csr<T>& cpu_factors, const IncompleteFactorization<T>& gpu, const std::string& what) {
  const Csr<T> G = gpu.factors();
  ASSERT_EQ(G.row_ptr, cpu_factors.row_ptr) << what;
  ASSERT_EQ(G.col_idx, cpu_factors.col_idx) << what;
  EXPECT_TRUE(test::matches<T>(G.values, cpu_factors.values, test::tolerance<T>())) << what;
  std::size_t differ = 0;
  for (std::size_t p = 0; p < G.values.size(); ++p) differ += !(G.values[p] == cpu_factors.values[p]);
  if (differ) std::cout << "[ note ] " << what << ": " << differ << " of " << G.values.size() << " entries differ in bits\n";
  EXPECT_EQ(gpu.pattern().values, G.values) << what << ": factors() refreshes pattern()'s values";
}

// Factors A on both devices (options `o`, device set here) and compares:
// the same error, or the same stats and factors; then refactors on the
// GPU from device memory with its factors poisoned.
template <class T>
void expect_gpu_matches_cpu(const Csr<T>& A, IncompleteKind kind, const std::string& what, IncompleteOptions o = {}) {
  const std::string name = what + " " + to_string(kind);
  SCOPED_TRACE(name);
  std::optional<IncompleteFactorization<T>> cpu;
  std::string cpu_error;
  try {
    cpu.emplace(A, on(Device::Cpu, kind, o));
  } catch (const MatrixError& e) {
    cpu_error = e.what();
  }
  if (!cpu) {  // the GPU breaks down at the same row with the same pivots
    EXPECT_THROW_MSG(IncompleteFactorization<T>(A, on(Device::Cuda, kind, o)), MatrixError, cpu_error);
    return;
  }
  IncompleteFactorization<T> gpu(A, on(Device::Cuda, kind, o));
  const IncompleteStats &c = cpu->stats(), &g = gpu.stats();
  EXPECT_EQ(g.device, Device::Cuda);
  EXPECT_EQ(g.rows, c.rows);
  EXPECT_EQ(g.nnz, c.nnz);
  EXPECT_EQ(g.levels, c.levels);
  EXPECT_EQ(g.shift, c.shift);
  EXPECT_EQ(g.attempts, c.attempts);
  EXPECT_EQ(g.breakdown_row, c.breakdown_row);
  const Csr<T> C = cpu->factors();
  expect_same_factors(C, gpu, name);
  EXPECT_EQ(gpu.device_values().to_host(), gpu.factors().values);
  // Refactor from a device copy of A's values, factors poisoned first.
  const cuda::DeviceBuffer<T> dA{std::span<const T>(A.values)};
  poison(gpu);
  gpu.refactor(dA);
  EXPECT_EQ(gpu.stats().factorizations, 2);
  EXPECT_EQ(gpu.stats().attempts, c.attempts);
  expect_same_factors(C, gpu, name + " refactor(device)");
}

TYPED_TEST(FactorGpu, RandomMatricesOfSeveralShapes) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  struct Case {
    index_t n;
    double density;
    double dominance;
  };
  // Tiny, sparse (thread per row), dense rows (a warp per row), weakly
  // dominant (IC(0) of a nonsymmetric lower triangle shifts).
  for (const Case c : {Case{1, 0.0, 1.0}, Case{2, 1.0, 1.0}, Case{40, 0.3, 1.0}, Case{3000, 0.002, 1.0},
                       Case{20000, 0.0003, 1.0}, Case{1500, 0.06, 1.0}, Case{2000, 0.01, 0.05}})
    for (const IncompleteKind kind : kKinds) {
      const Csr<T> A = test::with_diagonal(test::random_sparse<T>(c.n, c.n, c.density, 7), c.dominance);
      expect_gpu_matches_cpu(A, kind, "random n " + std::to_string(c.n) + " density " + std::to_string(c.density));
      if (::testing::Test::HasFailure()) return;
    }
}

TYPED_TEST(FactorGpu, GeneratedMatrices) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  struct Named {
    std::string name;
    Csr<T> A;
  };
  const std::vector<Named> cases = {
      {"laplace2d 120^2", laplacian_2d<T>(120, 120)},
      {"laplace2d 60^2 red-black", laplacian_2d<T>(60, 60, GridOrdering::RedBlack)},
      {"laplace2d 60^2 random order", laplacian_2d<T>(60, 60, GridOrdering::Random, 3)},
      {"chain 5000 (5000 thin levels)", laplacian_2d<T>(5000, 1)},
      {"laplace3d 27-point 12^3", laplacian_3d<T>(12, 12, 12, Stencil3d::Point27)},
      {"random spd 20000/8", random_spd<T>(20000, 8, 5)},
      {"banded dominant 20000/6", banded_dominant<T>(20000, 6, 1.2, 4)},
      {"banded dominant 3000/40", banded_dominant<T>(3000, 40, 1.2, 4)},
  };
  for (const Named& c : cases)
    for (const IncompleteKind kind : kKinds) {
      expect_gpu_matches_cpu(c.A, kind, c.name);
      if (::testing::Test::HasFailure()) return;
    }
}

TYPED_TEST(FactorGpu, Ic0OnThe3dLaplacian) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const index_t m = 40;  // 64,000 rows, 118 levels
  const Csr<T> A = laplacian_3d<T>(m, m, m);
  expect_gpu_matches_cpu(A, IncompleteKind::Ic0, "laplace3d 7-point 40^3");
  IncompleteFactorization<T> ic(A, {.kind = IncompleteKind::Ic0, .device = Device::Cuda});
  EXPECT_EQ(ic.stats().levels, 3 * (m - 1) + 1);
  EXPECT_EQ(ic.stats().attempts, 1);
  test::expect_ic0_property(A, 0.0, ic.factors());
}

TYPED_TEST(FactorGpu, RealMatrices) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  int compared = 0;
  test::for_each_square_real_matrix<T>([&](const Csr<T>& A) {
    if (inspect_diagonal(A).missing > 0) return;  // no ILU(0)/IC(0) without every a_ii
    for (const IncompleteKind kind : kKinds) expect_gpu_matches_cpu(A, kind, "real matrix");
    ++compared;
  });
  EXPECT_GT(compared, 3);
}

TYPED_TEST(FactorGpu, ShiftPathMatchesTheCpu) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  // IC(0) of an indefinite 2 x 2: 11 shifts, alpha = 1.024.
  Csr<T> A = to_csr(Coo<T>{2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {T(1), T(2), T(2), T(1)}});
  IncompleteFactorization<T> ic(A, {.kind = IncompleteKind::Ic0, .device = Device::Cuda});
  EXPECT_EQ(ic.stats().shift, 1e-3 * 1024);
  EXPECT_EQ(ic.stats().attempts, 12);
  EXPECT_EQ(ic.stats().breakdown_row, 1);
  expect_gpu_matches_cpu(A, IncompleteKind::Ic0, "indefinite 2x2");
  // Row 2 (level 0) and row 1 (level 1) both break down: the reference stops
  // at row 1, so the GPU must not stop at the first level with a breakdown.
  const Csr<T> Z = to_csr(Coo<T>{3, 3, {0, 0, 1, 1, 2}, {0, 1, 0, 1, 2}, {T(1), T(1), T(1), T(1), T(0)}});
  ASSERT_EQ(Z.nnz(), 5);
  IncompleteOptions fail;
  fail.on_breakdown = PivotBreakdown::Fail;
  EXPECT_THROW_MSG(IncompleteFactorization<T>(Z, on(Device::Cuda, IncompleteKind::Ilu0, fail)), MatrixError,
                   "row 1 (pivot u_ii = 0");
  expect_gpu_matches_cpu(Z, IncompleteKind::Ilu0, "two breakdowns, Fail", fail);
  expect_gpu_matches_cpu(Z, IncompleteKind::Ilu0, "two breakdowns, Shift");  // row 2 never recovers
  // Weakly dominant random matrices with a demanding pivot tolerance: many
  // rows break down, in several levels.
  IncompleteOptions o;
  o.pivot_tolerance = 0.3;
  int shifted = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    for (const IncompleteKind kind : kKinds) {
      const Csr<T> B = test::symmetric_part(test::with_diagonal(test::random_sparse<T>(3000, 3000, 0.003, seed), 0.05));
      expect_gpu_matches_cpu(B, kind, "weak seed " + std::to_string(seed), o);
      shifted += IncompleteFactorization<T>(B, on(Device::Cpu, kind, o)).stats().attempts > 1;
    }
  EXPECT_GT(shifted, 0);
  // Failures: the same message (row and pivot) on both devices.
  o.on_breakdown = PivotBreakdown::Fail;
  const Csr<T> B = test::symmetric_part(test::with_diagonal(test::random_sparse<T>(3000, 3000, 0.003, 1), 0.05));
  for (const IncompleteKind kind : kKinds) expect_gpu_matches_cpu(B, kind, "weak, Fail", o);
  o.on_breakdown = PivotBreakdown::Shift;
  o.max_shifts = 2;
  for (const IncompleteKind kind : kKinds) expect_gpu_matches_cpu(B, kind, "weak, 2 shifts", o);
}

TYPED_TEST(FactorGpu, RefactorKeepsTheFactorsOnError) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  for (const IncompleteKind kind : kKinds) {
    SCOPED_TRACE(to_string(kind));
    const Csr<T> A = random_spd<T>(5000, 6, 9);
    IncompleteFactorization<T> gpu(A, on(Device::Cuda, kind, {.on_breakdown = PivotBreakdown::Fail}));
    // New values from the host: the off-diagonals halved.
    Csr<T> A2 = A;
    for (index_t i = 0; i < A2.rows; ++i)
      for (index_t k = A2.row_ptr[i]; k < A2.row_ptr[i + 1]; ++k)
        if (A2.col_idx[k] != i) A2.values[k] /= T(2);
    poison(gpu);
    gpu.refactor(std::span<const T>(A2.values));
    const Csr<T> C2 = IncompleteFactorization<T>(A2, on(Device::Cpu, kind)).factors();
    expect_same_factors(C2, gpu, "refactor(host)");
    const std::vector<T> kept = gpu.device_values().to_host();
    // A breakdown at row 11 (its diagonal negated; Fail).
    Csr<T> bad = A2;
    for (index_t k = bad.row_ptr[11]; k < bad.row_ptr[12]; ++k)
      if (bad.col_idx[k] == 11) bad.values[k] = -bad.values[k];
    if (kind == IncompleteKind::Ilu0)  // u_11 = 0: no lower part, zero diagonal
      for (index_t k = bad.row_ptr[11]; k < bad.row_ptr[12]; ++k)
        if (bad.col_idx[k] <= 11) bad.values[k] = T(0);
    EXPECT_THROW_MSG(gpu.refactor(std::span<const T>(bad.values)), MatrixError, "row 11");
    EXPECT_EQ(gpu.device_values().to_host(), kept);
    const cuda::DeviceBuffer<T> d_bad{std::span<const T>(bad.values)};
    EXPECT_THROW_MSG(gpu.refactor(d_bad), MatrixError, "row 11");
    EXPECT_EQ(gpu.device_values().to_host(), kept);
    // NaN in device values: named by row and column, nothing factored.
    std::vector<T> nan = A2.values;
    const index_t p = A2.row_ptr[42] + 1;
    nan[std::size_t(p)] = std::numeric_limits<T>::quiet_NaN();
    const cuda::DeviceBuffer<T> d_nan{std::span<const T>(nan)};
    EXPECT_THROW_MSG(gpu.refactor(d_nan), MatrixError,
                     "NaN value at (row 42, column " + std::to_string(A2.col_idx[std::size_t(p)]) + ")");
    EXPECT_EQ(gpu.device_values().to_host(), kept);
    const cuda::DeviceBuffer<T> d_short(A2.values.size() - 1);
    EXPECT_THROW(gpu.refactor(d_short), DimensionError);
    EXPECT_EQ(gpu.factors().values, kept);
    EXPECT_EQ(gpu.stats().factorizations, 2);
  }
}

// The Krylov solver's GPU set-up: the factorisation analysed from A's
// pattern alone (detail::ValuesLater, A without values), then factored from
// A's values on the device. Until then there are no factors to read; then
// they are the same bits as those of a factorisation built with values, on
// a random matrix and a 3D Laplacian, and a bad value is still named.
TYPED_TEST(FactorGpu, PatternFirstThenValuesFromTheDevice) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> matrices[] = {random_spd<T>(5000, 6, 21), laplacian_3d<T>(24, 20, 18)};
  for (const Csr<T>& A : matrices)
    for (const IncompleteKind kind : kKinds) {
      SCOPED_TRACE(std::string(to_string(kind)) + " n=" + std::to_string(A.rows));
      const IncompleteFactorization<T> with(A, on(Device::Cuda, kind));
      const Csr<T> pattern{A.rows, A.cols, A.row_ptr, A.col_idx, {}};
      IncompleteFactorization<T> later(pattern, on(Device::Cuda, kind), detail::PrecheckedMatrix(),
                                       detail::ValuesLater());
      EXPECT_EQ(later.stats().factorizations, 0);
      EXPECT_THROW_MSG((void)later.device_values(), Error, "no factors yet");
      EXPECT_THROW_MSG((void)later.factors(), Error, "no factors yet");
      std::vector<T> nan = A.values;
      const index_t p = A.row_ptr[42];  // row 42's first entry, below the diagonal
      nan[std::size_t(p)] = std::numeric_limits<T>::quiet_NaN();
      EXPECT_THROW_MSG(later.refactor(cuda::DeviceBuffer<T>(std::span<const T>(nan))), MatrixError,
                       "NaN value at (row 42, column " + std::to_string(A.col_idx[std::size_t(p)]) + ")");
      EXPECT_EQ(later.stats().factorizations, 0);
      later.refactor(cuda::DeviceBuffer<T>(std::span<const T>(A.values)));
      EXPECT_EQ(later.stats().factorizations, 1);
      EXPECT_EQ(later.factors().row_ptr, with.factors().row_ptr);
      EXPECT_EQ(later.factors().col_idx, with.factors().col_idx);
      EXPECT_EQ(later.device_values().to_host(), with.device_values().to_host());
    }
}

// Deep dependency chains (the thesis' banded family: one level per row): the
// GPU path factors on the host (IncompleteStats::host_numeric) and its
// device values are the CPU's factors; from host values, from device values
// after a pattern-only analysis, and through the shift loop (mu = 1e-2
// breaks down unshifted).
TYPED_TEST(FactorGpu, DeepChainsFactorOnTheHost) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  for (const double mu : {1e-4, 1e-2}) {
    SCOPED_TRACE("mu " + std::to_string(mu));
    const Csr<T> A = thesis_banded_spd<T>(20000, mu);
    const IncompleteFactorization<T> cpu(A, on(Device::Cpu, IncompleteKind::Ic0));
    const IncompleteFactorization<T> gpu(A, on(Device::Cuda, IncompleteKind::Ic0));
    EXPECT_TRUE(gpu.stats().host_numeric);
    EXPECT_FALSE(cpu.stats().host_numeric);
    EXPECT_EQ(gpu.stats().shift, cpu.stats().shift);
    EXPECT_EQ(gpu.device_values().to_host(), cpu.factors().values);
    const Csr<T> pattern{A.rows, A.cols, A.row_ptr, A.col_idx, {}};
    IncompleteFactorization<T> later(pattern, on(Device::Cuda, IncompleteKind::Ic0), detail::PrecheckedMatrix(),
                                     detail::ValuesLater());
    later.refactor(cuda::DeviceBuffer<T>(std::span<const T>(A.values)));
    EXPECT_EQ(later.device_values().to_host(), cpu.factors().values);
    EXPECT_EQ(later.factors().values, cpu.factors().values);
  }
  // Wide levels stay on the GPU.
  const IncompleteFactorization<T> lap(laplacian_3d<T>(30, 30, 30), on(Device::Cuda, IncompleteKind::Ic0));
  EXPECT_FALSE(lap.stats().host_numeric);
}

}  // namespace
}  // namespace balsa
