// balsa::Preconditioner on the GPU (include/balsa/precondition.hpp):
// apply_device equals the CPU object's apply (ILU(0), IC(0), Jacobi; Direct
// and SaP-D/SaP-C through the host), also after update_values; use_device refuses a device
// that does not exist.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/precondition.hpp"
#include "support/krylov_cases.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

std::vector<double> on_device(Preconditioner<double>& M, const std::vector<double>& r) {
  const cuda::DeviceBuffer<double> dr{std::span<const double>(r)};
  cuda::DeviceBuffer<double> dz{std::span<const double>(std::vector<double>(r.size(), std::nan("")))};  // poisoned
  M.apply_device(dr.data(), dz.data());
  return dz.to_host();
}

std::vector<double> on_host(Preconditioner<double>& M, const std::vector<double>& r) {
  std::vector<double> z(r.size());
  M.apply(std::span<const double>(r), std::span<double>(z));
  return z;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  double scale = 0;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-10 * scale) << "entry " << i;
}

TEST(GpuStandalonePreconditioner, DeviceApplyEqualsTheCpuOne) {
  BALSA_REQUIRE_GPU();
  const Csr<double> spd = laplacian_3d<double>(20, 20, 20);
  const Csr<double> cd = test::convection_diffusion<double>(60, 30.0);
  for (const auto& [A, m] : {std::pair{spd, PreconditionMethod::Ic0}, std::pair{cd, PreconditionMethod::Ilu0},
                             std::pair{cd, PreconditionMethod::Jacobi}, std::pair{spd, PreconditionMethod::Direct}}) {
    SCOPED_TRACE(to_string(m));
    const std::vector<double> r = random_vector<double>(A.rows, 11);
    Preconditioner<double> gpu(A, {.method = m, .device = Device::Cuda});
    Preconditioner<double> cpu(A, {.method = m, .device = Device::Cpu});
    EXPECT_EQ(gpu.stats().device, Device::Cuda);
    expect_close(on_device(gpu, r), on_host(cpu, r));
    expect_close(on_host(gpu, r), on_host(cpu, r));
    std::vector<double> v(A.values);
    for (double& x : v) x *= 3.0;
    gpu.update_values(std::span<const double>(v));
    cpu.update_values(std::span<const double>(v));
    EXPECT_TRUE(gpu.stats().analysis_reused);
    expect_close(on_device(gpu, r), on_host(cpu, r));
  }
}

// SaP-D / SaP-C (the sparse pipeline, its band factored on the GPU) equal
// the CPU's with the same partitions, also set up again by update_values.
TEST(GpuStandalonePreconditioner, SapDeviceApplyEqualsTheCpuOne) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = scramble(banded_dominant<double>(6000, 8, 0.7, 2), 3);
  const std::vector<double> r = random_vector<double>(A.rows, 12);
  for (PreconditionMethod m : {PreconditionMethod::SapD, PreconditionMethod::SapC}) {
    SCOPED_TRACE(to_string(m));
    PreconditionOptions o{.method = m, .device = Device::Cuda};
    o.sap.partitions = 6;
    Preconditioner<double> gpu(A, o);
    o.device = Device::Cpu;
    Preconditioner<double> cpu(A, o);
    EXPECT_EQ(gpu.stats().device, Device::Cuda);
    EXPECT_EQ(gpu.stats().sap.banded.partitions, 6);
    expect_close(on_device(gpu, r), on_host(cpu, r));
    expect_close(on_host(gpu, r), on_host(cpu, r));
    std::vector<double> v(A.values);
    for (double& x : v) x *= 2.0;
    gpu.update_values(std::span<const double>(v));
    cpu.update_values(std::span<const double>(v));
    expect_close(on_device(gpu, r), on_host(cpu, r));
  }
}

TEST(GpuStandalonePreconditioner, AutoPicksTheGpu) {
  BALSA_REQUIRE_GPU();
  Preconditioner<double> M(laplacian_3d<double>(16, 16, 16));
  EXPECT_EQ(M.stats().device, Device::Cuda);
  EXPECT_EQ(M.stats().method, PreconditionMethod::Ic0);
}

TEST(GpuStandalonePreconditioner, UseDeviceChecksTheId) {
  BALSA_REQUIRE_GPU();
  const int here = cuda::current_device();
  EXPECT_THROW(cuda::use_device(cuda::device_count()), CudaError);
  EXPECT_THROW(cuda::use_device(-1), CudaError);
  cuda::use_device(here);
  EXPECT_EQ(cuda::current_device(), here);
}

}  // namespace
}  // namespace balsa
