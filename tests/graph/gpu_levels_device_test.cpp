// The device level sets (graph/levels_device.cu) against the host oracle
// (balsa::level_sets, graph/levels.cpp), bit for bit: the rows in level
// order and the level pointers, with the device outputs poisoned (all bits
// set, -1) before each run. Random lower and upper triangles, the IC(0) and
// ILU(0) factor patterns of 3D Laplacians, the real matrices of tests/data,
// a 20000-row chain (the rule's host path, the forced sweep, the time cap),
// empty rows, n = 0 and 1, and a device memory budget too small. Skips
// without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "graph/levels_device.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using levels_gpu::DeviceLevels;
using levels_gpu::DeviceLevelsRule;

// The host's answer for a pattern.
LevelSets oracle(index_t n, const std::vector<index_t>& row_ptr, const std::vector<index_t>& col_idx, Triangle tri) {
  return level_sets(dependency_levels(n, row_ptr, col_idx, tri));
}

// Runs the device analysis on the pattern uploaded, its outputs poisoned
// first (sized as the oracle's), and compares. Returns the result's on_device.
bool expect_device_matches(index_t n, const std::vector<index_t>& row_ptr, const std::vector<index_t>& col_idx,
                           Triangle tri, const DeviceLevelsRule& rule = {.force_device = true}) {
  const LevelSets want = oracle(n, row_ptr, col_idx, tri);
  const cuda::DeviceBuffer<index_t> rp{std::span<const index_t>(row_ptr)}, ci{std::span<const index_t>(col_idx)};
  DeviceLevels got;
  got.rows = cuda::DeviceBuffer<index_t>(want.rows.size());
  got.level_ptr = cuda::DeviceBuffer<index_t>(want.level_ptr.size());
  if (!got.rows.empty()) got.rows.fill_bytes(0xFF);
  got.level_ptr.fill_bytes(0xFF);
  got.host_level_ptr.assign(want.level_ptr.size(), -1);
  levels_gpu::device_level_sets(n, rp.data(), ci.data(), tri, got, rule);
  EXPECT_EQ(got.n, n);
  EXPECT_EQ(got.count(), want.count());
  EXPECT_EQ(got.host_level_ptr, want.level_ptr);
  EXPECT_EQ(got.rows.to_host(), want.rows) << "rows in level order";
  EXPECT_EQ(got.level_ptr.to_host(), want.level_ptr);
  return got.on_device;
}

template <class T>
bool expect_device_matches(const Csr<T>& A, Triangle tri, const DeviceLevelsRule& rule = {.force_device = true}) {
  return expect_device_matches(A.rows, A.row_ptr, A.col_idx, tri, rule);
}

Csr<double> random_square(index_t n, double density, std::uint64_t seed) {
  return test::random_sparse<double>(n, n, density, seed);
}

TEST(GpuLevelsDevice, RandomLowerAndUpperTriangles) {
  BALSA_REQUIRE_GPU();
  // Sizes around a warp and a block of the sweep, and several blocks.
  for (const index_t n : {2, 31, 32, 33, 100, 257, 1000, 5000, 40000})
    for (const double density : {0.002, 0.02, 0.2})
      for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
        if (double(n) * n * density > 4e6) continue;
        SCOPED_TRACE("n " + std::to_string(n) + ", density " + std::to_string(density) + ", " + to_string(tri));
        const Csr<double> A = extract_triangle(random_square(n, density, std::uint64_t(n) * 7 + 1), tri);
        EXPECT_TRUE(expect_device_matches(A, tri));
        // Entries outside the triangle are not dependencies: the full matrix gives the triangle's levels.
        const Csr<double> full = random_square(n, density, std::uint64_t(n) * 7 + 1);
        expect_device_matches(full, tri);
      }
}

