// SaP's sparse pipeline (include/balsa/sap.hpp SparseSapSolver; the steps
// in sap/sparse_pipeline.hpp) on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "balsa/balsa.hpp"
#include "sap/sparse_pipeline.hpp"
#include "sparse/system_map.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using test::data_file;

Csr<double> load(const std::string& name) { return *test::real_matrix_as<double>(data_file(name)); }

// ||C with |i - j| > k||_F / ||C||_F, recomputed.
double tail_fraction(const Csr<double>& C, index_t k) {
  double all = 0, tail = 0;
  for (index_t i = 0; i < C.rows; ++i)
    for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p) {
      const double v = C.values[p] * C.values[p];
      all += v;
      if (std::abs(i - C.col_idx[p]) > k) tail += v;
    }
  return std::sqrt(tail / all);
}

TEST(SapDrop, WholeMatrixKeepsTheNormFractionWithTheSmallestBand) {
  const Csr<double> C = test::random_sparse<double>(300, 300, 0.05, 7);
  for (const double tol : {0.0, 0.01, 0.1, 0.5}) {
    const sap::DropResult r = sap::drop_whole(C, tol, C.rows - 1);
    EXPECT_LE(tail_fraction(C, r.k), tol + 1e-12) << tol;
    EXPECT_NEAR(r.dropped_norm, tail_fraction(C, r.k), 1e-12);
    if (r.k > 0) {
      EXPECT_GT(tail_fraction(C, r.k - 1), tol) << "k is not the smallest for " << tol;
    }
  }
  EXPECT_EQ(sap::drop_whole(C, 0.0, C.rows - 1).k, half_bandwidth(C));
  EXPECT_EQ(sap::drop_whole(C, 0.0, 5).k, 5);  // the cap wins
}

TEST(SapDrop, PerBlockRuleCountsTheBlocksOwnEntries) {
  const Csr<double> C = test::random_sparse<double>(400, 400, 0.03, 3);
  const sap::Blocks blocks = sap::split(400, 0, 4, SapVariant::Decoupled, 4);
  const sap::DropResult r = sap::drop_per_block(C, blocks, 0.1, 399);
  ASSERT_EQ(r.bandwidths.size(), 4u);
  EXPECT_LE(r.dropped_norm, 0.1 + 1e-12);
  EXPECT_GT(r.outside, 0);
  std::int64_t inside_beyond = 0;
  for (index_t b = 0; b < 4; ++b)
    for (index_t i = blocks.start(b); i < blocks.start(b) + blocks.size(b); ++i)
      for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p) {
        const index_t j = C.col_idx[p];
        if (j >= blocks.start(b) && j < blocks.start(b) + blocks.size(b) && std::abs(i - j) > r.bandwidths[b])
          ++inside_beyond;
      }
  EXPECT_EQ(inside_beyond, r.dropped);
  // Assembly keeps exactly the entries inside the blocks and their bands.
  const Banded<double> band = sap::assemble(C, r.k, blocks, r.bandwidths);
  std::int64_t stored = 0;
  for (index_t j = 0; j < band.n; ++j)
    for (index_t i = std::max(0, j - band.k); i <= std::min(band.n - 1, j + band.k); ++i) stored += band(i, j) != 0;
  EXPECT_EQ(stored, C.nnz() - r.outside - r.dropped);
}

TEST(SapThirdStage, PermutesWithinBlocksAndNeverWidensThem) {
  // A 2D Laplacian in random order: each block's CM narrows it.
  const Csr<double> C = laplacian_2d<double>(30, 30, GridOrdering::Random, 5);
  const sap::Blocks blocks = sap::split(C.rows, 0, 3, SapVariant::Decoupled, 3);
  index_t changed = 0;
  const std::vector<index_t> p = sap::third_stage(C, blocks, changed);
  check_permutation(p, C.rows);
  EXPECT_EQ(changed, 3);
  for (index_t b = 0; b < 3; ++b)
    for (index_t i = blocks.start(b); i < blocks.start(b) + blocks.size(b); ++i) {
      EXPECT_GE(p[std::size_t(i)], blocks.start(b));
      EXPECT_LT(p[std::size_t(i)], blocks.start(b) + blocks.size(b));
    }
  const sap::DropResult before = sap::drop_per_block(C, blocks, 0.0, C.rows);
  const sap::DropResult after = sap::drop_per_block(permute_symmetric(C, p), blocks, 0.0, C.rows);
  for (index_t b = 0; b < 3; ++b) EXPECT_LT(after.bandwidths[b], before.bandwidths[b]);
}

