// Internal (host): the data layout of the GPU level-set solver's thin runs
// (trsv/level_set/level_set.cu, thin_run.cuh).
//
// A thin run is a range of consecutive levels that one block solves, with a
// block barrier between levels. Per level, the block's critical path must be
// only: barrier -> read the x_j this row needs -> x_i. So every input of a
// position must be loadable straight from its position k, before the barrier,
// with no load that depends on another load:
//  * external entries (the dependency was solved by an earlier launch) are
//    summed by a parallel prepass into r_k = b_i - sum_ext a_ij x_j; they come
//    first in their CSR row, [row_ptr[k], ext_end[k]);
//  * internal entries (the dependency is in the same run) go to ELL slots,
//    ell_per_lane(lanes) per lane, and the rest, if any, to an overflow CSR
//    (ovf_ptr/ovf_ref). lanes comes from the mean row length (lanes_for), so
//    the slots are one to two times the entries, not a padded worst case.
// An internal entry refers either to its dependency's slot in the block's
// shared-memory ring of x values (slot = position mod ring size, a power of
// two), or, where that slot may already hold a later position's x, to x in
// global memory (~column). The writes of one level are unordered (no barrier
// between its passes, nor inside a pass), so the slot of d stays d's from its
// write until the reader's level has ended iff no two positions from the start
// of d's level to the end of the reader's level share a slot:
// reader_level_end - dep_level_begin <= ring. ELL slots hold ring references
// only, so the kernel's inner loop has no branch: an unused slot has value 0
// and points at slot `ring`, one past the ring, which holds 0. Entries that
// must read global x go to the overflow list with the rest.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "balsa/graph.hpp"
#include "trsv/off_diagonal.hpp"

namespace balsa::trsv_gpu::detail {

// Internal entries per lane held in ELL slots (and in registers by the kernel).
constexpr int ell_per_lane(int lanes) { return lanes == 1 ? 4 : 2; }

struct ThinRunPlan {
  index_t first_level = 0, last_level = 0;  // levels [first, last)
  int lanes = 1;                            // threads per row
  index_t ring = 1;                         // ring entries (a power of two)
};

struct ThinRunLayout {
  std::vector<index_t> ext_end;  // per position: end of its external entries (wide positions: the row's end)
  // Per run r: slots from ell_offset[r] (a multiple of 4), E = ell_per_lane(lanes)
  // per lane: slot ((k - first) * lanes + g) * E + j of position k, lane g.
  std::vector<std::size_t> ell_offset;
  std::vector<index_t> ell_ref;  // ring slot; `ring` (the zero slot) when unused
  std::vector<index_t> ell_pos;  // position of the slot's value in A.values, -1 if unused
  std::vector<index_t> ovf_ptr;  // per position (n + 1): internal entries not in ELL slots
  std::vector<index_t> ovf_ref, ovf_pos;  // ring slot (>= 0) or ~column (< 0)
};

// Builds the layout for `pattern` (rows in level order: pattern row k is the
// row at position k), reordering each thin-run row's entries so that the
// external ones come first (pattern.col_idx and value_pos move together).
ThinRunLayout lay_out_thin_runs(OffDiagonal& pattern, const LevelSets& levels, std::span<const ThinRunPlan> runs);

}  // namespace balsa::trsv_gpu::detail
