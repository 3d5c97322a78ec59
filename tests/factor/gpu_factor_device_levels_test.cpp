// The GPU factorisation's dependency levels on the device
// (graph/levels_device.hpp, through IncompleteFactorization's analysis): the
// stats say where they ran, and the factors are the same bits as with the
// host's level sets (forced by a device memory budget too small, whose
// reason the stats name). Skips without a GPU.
#include <gtest/gtest.h>

#include <string>

#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "graph/levels_device.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

void expect_same_factors(const Csr<double>& A, IncompleteKind kind) {
  SCOPED_TRACE(to_string(kind));
  const IncompleteOptions o{.kind = kind, .device = Device::Cuda};
  const IncompleteFactorization<double> on_device(A, o);
  const levels_gpu::ScopedRule tiny({.memory_budget = 1024});
  const IncompleteFactorization<double> on_host(A, o);
  EXPECT_EQ(on_device.stats().level_sets_device, Device::Cuda) << on_device.stats().level_sets_reason;
  EXPECT_GT(on_device.stats().level_sets_seconds, 0.0);
  EXPECT_EQ(on_host.stats().level_sets_device, Device::Cpu);
  EXPECT_NE(on_host.stats().level_sets_reason.find("device memory"), std::string::npos);
  EXPECT_EQ(on_device.stats().levels, on_host.stats().levels);
  const Csr<double> F = on_device.factors(), G = on_host.factors();
  EXPECT_EQ(F.col_idx, G.col_idx);
  EXPECT_EQ(F.values, G.values) << "the same bits";
}

TEST(GpuFactorDeviceLevels, Ic0AndIlu0OfA3dLaplacian) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_3d<double>(32, 30, 28);
  expect_same_factors(A, IncompleteKind::Ic0);
  expect_same_factors(A, IncompleteKind::Ilu0);
}

}  // namespace
}  // namespace balsa
