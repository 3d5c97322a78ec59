// The partitioned ("spike") triangular solve on the CPU (trsv/spike/): the
// partition and cost model, the lower form, and solves against the
// reference over chain lengths that exercise one and two levels of the
// boundary recurrence, chains shorter than the bandwidth, upper and
// transposed systems, unit diagonals, many right-hand sides, new values, the
// fallback when the spikes would not fit, and the Auto rules that use them.
#include <limits>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"
#include "trsv/auto_choice.hpp"
#include "trsv/spike/spike_plan.hpp"

namespace balsa {
namespace {

template <class T>
class SpikeCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpikeCpu, ValueTypes);

TEST(SpikePlan, PartitionCoversTheRowsAndTheModelPrefersBalancedChains) {
  for (const index_t n : {1, 31, 1000, 123457}) {
    const trsv_spike::Partition p = trsv_spike::make_partition(n, 7, 3.0, 0);
    EXPECT_GE(std::int64_t(p.P) * p.m, n);
    EXPECT_LT(std::int64_t(p.P - 1) * p.m, n);
    EXPECT_GE(std::int64_t(p.Q) * p.G, p.P);
    EXPECT_LT(std::int64_t(p.Q - 1) * p.G, p.P);
  }
  const trsv_spike::Partition big = trsv_spike::make_partition(1'000'000, 50, 4.0, 0);
  EXPECT_GT(big.P, 64);  // many chains: the chain passes are short
  EXPECT_GE(big.m, 50);  // at least the bandwidth: the spikes stay within n w
  EXPECT_LT(trsv_spike::predict_seconds(big, 50, 4.0), 1e-3);
  const trsv_spike::Partition forced = trsv_spike::make_partition(1000, 5, 3.0, 16);
  EXPECT_EQ(forced.m, 16);
  EXPECT_EQ(forced.P, 63);
  EXPECT_EQ(trsv_spike::spike_values(forced, 5), (63 + forced.Q) * 25);
  EXPECT_NE(trsv_spike::refusal(5, forced, 8, 100, true), "");
  EXPECT_EQ(trsv_spike::refusal(5, forced, 8, 1 << 20, true), "");
  // The GPU's ring bounds the bandwidth; the CPU's chains have no ring.
  EXPECT_NE(
      trsv_spike::refusal(5000, trsv_spike::make_partition(1 << 20, 5000, 2.0, 8192), 8, std::int64_t(1) << 40, true)
          .find("bandwidth 5000"),
      std::string::npos);
  EXPECT_EQ(
      trsv_spike::refusal(5000, trsv_spike::make_partition(1 << 20, 5000, 2.0, 8192), 8, std::int64_t(1) << 40, false),
      "");
}

TEST(SpikePlan, LowerFormOfAnUpperTriangleMirrorsIt) {
  const Csr<double> L = random_lower_banded<double>(200, 9, 3, 5);
  const Csr<double> U = transpose(L);
  const trsv_spike::Form fl = trsv_spike::make_form(L, Triangle::Lower, DiagonalKind::NonUnit);
  const trsv_spike::Form fu = trsv_spike::make_form(U, Triangle::Upper, DiagonalKind::NonUnit);
  EXPECT_EQ(fl.w, 9);
  EXPECT_EQ(fu.w, 9);
  EXPECT_EQ(trsv_spike::bandwidth(U, Triangle::Upper), 9);
  for (const trsv_spike::Form* f : {&fl, &fu})
    for (index_t k = 0; k < f->n; ++k) {
      for (index_t p = f->row_ptr[k]; p < f->row_ptr[k + 1]; ++p) {
        EXPECT_LT(f->col[p], k);
        EXPECT_GE(f->col[p], k - f->w);
        if (p > f->row_ptr[k]) {
          EXPECT_GT(f->col[p], f->col[p - 1]);
        }
      }
      EXPECT_GE(f->diag_pos[k], 0);
    }
  const trsv_spike::Form unit = trsv_spike::make_form(L, Triangle::Lower, DiagonalKind::Unit);
  EXPECT_EQ(unit.diag_pos[5], -1);
}

// Solves of A (and A^T) by Spike on the CPU with several chain lengths
// against the reference, x poisoned first.
template <class T>
void expect_spike_solves(const Csr<T>& A, Triangle tri, DiagonalKind diag, Operation op, index_t chain_rows,
                         const std::string& what) {
  SCOPED_TRACE(what + " chain_rows " + std::to_string(chain_rows));
  TriangularSolver<T> solver(A, {.algorithm = TrsvAlgorithm::Spike,
                                 .device = Device::Cpu,
                                 .triangle = tri,
                                 .diagonal = diag,
                                 .operation = op,
                                 .spike_chain_rows = chain_rows});
  ASSERT_EQ(solver.stats().algorithm, TrsvAlgorithm::Spike) << solver.stats().spike.fallback;
  if (chain_rows > 0 && A.rows > chain_rows) {
    EXPECT_EQ(solver.stats().spike.chain_rows, chain_rows);
  }
  const Csr<T> M = op == Operation::Transpose ? transpose(A) : A;
  const Triangle solved =
      op == Operation::Transpose ? (tri == Triangle::Lower ? Triangle::Upper : Triangle::Lower) : tri;
  const std::vector<T> b = random_vector<T>(A.rows, 17);
  std::vector<T> x = test::poisoned<T>(b.size());
  solver.solve(std::span<const T>(b), std::span<T>(x));
  test::expect_matches_reference<T>(M, solved, diag, b, x, what);
}

TYPED_TEST(SpikeCpu, MatchesTheReferenceOnBandedSystems) {
  using T = TypeParam;
  const Csr<T> L = random_lower_banded<T>(5000, 40, 4, 3);
  // 0: the model's chains; 256: Q > 1 groups; 40: chains as long as the
  // bandwidth; 13: shorter than it (the state spans several chains); 5000: one chain.
  for (const index_t m : {0, 256, 40, 13, 5000}) {
    expect_spike_solves<T>(L, Triangle::Lower, DiagonalKind::NonUnit, Operation::NonTranspose, m, "lower");
    expect_spike_solves<T>(transpose(L), Triangle::Upper, DiagonalKind::NonUnit, Operation::NonTranspose, m, "upper");
    expect_spike_solves<T>(L, Triangle::Lower, DiagonalKind::NonUnit, Operation::Transpose, m, "lower, A^T");
  }
  Csr<T> unit = L;  // off-diagonals scaled down: a well-conditioned unit system
  for (index_t i = 0; i < unit.rows; ++i)
    for (index_t p = unit.row_ptr[i]; p < unit.row_ptr[i + 1]; ++p)
      if (unit.col_idx[p] != i) unit.values[p] /= T(8);
  expect_spike_solves<T>(unit, Triangle::Lower, DiagonalKind::Unit, Operation::NonTranspose, 64, "unit");
  expect_spike_solves<T>(chain_lower<T>(3000), Triangle::Lower, DiagonalKind::NonUnit, Operation::NonTranspose, 32,
                         "bidiagonal chain");
  // Diagonal only (w = 0) and a single row.
  expect_spike_solves<T>(chain_lower<T>(1), Triangle::Lower, DiagonalKind::NonUnit, Operation::NonTranspose, 0, "1x1");
}

TYPED_TEST(SpikeCpu, MatchesTheReferenceOnRealMatrices) {
  using T = TypeParam;
  int solved = 0;
  for (const auto& c : test::triangular_cases<T>()) {
    TriangularSolver<T> solver(
        c.L, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu, .spike_max_bytes = std::int64_t(64) << 20});
    const std::vector<T> b = random_vector<T>(c.L.rows, 5);
    std::vector<T> x = test::poisoned<T>(b.size());
    solver.solve(std::span<const T>(b), std::span<T>(x));
    test::expect_matches_reference<T>(c.L, Triangle::Lower, DiagonalKind::NonUnit, b, x, c.name);
    if (solver.stats().algorithm == TrsvAlgorithm::Spike)
      ++solved;
    else
      EXPECT_NE(solver.stats().spike.fallback, "") << c.name;  // too wide: the fallback says why
  }
  EXPECT_GE(solved, 5);
}

