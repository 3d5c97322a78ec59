// The GPU QR's host side (no GPU needed): the bucket scheduler (sparse QR
// paper sec. 3.1) run by its host oracle on random staircase fronts (Q^T A
// is R on the final tiles and zero elsewhere, Q Q^T A = A, a round's tasks
// write disjoint tiles, pipelining saves rounds), and the whole GPU plan
// (S-assembly, pack assembly, launch order, Q^T b's replay) run on the host
// against the CPU's multifrontal QR: the same R and Q^T b up to row signs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/qr.hpp"
#include "qr/bucket.hpp"
#include "qr/gpu_plan.hpp"
#include "qr/gpu_multifrontal_cpu.hpp"
#include "qr/numeric_cpu.hpp"
#include "qr/ordering.hpp"
#include "qr/symbolic.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using qr::kTile;

struct StairFront {
  index_t m, CT, ld;
  std::vector<index_t> left;   // per row tile
  std::vector<double> A;       // ld x CT*32
};

// m rows (the last tile padded with zero rows), row tile i starting at
// column tile left[i] (its first row exactly there, the others at random
// columns of that tile or later ones, ascending: a staircase).
StairFront random_stair(index_t m, index_t CT, std::uint64_t seed, bool holes) {
  std::mt19937_64 g(seed);
  StairFront f{m, CT, ((m + kTile - 1) / kTile) * kTile, {}, {}};
  const index_t RT = f.ld / kTile;
  index_t b = 0;
  for (index_t i = 0; i < RT; ++i) {
    if (i > 0 && g() % (holes ? 2 : 4) == 0) b = std::min<index_t>(CT - 1, b + 1 + index_t(g() % (holes ? 2 : 1)));
    f.left.push_back(b);
  }
  f.A.assign(std::size_t(f.ld) * std::size_t(CT * kTile), 0.0);
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t r = 0; r < m; ++r) {
    const index_t tile = r / kTile, first = f.left[std::size_t(tile)] * kTile;
    const index_t lead = r % kTile == 0 ? first : first + index_t(g() % 8);
    for (index_t c = lead; c < CT * kTile; ++c) f.A[std::size_t(r) + std::size_t(f.ld) * std::size_t(c)] = u(g);
  }
  return f;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

