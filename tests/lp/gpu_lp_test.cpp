// The simplex' basis solves on the GPU (thesis 7.2): FTRAN and BTRAN through
// balsa's TriangularSolver in slot space, with Forrest-Tomlin updates
// absorbed by the incremental analysis, against the host factor's own solves
// after every update (outputs poisoned); and whole LPs solved with the basis
// solves forced onto the GPU against the CPU path.
#include <cmath>
#include <random>

#include "balsa/cuda.hpp"
#include "balsa/lp.hpp"
#include "lp/basis/basis_gpu.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// A random m x n sparse matrix with a nonzero in every column.
Csc<double> random_columns(index_t m, index_t n, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Csc<double> A;
  A.rows = m;
  A.cols = n;
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < m; ++i)
      if (i == index_t(j % m) || u(rng) < 2 * density - 1) {
        A.row_idx.push_back(i);
        A.values.push_back(u(rng) + (u(rng) > 0 ? 1 : -1));
      }
    A.col_ptr.push_back(index_t(A.row_idx.size()));
  }
  return A;
}

void expect_same(const lp::SparseVector& a, const lp::SparseVector& b, const char* what, int step) {
  double scale = 1, diff = 0;
  for (index_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(b.values[i]));
    diff = std::max(diff, std::abs(a.values[i] - b.values[i]));
  }
  EXPECT_LE(diff, 1e-9 * scale) << what << " after update " << step;
}

TEST(LpGpu, BasisSolvesMatchTheHostFactorThroughUpdates) {
  BALSA_REQUIRE_GPU();
  const index_t m = 300, n = 600;
  const Csc<double> A = random_columns(m, n, 0.01, 3);
  std::vector<index_t> basic(static_cast<std::size_t>(m));
  for (index_t k = 0; k < m; ++k) basic[k] = k % 2 == 0 ? n + k : k;  // half logicals, half structurals
  // Room for 12 updates: the loop below goes past it and refactorises (U's
  // slot space on the GPU is sized by max_updates).
  lp::BasisFactor host({.max_updates = 12}), device({.max_updates = 12});
  host.factorize(A, basic);
  std::vector<index_t> basic_device = basic;
  device.factorize(A, basic_device);
  ASSERT_EQ(basic, basic_device);
  lp::GpuBasisSolves gpu;
  gpu.load(device);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  double gpu_seconds = 0;
  int updates = 0, refactors = 0;
  for (int step = 0; step < 120 && updates < 50; ++step) {
    // A random sparse rhs: FTRAN and BTRAN on both.
    lp::SparseVector a, b;
    a.resize(m);
    b.resize(m);
    for (int k = 0; k < 5; ++k) {
      const index_t i = index_t(rng() % std::uint64_t(m));
      if (a.values[i] == 0) {
        const double v = u(rng) + 2;
        a.set(i, v);
        b.set(i, v);
      }
    }
    host.ftran(a);
    gpu.ftran(device, b, false, gpu_seconds);
    expect_same(b, a, "FTRAN", updates);
    a.clear();
    b.clear();
    std::fill(a.values.begin(), a.values.end(), 0.0);
    std::fill(b.values.begin(), b.values.end(), 0.0);
    const index_t r = index_t(rng() % std::uint64_t(m));
    a.set(r, 1.0);
    b.set(r, 1.0);
    host.btran(a);
    gpu.btran(device, b, gpu_seconds);
    expect_same(b, a, "BTRAN", updates);
    // Replace position r by a random nonbasic structural when the pivot is sound.
    const index_t q = index_t(rng() % std::uint64_t(n));
    if (std::find(basic.begin(), basic.end(), q) != basic.end()) continue;
    lp::SparseVector c, d;
    c.resize(m);
    d.resize(m);
    for (index_t e = A.col_ptr[q]; e < A.col_ptr[q + 1]; ++e) {
      c.set(A.row_idx[e], A.values[e]);
      d.set(A.row_idx[e], A.values[e]);
    }
    host.ftran(c, true);
    gpu.ftran(device, d, true, gpu_seconds);
    expect_same(d, c, "FTRAN of the entering column", updates);
    if (std::abs(c.values[r]) < 0.1) continue;
    const lp::UpdateResult h = host.forrest_tomlin_update(r, c.values[r]);
    ASSERT_EQ(device.forrest_tomlin_update(r, d.values[r]), h);
    basic[r] = q;
    if (h == lp::UpdateResult::Refactor) {  // full: factorise the new basis afresh on both
      std::vector<index_t> again = basic;
      host.factorize(A, basic);
      device.factorize(A, again);
      ASSERT_EQ(basic, again);
      gpu.load(device);
      ++refactors;
      continue;
    }
    gpu.forrest_tomlin_update(device);
    ++updates;
  }
  EXPECT_GE(updates, 20);
  EXPECT_GE(refactors, 1);
  EXPECT_GT(gpu_seconds, 0);
}

TEST(LpGpu, NetlibLpsWithBasisSolvesOnTheGpu) {
  BALSA_REQUIRE_GPU();
  for (const char* file : {"afiro.mps.gz", "adlittle.mps.gz", "sc50a.mps.gz", "kb2.mps.gz", "bore3d.mps.gz",
                           "boeing2.mps.gz", "itest2.mps.gz", "woodinfe.mps.gz"}) {
    SCOPED_TRACE(file);
    const LinearProgram lp = read_mps(test::data_file(std::string("lp/") + file).string());
    SimplexSolver cpu(lp, {.device = Device::Cpu, .presolve = false});
    const LpSolution a = cpu.solve();
    SimplexSolver gpu(lp, {.device = Device::Cuda, .presolve = false});  // presolve decides some alone
    const LpSolution b = gpu.solve();
    EXPECT_EQ(a.status, b.status);
    EXPECT_GT(gpu.stats().gpu_factorizations, 0);
    EXPECT_EQ(gpu.stats().device, Device::Cuda);
    EXPECT_GT(gpu.stats().gpu_solve_seconds, 0);
    if (a.status == LpStatus::Optimal) {
      EXPECT_NEAR(a.objective, b.objective, 1e-7 * std::max(1.0, std::abs(a.objective)));
    }
  }
}

}  // namespace
}  // namespace balsa
