// SaP on the CPU: band storage, the split, the blocks' LU and UL, the
// truncated-SPIKE application against a dense oracle written from the
// report's equations, and BandedSolver end to end with its errors.
#include <gtest/gtest.h>

#include <cmath>

#include "balsa/generators.hpp"
#include "balsa/sap.hpp"
#include "sap/steps_cpu.hpp"
#include "support/sap_cases.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using sap::Blocks;
using sap::BoostRule;

// Dense copy of block [s, e) of a band.
DenseMatrix<double> dense_block(const Banded<double>& A, index_t s, index_t e) {
  DenseMatrix<double> D(e - s, e - s);
  for (index_t i = s; i < e; ++i)
    for (index_t j = s; j < e; ++j)
      if (A.in_band(i, j)) D(i - s, j - s) = A(i, j);
  return D;
}

// x = M^{-1} b for a small dense M (Gaussian elimination, partial pivoting): the oracle.
std::vector<double> dense_solve(DenseMatrix<double> M, std::vector<double> b) {
  const index_t n = M.rows;
  for (index_t c = 0; c < n; ++c) {
    index_t p = c;
    for (index_t r = c + 1; r < n; ++r)
      if (std::abs(M(r, c)) > std::abs(M(p, c))) p = r;
    for (index_t j = 0; j < n; ++j) std::swap(M(c, j), M(p, j));
    std::swap(b[std::size_t(c)], b[std::size_t(p)]);
    for (index_t r = c + 1; r < n; ++r) {
      const double l = M(r, c) / M(c, c);
      for (index_t j = c; j < n; ++j) M(r, j) -= l * M(c, j);
      b[std::size_t(r)] -= l * b[std::size_t(c)];
    }
  }
  for (index_t r = n - 1; r >= 0; --r) {
    double s = b[std::size_t(r)];
    for (index_t j = r + 1; j < n; ++j) s -= M(r, j) * b[std::size_t(j)];
    b[std::size_t(r)] = s / M(r, r);
  }
  return b;
}

TEST(Banded, SameMatrixAsTheCsrGeneratorAndRoundTrips) {
  for (auto [n, k] : {std::pair{50, 3}, std::pair{17, 16}, std::pair{200, 20}, std::pair{1, 0}}) {
    const Banded<double> B = banded_dominant_band<double>(n, k, 1.0, 7);
    const Csr<double> C = banded_dominant<double>(n, k, 1.0, 7);
    const Csr<double> back = to_csr(B);
    EXPECT_EQ(back.row_ptr, C.row_ptr);
    EXPECT_EQ(back.col_idx, C.col_idx);
    EXPECT_EQ(back.values, C.values);
    EXPECT_EQ(to_banded(C).data, B.data);
    EXPECT_EQ(half_bandwidth(C), std::min(k, n - 1));
  }
}

TEST(Banded, ErrorsNameTheProblem) {
  EXPECT_THROW_MSG(Banded<double>(5, 5), DimensionError, "must be smaller than n = 5");
  const Csr<double> C = banded_dominant<double>(30, 4, 1.0);
  EXPECT_THROW_MSG(to_banded(C, 2), DimensionError, "entry (0, 3) lies outside the band of half-bandwidth 2");
  Banded<double> B = banded_dominant_band<double>(30, 4, 1.0);
  B(7, 9) = std::nan("");
  EXPECT_THROW_MSG(require_finite(B), MatrixError, "entry (7, 9)");
}

TEST(Banded, SpmvMatchesTheCsrProduct) {
  const Banded<double> B = banded_dominant_band<double>(300, 11, 0.5, 3);
  const Csr<double> C = to_csr(B);
  std::vector<double> x(300), y = test::poisoned<double>(300);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i));
  spmv(B, std::span<const double>(x), std::span<double>(y));
  const std::vector<double> ref = multiply(C, std::span<const double>(x));
  EXPECT_TRUE(test::matches<double>(y, ref, test::tolerance<double>()));
}

TEST(Sap, SplitIsLoadBalancedAndCappedByTheBlockSize) {
  const Blocks b = sap::split(1000, 10, 7, SapVariant::Coupled, 1);
  ASSERT_EQ(b.count(), 7);
  for (index_t i = 0; i < 7; ++i) EXPECT_EQ(b.size(i), i < 6 ? 143 : 142);  // 1000 = 7 * 142 + 6
  EXPECT_EQ(sap::split(100, 30, 50, SapVariant::Coupled, 1).count(), 1);  // SaP-C needs n_i >= 2k
  EXPECT_EQ(sap::split(100, 30, 50, SapVariant::Decoupled, 1).count(), 50);
  EXPECT_EQ(sap::split(100000, 10, 0, SapVariant::Coupled, 264).count(), 264);  // automatic: the parallel units
  EXPECT_EQ(sap::split(1000, 100, 0, SapVariant::Coupled, 264).count(), 5);     // ... capped by n / 2k
}

