// The general-systems pipeline on the GPU against its CPU path: SaP's sparse
// pipeline (SparseSapSolver), balsa::solve's chain, and the Krylov solvers'
// early stops (divergence, no progress) decided on the device.
#include <gtest/gtest.h>

#include <cmath>

#include "balsa/balsa.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using test::data_file;

Csr<double> load(const std::string& name) { return *test::real_matrix_as<double>(data_file(name)); }

std::vector<double> ramp(index_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) x[std::size_t(i)] = 1.0 + 0.5 * std::sin(0.05 * i);
  return x;
}

class SparseSapGpu : public ::testing::TestWithParam<std::tuple<const char*, SapVariant>> {};

TEST_P(SparseSapGpu, AgreesWithTheCpuPath) {
  BALSA_REQUIRE_GPU();
  const auto [name, variant] = GetParam();
  const Csr<double> A = load(name);
  const std::vector<double> xs = ramp(A.rows), b = multiply(A, std::span<const double>(xs));
  SparseSapOptions o{.variant = variant, .partitions = 8};
  o.device = Device::Cpu;
  SparseSapSolver<double> cpu(A, o);
  o.device = Device::Cuda;
  SparseSapSolver<double> gpu(A, o);
  std::vector<double> xc(xs.size(), 0.0), xg(xs.size(), 0.0);
  const KrylovStats c = cpu.solve(b, xc), g = gpu.solve(b, xg);
  ASSERT_EQ(c.outcome, KrylovOutcome::Converged) << c.message;
  ASSERT_EQ(g.outcome, KrylovOutcome::Converged) << g.message;
  EXPECT_LE(std::abs(c.iterations - g.iterations), 2 + c.iterations / 5);
  // The tolerance is the scaled system's; A's own residual follows within its scaling.
  EXPECT_LE(g.true_residual, 1e-10);
  EXPECT_LT(relative_residual(A, std::span<const double>(xg), std::span<const double>(b)), 1e-6);
  // The same reorderings on both paths (DB-S1/S4 ran on the device).
  EXPECT_EQ(cpu.stats().k, gpu.stats().k);
  EXPECT_EQ(cpu.stats().k_cm, gpu.stats().k_cm);
  EXPECT_EQ(gpu.stats().matching.device, Device::Cuda);
  EXPECT_EQ(gpu.stats().banded.device, Device::Cuda);
}

INSTANTIATE_TEST_SUITE_P(Matrices, SparseSapGpu,
                         ::testing::Combine(::testing::Values("west0479.mtx", "Pd.mtx", "watt_2.mtx", "cryg2500.mtx"),
                                            ::testing::Values(SapVariant::Decoupled, SapVariant::Coupled)));

TEST(SolveGpu, ChainAnswersOnTheDevice) {
  BALSA_REQUIRE_GPU();
  for (const char* name : {"west0479.mtx", "bcsstk13.mtx", "Pd.mtx", "bayer10.mtx"}) {
    SCOPED_TRACE(name);
    const Csr<double> A = load(name);
    const std::vector<double> xs = ramp(A.rows), b = multiply(A, std::span<const double>(xs));
    std::vector<double> x(xs.size(), 0.0);
    // Iterative methods only, all of them on the GPU.
    const SolveReport r = solve(A, std::span<const double>(b), std::span<double>(x),
                                {.device = Device::Cuda, .direct_fallback = false});
    ASSERT_TRUE(r.solved) << r.message;
    EXPECT_FALSE(r.direct) << r.message;
    EXPECT_EQ(r.device, Device::Cuda);
    for (const SolveAttempt& a : r.chain) EXPECT_EQ(a.device, Device::Cuda) << to_string(a.method);
    // Accepted by its backward error (the relative residual of an
    // ill-conditioned A, bayer10's, may stay above the tolerance).
    EXPECT_LE(std::min(r.backward_error, r.componentwise_backward_error), 1e-8);
    EXPECT_GE(r.backward_error, 0.0);
  }
}

// Device::Auto by predicted cost: a small system stays on the CPU (a direct
// factorisation in milliseconds), a large 3D Laplacian goes to the GPU.
TEST(SolveGpu, DeviceByPredictedCost) {
  BALSA_REQUIRE_GPU();
  const Csr<double> small = load("bcsstk13.mtx");
  const SolveReport s = plan_solve(small);
  ASSERT_FALSE(s.plan.empty());
  EXPECT_EQ(s.plan.front().device, Device::Cpu) << s.message;
  const Csr<double> big = laplacian_3d<double>(80, 80, 80);
  const std::vector<double> xs = ramp(big.rows), b = multiply(big, std::span<const double>(xs));
  std::vector<double> x(xs.size(), 0.0);
  const SolveReport r = solve(big, std::span<const double>(b), std::span<double>(x));
  ASSERT_TRUE(r.solved) << r.message;
  EXPECT_EQ(r.device, Device::Cuda) << r.message;
  EXPECT_FALSE(r.direct) << r.message;
  EXPECT_LE(r.backward_error, 1e-8);
}

TEST(KrylovEarlyStopGpu, SameStopsAsTheCpu) {
  BALSA_REQUIRE_GPU();
  const Csr<double> W = load("west0479.mtx");
  const std::vector<double> b(std::size_t(W.rows), 1.0);
  KrylovOptions o = krylov_options(KrylovPreset::BiCgStab);
  o.stopping.divergence = 1.5;
  o.stopping.max_iterations = 5000;
  for (const Device d : {Device::Cpu, Device::Cuda}) {
    o.device = d;
    std::vector<double> x(b.size(), 0.0);
    KrylovSolver<double> k(W, o);
    const KrylovStats st = k.solve(b, x);
    EXPECT_EQ(st.outcome, KrylovOutcome::Diverged) << to_string(d) << ": " << st.message;
  }
  const Csr<double> S = load("bcsstk13.mtx");
  const std::vector<double> bs(std::size_t(S.rows), 1.0);
  KrylovOptions c = krylov_options(KrylovPreset::Cg);
  c.stopping.stagnation_window = 3;
  c.stopping.divergence = 0;
  int iterations[2] = {0, 0};
  for (const Device d : {Device::Cpu, Device::Cuda}) {
    c.device = d;
    std::vector<double> x(bs.size(), 0.0);
    KrylovSolver<double> k(S, c);
    const KrylovStats st = k.solve(bs, x);
    EXPECT_EQ(st.outcome, KrylovOutcome::Stagnation) << to_string(d) << ": " << st.message;
    iterations[d == Device::Cuda] = st.iterations;
  }
  EXPECT_LE(std::abs(iterations[0] - iterations[1]), 2);
}

}  // namespace
}  // namespace balsa
