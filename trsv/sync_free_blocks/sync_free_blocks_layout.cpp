// The per-step ELL layout of the sync-free-blocks solve
// (trsv/sync_free_blocks/sync_free_blocks_layout.hpp).
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "core/parallel.hpp"

namespace balsa::trsv_gpu::detail {

namespace {

// Pass 1 for step s: its rows, its width per lane (at most cap) and whether
// a row overflows; returns the step's slots.
std::int64_t shape_step(const SyncFreeBlocksPlan& plan, const OffDiagonal& pattern, index_t G, int cap, index_t s,
                        SyncFreeBlocksStep& st) {
  st.begin = plan.step_ptr[std::size_t(s)];
  st.end = plan.step_ptr[std::size_t(s) + 1];
  index_t longest = 0;
  for (index_t k = st.begin; k < st.end; ++k) longest = std::max(longest, pattern.row_ptr[k + 1] - pattern.row_ptr[k]);
  const index_t width = std::min<index_t>((longest + G - 1) / G, cap);
  st.flags = width | (longest > width * G ? kStepOverflow : 0);
  return std::int64_t(width) * (st.end - st.begin) * G;
}

// Pass 2 for one step: its rows' entries into the slots (entry r of a row:
// lane r % G, slot row t = r / G) and the rest into the overflow CSR.
void fill_step(const SyncFreeBlocksStep& st, const OffDiagonal& pattern, std::span<const index_t> pos_of, index_t G,
               SyncFreeBlocksLayout& L) {
  const index_t W = st.end - st.begin, width = st.flags & kStepWidthMask;
  for (index_t j = 0; j < W; ++j) {
    const index_t k = st.begin + j;
    const index_t p0 = pattern.row_ptr[k], len = pattern.row_ptr[k + 1] - p0;
    for (index_t r = 0; r < len; ++r) {
      const index_t p = p0 + r, dep = pos_of[std::size_t(pattern.col_idx[p])];
      if (r < width * G) {
        const std::size_t slot = std::size_t(st.ell_base) + std::size_t(((r / G) * W + j) * G + r % G);
        L.ell_dep[slot] = dep;
        L.ell_value_pos[slot] = pattern.value_pos[p];
      } else {
        const std::size_t e = std::size_t(L.ovf_ptr[std::size_t(k)] + (r - width * G));
        L.ovf_dep[e] = dep;
        L.ovf_value_pos[e] = pattern.value_pos[p];
      }
    }
  }
}

}  // namespace

// Both passes run over the steps in parallel; prefix sums place each step's
// slots (ell_base) and each position's overflow entries (ovf_ptr).
SyncFreeBlocksLayout layout_sync_free_blocks(const SyncFreeBlocksPlan& plan, const OffDiagonal& pattern, int lanes,
                                             int cap) {
  if (lanes < 1 || cap < 1) throw Error("layout_sync_free_blocks: lanes and cap must be positive");
  const index_t n = index_t(plan.order.size());
  if (pattern.n != n) throw DimensionError("layout_sync_free_blocks: pattern and plan sizes differ");
  SyncFreeBlocksLayout L;
  L.lanes = lanes;
  L.cap = cap;
  L.diag_pos = parallel::fresh_copy(pattern.diag_pos);
  const std::vector<index_t> pos_of = inverse_permutation(plan.order);
  const index_t G = lanes, steps = plan.steps();
  const bool par = n > parallel::kParallelMin;
  // Pass 1: each step's shape; slot_end[s + 1]: the slots of steps 0..s.
  L.steps.resize(std::size_t(steps));
  std::vector<std::int64_t> slot_end(std::size_t(steps) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (index_t s = 0; s < steps; ++s)
    slot_end[std::size_t(s) + 1] = shape_step(plan, pattern, G, cap, s, L.steps[std::size_t(s)]);
  parallel::prefix_sum(slot_end);
  if (const index_t s = parallel::first_where(steps, [&](index_t t) { return slot_end[std::size_t(t) + 1] > INT_MAX; });
      s < steps)
    throw IndexOverflow("SyncFreeBlocks: the ELL layout needs " + std::to_string(slot_end[std::size_t(s) + 1]) +
                        " slots, more than 32-bit indices address");
  for (index_t s = 0; s < steps; ++s) L.steps[std::size_t(s)].ell_base = index_t(slot_end[std::size_t(s)]);
  // The overflow CSR's row pointer: a position's entries beyond its step's slots.
  parallel::fresh_assign(L.ovf_ptr, std::size_t(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (index_t s = 0; s < steps; ++s) {
    const SyncFreeBlocksStep& st = L.steps[std::size_t(s)];
    const index_t in_slots = (st.flags & kStepWidthMask) * G;
    for (index_t k = st.begin; k < st.end; ++k)
      L.ovf_ptr[std::size_t(k) + 1] = std::max<index_t>(0, pattern.row_ptr[k + 1] - pattern.row_ptr[k] - in_slots);
  }
  parallel::prefix_sum(L.ovf_ptr);
  // Pass 2: fill the slots (padding: -1) and the overflow entries.
  parallel::fresh_assign(L.ell_dep, std::size_t(slot_end.back()), -1);
  parallel::fresh_assign(L.ell_value_pos, std::size_t(slot_end.back()), -1);
  parallel::fresh_assign(L.ovf_dep, std::size_t(L.ovf_ptr.back()));
  parallel::fresh_assign(L.ovf_value_pos, std::size_t(L.ovf_ptr.back()));
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (index_t s = 0; s < steps; ++s) fill_step(L.steps[std::size_t(s)], pattern, pos_of, G, L);
  return L;
}

}  // namespace balsa::trsv_gpu::detail
