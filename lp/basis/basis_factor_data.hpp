// Internal to lp/basis/basis_factor*.cpp: the storage of BasisFactor (the LU
// factors in slot space, the row etas of the Forrest-Tomlin updates, the
// preallocated work arrays of FTRAN/BTRAN) and of the Markowitz
// factorisation's active submatrix. See lp/basis/basis_factor.hpp for the slot
// space.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "lp/basis/basis_factor.hpp"

namespace balsa::lp::detail {

// Many sparse lists (index, value) in one pool; each list is contiguous with
// room to grow. A list that outgrows its room moves to the end of the pool;
// when the pool's end is reached the lists are compacted into a spare pool
// (the only allocation, rare, and never in a solve). Deletion swaps with the
// last entry (lists are unordered). U's rows (urow) and columns (ucol), and
// the LU's active submatrix (LuWork::cols, rows) are such pools:
//
//   idx/val: | 4 7 . . | 1 . | 0 3 5 9 . . . | . . . . . . . . |
//              list 0    list 2  list 1          free from `end`
//   start:     0         4       6
//   len/cap:   2/4       1/2     4/7
//
// A fifth entry in list 0 would move it to `end` with room 5 + 5/2 + 4.
struct ListPool {
  std::vector<index_t> start, len, cap;
  std::vector<index_t> idx, idx_spare;
  std::vector<double> val, val_spare;
  std::int64_t end = 0;
  bool with_values = true;

  // `lists` empty lists, pool of at least `capacity` entries.
  void reset(index_t lists, std::int64_t capacity, bool values);
  // Gives the (empty) list l a fresh area of c entries at the pool's end.
  void place(index_t l, index_t c);
  // Room for `extra` more entries in list l.
  void ensure(index_t l, index_t extra) {
    if (len[l] + extra > cap[l]) grow(l, len[l] + extra);
  }
  void push(index_t l, index_t i, double v) {
    ensure(l, 1);
    const std::int64_t k = std::int64_t(start[l]) + len[l]++;
    idx[k] = i;
    if (with_values) val[k] = v;
  }
  // Absolute pool position of index i in list l, or -1.
  std::int64_t find(index_t l, index_t i) const {
    const std::int64_t b = start[l], e = b + len[l];
    for (std::int64_t k = b; k < e; ++k)
      if (idx[k] == i) return k;
    return -1;
  }
  // Removes the entry at absolute pool position k of list l.
  void remove_at(index_t l, std::int64_t k) {
    const std::int64_t last = std::int64_t(start[l]) + --len[l];
    idx[k] = idx[last];
    if (with_values) val[k] = val[last];
  }
  void clear(index_t l) { len[l] = 0; }
  const index_t* indices(index_t l) const { return idx.data() + start[l]; }
  const double* values(index_t l) const { return val.data() + start[l]; }

 private:
  void grow(index_t l, index_t need);
};

// Doubly linked lists of items by count (the Markowitz count lists).
struct Buckets {
  std::vector<index_t> head, next, prev, where;
  void reset(index_t items, index_t max_count) {
    head.assign(std::size_t(max_count) + 2, -1);
    next.assign(std::size_t(items), -1);
    prev.assign(std::size_t(items), -1);
    where.assign(std::size_t(items), -1);
  }
  void insert(index_t x, index_t k) {
    where[x] = k;
    prev[x] = -1;
    next[x] = head[k];
    if (head[k] >= 0) prev[head[k]] = x;
    head[k] = x;
  }
  void remove(index_t x) {
    const index_t k = where[x];
    if (k < 0) return;
    if (prev[x] >= 0) next[prev[x]] = next[x];
    else head[k] = next[x];
    if (next[x] >= 0) prev[next[x]] = prev[x];
    where[x] = -1;
  }
  void move(index_t x, index_t k) {
    if (where[x] == k) return;
    remove(x);
    insert(x, k);
  }
};

// The Markowitz factorisation's workspace (kept between factorisations so
// that a refactorisation reuses its arrays).
struct LuWork {
  ListPool cols;  // active submatrix by basis position: (row, value)
  ListPool rows;  // its pattern by row: (position)
  Buckets col_count, row_count;
  std::vector<double> col_max;  // < 0: not known
  std::vector<std::uint32_t> lmark, vis;
  std::uint32_t lstamp = 0, vstamp = 0;
  std::vector<double> lval;
  std::vector<signed char> col_state, row_state;  // 0 active, 1 pivoted, 2 singular/missing
  std::vector<index_t> colq, rowq, lrows, touched, urow_tmp;
  bool collect_cols = false, collect_rows = false;
  // The pivots in order, their U rows (by position) and L columns (by row).
  std::vector<index_t> piv_row, piv_col;
  std::vector<double> piv_val;
  std::vector<index_t> u_start, u_pos, l_start, l_row;
  std::vector<double> u_val, l_val;
  std::vector<index_t> singular_cols, missing_rows;
};

struct Eta {
  index_t t = 0;      // the vacated slot
  index_t fresh = 0;  // the slot appended
  index_t begin = 0, end = 0;  // its entries in r_idx/r_val
};

}  // namespace balsa::lp::detail

