// The triangular solver's level sets on the device (graph/levels_device.hpp,
// through TriangularSolver's front end): the stats say where they ran, and
// the solves give the same bits as with the host's level sets (forced by a
// device memory budget too small, whose reason the stats name). Skips
// without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"
#include "graph/levels_device.hpp"
#include "support/poison.hpp"
#include "support/trsv_cases.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// x from a GPU solver of algorithm `a` on L (host vectors), with x poisoned first.
std::vector<double> solve_once(const Csr<double>& L, Triangle tri, TrsvAlgorithm a, const std::vector<double>& b,
                               TrsvStats& stats) {
  TriangularSolver<double> s(L, {.algorithm = a, .device = Device::Cuda, .triangle = tri, .auto_trial = false});
  std::vector<double> x = test::poisoned<double>(b.size());
  s.solve(b, x);
  stats = s.stats();
  return x;
}

// Device level sets against the host's: the same levels and the same x, bit for bit.
void expect_same_solves(const Csr<double>& L, Triangle tri, TrsvAlgorithm a) {
  SCOPED_TRACE(std::string(to_string(a)) + ", " + to_string(tri));
  std::vector<double> b(std::size_t(L.rows));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 + double(i % 17) / 8.0;
  TrsvStats on_device, on_host;
  const std::vector<double> x_device = solve_once(L, tri, a, b, on_device);
  std::vector<double> x_host;
  {
    const levels_gpu::ScopedRule tiny({.memory_budget = 1024});
    x_host = solve_once(L, tri, a, b, on_host);
  }
  EXPECT_EQ(on_device.level_sets_device, Device::Cuda) << on_device.level_sets_reason;
  EXPECT_TRUE(on_device.level_sets_reason.empty());
  EXPECT_GT(on_device.level_sets_seconds, 0.0);
  EXPECT_EQ(on_host.level_sets_device, Device::Cpu);
  EXPECT_NE(on_host.level_sets_reason.find("device memory"), std::string::npos) << on_host.level_sets_reason;
  EXPECT_EQ(on_device.levels, on_host.levels);
  EXPECT_EQ(on_device.widest_level, on_host.widest_level);
  EXPECT_EQ(on_device.algorithm, on_host.algorithm);
  EXPECT_EQ(x_device, x_host) << "the same bits";
  test::expect_matches_reference<double>(L, tri, DiagonalKind::NonUnit, std::span<const double>(b),
                                         std::span<const double>(x_device), "device levels");
}

TEST(GpuTrsvDeviceAnalysis, IcFactorsOfA3dLaplacianSolveToTheSameBits) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_3d<double>(36, 30, 28);
  const Csr<double> L = extract_triangle(A, Triangle::Lower), U = transpose(L);
  for (const TrsvAlgorithm a : {TrsvAlgorithm::LevelSet, TrsvAlgorithm::SyncFreeBlocks, TrsvAlgorithm::Auto}) {
    expect_same_solves(L, Triangle::Lower, a);
    expect_same_solves(U, Triangle::Upper, a);
  }
}

TEST(GpuTrsvDeviceAnalysis, RandomLowerTriangle) {
  BALSA_REQUIRE_GPU();
  const Csr<double> L = test::with_dominant_diagonal(
      extract_triangle(test::random_sparse<double>(30000, 30000, 2e-4, 5), Triangle::Lower));
  expect_same_solves(L, Triangle::Lower, TrsvAlgorithm::LevelSet);
}

// A chain past the rule's bound: the host runs the level sets, and says why.
TEST(GpuTrsvDeviceAnalysis, ChainsStayOnTheHost) {
  BALSA_REQUIRE_GPU();
  TriangularSolver<double> s(chain_lower<double>(30000),
                             {.algorithm = TrsvAlgorithm::LevelSet, .device = Device::Cuda});
  EXPECT_EQ(s.stats().level_sets_device, Device::Cpu);
  EXPECT_NE(s.stats().level_sets_reason.find("dependency chain"), std::string::npos) << s.stats().level_sets_reason;
  EXPECT_EQ(s.stats().levels, 30000);
}

}  // namespace
}  // namespace balsa
