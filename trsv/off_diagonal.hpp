// Internal (host): the split of A into its off-diagonal part (CSR,
// optionally with the rows reordered) and its diagonal, with the map back to
// A's CSR positions that update_values() gathers through. Shared by the GPU
// triangular solvers; plain C++ so that host code and tests can use it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "balsa/error.hpp"
#include "balsa/graph.hpp"
#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"
#include "core/parallel.hpp"

namespace balsa::trsv_gpu::detail {

// Row k of this pattern is row order[k] of A (or row k when order is empty),
// without its diagonal entry. value_pos[p] is the position in A.values of
// off-diagonal entry p; diag_pos[k] that of row order[k]'s diagonal, or -1
// when the diagonal is taken as 1 (Unit: a stored diagonal is ignored).
struct OffDiagonal {
  index_t n = 0;
  std::vector<index_t> row_ptr{0};
  std::vector<index_t> col_idx;
  std::vector<index_t> value_pos;
  std::vector<index_t> diag_pos;
  index_t nnz() const { return row_ptr.back(); }
};

// Rows in parallel: a count per row (its entries but the diagonal), the
// prefix sum, then each row's copy.
template <class T>
OffDiagonal split_diagonal(const Csr<T>& A, DiagonalKind diag, std::span<const index_t> order = {}) {
  const index_t n = A.rows;
  auto row = [&](index_t k) { return order.empty() ? k : order[std::size_t(k)]; };
  OffDiagonal s;
  s.n = n;
  parallel::fresh_assign(s.row_ptr, std::size_t(n) + 1, 0);
  parallel::fresh_assign(s.diag_pos, std::size_t(n), -1);
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
  for (index_t k = 0; k < n; ++k) {
    const index_t i = row(k);
    index_t off = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      if (A.col_idx[p] != i) {
        ++off;
      } else if (diag == DiagonalKind::NonUnit) {
        s.diag_pos[std::size_t(k)] = p;
      }
    }
    s.row_ptr[std::size_t(k) + 1] = off;
  }
  parallel::prefix_sum(s.row_ptr);
  parallel::fresh_assign(s.col_idx, std::size_t(s.nnz()));
  parallel::fresh_assign(s.value_pos, std::size_t(s.nnz()));
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
  for (index_t k = 0; k < n; ++k) {
    const index_t i = row(k);
    index_t q = s.row_ptr[std::size_t(k)];
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) {
        s.col_idx[std::size_t(q)] = A.col_idx[p];
        s.value_pos[std::size_t(q++)] = p;
      }
  }
  return s;
}

// Position in A.values of each row's diagonal entry, or -1 where there is none
// or the diagonal is taken as 1 (Unit).
template <class T>
std::vector<index_t> diagonal_positions(const Csr<T>& A, DiagonalKind diag) {
  std::vector<index_t> pos(std::size_t(A.rows), -1);
  if (diag == DiagonalKind::NonUnit) {
#pragma omp parallel for schedule(static) if (A.rows > parallel::kParallelMin)
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
        if (A.col_idx[p] == i) pos[std::size_t(i)] = p;
  }
  return pos;
}

// Off-diagonal values in the pattern's order and the diagonal per row, from
// values in A's CSR order.
template <class T>
void gather_diagonal(const OffDiagonal& s, std::span<const T> values, std::vector<T>& diag) {
  diag.resize(s.diag_pos.size());
  parallel::gather(std::span<const index_t>(s.diag_pos), values, std::span<T>(diag), T(1));
}

// 1 / d[k], or 0 where that is not finite (|d[k]| below 1 / max: the
// kernels then divide by d[k]); the device twin is gather_reciprocal_device.
template <class T>
std::vector<T> reciprocals(std::span<const T> d) {
  std::vector<T> inv(d.size());
#pragma omp parallel for schedule(static) if (std::int64_t(d.size()) > parallel::kParallelMin)
  for (std::int64_t k = 0; k < std::int64_t(d.size()); ++k) {
    const T r = T(1) / d[std::size_t(k)];
    inv[std::size_t(k)] = std::isfinite(r) ? r : T(0);
  }
  return inv;
}

template <class T>
void gather_values(const OffDiagonal& s, std::span<const T> values, std::vector<T>& off, std::vector<T>& diag) {
  off.resize(s.value_pos.size());
  parallel::gather(std::span<const index_t>(s.value_pos), values, std::span<T>(off));
  gather_diagonal(s, values, diag);
}

inline void require_values(std::size_t got, std::size_t nnz, const char* who) {
  if (got != nnz)
    throw DimensionError(std::string(who) + ": update_values got " + std::to_string(got) + " values for " +
                         std::to_string(nnz) + " stored entries");
}

// Level sets handed to a GPU solver must be those of a matrix with `rows` rows.
inline void require_level_sets(const LevelSets& levels, index_t rows, const char* who) {
  if (levels.rows.size() != std::size_t(rows))
    throw DimensionError(std::string(who) + ": level sets of " + std::to_string(levels.rows.size()) + " rows for " +
                         std::to_string(rows));
}

// out[e] = values[pos[e]], or 0 where pos[e] < 0 (an unused slot).
template <class T>
void gather_positions(std::span<const index_t> pos, std::span<const T> values, std::vector<T>& out) {
  out.resize(pos.size());
  parallel::gather(pos, values, std::span<T>(out));
}

}  // namespace balsa::trsv_gpu::detail