namespace balsa::lp {

struct BasisFactor::Data {
  index_t m = 0;
  index_t capacity = 0;  // m + max_updates + 1 slots
  int max_updates = 0;
  index_t n_slots = 0;   // m + updates

  // Permutations.
  std::vector<index_t> slot_of_row, row_of_slot, position_of_slot, slot_of_position;

  // L (unit lower, slots 0..m-1): by column and by row (L^T's columns),
  // strict part only; the slots whose column (row) is not empty.
  std::vector<index_t> l_start, l_idx, lt_start, lt_idx;
  std::vector<double> l_val, lt_val;
  std::vector<index_t> l_cols, lt_rows;  // ascending

  // U (upper, slot space): diagonal apart, off-diagonal by column and by row.
  std::vector<double> diag;
  detail::ListPool ucol, urow;
  std::int64_t nnz_u = 0, nnz_u0 = 0;  // off-diagonal entries now / after factorize

  // Row etas R_1..R_k, and their entries linked by slot (for the sparse
  // FTRAN: r_next[e] is the next entry in the same slot, r_head[slot] the first).
  // The eta file, e.g. (m = 5) after R_1 = (t 0, fresh 5, r over slots 2, 3)
  // and R_2 = (t 1, fresh 6, r over slots 2, 5):
  //
  //   entry e:   0  1  2  3        etas[0] = {t 0, fresh 5, begin 0, end 2}
  //   r_idx:     2  3  2  5        etas[1] = {t 1, fresh 6, begin 2, end 4}
  //   r_eta:     0  0  1  1
  //   r_next:   -1 -1  0 -1        slot 2's chain: r_head[2] = 2 -> 0 -> -1
  //
  // acc[k] gathers r_k.z during FTRAN's R phase (one entry per eta).
  std::vector<detail::Eta> etas;
  std::vector<index_t> r_idx, r_eta, r_next, r_head;
  std::vector<double> r_val, acc;

  // Work arrays (slot space, zero between calls), the index list, stamps.
  std::vector<double> w;
  std::vector<index_t> list, topo, stack_node, stack_pos;
  std::vector<std::uint32_t> mark;
  std::uint32_t stamp = 0;

  // The Forrest-Tomlin spike of the last ftran(keep_ft_spike) (slot space).
  std::vector<double> ft_spike;
  std::vector<index_t> ft_spike_list;
  index_t ft_spike_count = 0;
  bool ft_spike_valid = false;
  void forget_ft_spike() {
    for (index_t q = 0; q < ft_spike_count; ++q) ft_spike[ft_spike_list[q]] = 0.0;
    ft_spike_count = 0;
    ft_spike_valid = false;
  }

  // Output density of the recent solves per phase (a running average): a
  // phase goes hypersparse only while both its input and its expected output
  // are below hypersparse_density (HiGHS-style prediction; eq. 7.45's test
  // on the input alone picks DFS for rhs whose result then fills in).
  enum Phase { FtranL, FtranU, BtranU, BtranL };
  double est[4] = {0.0, 0.0, 0.0, 0.0};
  bool use_hyper(Phase p, index_t cnt, double density) const {
    return double(cnt) < density * m && est[p] < density;
  }
  void record(Phase p, index_t out) {
    if (m > 0) est[p] = 0.9 * est[p] + 0.1 * double(out) / m;
  }

