// The plan of the sync-free-blocks solve (trsv/sync_free_blocks/sync_free_blocks_plan.hpp):
// the invariants its kernel relies on, for lower and upper triangles and for
// chunk counts from one to more than the rows.
#include <algorithm>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "support/test_support.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_plan.hpp"

namespace balsa {
namespace {

void expect_valid_plan(const Csr<double>& A, Triangle tri, index_t chunks) {
  const std::vector<index_t> level = dependency_levels(A.rows, A.row_ptr, A.col_idx, tri);
  std::vector<index_t> work(std::size_t(A.rows));
  for (index_t i = 0; i < A.rows; ++i) work[std::size_t(i)] = A.row_ptr[i + 1] - A.row_ptr[i] + 1;
  const trsv_gpu::detail::SyncFreeBlocksPlan p = trsv_gpu::detail::plan_sync_free_blocks(level, work, tri, chunks);
  ASSERT_EQ(p.chunks, std::min(chunks, A.rows));
  ASSERT_NO_THROW(check_permutation(p.order, A.rows));
  const std::vector<index_t> pos = inverse_permutation(p.order);
  std::vector<index_t> chunk_of(std::size_t(A.rows)), step_of(std::size_t(A.rows));
  ASSERT_EQ(p.chunk_ptr.front(), 0);
  ASSERT_EQ(p.chunk_ptr.back(), A.rows);
  ASSERT_EQ(p.step_ptr.back(), A.rows);
  for (index_t c = 0; c < p.chunks; ++c) {
    ASSERT_LT(p.chunk_ptr[c], p.chunk_ptr[c + 1]) << "chunk " << c << " is empty";
    ASSERT_EQ(p.step_ptr[p.chunk_step[c]], p.chunk_ptr[c]);
    ASSERT_EQ(p.step_ptr[p.chunk_step[c + 1]], p.chunk_ptr[c + 1]);
    for (index_t s = p.chunk_step[c]; s < p.chunk_step[c + 1]; ++s) {
      ASSERT_LT(p.step_ptr[s], p.step_ptr[s + 1]) << "empty step";
      const index_t l = level[std::size_t(p.order[std::size_t(p.step_ptr[s])])];
      for (index_t k = p.step_ptr[s]; k < p.step_ptr[s + 1]; ++k) {
        EXPECT_EQ(level[std::size_t(p.order[std::size_t(k)])], l) << "a step mixes levels";
        chunk_of[std::size_t(k)] = c;
        step_of[std::size_t(k)] = s;
      }
      if (s > p.chunk_step[c]) {
        EXPECT_GT(l, level[std::size_t(p.order[std::size_t(p.step_ptr[s - 1])])]);
      }
    }
  }
  // Every dependency: an earlier chunk, or an earlier step of the same chunk.
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t q = A.row_ptr[i]; q < A.row_ptr[i + 1]; ++q) {
      const index_t j = A.col_idx[q];
      if (j == i) continue;
      const std::size_t ki = std::size_t(pos[std::size_t(i)]), kj = std::size_t(pos[std::size_t(j)]);
      if (chunk_of[kj] == chunk_of[ki])
        EXPECT_LT(step_of[kj], step_of[ki]) << "row " << i << " waits on row " << j << " of its own step";
      else
        EXPECT_LT(chunk_of[kj], chunk_of[ki]) << "row " << i << " waits on a later chunk";
    }
}

TEST(SyncFreeBlocksPlan, InvariantsHoldForLowerAndUpperTriangles) {
  const Csr<double> A = laplacian_3d<double>(9, 8, 7);
  for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
    const Csr<double> L = extract_triangle(A, tri);
    for (const index_t chunks : {1, 2, 7, 64, 504, 600}) {
      SCOPED_TRACE("chunks " + std::to_string(chunks) + (tri == Triangle::Lower ? " lower" : " upper"));
      expect_valid_plan(L, tri, chunks);
    }
  }
  const Csr<double> B = random_lower_banded<double>(3000, 50, 4, 3);
  expect_valid_plan(B, Triangle::Lower, 13);
  expect_valid_plan(transpose(B), Triangle::Upper, 13);
}

TEST(SyncFreeBlocksPlan, ChunksBalanceWorkAndCountSteps) {
  const Csr<double> L = extract_triangle(laplacian_3d<double>(20, 20, 20), Triangle::Lower);
  const std::vector<index_t> level = dependency_levels(L.rows, L.row_ptr, L.col_idx, Triangle::Lower);
  std::vector<index_t> work(std::size_t(L.rows), 1);
  const auto p = trsv_gpu::detail::plan_sync_free_blocks(level, work, Triangle::Lower, 10);
  for (index_t c = 0; c < 10; ++c) EXPECT_EQ(p.chunk_ptr[c + 1] - p.chunk_ptr[c], 800);  // two z-planes each
  // Two planes of a 20^3 grid span 20 + 20 - 1 + 1 = 40 levels.
  EXPECT_EQ(p.most_steps, 40);
  EXPECT_EQ(p.steps(), 400);
}

TEST(SyncFreeBlocksPlan, EmptyMatrix) {
  const auto p = trsv_gpu::detail::plan_sync_free_blocks({}, {}, Triangle::Lower, 4);
  EXPECT_EQ(p.chunks, 0);
  EXPECT_EQ(p.steps(), 0);
}

}  // namespace
}  // namespace balsa