TEST(BucketScheduler, QTransposeAIsROnTheFinalTiles) {
  int cases = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 g(seed * 7919);
    const index_t CT = 1 + index_t(g() % 6), m = 1 + index_t(g() % 300);
    const StairFront f = random_stair(m, CT, seed, seed % 3 == 0);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", m " + std::to_string(m) + ", CT " + std::to_string(CT));
    for (bool pipeline : {true, false}) {
      const qr::FrontSchedule s = qr::bucket_schedule(CT, f.left, pipeline);
      std::vector<double> F = f.A, vt(s.bundles.size() * std::size_t(qr::kVtRows * kTile), NAN);
      qr::run_schedule_host(s, F.data(), f.ld, vt.data());
      for (const qr::Bundle& B : s.bundles) EXPECT_TRUE(B.count >= 1 && B.count <= 3);
      // Q^T A from the kept reflectors: R on each bucket's final tile, zero elsewhere.
      std::vector<double> QtA = f.A;
      const index_t ncols = CT * kTile;
      qr::apply_schedule_q_host(s, F.data(), f.ld, vt.data(), QtA.data(), f.ld, ncols, true);
      std::vector<index_t> bucket_of(static_cast<std::size_t>(f.ld / kTile), -1);
      for (index_t j = 0; j < CT; ++j)
        if (s.final_tile[std::size_t(j)] >= 0) bucket_of[std::size_t(s.final_tile[std::size_t(j)])] = j;
      const double scale = max_abs(f.A) * std::sqrt(double(m));
      double off = 0, r_diff = 0;
      for (index_t r = 0; r < f.ld; ++r)
        for (index_t c = 0; c < ncols; ++c) {
          const std::size_t at = std::size_t(r) + std::size_t(f.ld) * std::size_t(c);
          const index_t j = bucket_of[std::size_t(r / kTile)];
          const bool in_r = j >= 0 && c >= j * kTile + r % kTile;
          if (in_r) {
            r_diff = std::max(r_diff, std::abs(QtA[at] - F[at]));
          } else {
            off = std::max(off, std::abs(QtA[at]));
          }
        }
      EXPECT_LE(off, 1e-13 * scale);
      EXPECT_LE(r_diff, 1e-13 * scale);
      // Q (Q^T A) = A.
      qr::apply_schedule_q_host(s, F.data(), f.ld, vt.data(), QtA.data(), f.ld, ncols, false);
      double back = 0;
      for (std::size_t k = 0; k < QtA.size(); ++k) back = std::max(back, std::abs(QtA[k] - f.A[k]));
      EXPECT_LE(back, 1e-13 * scale);
      // Without holes every bucket up to min(row tiles, column tiles) has a final tile.
      if (seed % 3 != 0) {
        for (index_t j = 0; j < std::min(CT, f.ld / kTile); ++j) EXPECT_GE(s.final_tile[std::size_t(j)], 0) << j;
      }
      // A round's tasks write disjoint (row tile, column tile) pairs.
      for (const std::vector<qr::TileTask>& round : s.rounds) {
        std::set<std::pair<index_t, index_t>> written;
        auto write = [&](const qr::Bundle& B, index_t c) {
          for (index_t q = 0; q < B.count; ++q) EXPECT_TRUE(written.insert({B.tiles[std::size_t(q)], c}).second);
        };
        for (const qr::TileTask& t : round) {
          const qr::Bundle& B = s.bundles[std::size_t(t.bundle)];
          if (t.kind == qr::TileTaskKind::Factorize) {
            write(B, B.col);
          } else {
            for (index_t c = t.c0; c < t.c1; ++c) write(B, c);
          }
        }
      }
      ++cases;
    }
  }
  EXPECT_EQ(cases, 120);
}

TEST(BucketScheduler, PipeliningSavesRounds) {
  const std::vector<index_t> dense(12, 0);  // 384 x 256, every row tile in bucket 0
  const qr::FrontSchedule with = qr::bucket_schedule(8, dense, true), without = qr::bucket_schedule(8, dense, false);
  EXPECT_LT(with.rounds.size(), without.rounds.size());  // 19 against 21 launches
  EXPECT_LE(with.bundles.size(), 2 * without.bundles.size());
  EXPECT_THROW(qr::bucket_schedule(2, {1, 0}), std::logic_error);  // not a staircase
}

// The R rows of the CPU numeric factor, front by front (FrontFactor layout).
std::vector<double> cpu_r_values(const qr::Symbolic& s, const qr::Numeric& num) {
  std::vector<double> R;
  for (std::size_t f = 0; f < s.fronts.size(); ++f)
    for (index_t t = 0; t < num.fronts[f].live; ++t)
      for (index_t l = t; l < s.fronts[f].n(); ++l) R.push_back(num.fronts[f].r(t, l));
  return R;
}