TEST(SystemMapTest, MapsTheSystemBothWays) {
  // C(i, j) = rs[i] A(rp[i], cp[j]) cs[j]: C y = c has x with A x = b.
  const Csr<double> A = load("west0479.mtx");
  const DiagonalBoosting db = diagonal_boosting(A);
  SystemMap map = SystemMap::boosting(db);
  std::vector<index_t> p(std::size_t(A.rows));
  std::iota(p.rbegin(), p.rend(), 0);
  map.then_symmetric(p);
  const Csr<double> C = permute_symmetric(apply_boosting(A, db), p);
  const std::vector<double> x = random_vector<double>(A.rows, 9);
  std::vector<double> y(x.size()), back(x.size()), c(x.size());
  map.x_in(std::span<const double>(x), std::span<double>(y));
  map.x_out(std::span<const double>(y), std::span<double>(back));
  EXPECT_LT(test::relative_error<double>(back, x), 1e-14);
  const std::vector<double> b = multiply(A, std::span<const double>(x));
  map.rhs_in(std::span<const double>(b), std::span<double>(c));
  EXPECT_LT(test::relative_error<double>(multiply(C, std::span<const double>(y)), c), 1e-12);
}

// The pipeline on real matrices with zero diagonals and poor dominance.
class SparseSapReal : public ::testing::TestWithParam<std::tuple<const char*, SapVariant>> {};

TEST_P(SparseSapReal, SolvesWhatTheBandSolverCannot) {
  const auto [name, variant] = GetParam();
  const Csr<double> A = load(name);
  std::vector<double> x_true(std::size_t(A.rows));
  for (index_t i = 0; i < A.rows; ++i) x_true[std::size_t(i)] = 1.0 + std::sin(0.1 * i);
  const std::vector<double> b = multiply(A, std::span<const double>(x_true));
  SparseSapOptions o;
  o.variant = variant;
  o.device = Device::Cpu;
  o.stopping.tolerance = 1e-10;
  SparseSapSolver<double> sap(A, o);
  std::vector<double> x(x_true.size(), 0.0);  // the initial guess (read: it cannot be poisoned)
  const KrylovStats st = sap.solve(b, x);
  const SparseSapStats& s = sap.stats();
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  // The tolerance is the scaled system's; A's own residual follows within its scaling.
  EXPECT_LE(st.true_residual, 1e-10);
  EXPECT_LT(relative_residual(A, std::span<const double>(x), std::span<const double>(b)), 1e-6);
  EXPECT_LE(s.k, s.k_cm);
  EXPECT_LE(s.dropped_norm, 0.05 + 1e-12);
  EXPECT_GT(s.matching.initial_matches, 0);
  EXPECT_EQ(s.banded.variant, variant);
  EXPECT_GE(s.t_db, 0.0);
  EXPECT_GT(s.t_setup, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Matrices, SparseSapReal,
                         ::testing::Combine(::testing::Values("west0479.mtx", "Pd.mtx", "watt_2.mtx", "cryg2500.mtx"),
                                            ::testing::Values(SapVariant::Decoupled, SapVariant::Coupled)));

TEST(SparseSap, WithoutReorderingsIsTheBandSolver) {
  // DB, CM and drop-off off: SaP on A's own band, as BandedSolver.
  const Csr<double> A = banded_dominant<double>(2000, 6, 1.0, 3);
  const std::vector<double> b(2000, 1.0);
  SparseSapOptions o{.variant = SapVariant::Coupled, .device = Device::Cpu, .boosting = false,
                     .bandwidth_reduction = false, .third_stage = false, .drop_tolerance = 0.0, .partitions = 4};
  SparseSapSolver<double> sparse(A, o);
  BandedSolver<double> band(A, {.variant = SapVariant::Coupled, .device = Device::Cpu, .partitions = 4});
  std::vector<double> x1(2000, 0.0), x2(2000, 0.0);
  const KrylovStats s1 = sparse.solve(b, x1), s2 = band.solve(b, x2);
  EXPECT_EQ(s1.iterations, s2.iterations);
  EXPECT_LT(test::relative_error<double>(x1, x2), 1e-9);
  EXPECT_EQ(sparse.stats().k, 6);
}

TEST(SparseSap, BadInput) {
  const Csr<double> rect = load("lp_e226.mtx");
  EXPECT_THROW(SparseSapSolver<double>(rect, {.device = Device::Cpu}), DimensionError);
  Csr<double> A = load("west0479.mtx");
  EXPECT_THROW(SparseSapSolver<double>(A, {.device = Device::Cpu, .drop_tolerance = 1.5}), Error);
  A.values[3] = std::nan("");
  EXPECT_THROW(SparseSapSolver<double>(A, {.device = Device::Cpu}), MatrixError);
  // Structurally singular: a zero column (two rows' entries moved away).
  Coo<double> c;
  c.rows = c.cols = 3;
  c.row_idx = {0, 1, 2, 0};
  c.col_idx = {0, 0, 2, 2};
  c.values = {1, 2, 3, 4};
  try {
    SparseSapSolver<double> s(to_csr(c), {.device = Device::Cpu});
    FAIL() << "no error";
  } catch (const StructurallySingular& e) {
    EXPECT_EQ(e.structural_rank(), 2);
    EXPECT_NE(std::string(e.what()).find("structural rank 2"), std::string::npos) << e.what();
  }
  SparseSapSolver<double> ok(load("west0479.mtx"), {.device = Device::Cpu});
  std::vector<double> b(5, 1.0), x(5, 0.0);
  EXPECT_THROW(ok.solve(b, x), DimensionError);
}

}  // namespace
}  // namespace balsa
