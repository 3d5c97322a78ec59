// Internal (host): the plan of the sync-free-blocks triangular solve
// (TrsvAlgorithm::SyncFreeBlocks, trsv/sync_free_blocks/sync_free_blocks.cu).
//
// The rows, in dependency order (Lower: increasing row index; Upper:
// decreasing), are cut into `chunks` runs of consecutive rows of about equal
// work (entries + 1 per row). One thread block solves one chunk, level step
// by level step: the chunk's rows of one dependency level in parallel, then a
// block barrier. A dependency inside the chunk is then already visible; one
// in an earlier chunk is waited on row by row (Liu et al. 2016's sync-free
// wait, at block granularity). Dependencies point only to earlier chunks or
// earlier steps of the same chunk, so a block never waits for a later one.
//
// Positions: chunk-major, then level, then dependency order. Every array of
// the device solve is indexed by position.
#pragma once

#include <span>
#include <vector>

#include "balsa/graph.hpp"
#include "balsa/sparse.hpp"

namespace balsa::trsv_gpu::detail {

struct SyncFreeBlocksPlan {
  index_t chunks = 0;
  std::vector<index_t> order;       // position -> row
  std::vector<index_t> chunk_ptr;   // chunk c holds positions [chunk_ptr[c], chunk_ptr[c+1])
  std::vector<index_t> chunk_step;  // chunk c's steps are [chunk_step[c], chunk_step[c+1])
  std::vector<index_t> step_ptr;    // step s holds positions [step_ptr[s], step_ptr[s+1])
  index_t steps() const { return index_t(step_ptr.size()) - 1; }
  index_t most_steps = 0;  // steps of the chunk with the most
  index_t widest_step = 0;  // rows of the widest step
};

// row_work[i]: the cost of row i (its stored entries + 1). level[i]: its
// dependency level (graph dependency_levels of the triangle solved).
SyncFreeBlocksPlan plan_sync_free_blocks(std::span<const index_t> level, std::span<const index_t> row_work,
                                         Triangle tri, index_t chunks);

}  // namespace balsa::trsv_gpu::detail