TYPED_TEST(SpikeCpu, ManyRightHandSidesAndNewValues) {
  using T = TypeParam;
  const Csr<T> L = random_lower_banded<T>(3000, 20, 5, 9);
  TriangularSolver<T> solver(L, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu, .spike_chain_rows = 64});
  DenseMatrix<T> B(L.rows, 5), X(L.rows, 5);
  B.values = random_vector<T>(L.rows * 5, 21);
  test::poison(X.values);
  solver.solve(B, X);
  for (index_t j = 0; j < 5; ++j)
    test::expect_matches_reference<T>(L, Triangle::Lower, DiagonalKind::NonUnit,
                                      std::vector<T>(B.column(j).begin(), B.column(j).end()),
                                      std::vector<T>(X.column(j).begin(), X.column(j).end()), "column");
  Csr<T> L2 = L;
  for (T& v : L2.values) v *= T(1.5);
  for (index_t i = 0; i < L2.rows; ++i) L2.values[L2.row_ptr[i + 1] - 1] += T(1);  // the diagonal (last in a row)
  solver.update_values(std::span<const T>(L2.values));
  const std::vector<T> b = random_vector<T>(L.rows, 2);
  std::vector<T> x = test::poisoned<T>(b.size());
  solver.solve(std::span<const T>(b), std::span<T>(x));
  test::expect_matches_reference<T>(L2, Triangle::Lower, DiagonalKind::NonUnit, b, x, "new values");
  // A zero diagonal is refused and the old values stay.
  Csr<T> bad = L2;
  bad.values[bad.row_ptr[8] - 1] = T(0);
  EXPECT_THROW(solver.update_values(std::span<const T>(bad.values)), MatrixError);
  test::poison(x);
  solver.solve(std::span<const T>(b), std::span<T>(x));
  test::expect_matches_reference<T>(L2, Triangle::Lower, DiagonalKind::NonUnit, b, x, "after a refused update");
}

