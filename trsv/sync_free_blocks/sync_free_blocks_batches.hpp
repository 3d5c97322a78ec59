// Internal (host): the warp batches of the dataflow variant of the
// sync-free-blocks solve (trsv/sync_free_blocks/sync_free_blocks_dataflow.cuh).
//
// Each level step of the layout (trsv/sync_free_blocks/sync_free_blocks_layout.hpp, one lane
// a row) is cut into batches of at most 32 consecutive rows, one warp's
// work. A batch never spans two steps, so no row of a batch depends on
// another row of the same batch. A chunk's batches are in step order; warp w
// of the chunk's block solves batches w, w + warps, ... and waits on each
// dependency itself (a value in shared memory for this chunk, in global
// memory for an earlier one): no block barrier between steps.
#pragma once

#include <span>
#include <vector>

#include "balsa/error.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"

namespace balsa::trsv_gpu::detail {

// One batch, read as one int4 on the device: rows begin..begin+rows-1
// (positions), slot t of its lane j at slot0 + t * stride + j.
struct SyncFreeBlocksBatch {
  index_t begin, slot0, stride, flags;  // flags: rows | width << 8 | kBatchOverflow
};
static_assert(sizeof(SyncFreeBlocksBatch) == 4 * sizeof(index_t));
constexpr index_t kBatchOverflow = index_t(1) << 16;
constexpr index_t batch_rows(index_t flags) { return flags & 0xff; }
constexpr index_t batch_width(index_t flags) { return (flags >> 8) & 0xff; }

struct SyncFreeBlocksBatches {
  std::vector<SyncFreeBlocksBatch> batches;
  std::vector<index_t> chunk_batch;  // chunk c's batches: [chunk_batch[c], chunk_batch[c+1])
  index_t largest_chunk = 0;         // positions of the largest chunk (its shared-memory array)
};

// The batches of a one-lane layout (L.lanes == 1).
SyncFreeBlocksBatches batch_sync_free_blocks(const SyncFreeBlocksPlan& plan, const SyncFreeBlocksLayout& L);

// A CPU emulation of the dataflow solve: batches in order, each row reading
// only positions of earlier batches (a dependency on the same or a later
// batch throws). x by row.
template <class T>
std::vector<T> solve_through_batches(const SyncFreeBlocksPlan& plan, const SyncFreeBlocksLayout& L,
                                     const SyncFreeBlocksBatches& B, std::span<const T> values, std::span<const T> b) {
  const std::size_t n = plan.order.size();
  std::vector<T> xp(n), x(n);
  std::vector<char> done(n, 0);
  auto read = [&](index_t d) {
    if (d < 0) return T(0);
    if (!done[std::size_t(d)]) throw Error("solve_through_batches: a dependency is not solved before its batch");
    return xp[std::size_t(d)];
  };
  for (const SyncFreeBlocksBatch& q : B.batches) {
    const index_t rows = batch_rows(q.flags);
    for (index_t j = 0; j < rows; ++j) {
      const index_t k = q.begin + j;
      xp[std::size_t(k)] = emulate_row<T>(
          L, k, batch_width(q.flags), (q.flags & kBatchOverflow) != 0,
          [&](index_t t) { return std::size_t(q.slot0) + std::size_t(t) * std::size_t(q.stride) + std::size_t(j); },
          values, b[std::size_t(plan.order[std::size_t(k)])], read);
    }
    for (index_t k = q.begin; k < q.begin + rows; ++k) done[std::size_t(k)] = 1;
  }
  for (std::size_t k = 0; k < n; ++k) x[std::size_t(plan.order[k])] = xp[k];
  return x;
}

}  // namespace balsa::trsv_gpu::detail
