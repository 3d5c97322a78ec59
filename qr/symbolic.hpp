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

struct Symbolic {
  index_t m = 0, n = 0;
  std::vector<index_t> q;            // column permutation
  std::vector<index_t> q_inverse;    // A's column c is permuted column q_inverse[c]
  std::vector<index_t> leftmost;     // per row of A: its leftmost permuted column, -1 for an empty row
  std::vector<Front> fronts;         // postorder: children before parents
  std::vector<index_t> col_front;    // the front of each permuted column
  double flops = 0;
  std::int64_t r_nnz = 0;
  std::size_t front_bytes = 0;
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

}  // namespace balsa::qr