TEST(GpuLevelsDevice, FactorPatternsOf3dLaplacians) {
  BALSA_REQUIRE_GPU();
  for (const Stencil3d stencil : {Stencil3d::Point7, Stencil3d::Point27}) {
    const Csr<double> A = laplacian_3d<double>(24, 20, 18, stencil);
    SCOPED_TRACE(to_string(stencil));
    // IC(0): L = A's lower triangle, and U = L^T; ILU(0): A's own pattern, whose lower and upper parts are solved.
    EXPECT_TRUE(expect_device_matches(extract_triangle(A, Triangle::Lower), Triangle::Lower));
    EXPECT_TRUE(expect_device_matches(transpose(extract_triangle(A, Triangle::Lower)), Triangle::Upper));
    EXPECT_TRUE(expect_device_matches(A, Triangle::Lower));
    EXPECT_TRUE(expect_device_matches(A, Triangle::Upper));
  }
  // The default rule keeps a 3D Laplacian's factor on the device (its chains: one grid line).
  const Csr<double> L = extract_triangle(laplacian_3d<double>(40, 40, 40), Triangle::Lower);
  EXPECT_TRUE(expect_device_matches(L, Triangle::Lower, {}));
}

TEST(GpuLevelsDevice, RealMatrices) {
  BALSA_REQUIRE_GPU();
  const int count = test::for_each_square_real_matrix<double>([](const Csr<double>& A) {
    // A generous cap: this test is about the answer (the cap has its own test).
    for (const Triangle tri : {Triangle::Lower, Triangle::Upper})
      EXPECT_TRUE(expect_device_matches(A, tri, {.time_cap_ms = 60000, .force_device = true}));
  });
  EXPECT_GT(count, 5);
}

// A 20000-row pattern from its rows, each depending on the rows deps(i) gives.
template <class Deps>
void pattern_of(index_t n, Deps deps, std::vector<index_t>& row_ptr, std::vector<index_t>& col_idx) {
  row_ptr = {0};
  col_idx.clear();
  for (index_t i = 0; i < n; ++i) {
    for (const index_t j : deps(i)) col_idx.push_back(j);
    col_idx.push_back(i);
    row_ptr.push_back(index_t(col_idx.size()));
  }
}

// A 20000-row chain: the rule sends it to the host (its bound is the whole
// chain); forced, the sweep walks it. A chain of stride 2 (two chains of
// 10000): the bound sees it too. A chain hidden from the bound (row 2k
// depends on 2k - 2 and on the independent row 2k - 1, its nearest): the
// time cap catches it, and the host answers. Every answer is the host's.
TEST(GpuLevelsDevice, DeepChainsGoToTheHostOrHitTheCap) {
  BALSA_REQUIRE_GPU();
  const Csr<double> chain = chain_lower<double>(20000);
  EXPECT_FALSE(expect_device_matches(chain, Triangle::Lower, {}));
  EXPECT_TRUE(expect_device_matches(chain, Triangle::Lower, {.time_cap_ms = 60000, .force_device = true}));
  EXPECT_TRUE(expect_device_matches(transpose(chain), Triangle::Upper, {.time_cap_ms = 60000, .force_device = true}));
  const index_t n = 20000;
  std::vector<index_t> row_ptr, col_idx;
  auto placed = [&](Triangle tri, const DeviceLevelsRule& rule) {
    const cuda::DeviceBuffer<index_t> rp{std::span<const index_t>(row_ptr)}, ci{std::span<const index_t>(col_idx)};
    DeviceLevels d;
    levels_gpu::device_level_sets(n, rp.data(), ci.data(), tri, d, rule);
    return d;
  };
  pattern_of(
      n, [](index_t i) { return i > 0 ? std::vector<index_t>{i - 1} : std::vector<index_t>{}; }, row_ptr, col_idx);
  DeviceLevels d = placed(Triangle::Lower, {});
  EXPECT_FALSE(d.on_device);
  EXPECT_EQ(d.chain_bound, 20000);
  EXPECT_NE(d.reason.find("dependency chain"), std::string::npos) << d.reason;
  pattern_of(
      n, [](index_t i) { return i > 1 ? std::vector<index_t>{i - 2} : std::vector<index_t>{}; }, row_ptr, col_idx);
  d = placed(Triangle::Lower, {});
  EXPECT_FALSE(d.on_device);
  EXPECT_EQ(d.chain_bound, 10000);
  EXPECT_FALSE(expect_device_matches(n, row_ptr, col_idx, Triangle::Lower, {}));
  // Hidden: the even rows chain through i - 2, each with an independent odd row as its nearest dependency.
  pattern_of(
      n,
      [](index_t i) {
        return i % 2 == 0 && i > 0 ? std::vector<index_t>{i - 2 >= 0 ? i - 2 : 0, i - 1} : std::vector<index_t>{};
      },
      row_ptr, col_idx);
  d = placed(Triangle::Lower, {.time_cap_ms = 1e-3});
  EXPECT_FALSE(d.on_device);
  EXPECT_EQ(d.chain_bound, 2);
  EXPECT_NE(d.reason.find("time cap"), std::string::npos) << d.reason;
  EXPECT_FALSE(expect_device_matches(n, row_ptr, col_idx, Triangle::Lower, {.time_cap_ms = 1e-3}));
  // With a cap that allows its 10000 levels the sweep finishes it.
  EXPECT_TRUE(expect_device_matches(n, row_ptr, col_idx, Triangle::Lower, {.time_cap_ms = 60000}));
}

