// DB, diagonal boosting, with its GPU stages (graph/matching_kernels.cu:
// DB-S1 and DB-S4, report sec. 3.3) against the CPU path: the same
// matching, the scale factors to rounding, and D_r Q A D_c of a device CSR
// against apply_boosting. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/reorder.hpp"
#include "graph/matching_kernels.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

double worst_relative(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), 1e-300));
  return worst;
}

// The GPU path gives the CPU's matching (or, where optimal matchings tie
// and the two math libraries' last bits pick another, one of the same
// product) and its scaling to rounding.
template <class T>
void expect_same_as_cpu(const Csr<T>& A, bool unique_optimum) {
  MatchingOptions cpu, gpu;
  cpu.device = Device::Cpu;
  gpu.device = Device::Cuda;
  const DiagonalBoosting c = diagonal_boosting(A, cpu), g = diagonal_boosting(A, gpu);
  EXPECT_EQ(g.stats.device, Device::Cuda);
  EXPECT_GT(g.stats.t_transfer, 0);
  EXPECT_NEAR(g.log_product, c.log_product, 1e-11 * std::max(1.0, std::abs(c.log_product)));
  if (unique_optimum || g.row_perm == c.row_perm) {
    EXPECT_EQ(g.row_perm, c.row_perm);
    EXPECT_LT(worst_relative(g.row_scale, c.row_scale), 1e-12);
    EXPECT_LT(worst_relative(g.col_scale, c.col_scale), 1e-12);
  }
  // Either way the GPU's result is an I-matrix scaling.
  const Csr<T> B = apply_boosting(A, g);
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-12;
  for (index_t i = 0; i < B.rows; ++i)
    for (index_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p) {
      const double b = std::abs(double(B.values[p]));
      if (B.col_idx[p] == i) {
        ASSERT_NEAR(b, 1.0, tol) << "row " << i;
      } else {
        ASSERT_LE(b, 1 + tol) << "(" << i << ", " << B.col_idx[p] << ")";
      }
    }
}

Csr<double> random_nonsingular(index_t n, double density, std::uint64_t seed) {
  Coo<double> coo = to_coo(test::random_sparse<double>(n, n, density, seed));
  const std::vector<index_t> perm = random_permutation(n, seed + 7);
  Random rng(seed + 11);
  for (index_t j = 0; j < n; ++j) {
    coo.row_idx.push_back(perm[j]);
    coo.col_idx.push_back(j);
    coo.values.push_back(rng.uniform(-1, 1));
  }
  for (double& x : coo.values) x *= std::pow(10.0, rng.uniform(-3, 3));
  return to_csr(coo);
}

TEST(GpuMatching, RandomMatricesMatchTheCpu) {
  BALSA_REQUIRE_GPU();
  for (const index_t n : {1, 7, 300, 5000, 20000}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const Csr<double> A = random_nonsingular(n, std::min(1.0, 5.0 / n), std::uint64_t(n) + 3);
    expect_same_as_cpu(A, true);
    expect_same_as_cpu(convert_values<float>(A), false);  // (float values may tie)
  }
}

TEST(GpuMatching, RealMatricesMatchTheCpu) {
  BALSA_REQUIRE_GPU();
  int boosted = 0;
  test::for_each_square_real_matrix<double>([&](const Csr<double>& A) {
    Csr<double> nonzeros = A;  // DB's graph: the nonzeros only (zenios.mtx stores 14375 zeros)
    for (double& x : nonzeros.values) x = x == 0 ? 0 : 1;
    std::size_t q = 0;
    std::vector<index_t> ptr{0};
    for (index_t i = 0; i < A.rows; ++i) {
      for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
        if (A.values[p] != 0) nonzeros.col_idx[q++] = A.col_idx[p];
      ptr.push_back(index_t(q));
    }
    nonzeros.col_idx.resize(q);
    nonzeros.values.assign(q, 1.0);
    nonzeros.row_ptr = ptr;
    if (structural_rank(nonzeros) < A.rows) {
      MatchingOptions o;
      o.device = Device::Cuda;
      EXPECT_THROW(diagonal_boosting(A, o), StructurallySingular);
      return;
    }
    expect_same_as_cpu(A, false);  // real matrices have ties (equal entries)
    ++boosted;
  });
  EXPECT_GE(boosted, 8);
}

TEST(GpuMatching, PermutedLaplacianAndErrors) {
  BALSA_REQUIRE_GPU();
  const Csr<double> L = laplacian_3d<double>(40, 40, 40, Stencil3d::Point7, GridOrdering::Random, 5);
  std::vector<index_t> identity(std::size_t(L.rows));
  for (index_t i = 0; i < L.rows; ++i) identity[std::size_t(i)] = i;
  const std::vector<index_t> q = random_permutation(L.rows, 6);
  const Csr<double> A = permute(L, q, identity);
  MatchingOptions o;
  o.device = Device::Cuda;
  const DiagonalBoosting db = diagonal_boosting(A, o);
  EXPECT_EQ(db.row_perm, inverse_permutation(q));
  // Singular input: the same error as on the CPU.
  const Csr<double> S{3, 3, {0, 2, 4, 6}, {0, 1, 0, 1, 0, 1}, {1, 2, 3, 4, 5, 6}};
  EXPECT_THROW_MSG(diagonal_boosting(S, o), StructurallySingular, "structural rank 2 < 3");
  // n = 0 on the device.
  EXPECT_EQ(diagonal_boosting(Csr<double>{}, o).n, 0);
}

template <class T>
void device_apply_matches_host() {
  for (const index_t n : {1, 50, 20000}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const Csr<T> A = convert_values<T>(random_nonsingular(n, std::min(1.0, 6.0 / n), std::uint64_t(n)));
    const DiagonalBoosting db = diagonal_boosting(A);
    const Csr<T> expected = apply_boosting(A, db);
    const cuda::DeviceCsr<T> dA = cuda::to_device(A);
    const cuda::DeviceBuffer<index_t> perm{std::span<const index_t>(db.row_perm)};
    const cuda::DeviceBuffer<double> rs{std::span<const double>(db.row_scale)}, cs{std::span<const double>(db.col_scale)};
    const Csr<T> got = cuda::to_host(matching::apply_boosting(dA, perm, rs, cs));
    EXPECT_EQ(got.row_ptr, expected.row_ptr);
    EXPECT_EQ(got.col_idx, expected.col_idx);
    ASSERT_EQ(got.values.size(), expected.values.size());
    double worst = 0;
    for (std::size_t p = 0; p < got.values.size(); ++p)
      worst = std::max(worst, std::abs(double(got.values[p]) - double(expected.values[p])));
    EXPECT_LE(worst, 2 * double(std::numeric_limits<T>::epsilon()));  // |b| <= 1
  }
}

TEST(GpuMatching, DeviceApplyBoostingMatchesTheHost) {
  BALSA_REQUIRE_GPU();
  device_apply_matches_host<double>();
  device_apply_matches_host<float>();
}

}  // namespace
}  // namespace balsa
