// balsa: random column replacements of triangular matrices (generators.hpp),
// the sequences of Picciau's thesis, Sect. 6.3.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "balsa/generators.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "sparse/generators/sampling.hpp"

namespace balsa {

template <class T>
ColumnReplacement<T> random_column_replacement(const Csr<T>& L, Triangle tri, index_t count, std::uint64_t seed) try {
  if (L.rows != L.cols) throw DimensionError("random_column_replacement: the matrix is not square");
  const Csr<T> C = transpose(L);  // its rows: L's columns
  const bool lower = tri == Triangle::Lower;
  auto off = [&](index_t i, index_t j) { return lower ? i > j : i < j; };
  std::vector<index_t> candidates;
  for (index_t j = 0; j < C.rows; ++j)
    for (index_t p = C.row_ptr[j]; p < C.row_ptr[j + 1]; ++p)
      if (off(C.col_idx[p], j)) {
        candidates.push_back(j);
        break;
      }
  if (count < 0 || count > index_t(candidates.size()))
    throw DimensionError("random_column_replacement: " + std::to_string(count) + " columns asked, " +
                         std::to_string(candidates.size()) + " have off-diagonal entries");
  Random rng(seed);
  for (index_t t = 0; t < count; ++t)  // a partial Fisher-Yates shuffle picks `count` of them
    std::swap(candidates[std::size_t(t)], candidates[std::size_t(t) + std::size_t(rng.below(candidates.size() - std::size_t(t)))]);
  candidates.resize(std::size_t(count));
  std::sort(candidates.begin(), candidates.end());
  ColumnReplacement<T> out;
  std::vector<index_t> rows, scratch;
  std::vector<T> values;
  std::vector<std::pair<index_t, T>> column;
  for (const index_t j : candidates) {
    column.clear();
    values.clear();
    for (index_t p = C.row_ptr[j]; p < C.row_ptr[j + 1]; ++p)
      if (off(C.col_idx[p], j)) values.push_back(C.values[p]);
      else if (C.col_idx[p] == j) column.push_back({j, C.values[p]});
    const auto k = index_t(values.size());
    const index_t range = lower ? L.rows - 1 - j : j;  // rows j+1..n-1, or 0..j-1
    rows.resize(std::size_t(k));
    detail::sample_distinct(rng, range, k, rows.data(), scratch);
    for (index_t t = k; t > 1; --t) std::swap(values[std::size_t(t) - 1], values[std::size_t(rng.below(std::uint64_t(t)))]);
    for (index_t t = 0; t < k; ++t) column.push_back({lower ? j + 1 + rows[std::size_t(t)] : rows[std::size_t(t)], values[std::size_t(t)]});
    std::sort(column.begin(), column.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.columns.push_back(j);
    for (const auto& [i, v] : column) {
      out.row_idx.push_back(i);
      out.values.push_back(v);
    }
    out.col_ptr.push_back(index_t(out.row_idx.size()));
  }
  return out;
} catch (...) {
  rethrow_as_balsa_error("random_column_replacement");
}

template <class T>
Csr<T> with_columns_replaced(const Csr<T>& L, const ColumnReplacement<T>& c) try {
  std::vector<char> replaced(std::size_t(L.cols), 0);
  for (const index_t j : c.columns) replaced.at(std::size_t(j)) = 1;
  std::vector<std::tuple<index_t, index_t, T>> entries;
  for (index_t i = 0; i < L.rows; ++i)
    for (index_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p)
      if (!replaced[std::size_t(L.col_idx[p])]) entries.emplace_back(i, L.col_idx[p], L.values[p]);
  for (std::size_t t = 0; t < c.columns.size(); ++t)
    for (index_t p = c.col_ptr[t]; p < c.col_ptr[t + 1]; ++p)
      entries.emplace_back(c.row_idx[std::size_t(p)], c.columns[t], c.values[std::size_t(p)]);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b)); });
  Csr<T> out;
  out.rows = L.rows;
  out.cols = L.cols;
  out.row_ptr.assign(std::size_t(L.rows) + 1, 0);
  for (const auto& [i, j, v] : entries) {
    ++out.row_ptr[std::size_t(i) + 1];
    out.col_idx.push_back(j);
    out.values.push_back(v);
  }
  for (index_t i = 0; i < L.rows; ++i) out.row_ptr[std::size_t(i) + 1] += out.row_ptr[std::size_t(i)];
  return out;
} catch (...) {
  rethrow_as_balsa_error("with_columns_replaced");
}

#define BALSA_INSTANTIATE(T)                                                                                    \
  template ColumnReplacement<T> random_column_replacement<T>(const Csr<T>&, Triangle, index_t, std::uint64_t); \
  template Csr<T> with_columns_replaced<T>(const Csr<T>&, const ColumnReplacement<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
