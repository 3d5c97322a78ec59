// Internal (host): the per-step ELL layout of the sync-free-blocks solve
// (trsv/sync_free_blocks/sync_free_blocks.cu), built from its plan
// (trsv/sync_free_blocks/sync_free_blocks_plan.hpp).
//
// Each level step s (positions [begin, end), W = end - begin rows) is one
// slice of a sliced ELL: G lanes share a row; lane g of the step's j-th row
// holds the row's off-diagonal entries g, g + G, ... in slots
//   ell_base + (t * W + j) * G + g,   t < width (at most `cap`),
// so that a warp's loads of one t are 32 consecutive slots and a step's
// data is one contiguous run (a step needs no row pointers). A padded slot
// has dep -1 and value 0. A row with more than width * G entries keeps the
// rest in an overflow CSR by position (the step's meta says whether it has
// any). Per slot the layout keeps the position in A.values its value comes
// from (-1: padding), so new values are one gather (host or device).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "balsa/error.hpp"
#include "trsv/off_diagonal.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_plan.hpp"

namespace balsa::trsv_gpu::detail {

// meta.flags: the width per lane in the low bits, kStepOverflow when a row
// of the step has overflow entries.
constexpr index_t kStepOverflow = index_t(1) << 30;
constexpr index_t kStepWidthMask = kStepOverflow - 1;

struct SyncFreeBlocksStep {  // 16 bytes: read as one int4 on the device
  index_t begin, end, ell_base, flags;
};
static_assert(sizeof(SyncFreeBlocksStep) == 4 * sizeof(index_t));

struct SyncFreeBlocksLayout {
  int lanes = 1;
  int cap = 0;
  std::vector<SyncFreeBlocksStep> steps;  // one per plan step
  std::vector<index_t> ell_dep;           // slot -> position depended on, -1: padding
  std::vector<index_t> ell_value_pos;     // slot -> position in A.values, -1: padding
  std::vector<index_t> ovf_ptr;           // position k's overflow entries: [ovf_ptr[k], ovf_ptr[k+1])
  std::vector<index_t> ovf_dep;
  std::vector<index_t> ovf_value_pos;
  std::vector<index_t> diag_pos;          // position -> diagonal's position in A.values, -1: 1 (Unit)
};

// pattern: A's off-diagonal part with its rows in plan order
// (split_diagonal(A, diag, plan.order)); lanes G >= 1; cap >= 1 slots per
// lane at most.
SyncFreeBlocksLayout layout_sync_free_blocks(const SyncFreeBlocksPlan& plan, const OffDiagonal& pattern, int lanes,
                                             int cap);

// Row k's x in a CPU emulation: its `width` slots (slot_of(t)) and, when
// `overflow`, its overflow entries, each dependency through read(position).
template <class T, class SlotOf, class Read>
T emulate_row(const SyncFreeBlocksLayout& L, index_t k, index_t width, bool overflow, SlotOf slot_of,
              std::span<const T> values, T bk, Read read) {
  auto value = [&](index_t pos) { return pos < 0 ? T(0) : values[std::size_t(pos)]; };
  T sum = T(0);
  for (index_t t = 0; t < width; ++t) {
    const std::size_t slot = slot_of(t);
    sum += value(L.ell_value_pos[slot]) * read(L.ell_dep[slot]);
  }
  if (overflow)
    for (index_t e = L.ovf_ptr[std::size_t(k)]; e < L.ovf_ptr[std::size_t(k) + 1]; ++e)
      sum += value(L.ovf_value_pos[std::size_t(e)]) * read(L.ovf_dep[std::size_t(e)]);
  const index_t dp = L.diag_pos[std::size_t(k)];
  return (bk - sum) / (dp < 0 ? T(1) : value(dp));
}

// A CPU emulation of the device solve through the layout: step by step,
// each row from its slots and overflow entries, reading only positions of
// earlier steps (a dependency on a later or the same step throws). x by row.
template <class T>
std::vector<T> solve_through_layout(const SyncFreeBlocksPlan& plan, const SyncFreeBlocksLayout& L,
                                    std::span<const T> values, std::span<const T> b) {
  const std::size_t n = plan.order.size();
  std::vector<T> xp(n), x(n);
  std::vector<char> done(n, 0);
  auto read = [&](index_t d) {
    if (d < 0) return T(0);
    if (!done[std::size_t(d)]) throw Error("solve_through_layout: a dependency is not solved before its step");
    return xp[std::size_t(d)];
  };
  for (const SyncFreeBlocksStep& s : L.steps) {
    const index_t W = s.end - s.begin, width = s.flags & kStepWidthMask;
    for (index_t j = 0; j < W; ++j) {
      const index_t k = s.begin + j;
      // Lane g's slot t holds the row's entry t * G + g: summed lane by lane.
      xp[std::size_t(k)] = emulate_row<T>(
          L, k, width * L.lanes, (s.flags & kStepOverflow) != 0,
          [&](index_t r) {
            const index_t t = r / L.lanes, g = r % L.lanes;
            return std::size_t(s.ell_base) + std::size_t((t * W + j) * L.lanes + g);
          },
          values, b[std::size_t(plan.order[std::size_t(k)])], read);
    }
    for (index_t k = s.begin; k < s.end; ++k) done[std::size_t(k)] = 1;  // visible after the step's barrier
  }
  for (std::size_t k = 0; k < n; ++k) x[std::size_t(plan.order[k])] = xp[k];
  return x;
}

}  // namespace balsa::trsv_gpu::detail
