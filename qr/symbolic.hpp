// Internal: the symbolic analysis of multifrontal QR (sparse QR paper,
// sec. 2): the fronts of the postordered, amalgamated column elimination
// tree of A^T A, their staircases and sizes, the flop count and staging.
#pragma once

#include <cstdint>
#include <vector>

#include "balsa/qr.hpp"

namespace balsa::qr {

// A front: a relaxed supernode of the column elimination tree. Columns are
// positions in the permuted order (permuted column j is A's column q[j]).
struct Front {
  index_t pivots = 0;                // pivotal columns: cols[0 .. pivots)
  std::vector<index_t> cols;         // the front's columns, pivotal first, ascending
  index_t parent = -1;               // -1: a root
  std::vector<index_t> children;
  std::vector<index_t> rows;         // A's rows whose leftmost column is pivotal here, by leftmost column (staircase)
  index_t child_rows = 0;            // rows the children's contribution blocks bring
  index_t m() const { return index_t(rows.size()) + child_rows; }
  index_t n() const { return index_t(cols.size()); }
  index_t r_rows() const { return std::min(m(), pivots); }                    // R's rows made here
  index_t cb_rows() const { return std::min(m(), n()) - r_rows(); }           // rows passed to the parent
};

// A panel of a front's staircase QR (sec. 2's staircase, blocked): the
// columns [row, row + cols) factored over the rows [row, row + rows), the
// rows that reach them (padded with rows zero there to at least `cols`
// while rows remain), its k = min(rows, cols) reflectors applied to those
// rows only. Panels are 64 columns wide; once every row reaches a panel's
// first column, one panel takes every column left (dense). Reflector t
// sits in front row and column t.
struct Panel {
  index_t row = 0, rows = 0, cols = 0, k = 0;
  std::size_t at = 0;  // the reflectors' block (rows x k, column-major) in FrontFactor::V
};
constexpr index_t kPanelWidth = 64;
// Fronts above this many flops (as dense QRs) and their ancestors are
// factored after the subtree tasks, with BLAS's threads.
constexpr double kLargeFrontFlops = 1e8;  // LAPACK's dormqr runs unblocked (dorm2r) for k <= its block size 32

// The panels of an m x n front whose rows are sorted by leftmost column:
// stair[j] rows have their leftmost column <= j.
std::vector<Panel> staircase_panels(index_t m, index_t n, const std::vector<index_t>& stair);
// Reflector j of a staircase front spans rows j .. reflector_end - 1:
// those reaching column j (rows below hold zeros there), at least one.
index_t reflector_end(const std::vector<index_t>& stair, index_t m, index_t j);
// The panels' flops (4 per multiply-add pair, as front_flops): a panel of
// at most kPanelWidth columns is factored column by column, each
// reflector over its own rows (the staircase); a wider one (the dense
// rest of a large front) by dgeqrf; each then updates the columns to its
// right as one block reflector over all its rows.
double panel_flops(const std::vector<Panel>& panels, index_t m, index_t n, const std::vector<index_t>& stair);

struct Symbolic;
// The leftmost front column of each of front f's rows in their natural
// order: A's rows (f's `rows`), then each child's cb_rows(child)
// contribution rows (row r of child c starts at c's column pivots + r).
// local: -1 for every column on entry and on return (size n).
template <class CbRows>
std::vector<index_t> row_leftmost(const Symbolic& s, index_t f, CbRows cb_rows, std::vector<index_t>& local);
// stair[j]: rows whose leftmost column is <= j.
std::vector<index_t> stair_of(const std::vector<index_t>& leftmost, index_t n);

struct Symbolic {
  index_t m = 0, n = 0;
  std::vector<index_t> q;            // column permutation
  std::vector<index_t> q_inverse;    // A's column c is permuted column q_inverse[c]
  std::vector<index_t> leftmost;     // per row of A: its leftmost permuted column, -1 for an empty row
  std::vector<Front> fronts;         // postorder: children before parents
  std::vector<index_t> col_front;    // the front of each permuted column
  double flops = 0;                  // the staircase panels' flops (the factorisation's, at full rank)
  double dense_flops = 0;            // the fronts' flops as dense QRs (the paper's bound)
  std::int64_t r_nnz = 0;
  std::size_t factor_bytes = 0;      // R's rows and the panels' reflectors, kept after the factorisation
  std::size_t max_front_bytes = 0;   // the largest front being factored
  std::size_t max_task_front_bytes = 0;  // the largest of at most kLargeFrontFlops (those run as tasks)
  // Stages: fronts [stage_starts[s], stage_starts[s+1]) in postorder, each
  // fitting the memory budget the analysis was given (its fronts and the
  // contribution blocks still waiting for parents).
  std::vector<index_t> stage_starts;
};

// Fronts of A (m x n, m >= n) under column ordering q. budget: the bytes a
// stage may use (0: one stage).
Symbolic analyse(const Csr<double>& A, std::vector<index_t> q, std::size_t budget = 0);

// Flops of the Householder QR of a dense m x n front (4 per multiply-add
// pair as in LAPACK's count: sum over the k = min(m, n) reflectors of
// 4 (m - j)(n - j)).
double front_flops(index_t m, index_t n);

template <class CbRows>
std::vector<index_t> row_leftmost(const Symbolic& s, index_t f, CbRows cb_rows, std::vector<index_t>& local) {
  const Front& F = s.fronts[std::size_t(f)];
  for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = l;
  std::vector<index_t> leftmost;
  leftmost.reserve(std::size_t(F.m()));
  for (index_t i : F.rows) leftmost.push_back(local[std::size_t(s.leftmost[std::size_t(i)])]);
  for (index_t ch : F.children) {
    const Front& C = s.fronts[std::size_t(ch)];
    for (index_t r = 0; r < cb_rows(ch); ++r) leftmost.push_back(local[std::size_t(C.cols[std::size_t(C.pivots + r)])]);
  }
  for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = -1;
  return leftmost;
}

}  // namespace balsa::qr
