// device_or_host_level_sets (graph/levels_placed.cpp) without a GPU in use:
// the host's level sets, with the reason; and the thread's rule
// (levels_gpu::ScopedRule) restored when scopes end. Runs everywhere.
#include <gtest/gtest.h>

#include <string>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "graph/levels_device.hpp"

namespace balsa {
namespace {

TEST(LevelsPlaced, WithoutAGpuTheHostAnswers) {
  const Csr<double> L = extract_triangle(laplacian_3d<double>(30, 30, 30), Triangle::Lower);
  const LevelSets want = level_sets(L, Triangle::Lower);
  const levels_gpu::PlacedLevels p =
      levels_gpu::device_or_host_level_sets(L.rows, L.row_ptr, L.col_idx, Triangle::Lower, /*gpu=*/false);
  EXPECT_EQ(p.where, Device::Cpu);
  EXPECT_EQ(p.reason, "no GPU in use");
  EXPECT_EQ(p.sets.rows, want.rows);
  EXPECT_EQ(p.sets.level_ptr, want.level_ptr);
  const Csr<double> U = transpose(L);
  const levels_gpu::PlacedLevels q =
      levels_gpu::device_or_host_level_sets(U.rows, U.row_ptr, U.col_idx, Triangle::Upper, false);
  EXPECT_EQ(q.sets.level_ptr, level_sets(U, Triangle::Upper).level_ptr);
}

TEST(LevelsPlaced, ScopedRulesNestAndRestore) {
  EXPECT_EQ(levels_gpu::current_rule().memory_budget, 0u);
  {
    const levels_gpu::ScopedRule outer({.memory_budget = 100});
    EXPECT_EQ(levels_gpu::current_rule().memory_budget, 100u);
    {
      const levels_gpu::ScopedRule inner({.force_host = true});
      EXPECT_TRUE(levels_gpu::current_rule().force_host);
      EXPECT_EQ(levels_gpu::current_rule().memory_budget, 0u);
    }
    EXPECT_EQ(levels_gpu::current_rule().memory_budget, 100u);
    EXPECT_FALSE(levels_gpu::current_rule().force_host);
  }
  EXPECT_EQ(levels_gpu::current_rule().memory_budget, 0u);
}

}  // namespace
}  // namespace balsa
