// Internal: the bucket scheduler of one front (sparse QR paper, sec. 3.1).
// The front (m x n, rows sorted by leftmost column: the staircase) is cut
// into 32 x 32 tiles; a row tile sits in the column bucket of its leftmost
// column tile. Each round (one launch of the GPU's task kernel) takes, per
// bucket, the row tiles that are free there, groups them into bundles of at
// most 3 and factorizes each bundle's column tile (Factorize: its top tile
// becomes upper triangular, the others zero there and move one bucket
// right); the next round applies the bundle's block reflector to its column
// tiles on the right (Apply, in chunks of kApplyChunk column tiles). A
// bucket is done when it holds one triangular tile and no tile can still
// arrive from the left: that tile holds R's rows of the bucket.
// Pipelining (sec. 3.1's two scenarios; the Apply/Factorize task of sec.
// 3.2.3): the Apply that reaches the next column tile then factorizes that
// column tile of the bundle's tiles that moved there, grown by tiles idle
// in that bucket (the bundle's delta), in the same task, instead of waiting
// a round; only when that makes a bundle of two or more (a lone tile waits
// for company: lone factorizations only add triangles to merge later). The schedule depends only on the staircase,
// so it is made once per analysis and replayed by every factorisation and,
// for Q, by every solve.
//
// The staircase in tiles and its buckets, e.g. row_tile_left = {0,0,0,1,1,2}
// (x: a tile that may hold nonzeros; a tile's bucket is its leftmost x):
//
//                 column tile 0    1    2
//     row tile 0          [ x ][ x ][ x ]   bucket 0
//     row tile 1          [ x ][ x ][ x ]   bucket 0
//     row tile 2          [ x ][ x ][ x ]   bucket 0
//     row tile 3          [   ][ x ][ x ]   bucket 1
//     row tile 4          [   ][ x ][ x ]   bucket 1
//     row tile 5          [   ][   ][ x ]   bucket 2
//
//   round 0: Factorize {0,1,2} at column tile 0, {3,4} at 1, {5} at 2; tile 0
//            stays (triangular) in bucket 0, tiles 1, 2 move to bucket 1, 4 to 2.
//   round 1: Apply/Factorize: {0,1,2}'s reflectors on column tiles 1..2, then
//            {1,2} factorized at column tile 1; {3,4}'s on column tile 2,
//            then {4,5} factorized at column tile 2 (pipelined).
//   ...      until final_tile = {0, 1, 3}: R's rows of bucket j lie in row
//            tile final_tile[j] (the schedule bucket_schedule makes for it).
#pragma once

#include <array>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::qr {

constexpr index_t kTile = 32;          // tile edge (a warp's width)
constexpr index_t kBundleTiles = 3;    // row tiles per bundle (sec. 3.1)
constexpr index_t kApplyChunk = 4;     // column tiles per Apply task
constexpr index_t kVtRows = kTile + 1; // a VT record: T's upper triangle and the top tile's V below, 33 x 32

// A bundle's factorization: rows `tiles[0 .. count)` (physical row tiles of
// the front; tiles[0] the top, which keeps R) stacked, column tile `col`.
// Its reflectors: the top tile's strictly lower part and T (upper
// triangular, Q = I - V T V^T) in VT record `slot`; the other tiles' V in
// the front, at column tile col.
struct Bundle {
  std::array<index_t, 3> tiles{-1, -1, -1};
  index_t count = 0;
  index_t col = 0;
  index_t slot = 0;
};

enum class TileTaskKind : int { Factorize = 0, Apply = 1, ApplyFactorize = 2 };

struct TileTask {
  TileTaskKind kind = TileTaskKind::Factorize;
  index_t bundle = 0;   // Factorize: the bundle factorized; Apply(Factorize): the bundle applied
  index_t c0 = 0, c1 = 0;  // Apply(Factorize): column tiles [c0, c1)
  index_t next = -1;    // ApplyFactorize: the bundle factorized after the apply (at column c0)
};

struct FrontSchedule {
  index_t row_tiles = 0, col_tiles = 0;
  std::vector<Bundle> bundles;                // every factorization, round by round: Q is their product in this order
  std::vector<index_t> bundle_round;          // the round of each bundle
  std::vector<std::vector<TileTask>> rounds;  // round r's tasks
  std::vector<index_t> final_tile;            // per column tile: the row tile holding R's rows there, -1: none (zero rows)
};

// The schedule of a front of `col_tiles` column tiles whose row tile i has
// its leftmost column tile row_tile_left[i] (< col_tiles, nondecreasing).
FrontSchedule bucket_schedule(index_t col_tiles, const std::vector<index_t>& row_tile_left, bool pipeline = true);

// The CPU oracle of the GPU's tile tasks (qr/gpu_multifrontal.cu runs the same
// arithmetic): round by round, a front stored column-major (ld rows,
// col_tiles * 32 columns) with its VT records (kVtRows x kTile each).
void run_schedule_host(const FrontSchedule& s, double* front, index_t ld, double* vt);
// One task on the host: `rec` is the bundle's VT record, `next_rec` the
// record of the bundle an Apply/Factorize factorizes (next: its bundle).
void run_task_host(TileTaskKind kind, const Bundle& B, index_t c0, index_t c1, const Bundle* next, double* front,
                   index_t ld, double* rec, double* next_rec);
// C(rows of B, 0 .. ncols) -= V op(T) V^T C(rows of B, ..): the bundle's
// block reflector (op(T) = T^T: its Q^T) on C (ldc rows; row i of the
// front is C's row row0 + i).
void apply_bundle_host(const Bundle& B, const double* front, index_t ld, const double* rec, double* C, index_t ldc,
                       index_t row0, index_t ncols, bool transpose);
// Q^T C (transpose) or Q C by the schedule's reflectors: C holds the
// front's ld rows, ncols columns (column stride ldc).
void apply_schedule_q_host(const FrontSchedule& s, const double* front, index_t ld, const double* vt, double* C,
                           index_t ldc, index_t ncols, bool transpose);

}  // namespace balsa::qr
