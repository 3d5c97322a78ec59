// The warp batches of the dataflow sync-free-blocks solve
// (trsv/sync_free_blocks/sync_free_blocks_batches.hpp).
#include "trsv/sync_free_blocks/sync_free_blocks_batches.hpp"

#include <algorithm>

namespace balsa::trsv_gpu::detail {

SyncFreeBlocksBatches batch_sync_free_blocks(const SyncFreeBlocksPlan& plan, const SyncFreeBlocksLayout& L) {
  if (L.lanes != 1) throw Error("batch_sync_free_blocks: the dataflow solve takes a one-lane layout");
  if (L.cap > 0xff) throw Error("batch_sync_free_blocks: at most 255 slots a row");
  SyncFreeBlocksBatches B;
  B.chunk_batch.assign(std::size_t(plan.chunks) + 1, 0);
  for (index_t c = 0; c < plan.chunks; ++c) {
    B.chunk_batch[std::size_t(c)] = index_t(B.batches.size());
    B.largest_chunk = std::max(B.largest_chunk, plan.chunk_ptr[std::size_t(c) + 1] - plan.chunk_ptr[std::size_t(c)]);
    for (index_t s = plan.chunk_step[std::size_t(c)]; s < plan.chunk_step[std::size_t(c) + 1]; ++s) {
      const SyncFreeBlocksStep& st = L.steps[std::size_t(s)];
      const index_t W = st.end - st.begin, width = st.flags & kStepWidthMask;
      const index_t overflow = (st.flags & kStepOverflow) ? kBatchOverflow : 0;
      for (index_t j0 = 0; j0 < W; j0 += 32) {
        const index_t rows = std::min<index_t>(32, W - j0);
        B.batches.push_back({st.begin + j0, st.ell_base + j0, W, rows | width << 8 | overflow});
      }
    }
  }
  B.chunk_batch[std::size_t(plan.chunks)] = index_t(B.batches.size());
  return B;
}

}  // namespace balsa::trsv_gpu::detail
