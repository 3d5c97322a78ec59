// The per-step ELL layout of the sync-free-blocks solve
// (trsv/sync_free_blocks_layout.hpp).
#include "trsv/sync_free_blocks_layout.hpp"

#include <algorithm>
#include <climits>
#include <string>

namespace balsa::trsv_gpu::detail {

SyncFreeBlocksLayout layout_sync_free_blocks(const SyncFreeBlocksPlan& plan, const OffDiagonal& pattern, int lanes,
                                             int cap) {
  if (lanes < 1 || cap < 1) throw Error("layout_sync_free_blocks: lanes and cap must be positive");
  const index_t n = index_t(plan.order.size());
  if (pattern.n != n) throw DimensionError("layout_sync_free_blocks: pattern and plan sizes differ");
  SyncFreeBlocksLayout L;
  L.lanes = lanes;
  L.cap = cap;
  L.diag_pos = pattern.diag_pos;
  const std::vector<index_t> pos_of = inverse_permutation(plan.order);
  const index_t G = lanes;
  // Pass 1: each step's width per lane and where its slots start.
  std::int64_t slots = 0;
  L.steps.resize(std::size_t(plan.steps()));
  for (index_t s = 0; s < plan.steps(); ++s) {
    SyncFreeBlocksStep& st = L.steps[std::size_t(s)];
    st.begin = plan.step_ptr[std::size_t(s)];
    st.end = plan.step_ptr[std::size_t(s) + 1];
    index_t longest = 0;
    for (index_t k = st.begin; k < st.end; ++k) longest = std::max(longest, pattern.row_ptr[k + 1] - pattern.row_ptr[k]);
    const index_t width = std::min<index_t>((longest + G - 1) / G, cap);
    st.ell_base = index_t(slots);
    st.flags = width | (longest > width * G ? kStepOverflow : 0);
    slots += std::int64_t(width) * (st.end - st.begin) * G;
    if (slots > INT_MAX)
      throw IndexOverflow("SyncFreeBlocks: the ELL layout needs " + std::to_string(slots) +
                          " slots, more than 32-bit indices address");
  }
  // Pass 2: fill the slots and the overflow CSR. Entry r of a row: lane r % G, slot row t = r / G.
  L.ell_dep.assign(std::size_t(slots), -1);
  L.ell_value_pos.assign(std::size_t(slots), -1);
  L.ovf_ptr.assign(std::size_t(n) + 1, 0);
  for (const SyncFreeBlocksStep& st : L.steps) {
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
          L.ovf_dep.push_back(dep);
          L.ovf_value_pos.push_back(pattern.value_pos[p]);
        }
      }
      L.ovf_ptr[std::size_t(k) + 1] = index_t(L.ovf_dep.size());
    }
  }
  return L;
}

}  // namespace balsa::trsv_gpu::detail
