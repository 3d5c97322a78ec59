// The per-step ELL layout of the sync-free-blocks solve
// (trsv/sync_free_blocks/sync_free_blocks_layout.hpp): its slots hold exactly the
// off-diagonal entries (each once, padding -1/0), widths respect the cap,
// overflow rows are flagged, and solving through the layout on the CPU
// (the device algorithm's order of reads, step by step) reproduces
// trsv_reference, for lower and upper triangles, several lane counts and caps,
// with new values gathered through the value maps.
#include <algorithm>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "support/test_support.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"

namespace balsa {
namespace {

using trsv_gpu::detail::kStepOverflow;
using trsv_gpu::detail::kStepWidthMask;

void expect_layout_solves(const Csr<double>& A, Triangle tri, DiagonalKind diag, index_t chunks, int lanes, int cap) {
  SCOPED_TRACE("chunks " + std::to_string(chunks) + " lanes " + std::to_string(lanes) + " cap " +
               std::to_string(cap) + (tri == Triangle::Lower ? " lower" : " upper") +
               (diag == DiagonalKind::Unit ? " unit" : ""));
  const std::vector<index_t> level = dependency_levels(A.rows, A.row_ptr, A.col_idx, tri);
  std::vector<index_t> work(std::size_t(A.rows));
  for (index_t i = 0; i < A.rows; ++i) work[std::size_t(i)] = A.row_ptr[i + 1] - A.row_ptr[i] + 1;
  const auto plan = trsv_gpu::detail::plan_sync_free_blocks(level, work, tri, chunks);
  const auto pattern = trsv_gpu::detail::split_diagonal(A, diag, plan.order);
  const auto L = trsv_gpu::detail::layout_sync_free_blocks(plan, pattern, lanes, cap);

  // Every off-diagonal entry of A in exactly one slot or overflow entry.
  std::vector<int> seen(A.values.size(), 0);
  ASSERT_EQ(L.steps.size(), std::size_t(plan.steps()));
  std::size_t slots = 0;
  for (const auto& s : L.steps) {
    const index_t width = s.flags & kStepWidthMask;
    EXPECT_LE(width, cap);
    EXPECT_EQ(std::size_t(s.ell_base), slots);
    slots += std::size_t(width) * std::size_t(s.end - s.begin) * std::size_t(lanes);
    bool long_row = false;
    for (index_t k = s.begin; k < s.end; ++k)
      long_row = long_row || pattern.row_ptr[k + 1] - pattern.row_ptr[k] > width * lanes;
    EXPECT_EQ((s.flags & kStepOverflow) != 0, long_row);
  }
  ASSERT_EQ(L.ell_dep.size(), slots);
  for (std::size_t e = 0; e < slots; ++e) {
    EXPECT_EQ(L.ell_dep[e] < 0, L.ell_value_pos[e] < 0);
    if (L.ell_value_pos[e] >= 0) ++seen[std::size_t(L.ell_value_pos[e])];
  }
  for (const index_t p : L.ovf_value_pos) ++seen[std::size_t(p)];
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      EXPECT_EQ(seen[std::size_t(p)], A.col_idx[p] == i ? 0 : 1) << "entry " << p;

  // Solving through the layout reproduces the reference, with A's values and
  // with new ones (the value maps).
  const std::vector<double> b = random_vector<double>(A.rows, 7);
  for (const bool rescale : {false, true}) {
    std::vector<double> values = A.values;
    if (rescale)
      for (std::size_t p = 0; p < values.size(); ++p) values[p] *= 0.5 + 0.25 * double(p % 3);
    Csr<double> B = A;
    B.values = values;
    std::vector<double> ref(std::size_t(A.rows));
    trsv_reference<double>(B, tri, diag, b, ref);
    std::vector<double> x;
    ASSERT_NO_THROW(x = trsv_gpu::detail::solve_through_layout<double>(plan, L, values, b));
    EXPECT_LT(test::relative_error<double>(x, ref), 1e-12);
  }
}

TEST(SyncFreeBlocksLayout, SolvesLikeTheReference) {
  const Csr<double> A = laplacian_3d<double>(9, 8, 7, Stencil3d::Point27);
  for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
    const Csr<double> L = extract_triangle(A, tri);
    for (const index_t chunks : {1, 7, 504, 600})
      for (const int lanes : {1, 4, 32})
        for (const int cap : {1, 4}) expect_layout_solves(L, tri, DiagonalKind::NonUnit, chunks, lanes, cap);
    expect_layout_solves(L, tri, DiagonalKind::Unit, 13, 8, 2);
  }
  const Csr<double> B = random_lower_banded<double>(3000, 50, 9, 3);
  for (const int lanes : {1, 4, 16}) {
    expect_layout_solves(B, Triangle::Lower, DiagonalKind::NonUnit, 13, lanes, 4);
    expect_layout_solves(transpose(B), Triangle::Upper, DiagonalKind::NonUnit, 13, lanes, 4);
  }
  const Csr<double> D = random_block_diagonal_lower<double>(4, 60, 0.3, 5);
  expect_layout_solves(D, Triangle::Lower, DiagonalKind::NonUnit, 3, 4, 4);
}

TEST(SyncFreeBlocksLayout, EmptyMatrix) {
  const auto plan = trsv_gpu::detail::plan_sync_free_blocks({}, {}, Triangle::Lower, 4);
  trsv_gpu::detail::OffDiagonal pattern;
  const auto L = trsv_gpu::detail::layout_sync_free_blocks(plan, pattern, 4, 4);
  EXPECT_TRUE(L.steps.empty());
  EXPECT_TRUE(L.ell_dep.empty());
}

}  // namespace
}  // namespace balsa