// Rows without entries (no diagonal either), rows with only entries outside
// the triangle, n = 0 and n = 1.
TEST(GpuLevelsDevice, EmptyRowsAndTinyPatterns) {
  BALSA_REQUIRE_GPU();
  const index_t n = 3000;
  std::vector<index_t> row_ptr{0}, col_idx;
  for (index_t i = 0; i < n; ++i) {
    if (i % 3 == 1) {  // the row before and one far above
      col_idx.push_back(i - 1);
      if (i > 1000) col_idx.push_back(i - 1000);
    } else if (i % 3 == 2 && i + 5 < n) {
      col_idx.push_back(i + 5);  // outside Lower, a dependency for Upper
    }
    row_ptr.push_back(index_t(col_idx.size()));
  }
  for (const Triangle tri : {Triangle::Lower, Triangle::Upper})
    EXPECT_TRUE(expect_device_matches(n, row_ptr, col_idx, tri));
  EXPECT_FALSE(expect_device_matches(0, {0}, {}, Triangle::Lower));
  EXPECT_TRUE(expect_device_matches(1, {0, 1}, {0}, Triangle::Lower));
  EXPECT_TRUE(expect_device_matches(1, {0, 0}, {}, Triangle::Upper));
}

// A budget too small: the host answers, saying why; a host pattern through
// device_or_host_level_sets: the device below its budget, the host above.
TEST(GpuLevelsDevice, MemoryBudgetSendsTheWorkToTheHost) {
  BALSA_REQUIRE_GPU();
  const Csr<double> L = extract_triangle(laplacian_3d<double>(30, 30, 30), Triangle::Lower);
  EXPECT_FALSE(expect_device_matches(L, Triangle::Lower, {.memory_budget = 4096}));
  const LevelSets want = level_sets(L, Triangle::Lower);
  const auto placed = [&] {
    return levels_gpu::device_or_host_level_sets(L.rows, L.row_ptr, L.col_idx, Triangle::Lower, true);
  };
  levels_gpu::PlacedLevels d = placed();
  EXPECT_EQ(d.where, Device::Cuda) << d.reason;
  EXPECT_EQ(d.sets.rows, want.rows);
  EXPECT_EQ(d.sets.level_ptr, want.level_ptr);
  {
    const levels_gpu::ScopedRule tiny({.memory_budget = 4096});
    d = placed();
    EXPECT_EQ(d.where, Device::Cpu);
    EXPECT_NE(d.reason.find("device memory"), std::string::npos) << d.reason;
    EXPECT_EQ(d.sets.rows, want.rows);
    EXPECT_EQ(d.sets.level_ptr, want.level_ptr);
  }
  // Small patterns and a CPU caller stay on the host.
  EXPECT_EQ(levels_gpu::device_or_host_level_sets(L.rows, L.row_ptr, L.col_idx, Triangle::Lower, false).where,
            Device::Cpu);
  const Csr<double> small = extract_triangle(laplacian_3d<double>(10, 10, 10), Triangle::Lower);
  EXPECT_EQ(
      levels_gpu::device_or_host_level_sets(small.rows, small.row_ptr, small.col_idx, Triangle::Lower, true).where,
      Device::Cpu);
}

TEST(GpuLevelsDevice, BadArguments) {
  BALSA_REQUIRE_GPU();
  DeviceLevels d;
  EXPECT_THROW(levels_gpu::device_level_sets(-1, nullptr, nullptr, Triangle::Lower, d), DimensionError);
  EXPECT_THROW(levels_gpu::device_level_sets(5, nullptr, nullptr, Triangle::Lower, d), Error);
}

}  // namespace
}  // namespace balsa
