// GPU plumbing: device discovery, buffers, sparse copies, SpMV (cuSPARSE and
// balsa's kernel), each against its CPU reference.
// Label `gpu`: every test skips when no GPU is present.
#include <cmath>
#include <cstring>

#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

template <class T>
class GpuTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuTyped, ValueTypes);

TEST(GpuDevice, ReportsItsProperties) {
  BALSA_REQUIRE_GPU();
  const cuda::DeviceInfo d = cuda::device_info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GE(d.shared_memory_per_block_optin, d.shared_memory_per_block);
  EXPECT_GT(d.l2_bytes, 0u);
  EXPECT_EQ(d.warp_size, 32);
  const auto [free, total] = cuda::memory_info();
  EXPECT_GT(total, 0u);
  EXPECT_LE(free, total);
  std::printf("device %s: %d SMs, cc %d.%d, %zu KiB opt-in shared memory per block, %zu MiB L2, runtime %d\n",
              d.name.c_str(), d.sm_count, d.major, d.minor, d.shared_memory_per_block_optin >> 10, d.l2_bytes >> 20,
              d.runtime_version);
}

TYPED_TEST(GpuTyped, BufferRoundTripAndPoison) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const std::vector<T> h = random_vector<T>(100003, 1);
  cuda::DeviceBuffer<T> d{std::span<const T>(h)};
  EXPECT_EQ(d.to_host(), h);
  cuda::fill(d, std::numeric_limits<T>::quiet_NaN());
  for (const T v : d.to_host()) ASSERT_TRUE(std::isnan(v));
  d.fill_bytes(0);
  for (const T v : d.to_host()) ASSERT_EQ(v, T(0));
  cuda::DeviceBuffer<T> moved = std::move(d);
  EXPECT_EQ(moved.size(), h.size());
  EXPECT_EQ(d.size(), 0u);
  std::vector<T> wrong(5);
  EXPECT_THROW_MSG(moved.download(wrong), DimensionError, "host span has 5 elements");
}

TYPED_TEST(GpuTyped, SparseCopiesRoundTrip) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> A = test::random_sparse<T>(500, 700, 0.02, 3);
  const Csr<T> back = cuda::to_host(cuda::to_device(A));
  EXPECT_EQ(back.row_ptr, A.row_ptr);
  EXPECT_EQ(back.col_idx, A.col_idx);
  EXPECT_EQ(back.values, A.values);
  const Csc<T> C = to_csc(A);
  const Csc<T> cback = cuda::to_host(cuda::to_device(C));
  EXPECT_EQ(cback.col_ptr, C.col_ptr);
  EXPECT_EQ(cback.row_idx, C.row_idx);
  EXPECT_EQ(cback.values, C.values);
  Csr<T> bad = A;
  bad.col_idx[3] = 9999;
  EXPECT_THROW_MSG(cuda::to_device(bad), MatrixError, "outside");
}

// Both GPU SpMVs against the CPU SpMV on one matrix, output poisoned first.
template <class T>
void check_spmv(const Csr<T>& A, std::uint64_t seed) {
  const std::vector<T> x = random_vector<T>(A.cols, seed);
  std::vector<T> y_cpu(std::size_t(A.rows));
  spmv(T(1), A, std::span<const T>(x), T(0), std::span<T>(y_cpu));
  const cuda::DeviceCsr<T> dA = cuda::to_device(A);
  cuda::DeviceBuffer<T> dx{std::span<const T>(x)}, dy(std::size_t(A.rows));
  // Relative error per row would be too strict for cancelling sums; scale by the row's |a| |x|.
  std::vector<double> scale(y_cpu.size(), 0.0);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      scale[i] += std::abs(double(A.values[k]) * double(x[A.col_idx[k]]));
  auto expect_close = [&](const std::vector<T>& y, const char* who) {
    ASSERT_EQ(y.size(), y_cpu.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      ASSERT_FALSE(std::isnan(y[i])) << who << ": row " << i << " not written";
      ASSERT_LE(std::abs(double(y[i]) - double(y_cpu[i])), test::tolerance<T>(64) * std::max(scale[i], 1e-30))
          << who << ": row " << i;
    }
  };
  test::poison(dy);
  cuda::CusparseSpmv<T> cusparse(dA);
  cusparse.apply(T(1), dx, T(0), dy);
  expect_close(dy.to_host(), "cuSPARSE");
  test::poison(dy);
  cuda::spmv(dA, dx, dy);
  expect_close(dy.to_host(), "balsa kernel");
}

