// TASSL on the GPU, host side: the schedule of tassl_schedule.hpp laid out as
// the solve kernel (trsv/tassl/tassl.cu, thesis Alg. 3.2) reads it. Plain C++, so
// that a CPU emulation of the kernel can check it (tests/trsv/tassl_layout_test).
//
// Positions: the vertices renumbered sub-graph by sub-graph (the TASSL
// permutation; isolated vertices V0 first). A GPU block runs one sub-graph,
// whose vertices are positions [base, base + size), local indices 0..size-1
// in its shared-memory x_loc.
//
// One launch per sub-graph level; `width` lanes run the rounds (the block may
// have more threads for the loads and stores). A block
//  1. loads x_loc[u] = b_v / l_vv for its vertices; then, for each of its
//     "external rows" (vertices with external in-edges), subtracts
//     sum (l_vj / l_vv) x_j over them, one thread per external row: this runs
//     the external slots (the k-th external edge into v is in external slot k)
//     by vertex, so no two threads write the same x_loc entry and the external
//     slots need no barrier between them;
//  2. runs the internal slots: slot q is ceil(edges / width) "rounds" of
//     `width` entries (the last one padded), a barrier of the `width` lanes
//     after each round; lane t applies entry t of the round:
//     x_loc[to] -= (l_to,from / l_to,to) x_loc[from];
//  3. writes x_v = x_loc[u].
// Internal entries are packed as (to << 16 | from): a sub-graph has at most
// 65,535 vertices (kMaxSubgraphVertices), so local indices and the pad value
// never collide. Entry offsets are 64-bit.
//
// The arrays, e.g. two launches (sub-graphs s0, s1 of level 0, s2 of level 1):
//
//   order:   | V0          | s0's vertices | s1's vertices | s2's vertices |
//   position 0             isolated                                       (block b: [base, base + size))
//   blocks:  launch 0 = [block s0][block s1][V0 chunk]...   launch 1 = [block s2]
//
// One block's internal entries (int_key / int_value from entry_begin) at
// width 4 (really 32 .. 1024), slots of 6, 3 and 4 edges: a round per line,
// lane t applies entry t of it, a barrier of the lanes after each round.
//
//                lane 0  lane 1  lane 2  lane 3
//   slot 0     [   e       e       e       e   ]   round 0
//              [   e       e      pad     pad  ]   round 1
//   slot 1     [   e       e       e      pad  ]   round 2
//   slot 2     [   e       e       e       e   ]   round 3    rounds = 4
//
// Its external rows r in [ext_row_begin, ext_row_end): position ext_rows[r],
// edges ext_from / ext_value [ext_ptr[r], ext_ptr[r + 1]), one thread per row.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "balsa/sparse.hpp"
#include "balsa/trsv_model.hpp"  // kMaxSubgraphVertices
#include "trsv/tassl/tassl_partition.hpp"
#include "trsv/tassl/tassl_schedule.hpp"