// L U of every block (and U' L' of the UL) reproduces the block.
TEST(Sap, BlockLuAndUlReproduceTheBlocks) {
  const index_t n = 240, k = 6;
  const Banded<double> A = banded_dominant_band<double>(n, k, 1.0, 11);
  const Blocks blocks = sap::split(n, k, 4, SapVariant::Coupled, 1);
  const BoostRule rule{true, 1e-10, 1e-8, max_abs(A)};
  Banded<double> lu = A, ul = A;
  EXPECT_EQ(sap::factor_blocks(lu, blocks, rule, false), 0);
  sap::reverse_blocks(ul, blocks);
  EXPECT_EQ(sap::factor_blocks(ul, blocks, rule, true), 0);
  for (index_t b = 0; b < blocks.count(); ++b) {
    const index_t s = blocks.start(b), e = s + blocks.size(b), m = e - s;
    const DenseMatrix<double> ref = dense_block(A, s, e);
    double worst = 0;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < m; ++j) {
        double lu_ij = 0, ul_ij = 0;  // (L U)(i, j); (U' L')(i, j) with U' L' = J (Lt Ut) J
        for (index_t t = 0; t <= std::min(i, j); ++t) {
          const double l = t == i ? 1.0 : (lu.in_band(s + i, s + t) ? lu(s + i, s + t) : 0.0);
          const double u = lu.in_band(s + t, s + j) ? lu(s + t, s + j) : 0.0;
          lu_ij += l * u;
        }
        const index_t ri = m - 1 - i, rj = m - 1 - j;
        for (index_t t = 0; t <= std::min(ri, rj); ++t) {
          const double l = t == ri ? 1.0 : (ul.in_band(s + ri, s + t) ? ul(s + ri, s + t) : 0.0);
          const double u = ul.in_band(s + t, s + rj) ? ul(s + t, s + rj) : 0.0;
          ul_ij += l * u;
        }
        worst = std::max({worst, std::abs(lu_ij - ref(i, j)), std::abs(ul_ij - ref(i, j))});
      }
    EXPECT_LE(worst, 1e-12 * rule.amax * k) << "block " << b;
  }
  // The coupling entries outside the blocks are untouched by either factorisation.
  const index_t t = blocks.start(1);
  EXPECT_EQ(lu(t - 1, t), A(t - 1, t));
  EXPECT_EQ(lu(t, t - 1), A(t, t - 1));
}

// Per-partition bandwidths: each block's k_i is found, bounds the work
// (the factors are those of the full k: the trimmed entries stay zero, and
// as NaN they are never read), and the solver reports the range.
TEST(Sap, PerPartitionBandwidthsBoundEachBlock) {
  const index_t n = 900, k = 25;
  const Blocks split = sap::split(n, k, 4, SapVariant::Coupled, 1);
  const std::vector<index_t> want = {3, 25, 0, 11};
  const Banded<double> A = test::trimmed_blocks(banded_dominant_band<double>(n, k, 1.0, 4), split, want);
  Blocks blocks = split;
  blocks.bandwidths = sap::block_bandwidths(A, blocks);
  ASSERT_EQ(blocks.bandwidths, want);
  const BoostRule rule{true, 1e-10, 1e-8, max_abs(A)};
  // Within k_i the NaNs outside it are never read.
  Banded<double> lu = test::trimmed_blocks(A, split, want, std::nan("")), lu_full = A;
  sap::factor_blocks(lu, blocks, rule, false);
  sap::factor_blocks(lu_full, split, rule, false);
  EXPECT_EQ(test::trimmed_blocks(lu, split, want).data, lu_full.data);
  std::vector<double> x(static_cast<std::size_t>(n)), y;
  for (index_t i = 0; i < n; ++i) x[std::size_t(i)] = std::sin(0.2 * i);
  y = x;
  sap::solve_blocks(lu, blocks, x.data());
  sap::solve_blocks(lu_full, split, y.data());
  EXPECT_EQ(x, y);
  BandedOptions o;
  o.device = Device::Cpu;
  o.partitions = 4;
  BandedSolver<double> s(A, o);
  EXPECT_EQ(s.stats().min_block_bandwidth, 0);
  EXPECT_EQ(s.stats().max_block_bandwidth, 25);
  std::vector<double> b(static_cast<std::size_t>(n), 1.0), z(static_cast<std::size_t>(n), 0.0);
  EXPECT_EQ(s.solve(b, z).outcome, KrylovOutcome::Converged);
  EXPECT_LE(relative_residual(to_csr(A), std::span<const double>(z), std::span<const double>(b)), 1e-9);
}

