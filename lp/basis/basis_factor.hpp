// Internal (not installed): the LU factorisation of a simplex basis and its
// Forrest-Tomlin update (thesis 7.1.2, 7.2.2, eq. 7.17), with hypersparse
// FTRAN/BTRAN (DFS reach when the right-hand side is sparse, eq. 7.45).
//
// The basis B (m x m) has, at basis position k, column basic[k] of [A | I]:
// j < n is column j of the structural matrix A (m x n, CSC), j >= n is the
// unit column e_{j-n} (a logical).
//
// Factorisation: triangular singletons first (column singletons, then row
// singletons), then Markowitz pivoting on the remaining bump with threshold
// partial pivoting (|a_ij| >= u * max_i |a_ij| in its column).
//
// Slot space. Every pivot owns a slot: the factorisation gives pivots slots
// 0..m-1 in pivot order; the k-th Forrest-Tomlin update vacates the replaced
// pivot's slot t and appends slot m+k-1. With z indexed by slot:
//   FTRAN   a (row-indexed)  ->  z = L^{-1} P a   (P: row of slot s -> slot s, s < m)
//           z = R_k ... R_1 z                     (row etas: z[new] = z[t] - sum_j r_j z[j]; z[t] = 0)
//           U x = z  (U upper triangular in slot order, size m + updates, vacated slots identity)
//           result[position of slot s] = x[s]
//   BTRAN   the transposes in reverse order.
// So L (unit lower, slots 0..m-1) and U (upper, slot space) are triangular
// matrices in a fixed index order that only grows: the GPU path hands them to
// TriangularSolver and absorbs an update with replace_columns.
//
// U in slot space after two updates (m = 4; the first replaced the column
// of slot 1, the second that of slot 3; d diagonal, x off-diagonal):
//
//   slot:  0  1  2  3  4  5        slots 1 and 3: vacated, an identity row and
//     0  [ d  .  x  .  x  x ]      column (position_of_slot -1); slot 4: the
//     1  [    1  .  .  .  . ]      first update's spike as a column with its
//     2  [       d  .  x  x ]      new diagonal, slot 5: the second's. Each
//     3  [          1  .  . ]      update also appends a row eta
//     4  [             d  x ]      R_k = (t, fresh, r): z[fresh] = z[t] - r.z,
//     5  [                d ]      z[t] = 0, r over the slots after t.
//
// The storage (basis_factor_data.hpp draws it): L by columns and by rows,
// fixed at factorize; U's off-diagonal entries by row and by column in two
// list pools that grow in place; the row etas in one file.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::lp {

// A vector of length `size` held densely in `values` with the nonzero
// positions listed in `index[0..count)` while `count >= 0`; count < 0 means
// "dense: index not maintained" (every position may be nonzero).
// `index` is a buffer (resize() makes it n long); only index[0..count) counts.
// ftran/btran read a listed or a dense input and always return a listed
// output (count >= 0, each nonzero once; exact zeros left out).
struct SparseVector {
  std::vector<double> values;
  std::vector<index_t> index;
  index_t count = 0;
  void resize(index_t n);      // values zero, count 0 (index: n long)
  void clear();                // zero the listed (or all, if dense) values; count 0
  void set(index_t i, double v);  // values[i] = v and lists i (i not listed yet, v != 0); dense: values only
  void rebuild_index(double drop = 0.0);  // list the nonzeros (|v| > drop; smaller ones zeroed)
  bool dense() const { return count < 0; }
  index_t size() const { return index_t(values.size()); }
};

struct BasisFactorOptions {
  double pivot_threshold = 0.1;    // u of threshold partial pivoting
  double pivot_tolerance = 1e-11;  // |pivot| below this (after the threshold test): treated as zero
  double drop_tolerance = 1e-14;   // entries below this are dropped from L and U when factorising (updates keep nonzeros)
  int max_updates = 100;           // forrest_tomlin_update() refactors after this many
  // A triangular phase of a solve uses DFS reach (eq. 7.45) while its input
  // and the running average of its recent outputs are below this density;
  // 0: never, 1: (nearly) always.
  double hypersparse_density = 0.10;
  // forrest_tomlin_update(): Refactor when the new diagonal d and old_diagonal * alpha_r
  // differ by more than this, relative to the larger of the two.
  double update_check_tolerance = 1e-6;
};