TEST(SpikeCpuErrors, TooWideFallsBackAndBadInputIsNamed) {
  const Csr<double> L = random_lower_banded<double>(2000, 300, 6, 4);
  TriangularSolver<double> solver(L,
                                  {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu, .spike_max_bytes = 1000});
  EXPECT_NE(solver.stats().algorithm, TrsvAlgorithm::Spike);
  EXPECT_NE(solver.stats().spike.fallback.find("spike_max_bytes"), std::string::npos) << solver.stats().spike.fallback;
  const std::vector<double> b = random_vector<double>(L.rows, 1);
  std::vector<double> x = test::poisoned<double>(b.size());
  solver.solve(std::span<const double>(b), std::span<double>(x));
  test::expect_matches_reference<double>(L, Triangle::Lower, DiagonalKind::NonUnit, b, x, "fallback");
  // One entry far from the diagonal: a bandwidth beyond the GPU ring's.
  Csr<double> far{5000, 5000, {0}, {}, {}};
  for (index_t i = 0; i < 5000; ++i) {
    if (i == 4999) far.col_idx.push_back(0), far.values.push_back(0.5);
    if (i > 0) far.col_idx.push_back(i - 1), far.values.push_back(-1.0);
    far.col_idx.push_back(i), far.values.push_back(2.0);
    far.row_ptr.push_back(index_t(far.col_idx.size()));
  }
  // (beyond the GPU ring's reach, which only the GPU refuses: the CPU solves it).
  TriangularSolver<double> wide(far, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu});
  EXPECT_EQ(wide.stats().algorithm, TrsvAlgorithm::Spike) << wide.stats().spike.fallback;
  EXPECT_EQ(wide.stats().spike.bandwidth, 4999);
  {
    const std::vector<double> bw = random_vector<double>(far.rows, 2);
    std::vector<double> xw = test::poisoned<double>(bw.size());
    wide.solve(std::span<const double>(bw), std::span<double>(xw));
    test::expect_matches_reference<double>(far, Triangle::Lower, DiagonalKind::NonUnit, bw, xw, "w = 4999");
  }
  Csr<double> zero = L;
  zero.values[zero.row_ptr[10] - 1] = 0.0;
  EXPECT_THROW_MSG(TriangularSolver<double>(zero, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu}),
                   MatrixError, "row 9");
  Csr<double> nan = L;
  nan.values[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(TriangularSolver<double>(nan, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu}), MatrixError);
  TriangularSolver<double> ok(L, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cpu});
  std::vector<double> short_b(10);
  EXPECT_THROW(ok.solve(std::span<const double>(short_b), std::span<double>(x)), DimensionError);
}

// Auto's models: Spike for deep narrow chains on the GPU, not for wide
// levels, never on the CPU; tiny host solves on the host.
TEST(SpikeAuto, ModelsChoose) {
  TrsvStats deep;
  deep.rows = 1'000'000;
  deep.nnz = 5'000'000;
  deep.levels = 142'183;
  deep.spike.bandwidth = 50;
  deep.spike.predicted_seconds =
      trsv_spike::predict_seconds(trsv_spike::make_partition(deep.rows, 50, 4.0, 0), 50, 4.0);
  EXPECT_TRUE(trsv_auto::prefer_spike(deep, Device::Cuda));
  EXPECT_FALSE(trsv_auto::prefer_spike(deep, Device::Cpu));
  TrsvStats wide = deep;
  wide.levels = 300;  // wide levels: a few hundred level steps beat the chain passes
  wide.spike.predicted_seconds =
      trsv_spike::predict_seconds(trsv_spike::make_partition(wide.rows, 4000, 6.0, 0), 4000, 6.0);
  EXPECT_FALSE(trsv_auto::prefer_spike(wide, Device::Cuda));
  TrsvStats tiny;
  tiny.rows = 1000;
  tiny.nnz = 3000;
  EXPECT_TRUE(trsv_auto::host_solves_on_cpu(tiny));
  EXPECT_FALSE(trsv_auto::host_solves_on_cpu(deep));
}

}  // namespace
}  // namespace balsa
