// Internal: the plan of the GPU factorisation (sparse QR paper sec. 3.3,
// the sparse QR scheduler, made once per analysis): every front's bucket
// schedule (qr/bucket.hpp), its place in one device arena of 32 x 32 tiles,
// the S-assembly map (A's entries into their fronts), the pack-assembly
// maps (each child's contribution block into its parent), and the global
// launches: a front starts the launch after its children's contribution
// blocks were packed into it, so one launch holds tasks of many fronts at
// many levels of the tree. The same launches replayed with Q's reflectors
// only (and the packs of rows) apply Q^T or Q to right-hand sides.
//
// The arena: the fronts in postorder, front f at offset[f], column-major
// with ld[f] = 32 row_tiles rows (the staircase's row order) and
// 32 col_tiles columns; entry (i, j) at offset[f] + i + ld[f] j:
//
//   offset[0]              offset[1]             offset[2]
//   | front 0: ld_0 x 32 CT_0 | front 1: ld_1 x 32 CT_1 | front 2 ...
//
//   one front, row_tiles 3, col_tiles 2:   columns 0..31    32..63
//                              rows  0..31  [ tile (0,0) ][ tile (0,1) ]
//                                   32..63  [ tile (1,0) ][ tile (1,1) ]
//                                   64..95  [ tile (2,0) ][ tile (2,1) ]
//
// A bundle's VT record (kVtRows x 32) lies at vt_offset[f] + slot kVtRows 32;
// the rhs arena gives front f rows rhs_base[f] .. rhs_base[f] + ld[f] - 1.
//
// Launches: front f's round r runs in launch start(f) + r, its Pack into its
// parent in launch start(f) + rounds; a parent starts in the launch after its
// last child's Pack. Fronts 0 (2 rounds) and 1 (1 round), children of front
// 2 (2 rounds):
//
//   launch      0       1       2       3       4
//   front 0  [round 0][round 1][ Pack ]
//   front 1  [round 0][ Pack ]
//   front 2                            [round 0][round 1]
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "qr/bucket.hpp"
#include "qr/symbolic.hpp"