TEST(Sap, SmallPivotsAreBoostedOrNamed) {
  Banded<double> A = banded_dominant_band<double>(40, 2, 1.0, 5);
  for (index_t j = 8; j <= 12; ++j) A(10, j) = A(j, 10) = 0.0;  // row and column 10 empty: pivot 0
  const Blocks blocks = sap::split(40, 2, 2, SapVariant::Coupled, 1);
  BoostRule rule{true, 1e-10, 1e-8, max_abs(A)};
  Banded<double> F = A;
  EXPECT_EQ(sap::factor_blocks(F, blocks, rule, false), 1);
  EXPECT_DOUBLE_EQ(F(10, 10), 1e-8 * rule.amax);
  rule.enabled = false;
  F = A;
  EXPECT_THROW_MSG(sap::factor_blocks(F, blocks, rule, false), MatrixError, "zero pivot at row 10 (block 0)");
  F = A;
  sap::reverse_blocks(F, blocks);
  EXPECT_THROW_MSG(sap::factor_blocks(F, blocks, rule, true), MatrixError, "zero pivot at row 10 (block 0) of the UL");
}

// SaP-C's application against eq. 2, 9 and 10 computed densely (full spikes
// from dense solves, the reduced 2x2-block systems solved directly).
TEST(Sap, CoupledApplicationIsTheTruncatedSpikeOfTheReport) {
  const index_t n = 90, k = 3;
  for (double d : {1.0, 0.3}) {
    SCOPED_TRACE(d);
    const Banded<double> A = banded_dominant_band<double>(n, k, d, 21);
    sap::Plan plan{SapVariant::Coupled, n, k, sap::split(n, k, 4, SapVariant::Coupled, 1), {true, 1e-10, 1e-8, max_abs(A)}};
    const auto M = sap::make_host_preconditioner<double, double>(A, plan);
    std::vector<double> r(static_cast<std::size_t>(n)), z = test::poisoned<double>(std::size_t(n));
    for (index_t i = 0; i < n; ++i) r[std::size_t(i)] = std::cos(1.0 + i);
    M->apply(r, z);
    // The oracle.
    const Blocks& bl = plan.blocks;
    const index_t P = bl.count();
    std::vector<double> g(static_cast<std::size_t>(n));
    std::vector<DenseMatrix<double>> Ab;
    for (index_t b = 0; b < P; ++b) {
      const index_t s = bl.start(b), e = s + bl.size(b);
      Ab.push_back(dense_block(A, s, e));
      const std::vector<double> gi = dense_solve(Ab.back(), std::vector<double>(r.begin() + s, r.begin() + e));
      std::copy(gi.begin(), gi.end(), g.begin() + s);
    }
    std::vector<double> rhs = r;
    for (index_t i = 0; i + 1 < P; ++i) {
      const index_t t = bl.start(i + 1), mi = bl.size(i), mj = bl.size(i + 1);
      // Full spikes: A_i V = [0; B_i], A_{i+1} W = [C_{i+1}; 0], column by column.
      DenseMatrix<double> Vb(k, k), Wt(k, k);
      for (index_t c = 0; c < k; ++c) {
        std::vector<double> bv(static_cast<std::size_t>(mi), 0.0), bw(static_cast<std::size_t>(mj), 0.0);
        for (index_t q = 0; q < k; ++q) {
          const index_t row = t - k + q, col = t + c;
          if (A.in_band(row, col)) bv[std::size_t(mi - k + q)] = A(row, col);
          const index_t row2 = t + q, col2 = t - k + c;
          if (A.in_band(row2, col2)) bw[std::size_t(q)] = A(row2, col2);
        }
        const std::vector<double> v = dense_solve(Ab[std::size_t(i)], bv), w = dense_solve(Ab[std::size_t(i + 1)], bw);
        for (index_t q = 0; q < k; ++q) {
          Vb(q, c) = v[std::size_t(mi - k + q)];
          Wt(q, c) = w[std::size_t(q)];
        }
      }
      // Eq. 9 as the 2k x 2k system [I V; W I] [xb; xt] = [gb; gt].
      DenseMatrix<double> S(2 * k, 2 * k);
      std::vector<double> rs(std::size_t(2 * k));
      for (index_t q = 0; q < k; ++q) {
        S(q, q) = S(k + q, k + q) = 1.0;
        for (index_t c = 0; c < k; ++c) {
          S(q, k + c) = Vb(q, c);
          S(k + q, c) = Wt(q, c);
        }
        rs[std::size_t(q)] = g[std::size_t(t - k + q)];
        rs[std::size_t(k + q)] = g[std::size_t(t + q)];
      }
      const std::vector<double> xs = dense_solve(S, rs);
      // Eq. 10: the coupling terms move to the right-hand side.
      for (index_t q = 0; q < k; ++q)
        for (index_t c = 0; c < k; ++c) {
          if (A.in_band(t - k + q, t + c)) rhs[std::size_t(t - k + q)] -= A(t - k + q, t + c) * xs[std::size_t(k + c)];
          if (A.in_band(t + q, t - k + c)) rhs[std::size_t(t + q)] -= A(t + q, t - k + c) * xs[std::size_t(c)];
        }
    }
    std::vector<double> ref(static_cast<std::size_t>(n));
    for (index_t b = 0; b < P; ++b) {
      const index_t s = bl.start(b), e = s + bl.size(b);
      const std::vector<double> xi = dense_solve(Ab[std::size_t(b)], std::vector<double>(rhs.begin() + s, rhs.begin() + e));
      std::copy(xi.begin(), xi.end(), ref.begin() + s);
    }
    EXPECT_TRUE(test::matches<double>(z, ref, 1e-11));
    // SaP-D is the block solve alone.
    plan.variant = SapVariant::Decoupled;
    const auto D = sap::make_host_preconditioner<double, double>(A, plan);
    D->apply(r, z);
    EXPECT_TRUE(test::matches<double>(z, g, 1e-12));
  }
}

