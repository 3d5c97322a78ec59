// New matrices of pattern updates (see pattern_update.hpp).
#include "trsv/pattern_update.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "balsa/error.hpp"
#include "core/instantiate.hpp"

namespace balsa::trsv_update {

namespace {

bool inside(Triangle tri, index_t row, index_t col) { return tri == Triangle::Lower ? col <= row : col >= row; }
bool off_diagonal_inside(Triangle tri, index_t row, index_t col) { return row != col && inside(tri, row, col); }
std::string at(index_t row, index_t col) { return "row " + std::to_string(row) + ", column " + std::to_string(col); }

}  // namespace

template <class T>
void check_new_columns(index_t n, Triangle tri, DiagonalKind diag, const NewColumns<T>& c) {
  const std::size_t k = c.columns.size();
  if (c.col_ptr.size() != k + 1)
    throw DimensionError("replace_columns: col_ptr has " + std::to_string(c.col_ptr.size()) + " entries for " +
                         std::to_string(k) + " columns (needs columns + 1)");
  if (c.col_ptr[0] != 0) throw DimensionError("replace_columns: col_ptr must start at 0");
  for (std::size_t t = 0; t < k; ++t)
    if (c.col_ptr[t + 1] < c.col_ptr[t])
      throw DimensionError("replace_columns: col_ptr decreases at " + std::to_string(t + 1));
  if (std::size_t(c.col_ptr[k]) != c.row_idx.size() || c.row_idx.size() != c.values.size())
    throw DimensionError("replace_columns: col_ptr ends at " + std::to_string(c.col_ptr[k]) + ", with " +
                         std::to_string(c.row_idx.size()) + " row indices and " + std::to_string(c.values.size()) +
                         " values");
  std::vector<char> seen(std::size_t(n), 0);
  for (std::size_t t = 0; t < k; ++t) {
    const index_t j = c.columns[t];
    if (j < 0 || j >= n)
      throw DimensionError("replace_columns: column " + std::to_string(j) + " is out of range for a matrix of " +
                           std::to_string(n) + " columns");
    if (seen[std::size_t(j)]++) throw MatrixError("replace_columns: column " + std::to_string(j) + " is given twice");
    bool has_diagonal = false;
    for (index_t p = c.col_ptr[t]; p < c.col_ptr[t + 1]; ++p) {
      const index_t i = c.row_idx[std::size_t(p)];
      if (i < 0 || i >= n)
        throw MatrixError("replace_columns: column " + std::to_string(j) + " has row index " + std::to_string(i) +
                          ", out of range for " + std::to_string(n) + " rows");
      if (p > c.col_ptr[t] && i <= c.row_idx[std::size_t(p) - 1])
        throw MatrixError("replace_columns: the rows of column " + std::to_string(j) +
                          " are not strictly increasing (sorted, no duplicates) at " + at(i, j));
      if (!inside(tri, i, j))
        throw MatrixError(std::string("replace_columns: the entry at ") + at(i, j) + " is " +
                          (tri == Triangle::Lower ? "above the diagonal of a lower" : "below the diagonal of an upper") +
                          " triangular matrix");
      if (!std::isfinite(c.values[std::size_t(p)])) throw MatrixError("replace_columns: NaN or Inf at " + at(i, j));
      if (i == j) {
        has_diagonal = true;
        if (diag == DiagonalKind::NonUnit && c.values[std::size_t(p)] == T(0))
          throw MatrixError("replace_columns: zero diagonal at " + at(j, j));
      }
    }
    if (diag == DiagonalKind::NonUnit && !has_diagonal)
      throw MatrixError("replace_columns: column " + std::to_string(j) + " has no diagonal entry (row " +
                        std::to_string(j) + ")");
  }
}

namespace {

// The edges of row i that differ between two sorted column lists.
void row_difference(index_t i, Triangle tri, std::span<const index_t> before, std::span<const index_t> after,
                    tassl::PatternChange& change) {
  std::size_t a = 0, b = 0;
  while (a < before.size() || b < after.size()) {
    const index_t ja = a < before.size() ? before[a] : std::numeric_limits<index_t>::max();
    const index_t jb = b < after.size() ? after[b] : std::numeric_limits<index_t>::max();
    if (ja == jb) {
      ++a, ++b;
    } else if (ja < jb) {
      if (off_diagonal_inside(tri, i, ja)) change.removed.push_back({i, ja});
      ++a;
    } else {
      if (off_diagonal_inside(tri, i, jb)) change.added.push_back({i, jb});
      ++b;
    }
  }
}

template <class T>
std::span<const index_t> row_of(const Csr<T>& A, index_t i) {
  return {A.col_idx.data() + A.row_ptr[std::size_t(i)], std::size_t(A.row_ptr[std::size_t(i) + 1] - A.row_ptr[std::size_t(i)])};
}

// Column by column, parents in dependency order (increasing for Lower,
// decreasing for Upper): the order Alg. 6.2 places vertices in.
void order_added(tassl::PatternChange& change, Triangle tri) {
  std::stable_sort(change.added.begin(), change.added.end(), [tri](const tassl::Edge& x, const tassl::Edge& y) {
    return tri == Triangle::Lower ? x.parent < y.parent : x.parent > y.parent;
  });
}

}  // namespace

template <class T>
Csr<T> with_columns_replaced(const Csr<T>& M, Triangle tri, const NewColumns<T>& c, tassl::PatternChange& change) {
  const index_t n = M.rows;
  std::vector<char> replaced(std::size_t(n), 0);
  for (const index_t j : c.columns) replaced[std::size_t(j)] = 1;
  // The new entries by row (a counting sort, columns in increasing order so
  // that each row's are sorted): (column, position in c).
  std::vector<index_t> ptr(std::size_t(n) + 1, 0);
  for (const index_t i : c.row_idx) ++ptr[std::size_t(i) + 1];
  for (index_t i = 0; i < n; ++i) ptr[std::size_t(i) + 1] += ptr[std::size_t(i)];
  std::vector<std::pair<index_t, index_t>> by_row(c.row_idx.size());
  {
    std::vector<index_t> next(ptr.begin(), ptr.end() - 1);
    std::vector<std::size_t> order(c.columns.size());
    for (std::size_t t = 0; t < order.size(); ++t) order[t] = t;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.columns[a] < c.columns[b]; });
    for (const std::size_t t : order)
      for (index_t p = c.col_ptr[t]; p < c.col_ptr[t + 1]; ++p)
        by_row[std::size_t(next[std::size_t(c.row_idx[std::size_t(p)])]++)] = {c.columns[t], p};
  }
  Csr<T> out;
  out.rows = out.cols = n;
  out.row_ptr.assign(std::size_t(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {  // sizes
    index_t kept = 0;
    for (index_t p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p) kept += replaced[std::size_t(M.col_idx[p])] ? 0 : 1;
    out.row_ptr[std::size_t(i) + 1] = out.row_ptr[std::size_t(i)] + kept + (ptr[std::size_t(i) + 1] - ptr[std::size_t(i)]);
  }
  out.col_idx.resize(std::size_t(out.row_ptr.back()));
  out.values.resize(std::size_t(out.row_ptr.back()));
  change = {};
  for (index_t i = 0; i < n; ++i) {  // merge the kept entries and the new ones, by column
    index_t q = out.row_ptr[std::size_t(i)];
    index_t a = M.row_ptr[i], b = ptr[std::size_t(i)];
    bool touched = b < ptr[std::size_t(i) + 1];
    while (a < M.row_ptr[i + 1] || b < ptr[std::size_t(i) + 1]) {
      if (a < M.row_ptr[i + 1] && replaced[std::size_t(M.col_idx[a])]) {
        touched = true;
        ++a;
        continue;
      }
      const index_t ja = a < M.row_ptr[i + 1] ? M.col_idx[a] : n;
      const index_t jb = b < ptr[std::size_t(i) + 1] ? by_row[std::size_t(b)].first : n;
      if (ja < jb) {
        out.col_idx[std::size_t(q)] = ja;
        out.values[std::size_t(q++)] = M.values[a++];
      } else {
        out.col_idx[std::size_t(q)] = jb;
        out.values[std::size_t(q++)] = c.values[std::size_t(by_row[std::size_t(b++)].second)];
      }
    }
    if (touched) {
      change.rows.push_back(i);
      row_difference(i, tri, row_of(M, i), row_of(out, i), change);
    }
  }
  order_added(change, tri);
  return out;
}

template <class T>
Csr<T> with_rows_replaced(const Csr<T>& M, Triangle tri, const NewColumns<T>& c, tassl::PatternChange& change) {
  const index_t n = M.rows;
  std::vector<index_t> slot(std::size_t(n), -1);
  for (std::size_t t = 0; t < c.columns.size(); ++t) slot[std::size_t(c.columns[t])] = index_t(t);
  Csr<T> out;
  out.rows = out.cols = n;
  out.row_ptr.assign(std::size_t(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    const index_t t = slot[std::size_t(i)];
    out.row_ptr[std::size_t(i) + 1] =
        out.row_ptr[std::size_t(i)] + (t < 0 ? M.row_ptr[i + 1] - M.row_ptr[i] : c.col_ptr[std::size_t(t) + 1] - c.col_ptr[std::size_t(t)]);
  }
  out.col_idx.resize(std::size_t(out.row_ptr.back()));
  out.values.resize(std::size_t(out.row_ptr.back()));
  change = {};
  for (index_t i = 0; i < n; ++i) {
    const index_t t = slot[std::size_t(i)];
    const index_t q = out.row_ptr[std::size_t(i)];
    if (t < 0) {
      std::copy(M.col_idx.begin() + M.row_ptr[i], M.col_idx.begin() + M.row_ptr[i + 1], out.col_idx.begin() + q);
      std::copy(M.values.begin() + M.row_ptr[i], M.values.begin() + M.row_ptr[i + 1], out.values.begin() + q);
      continue;
    }
    std::copy(c.row_idx.begin() + c.col_ptr[std::size_t(t)], c.row_idx.begin() + c.col_ptr[std::size_t(t) + 1],
              out.col_idx.begin() + q);
    std::copy(c.values.begin() + c.col_ptr[std::size_t(t)], c.values.begin() + c.col_ptr[std::size_t(t) + 1],
              out.values.begin() + q);
    change.rows.push_back(i);
    row_difference(i, tri, row_of(M, i), row_of(out, i), change);
  }
  order_added(change, tri);
  return out;
}

template <class T>
tassl::PatternChange pattern_difference(const Csr<T>& M, const Csr<T>& M_new, Triangle tri) {
  if (M.rows != M_new.rows || M.cols != M_new.cols)
    throw DimensionError("update_pattern: the new matrix is " + std::to_string(M_new.rows) + " x " +
                         std::to_string(M_new.cols) + ", the solver's " + std::to_string(M.rows) + " x " +
                         std::to_string(M.cols));
  tassl::PatternChange change;
  for (index_t i = 0; i < M.rows; ++i) {
    const std::span<const index_t> before = row_of(M, i), after = row_of(M_new, i);
    if (std::equal(before.begin(), before.end(), after.begin(), after.end())) continue;
    change.rows.push_back(i);
    row_difference(i, tri, before, after, change);
  }
  order_added(change, tri);
  return change;
}

#define BALSA_INSTANTIATE(T)                                                                                         \
  template void check_new_columns<T>(index_t, Triangle, DiagonalKind, const NewColumns<T>&);                        \
  template Csr<T> with_columns_replaced<T>(const Csr<T>&, Triangle, const NewColumns<T>&, tassl::PatternChange&);  \
  template Csr<T> with_rows_replaced<T>(const Csr<T>&, Triangle, const NewColumns<T>&, tassl::PatternChange&);     \
  template tassl::PatternChange pattern_difference<T>(const Csr<T>&, const Csr<T>&, Triangle);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_update