namespace balsa::qr {

// One task of the GPU's task kernel (plain data, uploaded as is).
struct DeviceTask {
  std::int64_t front = 0;    // tile tasks: the front's arena offset (Pack: the child's)
  std::int64_t vt = 0;       // the bundle's VT record (offset in doubles; Pack: the parent's arena offset)
  std::int64_t vt_next = 0;  // ApplyFactorize: the VT record of the bundle factorized after the apply
  std::int32_t kind = 0;     // 0 Factorize, 1 Apply, 2 ApplyFactorize (TileTaskKind), 3 Pack
  std::int32_t ld = 0;       // the front's rows (a multiple of 32)
  std::int32_t count = 0, col = 0;  // the bundle: tiles, column tile
  std::int32_t c0 = 0, c1 = 0;      // Apply: column tiles [c0, c1)
  std::int32_t tiles[3] = {-1, -1, -1};
  std::int32_t next_count = 0;          // ApplyFactorize: the bundle factorized at column c0
  std::int32_t next_tiles[3] = {-1, -1, -1};
  std::int64_t p0 = 0, p1 = 0;          // Pack: the child's contribution rows [p0, p1) (GpuPlan::cb_*)
};
// A Pack task (one child's rows p0 .. p1 into its parent): front = the
// child's arena offset, vt = the parent's, vt_next = the child's column map
// (GpuPlan::colmap), ld = the child's rows, count = the parent's, col = the
// child's columns. Entry (row k, child column l >= cb_q[k]) goes from
// arena[cb_src[k] + ld l] to arena[cb_dst[k] + count colmap[vt_next + l]].
constexpr std::int32_t kPackTask = 3;
constexpr std::int64_t kPackChunk = 64;    // contribution rows per Pack task

// One reflector block of the solve's replay: a bundle's rows of the
// right-hand sides (rows of the rhs arena: base + tile * 32 + i).
struct SolveTask {
  std::int64_t front = 0;    // the front's arena offset (V of the tiles below the top); Pack: first map entry
  std::int64_t vt = 0;       // its VT record; Pack: end of its map entries
  std::int64_t base = 0;     // the front's first row in the rhs arena
  std::int32_t kind = 0;     // 0 reflectors, 3 Pack
  std::int32_t ld = 0, count = 0, col = 0;
  std::int32_t tiles[3] = {-1, -1, -1};
  std::int32_t pad = 0;
};

// A front factored whole by the vendor's dense QR (cuSOLVER geqrf; Q^T by
// ormqr) instead of the task kernel: the large ones, where the dense
// library's blocked, tensor-core updates beat the tiles (bench qr --fronts
// measures the crossover). It runs in its launch slot, before the task
// kernel of that launch; R's row q is its row q.
struct DenseFront {
  index_t front = 0, m = 0, n = 0;
  std::int32_t ld = 0;
  std::int64_t offset = 0, tau = 0, launch = 0, rhs_base = 0;
};

struct GpuPlan {
  std::vector<FrontSchedule> schedules;   // (a dense front's: one empty round, final_tile[j] = j)
  std::vector<DenseFront> dense;          // by launch
  std::int64_t tau_size = 0;
  std::vector<std::int64_t> offset;       // per front: arena offset (column-major, ld rows, col_tiles * 32 columns)
  std::vector<std::int32_t> ld;           // per front: rows, a multiple of 32 (0: an empty front)
  std::vector<std::int64_t> vt_offset;    // per front: its first VT record (doubles)
  std::vector<std::int64_t> rhs_base;     // per front: its first row of the rhs arena
  std::int64_t arena = 0, vt_size = 0, rhs_rows = 0;
  // S-assembly: A22's entry a goes to arena[s_dst[a]] (-1: an empty row's, none).
  std::vector<std::int64_t> s_dst;
  // Pack assembly, per contribution row k: its row in the child's front
  // (arena offset of column 0), in the parent's, its R row index q in the
  // child (entries from child column q on); colmap: per child, its columns'
  // places in the parent.
  std::vector<std::int64_t> cb_src, cb_dst;
  std::vector<std::int32_t> cb_q, colmap;
  // R's rows of the fronts (FrontFactor layout: front f's row t holds front
  // columns t .. n-1), per R row k (fronts' pivots in order): its row in
  // the arena (column 0; -1: a zero row), the front's ld and columns, t.
  std::vector<std::int64_t> r_row;
  std::vector<std::int32_t> r_ld, r_n, r_t;
  std::vector<std::int64_t> r_start;      // per front: its first R entry; r_start[fronts]: R's entries
  // The solve: A22's row i is rhs row b_row[i] (-1: in no front); front f's
  // R row t is rhs row y_row[y_start[f] + t] (-1: zero); the rows' packs.
  std::vector<std::int64_t> b_row, y_row, y_start, rpack_src, rpack_dst;
  std::int64_t r_entries() const { return r_start.empty() ? 0 : r_start.back(); }
  // Launches: tasks [launch_start[l], launch_start[l + 1]).
  std::vector<DeviceTask> tasks;
  std::vector<std::int64_t> launch_start;
  std::vector<SolveTask> solve_tasks;
  std::vector<std::int64_t> solve_launch_start;
  index_t bundles = 0;                    // Factorize tasks in all (the fronts' bundles)
  std::span<const DenseFront> dense_in(std::int64_t launch) const;  // the dense fronts that run in that launch
  std::size_t device_bytes(index_t nnz) const;  // the factorisation's device memory (arena, VT, maps, tasks)
};

// The plan for A22 (the matrix the fronts hold; its pattern as analysed).
// Fronts of at least dense_flops (front_flops, as dense QRs) go to the
// dense library.
GpuPlan make_gpu_plan(const Csr<double>& A22, const Symbolic& s, double dense_flops, bool pipeline = true);

}  // namespace balsa::qr