  std::vector<index_t> changed;
  std::vector<std::pair<index_t, double>> row_tmp;

  detail::LuWork lu;

  void allocate(index_t rows, int updates);
  // Moves rhs (length rows, entry k to slot slot_of[k]) into w, marking and
  // listing the slots it fills; rhs is left empty. Returns the count listed.
  index_t gather(SparseVector& rhs, const index_t* slot_of, index_t rows);
  // Lists slot s once per solve (the current stamp): how the sweeps know
  // which slots they made nonzero.
  void list_once(index_t s, index_t& cnt) {
    if (mark[s] != stamp) {
      mark[s] = stamp;
      list[cnt++] = s;
    }
  }
  // w[idx[p]] -= val[p] * x for p < len, listing every slot it reaches.
  void scatter_listed(const index_t* idx, const double* val, index_t len, double x, index_t& cnt) {
    for (index_t p = 0; p < len; ++p) {
      list_once(idx[p], cnt);
      w[idx[p]] -= val[p] * x;
    }
  }
  std::uint32_t new_stamp() {
    if (++stamp == 0) {
      std::fill(mark.begin(), mark.end(), 0u);
      stamp = 1;
    }
    return stamp;
  }
  // Depth-first reach (thesis eq. 7.45) from the roots with w[root] != 0
  // over the graph adj(node) -> (indices, count). Writes the reached nodes in
  // postorder to out (reverse it for a topological order) and returns their
  // number; every reached node is marked with the new stamp.
  template <class Adj>
  index_t reach(const index_t* roots, index_t nroots, Adj&& adj, index_t* out);

  // basis_factor_lu.cpp: the finished elimination (lu) into slot space.
  void store_pivots();
  std::size_t store_lower();   // returns nnz(L)
  std::int64_t store_upper();  // returns nnz(U) off the diagonal
  void clear_updates();

  // basis_factor_solve.cpp: the phases of FTRAN and BTRAN on w and its list
  // of cnt slots; each returns (or updates) the count listed.
  index_t unit_hypersparse_solve(const index_t* start, const index_t* idx, const double* val, index_t cnt);
  index_t ftran_lower(index_t cnt, double hypersparse_density);
  void ftran_row_etas(index_t& cnt);
  void keep_ft_spike(index_t cnt);
  index_t ftran_upper(index_t cnt, double hypersparse_density, SparseVector& rhs);
  index_t btran_upper(index_t cnt, double hypersparse_density);
  void btran_row_etas(index_t& cnt);
  index_t btran_lower(index_t cnt, double hypersparse_density, SparseVector& rhs);

  // basis_factor_forrest_tomlin.cpp: the steps of the update (thesis 7.2.2).
  double ft_row_eta(index_t t);
  bool ft_diagonal_acceptable(index_t t, double dnew, double expected_pivot, double tolerance) const;
  void ft_vacate_slot(index_t t, index_t fresh);
  void ft_append_column(index_t t, index_t fresh, index_t position, double dnew);
  void ft_append_eta(index_t t, index_t fresh, std::size_t r_begin);
};

template <class Adj>
index_t BasisFactor::Data::reach(const index_t* roots, index_t nroots, Adj&& adj, index_t* out) {
  const std::uint32_t st = new_stamp();
  index_t n = 0;
  index_t* sn = stack_node.data();
  index_t* sp_pos = stack_pos.data();
  for (index_t q = 0; q < nroots; ++q) {
    const index_t root = roots[q];
    if (mark[root] == st || w[root] == 0.0) continue;
    mark[root] = st;
    index_t sp = 0;
    sn[0] = root;
    sp_pos[0] = 0;
    while (sp >= 0) {
      const index_t node = sn[sp];
      const auto [child_idx, nchild] = adj(node);
      index_t pos = sp_pos[sp];
      bool pushed = false;
      while (pos < nchild) {
        const index_t c = child_idx[pos++];
        if (mark[c] != st) {
          mark[c] = st;
          sp_pos[sp] = pos;
          ++sp;
          sn[sp] = c;
          sp_pos[sp] = 0;
          pushed = true;
          break;
        }
      }
      if (!pushed) {
        out[n++] = node;
        --sp;
      }
    }
  }
  return n;
}

}  // namespace balsa::lp
