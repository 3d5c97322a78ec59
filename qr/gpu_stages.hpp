// Internal: the GPU factorisation in stages (sparse QR paper sec. 3.4,
// staging for large trees), when the one-arena plan (qr/gpu_plan.hpp) does
// not fit the device: the postorder cut into stages [f0, f1) whose fronts
// fit a budget, run one after the other through two device window buffers
// (ping-pong: stage s's results go back to the host while stage s + 1 is
// assembled and factored; buffer 0 takes the even stages and is the size of
// the largest of them, buffer 1 the odd ones).
//
// The fronts, their VT records, R's rows and the dense fronts' tau are
// contiguous in postorder, so a stage's fronts occupy one window of each:
// its plan is the global plan's, restricted to its fronts and rebased into
// the window (local = global - window start); the launch order is the
// global one (empty launches dropped). A stage's buffer:
//
//   0                    arena window        + imports          + exports
//   | fronts f0 .. f1 - 1 (as in the arena)  | children's blocks | blocks out |
//
// A contribution block crossing stages (child in stage a, parent in stage
// b > a) is exported at the end of stage a: a Pack into the export region
// (rows: the child's contribution rows, columns: the child's n, column-
// major; the identity column map), copied to the host cb store; stage b
// uploads it into its import region and packs it into the parent in a
// launch of its own, before its fronts' first launch.
//
// The solves replay the stages' launches (forward for Q^T, stages and
// launches reversed for Q) with each stage's windows uploaded again from
// the host copies; the rhs arena and the rows' packs stay global.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qr/gpu_plan.hpp"
#include "qr/symbolic.hpp"

namespace balsa::qr {

// A contribution block crossing stages.
struct CbBlock {
  index_t child = 0;
  std::int64_t rows = 0, cols = 0;  // the child's contribution rows x its columns (column-major)
  std::int64_t store = 0;           // its place in the host cb store (doubles)
  std::int64_t region = 0;          // its place in the stage's buffer (export: the child's stage; import: the parent's)
  std::int64_t bytes() const { return 8 * rows * cols; }
};

struct Stage {
  index_t f0 = 0, f1 = 0;  // fronts [f0, f1)
  // The global windows: arena [arena0, arena0 + arena_size), VT, tau, R's
  // entries [r0, r0 + plan.r_entries()), R's rows [y0, y0 + plan.r_row.size()).
  std::int64_t arena0 = 0, arena_size = 0, vt0 = 0, tau0 = 0, r0 = 0, y0 = 0;
  // The stage's own plan in its buffer (plan.arena: window, imports and
  // exports): tasks, launches (the first one holds the imports' packs),
  // dense fronts, maps, solve tasks. Its s_dst[e] takes A22's entry
  // s_src[e]; its rpack_* hold global rhs rows; b_row, y_row, offset and
  // the per-front vectors are the global plan's business (left empty).
  GpuPlan plan;
  std::vector<std::int64_t> s_src;
  std::vector<CbBlock> imports, exports;
  // The window on the device (doubles): buffer, VT, tau, R's entries.
  std::int64_t window_doubles() const { return plan.arena + plan.vt_size + plan.tau_size + plan.r_entries(); }
  std::size_t map_bytes() const;  // its maps and tasks on the device
};

struct StagedPlan {
  std::vector<Stage> stages;
  std::int64_t cb_store = 0;  // doubles of the host cb store
  std::size_t budget = 0;     // the device bytes it was cut for
  // Doubles of the largest stage's window: of all (parity -1), of the even
  // stages (0: window buffer 0's size) or of the odd ones (1: buffer 1's).
  std::int64_t max_window(int parity = -1) const;
  // The device bytes: A22's values, every stage's maps and tasks, the two window buffers.
  std::size_t device_bytes(index_t nnz) const;
  // Bytes copied to the host per factorisation (R, the windows for Q, the exports).
  std::size_t bytes_to_host() const;
};

// The stages of `plan` whose device need fits `budget` bytes (the two
// window buffers, the values and the maps); one stage when the whole plan
// fits (stages of at most half the room the maps leave, so that either
// buffer takes any stage). DeviceOutOfMemory naming the front (index,
// m x n) and the bytes when a front alone does not fit that.
StagedPlan make_staged_plan(const GpuPlan& plan, const Symbolic& s, index_t nnz, std::size_t budget);

}  // namespace balsa::qr
