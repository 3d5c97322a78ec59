// Internal: the CPU numeric phase of multifrontal QR (sparse QR paper,
// sec. 2): fronts assembled and factored by Householder QR in postorder,
// the Householder vectors kept; Q^T B and Q Z for the solves (R is
// assembled by qr/r_factor and solved by the triangular solver).
#pragma once

#include <optional>
#include <vector>

#include "qr/bucket.hpp"
#include "qr/symbolic.hpp"

namespace balsa::qr {

// A front after its factorisation, kept compact (sec. 2: R sparse, the
// Householder vectors kept for Q^T b). The front was assembled m x n with
// its rows sorted by their leftmost column (the staircase), natural row t
// at front row place[t], and factored panel by panel (Panel): V holds
// each panel's rows x k block of reflectors (LAPACK's dgeqrf layout: unit
// lower trapezoidal, R's entries above the diagonal unread), tau one per
// reflector. R's row t holds front columns r_col(t) .. n-1 at
// R[r_start[t] ..] until assemble_r (qr/r_factor) moves R into one sparse
// matrix and frees them. Heath's rule (as SPQR): a pivotal column whose norm
// below the current row is <= the tolerance is dead: no reflector, no R
// row; the front is then one panel of m rows, its reflectors out of
// column order (r_cols), and the contribution block grows.
//
// A tile front (qr/mixed.hpp: a front the GPU factored, kept when a dead
// pivot elsewhere sends only its ancestors back to the CPU) holds the GPU's
// layout instead: m = its ld rows, V its slice of the arena, natural row t
// at front row place[t] (-1: a row the plan drops, zero), and `tile` says
// where R's and the contribution block's rows lie and how Q applies.
struct TileFront {
  std::vector<index_t> row;  // front row of R row t (t < live), then of contribution row r (live + r); -1: zero
  FrontSchedule schedule;    // its bundles (Q is their product); none for a dense front
  std::vector<double> vt;    // its VT records (a dense front: tau, in FrontFactor::tau)
  index_t dense_m = 0;       // > 0: a dense front (cuSOLVER's geqrf, LAPACK's layout): its rows
  index_t dense_k = 0;       //       and reflectors
};

struct FrontFactor {
  index_t m = 0;                // rows (A's and the children's actual contribution rows)
  index_t k = 0;                // reflectors
  index_t live = 0;             // R's rows made here (live pivotal columns)
  index_t cb_rows = 0;          // rows passed to the parent
  double flops = 0;             // done: the staircase's panels, or the whole front on Heath's path
  double dropped2 = 0;          // squared 2-norms of the dead columns' entries dropped here (Heath)
  std::vector<index_t> r_cols;  // front column of each R row (empty: 0 .. live-1)
  std::vector<index_t> place;   // front row of natural row t (A's rows, then the children's contribution rows)
  std::vector<Panel> panels;
  std::vector<double> V, tau;
  std::vector<std::size_t> r_start;
  std::vector<double> R;
  std::vector<double> cb;       // cb_rows x (n - pivots), upper trapezoidal, column-major; freed by the parent
  std::optional<TileFront> tile;
  // The front row of R row i (i < live) or of contribution row i - live; -1: a zero row.
  index_t row_of(index_t i) const { return tile ? tile->row[std::size_t(i)] : i; }
  index_t r_col(index_t t) const { return r_cols.empty() ? t : r_cols[std::size_t(t)]; }
  // R(t, l) for front column l >= r_col(t).
  double r(index_t t, index_t l) const { return R[r_start[std::size_t(t)] + std::size_t(l - r_col(t))]; }
  std::size_t bytes() const;    // what the front keeps
};

struct Numeric {
  std::vector<FrontFactor> fronts;
  index_t rank = 0;             // live columns in all
  index_t dead_fronts = 0;      // fronts that took Heath's column-by-column path
  double flops = 0;             // the fronts' flops as done (FrontFactor::flops)
  double dropped = 0;           // ||E||_F: the entries Heath's rule dropped (A P + E has the factor's R)
};

// LAPACK's Householder QR of a dense m x n block (dgeqrf) and its Q^T C /
// Q C (dormqr, trans "T" / "N"; at most 8 columns of C reflector by
// reflector, as dorm2r): the fronts' dense algebra (and the GPU oracle's
// stand-in for cuSOLVER's). Error on a LAPACK failure.
void geqrf(int m, int n, double* a, int lda, double* tau);
void ormqr(const char* trans, int m, int n, int k, const double* a, int lda, const double* tau, double* c, int ldc);

// max_j ||A(:, j)||_2 (the scale of the default rank tolerance).
double max_column_norm(const Csr<double>& A);

// The fronts of s factored from A's values (same pattern as analysed),
// columns with norm <= tolerance dead (Heath). Independent subtrees run in
// parallel: a front is a task, started when its last child ends, BLAS
// single-threaded; fronts over 1e8 flops and their ancestors come after,
// in postorder, with BLAS's threads.
Numeric factorise(const Csr<double>& A, const Symbolic& s, double tolerance);
// Front f assembled (A's rows, its children's cb) and factored, Heath's
// rule where a pivot dies; the children's cb freed. local: -1 for every
// column on entry and on return (size A.cols).
void factor_front(const Csr<double>& A, const Symbolic& s, Numeric& num, index_t f, std::vector<index_t>& local,
                  double tolerance);
// num's rank, flops and dropped norm from its fronts.
void sum_fronts(Numeric& num);

// Y = Q^T B, R's rows of it: B (A22's m rows x nrhs, column-major); front
// f's R row t lands in Y's row front_row[f] + t (ld ldy). The rest of
// Q^T B (the residual's part) is not kept.
void q_transpose_times(const Symbolic& s, const Numeric& num, const std::vector<double>& B, index_t nrhs,
                       const std::vector<index_t>& front_row, double* Y, index_t ldy);

// X = Q [Z; 0] (s.m x nrhs): front f's R row t takes Z's row
// front_row[f] + t (ld ldz), every other row 0 (the minimum-norm solve's
// last step, A^T P = Q R factored).
std::vector<double> q_times(const Symbolic& s, const Numeric& num, const double* Z, index_t ldz, index_t nrhs,
                            const std::vector<index_t>& front_row);

}  // namespace balsa::qr