TEST(Sap, OnePartitionIsAnExactSolve) {
  const Banded<double> A = banded_dominant_band<double>(120, 9, 0.4, 2);
  sap::Plan plan{SapVariant::Coupled, 120, 9, sap::split(120, 9, 1, SapVariant::Coupled, 1), {true, 1e-10, 1e-8, max_abs(A)}};
  const auto M = sap::make_host_preconditioner<double, double>(A, plan);
  std::vector<double> x(120), b(120), z = test::poisoned<double>(120);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + 0.01 * double(i);
  spmv(A, std::span<const double>(x), std::span<double>(b));
  M->apply(b, z);
  EXPECT_TRUE(test::matches<double>(z, x, 1e-12));
}

BandedOptions cpu(SapVariant v, index_t P = 0) {
  BandedOptions o;
  o.variant = v;
  o.device = Device::Cpu;
  o.partitions = P;
  return o;
}

TEST(BandedSolver, ConvergesOnTheCpuForBothVariantsAndPrecisions) {
  const index_t n = 3000, k = 15;
  for (double d : {1.0, 0.2}) {
    const Banded<double> A = banded_dominant_band<double>(n, k, d, 4);
    std::vector<double> x_true(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) x_true[std::size_t(i)] = std::sin(0.1 * i) + 1.5;
    spmv(A, std::span<const double>(x_true), std::span<double>(b));
    for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled})
      for (bool mixed : {false, true}) {
        SCOPED_TRACE(std::string(to_string(v)) + (mixed ? " mixed" : "") + " d=" + std::to_string(d));
        BandedOptions o = cpu(v, 10);
        o.float_preconditioner = mixed;
        BandedSolver<double> sap(A, o);
        std::vector<double> x(static_cast<std::size_t>(n), 0.0);
        const KrylovStats st = sap.solve(b, x);
        EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
        EXPECT_LE(st.true_residual, 1e-9);
        EXPECT_TRUE(test::matches<double>(x, x_true, 1e-7));
        EXPECT_EQ(sap.stats().partitions, 10);
        EXPECT_EQ(sap.stats().krylov.method, KrylovMethod::BiCgStabL);
      }
  }
}

TEST(BandedSolver, CouplingPaysOffFarFromDiagonalDominance) {
  // d = 0.06, the report's hardest case: SaP-C converges, in fewer iterations than SaP-D.
  const index_t n = 4000, k = 20;
  const Banded<double> A = banded_dominant_band<double>(n, k, 0.06, 9);
  std::vector<double> b(static_cast<std::size_t>(n), 1.0);
  int iterations[2] = {0, 0};
  for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled}) {
    BandedSolver<double> sap(A, cpu(v, 8));
    std::vector<double> x(static_cast<std::size_t>(n), 0.0);
    const KrylovStats st = sap.solve(b, x);
    iterations[v == SapVariant::Coupled] = st.iterations;
    if (v == SapVariant::Coupled) {
      EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
      EXPECT_LE(st.true_residual, 1e-9);
    }
  }
  EXPECT_LT(iterations[1], iterations[0]);
}