// The plan run on the host gives the CPU path's R and Q^T b, row by row up to sign.
void expect_plan_matches_cpu(const Csr<double>& A, double dense_flops = INFINITY) {
  const qr::Symbolic s = qr::analyse(A, qr::column_ordering(A, QrOrdering::Colamd));
  const qr::Numeric num = qr::factorise(A, s, 0.0);
  ASSERT_EQ(num.dead_fronts, 0);
  const qr::GpuPlan plan = qr::make_gpu_plan(A, s, dense_flops);
  const qr::HostTileFactor tiles = qr::factorise_plan_host(plan, A.values);
  const std::vector<double> R = qr::r_values_host(plan, tiles), Rc = cpu_r_values(s, num);
  ASSERT_EQ(R.size(), Rc.size());
  const index_t nrhs = 2;
  std::vector<double> B(std::size_t(A.rows) * nrhs);
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : B) v = u(g);
  const std::vector<double> Y = qr::q_transpose_host(plan, tiles, B, A.rows, nrhs);
  std::vector<index_t> front_row(s.fronts.size());
  index_t rows = 0;
  for (std::size_t f = 0; f < s.fronts.size(); ++f) {
    front_row[f] = rows;
    rows += s.fronts[f].pivots;
  }
  std::vector<double> Yc(std::size_t(rows) * nrhs, 0.0);
  qr::q_transpose_times(s, num, B, nrhs, front_row, Yc.data(), rows);
  const double scale = max_abs(Rc);
  double r_err = 0, y_err = 0;
  std::size_t k = 0, y = 0;
  for (std::size_t f = 0; f < s.fronts.size(); ++f)
    for (index_t t = 0; t < s.fronts[f].pivots; ++t, ++y) {
      const double sign = (R[k] < 0) == (Rc[k] < 0) ? 1.0 : -1.0;  // the diagonal's sign
      for (index_t l = t; l < s.fronts[f].n(); ++l, ++k) r_err = std::max(r_err, std::abs(R[k] - sign * Rc[k]));
      for (index_t c = 0; c < nrhs; ++c)
        y_err = std::max(y_err, std::abs(Y[y + std::size_t(rows) * c] - sign * Yc[y + std::size_t(rows) * c]));
    }
  EXPECT_LE(r_err, 1e-11 * scale);
  EXPECT_LE(y_err, 1e-11 * std::max(1.0, max_abs(Yc)));
  if (std::isinf(dense_flops)) {
    EXPECT_GT(plan.bundles, 0);
    EXPECT_TRUE(plan.dense.empty());
  } else {
    EXPECT_FALSE(plan.dense.empty());
  }
  EXPECT_EQ(plan.launch_start.back(), std::int64_t(plan.tasks.size()));
}

TEST(GpuPlan, HostRunMatchesTheCpuFactor) {
  for (std::uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE(seed);
    expect_plan_matches_cpu(test::tall_full_rank(700, 300, 0.01, seed, 3.0));
  }
  expect_plan_matches_cpu(laplacian_2d_over_identity<double>(24, 24));
  expect_plan_matches_cpu(laplacian_3d<double>(9, 9, 9));
  expect_plan_matches_cpu(test::tall_full_rank(3000, 1200, 0.004, 5, 3.0));  // a 2815 x 1032 root with many children
  // Hybrid: the fronts over 1e6 flops by LAPACK (the GPU: cuSOLVER), the rest by tiles.
  expect_plan_matches_cpu(laplacian_2d_over_identity<double>(24, 24), 1e6);
  expect_plan_matches_cpu(laplacian_3d<double>(9, 9, 9), 1e6);
  expect_plan_matches_cpu(transpose(*test::real_matrix_as<double>(test::data_file("lp_e226.mtx"))));
}

// Without a GPU: Device::Cuda is a clear error, Auto takes the CPU.
TEST(SparseQrDevice, CudaWithoutAGpuIsAClearError) {
  if (cuda::available()) GTEST_SKIP() << "a GPU is present (tests/qr/gpu_qr_test.cpp covers it)";
  const Csr<double> A = laplacian_2d_over_identity<double>(10, 10);
  QrOptions o;
  o.device = Device::Cuda;
  EXPECT_THROW_MSG(SparseQR(A, o), CudaError, "no CUDA GPU is available");
  o.device = Device::Auto;
  o.gpu_min_flops = 0;
  o.gpu_min_intensity = 0;
  SparseQR qr(A, o);
  EXPECT_EQ(qr.stats().device, Device::Cpu);
  EXPECT_EQ(qr.stats().gpu_launches, 0);
}

}  // namespace
}  // namespace balsa