struct FactorResult {
  index_t rank = 0;  // m when B is nonsingular
  // When rank < m: the basis positions left without a pivot and, as many, the
  // rows left without a pivot. The factor has put the logical of
  // missing_rows[i] at position missing_positions[i] (basic[] is updated) and
  // the factorisation is complete and valid for that repaired basis.
  std::vector<index_t> missing_positions;
  std::vector<index_t> missing_rows;
};

enum class UpdateResult { Ok, Refactor };

struct BasisFactorStats {
  std::int64_t nnz_L = 0, nnz_U = 0, nnz_R = 0;  // now (L strict, U with its m diagonal entries)
  std::int64_t nnz_basis = 0;                    // of the last factorised B
  index_t singletons = 0, bump = 0;              // pivots of the triangular phase, size of the bump
  int updates = 0;                               // since the last factorisation
};

class BasisFactor {
 public:
  explicit BasisFactor(const BasisFactorOptions& options = {});

  // Factorises the basis given by `basic` (size m, entries in [0, n + m),
  // distinct). On a (numerically or structurally) singular basis repairs it
  // with logicals, see FactorResult. Entries of A below drop_tolerance
  // (explicit zeros) are ignored.
  FactorResult factorize(const Csc<double>& A, std::vector<index_t>& basic);

  // rhs (row-indexed) := B^{-1} rhs (indexed by basis position). With
  // keep_ft_spike the partial result before the U solve (the Forrest-Tomlin
  // spike) is kept for forrest_tomlin_update().
  void ftran(SparseVector& rhs, bool keep_ft_spike = false);
  // rhs (indexed by basis position) := B^{-T} rhs (row-indexed).
  void btran(SparseVector& rhs);

  // Replaces the column at basis position `position` by the column whose
  // FTRAN was the last one called with keep_ft_spike (an update consumes the
  // spike: the next update needs a new ftran(keep_ft_spike); ftran/btran without
  // keep_ft_spike in between are fine). `expected_pivot` is the simplex' pivot
  // alpha_r (the FTRAN'd column's entry at `position`). Refactor, with the
  // factor left unchanged, when:
  //   - max_updates updates were made since the factorisation;
  //   - nnz(U) + nnz(R) (U with its diagonal) > 3 * nnz(U after factorize) + m;
  //   - the new diagonal d is 0 or |d| < 1e-12 * max(1, |spike|_inf);
  //   - d disagrees with old_diagonal * alpha_r (det B_new / det B_old =
  //     alpha_r) by more than update_check_tolerance relative.
  // Throws when no spike is kept.
  UpdateResult forrest_tomlin_update(index_t position, double expected_pivot);

  const BasisFactorStats& stats() const { return stats_; }
  int max_updates() const { return options_.max_updates; }
  index_t rows() const { return m_; }

  // ---- the triangular factors in slot space (the GPU path) ----
  index_t slots() const;                   // m + updates so far
  Csr<double> lower_factor() const;        // unit lower, slots 0..m-1, diagonal stored (1.0)
  Csr<double> upper_factor(index_t size) const;  // upper, size >= slots(), vacated/unused slots identity
  // The columns `columns` (slots) of upper_factor(): rows ascending, the
  // diagonal last (CSC pieces: col_ptr has columns.size() + 1 entries).
  void upper_columns(std::span<const index_t> columns, std::vector<index_t>& col_ptr, std::vector<index_t>& rows,
                     std::vector<double>& values) const;
  std::span<const index_t> slot_of_row() const;       // m: the slot whose L row is this row (L's P)
  std::span<const index_t> position_of_slot() const;  // slots(): basis position (-1 vacated)
  // The slots whose U column changed in the last forrest_tomlin_update() (vacated, new, and
  // every column that lost its entry in the vacated row), sorted.
  std::span<const index_t> changed_upper_columns() const;
  // Row etas: apply R_1..R_k to a slot-space vector (the FTRAN step between
  // the L and U solves) and their transposes in reverse (BTRAN).
  void apply_row_etas(std::span<double> z) const;
  void apply_row_etas_transposed(std::span<double> z) const;
  // For an FTRAN done elsewhere (the GPU path): z (slot space, at least
  // slots() long; entries from slots() on are ignored) = R_k..R_1 L^{-1} P a
  // becomes the spike that the next forrest_tomlin_update() uses, as
  // ftran(keep_ft_spike) would.
  void set_ft_spike(std::span<const double> z);

 private:
  struct Data;
  Data& begin_solve(SparseVector& rhs, const char* where);
  BasisFactorOptions options_;
  BasisFactorStats stats_;
  index_t m_ = 0;
  std::shared_ptr<Data> data_;
};

}  // namespace balsa::lp
