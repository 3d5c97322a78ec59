// TrsvAlgorithm::Auto's rule (trsv/auto_choice.cpp), each branch, and the
// component sizes it consults (trsv/tassl/tassl_partition.hpp).
#include <gtest/gtest.h>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "graph/components.hpp"
#include "trsv/auto_choice.hpp"
#include "trsv/tassl/tassl_partition.hpp"

namespace balsa {
namespace {

TrsvStats stats(index_t rows, index_t levels, index_t nnz = 0) {
  TrsvStats s;
  s.rows = rows;
  s.nnz = nnz > 0 ? nnz : 5 * rows;
  s.levels = levels;
  s.mean_level_width = double(rows) / levels;
  return s;
}

TEST(TrsvAuto, GpuRule) {
  int asked = 0;
  auto components = [&](index_t count, index_t largest) {
    return [&asked, count, largest] {
      ++asked;
      return trsv_auto::Components{count, largest};
    };
  };
  const auto gpu = Device::Cuda;
  EXPECT_EQ(trsv_auto::choose(stats(46500, 2), gpu, 1, 24000, components(1, 46500)), TrsvAlgorithm::LevelSet);
  EXPECT_EQ(trsv_auto::choose(stats(13436, 8), gpu, 1, 24000, components(1, 13436)), TrsvAlgorithm::Cusparse);
  EXPECT_EQ(trsv_auto::choose(stats(1374, 7), gpu, 1, 24000, components(1, 1374)), TrsvAlgorithm::Tassl);
  // Few levels, small and nearly empty (16 blocks of 250 rows at 0.1%): TASSL;
  // larger (16 blocks of 1,000) or denser (hangGlider_2): cuSPARSE.
  EXPECT_EQ(trsv_auto::choose(stats(4000, 4, 4471), gpu, 1, 24000, components(16, 250)), TrsvAlgorithm::Tassl);
  EXPECT_EQ(trsv_auto::choose(stats(16000, 7, 24031), gpu, 1, 24000, components(16, 1000)), TrsvAlgorithm::Cusparse);
  EXPECT_EQ(trsv_auto::choose(stats(1647, 6, 8567), gpu, 1, 24000, components(1, 1647)), TrsvAlgorithm::Cusparse);
  EXPECT_EQ(asked, 0) << "components are computed only for wide levels";
  EXPECT_EQ(trsv_auto::choose(stats(4096000, 478), gpu, 1, 24000, components(1, 4096000)), TrsvAlgorithm::SyncFreeBlocks);
  EXPECT_EQ(trsv_auto::choose(stats(1000000, 694, 13731796), gpu, 1, 24000, components(1, 1000000)),
            TrsvAlgorithm::Cusparse);  // 27-point: long rows
  EXPECT_EQ(trsv_auto::choose(stats(3072000, 155), gpu, 1, 24000, components(512, 6000)), TrsvAlgorithm::Tassl);
  EXPECT_EQ(trsv_auto::choose(stats(880000, 144, 880000 * 28), gpu, 1, 24000, components(16, 55000)),
            TrsvAlgorithm::Cusparse);
  EXPECT_EQ(trsv_auto::choose(stats(3072000, 155, 95217165), gpu, 1, 5000, components(512, 6000)),
            TrsvAlgorithm::Cusparse);
  EXPECT_EQ(asked, 5);
  EXPECT_EQ(trsv_auto::choose(stats(1000000, 142183), gpu, 1, 24000, components(1, 1000000)), TrsvAlgorithm::Tassl);
  EXPECT_EQ(trsv_auto::choose(stats(1000000, 142183), Device::Cpu, 1, 24000, components(1, 1)), TrsvAlgorithm::Reference);
}

// The CPU rule weighs the solves' threads: serial substitution with fewer
// than kLevelSetMinThreads (the 100^3 Laplacian's IC(0) factor: 10^6 rows,
// 298 levels), level-set on wide levels with more.
TEST(TrsvAuto, CpuRuleWeighsThreads) {
  const auto none = [] { return trsv_auto::Components{}; };
  const TrsvStats laplace = stats(1000000, 298, 3970000);
  EXPECT_EQ(trsv_auto::choose(laplace, Device::Cpu, 1, 24000, none), TrsvAlgorithm::Reference);
  EXPECT_EQ(trsv_auto::choose(laplace, Device::Cpu, 2, 24000, none), TrsvAlgorithm::Reference);
  EXPECT_EQ(trsv_auto::choose(laplace, Device::Cpu, trsv_auto::kLevelSetMinThreads, 24000, none),
            TrsvAlgorithm::LevelSet);
  EXPECT_EQ(trsv_auto::choose(laplace, Device::Cpu, 16, 24000, none), TrsvAlgorithm::LevelSet);
  EXPECT_EQ(trsv_auto::choose(stats(100000, 50), Device::Cpu, 16, 24000, none), TrsvAlgorithm::Reference);
}

TEST(TrsvAuto, ComponentSizes) {
  const Csr<double> B = random_block_diagonal_lower<double>(12, 300, 0.05, 2);
  const graph::ComponentSizes c = graph::component_sizes(B.rows, B.row_ptr, B.col_idx, Triangle::Lower);
  EXPECT_EQ(c.count, 12);
  EXPECT_EQ(c.largest, 300);
  const Csr<double> chain = chain_lower<double>(50);
  const graph::ComponentSizes one = graph::component_sizes(chain.rows, chain.row_ptr, chain.col_idx, Triangle::Lower);
  EXPECT_EQ(one.count, 1);
  EXPECT_EQ(one.largest, 50);
  // The upper triangle of a lower matrix holds no edge.
  EXPECT_EQ(graph::component_sizes(chain.rows, chain.row_ptr, chain.col_idx, Triangle::Upper).count, 0);
}

// The bound TriangularSolver's Auto uses to skip the component search: the
// components with an edge number at most the rows of level 0 (each has its
// first row in dependency order there), on both triangles.
TEST(TrsvAuto, LevelZeroBoundsTheComponents) {
  const Csr<double> cases[] = {random_block_diagonal_lower<double>(100, 50, 0.1, 3),
                               random_block_diagonal_lower<double>(7, 300, 0.02, 4),
                               random_lower_banded<double>(5000, 30, 2, 5), random_lower_banded<double>(3000, 4, 1, 6),
                               laplacian_3d<double>(12, 11, 10)};
  for (const Csr<double>& A : cases)
    for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
      const Csr<double> L = extract_triangle(A, Triangle::Lower);
      const Csr<double> M = tri == Triangle::Lower ? L : transpose(L);
      const index_t count = graph::component_sizes(M.rows, M.row_ptr, M.col_idx, tri).count;
      const LevelSets levels = level_sets(M, tri);
      EXPECT_GE(count, 1);
      EXPECT_LE(count, levels.width(0));
    }
}

}  // namespace
}  // namespace balsa