TYPED_TEST(GpuTyped, SpmvMatchesCpuOnRandomShapes) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  std::uint64_t seed = 1;
  // Row lengths from under 1 to about 200 exercise every lanes-per-row variant.
  for (const double density : {0.0005, 0.003, 0.008, 0.015, 0.05, 0.2})
    for (const auto& [rows, cols] : {std::pair{1000, 1000}, std::pair{3000, 1000}, std::pair{777, 2500}})
    {
      check_spmv(test::random_sparse<T>(rows, cols, density, seed), seed + 100);
      ++seed;
    }
  check_spmv(laplacian_3d<T>(40, 40, 40, Stencil3d::Point27), 5);
  Csr<T> empty;  // 0 x 0
  check_spmv(empty, 1);
}

TYPED_TEST(GpuTyped, SpmvMatchesCpuOnRealMatrices) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  for (const auto& path : test::real_matrices()) {
    SCOPED_TRACE(path.filename().string());
    const std::optional<Csr<T>> A = test::real_matrix_as<T>(path);
    if (!A) {
      std::printf("%s: values beyond this precision's range, not used\n", path.filename().c_str());
      continue;
    }
    check_spmv(*A, 7);
  }
}

// Uploads of 8 MiB and more go through pinned staging buffers in 16 MiB
// chunks (cuda/runtime.cpp): sizes around and across the chunk edges come
// back bit for bit, and the copy is ordered with kernels on the default stream.
TEST(GpuCopies, StagedUploadsArriveWhole) {
  BALSA_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(1) << 20, (std::size_t(2) << 20) - 1, std::size_t(2) << 20, (std::size_t(5) << 20) + 3}) {
    SCOPED_TRACE(n);
    std::vector<double> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = double(i) * 0.5 - 3.0;
    cuda::DeviceBuffer<double> d(n);
    cuda::fill(d, std::nan(""));  // enqueued before the upload: must not land after it
    d.upload(h);
    EXPECT_EQ(d.to_host(), h);
  }
}

TEST(GpuErrors, OutOfMemoryIsAClearError) {
  BALSA_REQUIRE_GPU();
  const auto [free, total] = cuda::memory_info();
  EXPECT_THROW_MSG(cuda::DeviceBuffer<double>(total / sizeof(double) * 2), DeviceOutOfMemory, "GPU out of memory");
  // The failure leaves the device usable.
  cuda::DeviceBuffer<double> ok(1000);
  EXPECT_EQ(ok.size(), 1000u);
}

TEST(GpuErrors, WrongSizesAreErrors) {
  BALSA_REQUIRE_GPU();
  const cuda::DeviceCsr<double> A = cuda::to_device(test::random_sparse<double>(10, 20, 0.2, 1));
  cuda::DeviceBuffer<double> x(19), y(10);
  EXPECT_THROW_MSG(cuda::spmv(A, x, y), DimensionError, "x has 19");
  cuda::CusparseSpmv<double> s(A);
  EXPECT_THROW_MSG(s.apply(1.0, x, 0.0, y), DimensionError, "x has 19");
}

TEST(GpuAbsent, BuildWithoutCudaSaysSo) {
  if (cuda::built_with_cuda()) GTEST_SKIP() << "built with CUDA";
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_THROW_MSG(cuda::DeviceBuffer<double>(10), CudaError, "built without CUDA");
}

}  // namespace
}  // namespace balsa