namespace balsa::tassl {

inline constexpr std::uint32_t kPadEntry = 0xFFFFFFFFu;
// Threads of a block: max(width, this) (the loads and stores of phases 1 and 3).
inline constexpr int kMinBlockThreads = 512;
// Shared memory the kernel keeps beside x_loc for staging rounds (trsv/tassl/tassl.cu).
inline constexpr std::size_t kStagingBytes = 32 * 1024;

// The default n_max for values of `value_bytes` on a device whose blocks may
// opt in to `shared_bytes` of shared memory: x_loc beside the staging area,
// within the 16-bit slot indices.
constexpr index_t default_n_max(std::size_t shared_bytes, std::size_t value_bytes) {
  const std::size_t fit = (shared_bytes - kStagingBytes - 16) / value_bytes;
  return fit < std::size_t(kMaxSubgraphVertices) ? index_t(fit) : kMaxSubgraphVertices;
}

struct Block {
  index_t base = 0, size = 0;     // positions [base, base + size)
  std::int64_t entry_begin = 0;   // internal entries [entry_begin, entry_begin + rounds * width)
  index_t rounds = 0;
  // Its external rows r in [ext_row_begin, ext_row_end): position ext_rows[r],
  // edges [ext_ptr[r], ext_ptr[r + 1]) (ext_ptr[ext_row_end] ends the last one).
  index_t ext_row_begin = 0, ext_row_end = 0;
};

// One kernel launch: blocks [first_block, last_block), `width` threads each,
// `most_size` values of shared memory.
struct LevelLaunch {
  index_t first_block = 0, last_block = 0;
  int width = 32;
  index_t most_size = 0;
};

struct LayoutTuning {
  int max_width = 1024;     // a power of two, 32..1024
  index_t isolated_chunk = 8192;  // vertices of V0 per block (they join the first launch)
};

// Where a block lives in the arrays below (host only): each block owns one
// segment of each array, possibly with room to spare, so that an incremental
// update (tassl_update.hpp, thesis ch. 6) rewrites a changed block in place,
// or moves it to the arrays' end when it has outgrown its segment.
struct BlockSpace {
  index_t subgraph = -1;          // -1: a block of V0
  index_t level = 0;              // its sub-graph level: its launch is launches[level]
  index_t positions = 0;          // positions [base, base + positions)
  index_t ext_rows = 0;           // ext_rows / ext_ptr [ext_row_begin, + ext_rows): external rows + 1
  index_t ext_edge_begin = 0, ext_edges = 0;  // ext_from / ext_value
  std::int64_t entries = 0;       // int_key / int_value [entry_begin, + entries)
};

struct Layout {
  std::vector<index_t> order;     // position -> vertex (the TASSL permutation); -1: unused space
  std::vector<index_t> position;  // vertex -> position
  index_t isolated = 0;           // V0's vertices (the blocks of the first launch with subgraph -1)
  std::vector<Block> blocks;      // launch by launch
  std::vector<BlockSpace> space;  // parallel to blocks
  std::vector<LevelLaunch> launches;
  // External rows: the position of each, and where its edges start.
  std::vector<index_t> ext_rows, ext_ptr;
  // External in-edges: from a vertex; value: the entry's offset in its row of A.
  std::vector<index_t> ext_from, ext_value;
  // Internal entries, round by round: key (to << 16 | from) or kPadEntry;
  // value: the entry's offset in row `to` of A, or -1.
  std::vector<std::uint32_t> int_key;
  std::vector<index_t> int_value;
};

// The edge counts of g's internal slots.
std::vector<index_t> slot_widths(const SubgraphSchedule& g);
// The rounds of `slots` (slot edge counts) at `width` lanes.
std::int64_t rounds_at(const std::vector<index_t>& slot_widths, int width);

// The block width for one sub-graph level: the power of two in [32, max_width]
// that minimises the most expensive block's rounds x cost_per_round(width),
// the cost of a round growing with the warps that meet at its barrier.
int choose_width(const std::vector<std::vector<index_t>>& slot_widths_per_block, int max_width);
double cost_per_round(int width);

// Lays out partition P and schedule S of an n-vertex graph. Throws if a
// sub-graph exceeds kMaxSubgraphVertices.
Layout lay_out(const Partition& P, const Schedule& S, const LayoutTuning& tuning = {});

// What one block needs of each array at `width` lanes.
struct BlockNeeds {
  index_t positions = 0, ext_rows = 0, ext_edges = 0;
  std::int64_t entries = 0, rounds = 0;
};
BlockNeeds block_needs(index_t vertices, const SubgraphSchedule& g, int width);

// Writes block b (a sub-graph's vertices in dependency order and its
// schedule) into the segments of Y.space[b] and Y.blocks[b], which must be
// large enough (block_needs); updates Y.position of its vertices.
// `scratch` holds at least as many entries as the block has vertices.
void fill_block(Layout& Y, std::size_t b, std::span<const index_t> vertices, const SubgraphSchedule& g, int width,
                std::vector<index_t>& scratch);
// Its parts (the block's positions already laid out): the external rows
// and edges; slot q's rounds from entry e on (returns the entry after them).
void fill_ext(Layout& Y, std::size_t b, const SubgraphSchedule& g, std::vector<index_t>& scratch);
std::int64_t fill_slot(Layout& Y, std::size_t b, const SubgraphSchedule& g, index_t q, int width, std::int64_t e);

// The kernel's values from A's values (CSR order: row_ptr, values) and
// each vertex's diagonal offset in its row (-1: a unit diagonal): the
// diagonal by position, and every external and internal entry divided by its
// row's diagonal (computed in double). Unused space holds 1 (diagonal) and 0.
// Throws if a scaled value is not finite in T.
template <class T>
struct ScaledValues {
  std::vector<T> diag, ext, internal;
};
template <class T>
ScaledValues<T> scale_values(const Layout& layout, std::span<const index_t> row_ptr, std::span<const T> values,
                             std::span<const index_t> diag_offset);
// The same for block b only, into `out` (sized as scale_values makes it):
// its diagonal, its external edges when `ext`, and its internal entries
// (only those in `entries` when given).
using EntryRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;
template <class T>
void scale_block(const Layout& layout, std::size_t b, std::span<const index_t> row_ptr, std::span<const T> values,
                 std::span<const index_t> diag_offset, ScaledValues<T>& out, const EntryRanges* entries = nullptr,
                 bool ext = true);

// Each row's diagonal offset in its row of A (-1: none, or Unit).
template <class T>
std::vector<index_t> diagonal_offsets(const Csr<T>& A, DiagonalKind diag);

}  // namespace balsa::tassl