TEST(BandedSolver, CgForSpdInputAndCsrInput) {
  const Csr<double> L = laplacian_2d<double>(30, 30);  // SPD, half-bandwidth 30
  BandedOptions o = cpu(SapVariant::Coupled, 6);
  o.spd = true;
  BandedSolver<double> sap(L, o);
  std::vector<double> b(900, 1.0), x(900, 0.0);
  const KrylovStats st = sap.solve(b, x);
  EXPECT_EQ(st.method, KrylovMethod::Cg);
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_LE(relative_residual(L, std::span<const double>(x), std::span<const double>(b)), 1e-9);
  EXPECT_EQ(sap.stats().k, 30);
}

TEST(BandedSolver, FloatSolver) {
  const Banded<float> A = banded_dominant_band<float>(2000, 8, 1.0, 4);
  std::vector<float> b(2000, 1.0f), x(2000, 0.0f);
  BandedOptions o = cpu(SapVariant::Coupled);
  o.stopping.tolerance = 1e-5;
  BandedSolver<float> loose(A, o);
  const KrylovStats st = loose.solve(b, x);
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_LE(st.true_residual, 1e-4);
}

TEST(BandedSolver, UpdateValuesRefactors) {
  const Banded<double> A = banded_dominant_band<double>(1000, 5, 1.0, 1), B = banded_dominant_band<double>(1000, 5, 0.5, 2);
  BandedSolver<double> sap(A, cpu(SapVariant::Coupled, 4));
  sap.update_values(B);
  std::vector<double> x_true(1000, 2.0), b(1000), x(1000, 0.0);
  spmv(B, std::span<const double>(x_true), std::span<double>(b));
  EXPECT_EQ(sap.solve(b, x).outcome, KrylovOutcome::Converged);
  EXPECT_TRUE(test::matches<double>(x, x_true, 1e-7));
  EXPECT_THROW_MSG(sap.update_values(banded_dominant_band<double>(1000, 6, 1.0)), DimensionError, "k = 6");
}

TEST(BandedSolver, BadInputIsAClearError) {
  Banded<double> A = banded_dominant_band<double>(100, 4, 1.0, 3);
  Banded<double> wide = A;
  wide.k = 100;  // bandwidth larger than the matrix
  EXPECT_THROW_MSG(BandedSolver<double>(wide, cpu(SapVariant::Coupled)), DimensionError, "half-bandwidth k = 100");
  Banded<double> short_data = A;
  short_data.data.pop_back();
  EXPECT_THROW_MSG(BandedSolver<double>(short_data, cpu(SapVariant::Coupled)), DimensionError, "values");
  Banded<double> nan = A;
  nan(3, 5) = std::numeric_limits<double>::infinity();
  EXPECT_THROW_MSG(BandedSolver<double>(nan, cpu(SapVariant::Coupled)), MatrixError, "entry (3, 5)");
  EXPECT_THROW_MSG(BandedSolver<double>(A, cpu(SapVariant::Coupled, -2)), Error, "partitions must be >= 0");
  Banded<double> zero = A;
  for (index_t j = 8; j <= 16; ++j) zero(12, j) = zero(j, 12) = 0.0;
  BandedOptions strict = cpu(SapVariant::Decoupled, 2);
  strict.pivot_boost = false;
  EXPECT_THROW_MSG(BandedSolver<double>(zero, strict), MatrixError, "zero pivot at row 12");
  EXPECT_THROW_MSG(BandedSolver<double>(Banded<double>(10, 2), cpu(SapVariant::Coupled)), MatrixError, "A is zero");
  // Non-convergence is reported as such, never as converged.
  BandedOptions few = cpu(SapVariant::Decoupled, 8);
  few.stopping.max_iterations = 1;
  const Banded<double> hard = banded_dominant_band<double>(4000, 20, 0.06, 9);
  BandedSolver<double> sap(hard, few);
  std::vector<double> b(4000, 1.0), x(4000, 0.0);
  const KrylovStats st = sap.solve(b, x);
  EXPECT_EQ(st.outcome, KrylovOutcome::MaxIterations);
  EXPECT_GT(st.residual, few.stopping.tolerance);
  std::vector<double> b_short(10, 1.0);
  EXPECT_THROW(sap.solve(b_short, x), DimensionError);
}

}  // namespace
}  // namespace balsa
