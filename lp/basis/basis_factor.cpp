// BasisFactor: the sparse vector, the storage helpers, and the factors
// exported in slot space (the GPU path). The factorisation is in
// basis_factor_lu.cpp (thesis 7.1.2), the solves in basis_factor_solve.cpp
// (eq. 7.45), the Forrest-Tomlin update in basis_factor_forrest_tomlin.cpp
// (7.2.2).
#include <algorithm>
#include <cmath>
#include <string>

#include "balsa/error.hpp"
#include "lp/basis/basis_factor_data.hpp"

namespace balsa::lp {

// ---- SparseVector -------------------------------------------------------------

void SparseVector::resize(index_t n) {
  values.assign(std::size_t(n), 0.0);
  index.resize(std::size_t(n));
  count = 0;
}

void SparseVector::clear() {
  if (count < 0 || std::size_t(count) > index.size()) {
    std::fill(values.begin(), values.end(), 0.0);
  } else {
    for (index_t k = 0; k < count; ++k) values[index[k]] = 0.0;
  }
  count = 0;
}

void SparseVector::set(index_t i, double v) {
  values[i] = v;
  if (count < 0) return;
  if (std::size_t(count) < index.size()) index[count] = i;
  else index.push_back(i);
  ++count;
}

void SparseVector::rebuild_index(double drop) {
  if (index.size() < values.size()) index.resize(values.size());
  index_t c = 0;
  const index_t n = size();
  for (index_t i = 0; i < n; ++i) {
    const double v = values[i];
    if (v == 0.0) continue;
    if (std::abs(v) > drop) index[c++] = i;
    else values[i] = 0.0;
  }
  count = c;
}

// ---- ListPool -----------------------------------------------------------------

namespace detail {

void ListPool::reset(index_t lists, std::int64_t capacity, bool values) {
  with_values = values;
  start.assign(std::size_t(lists), 0);
  len.assign(std::size_t(lists), 0);
  cap.assign(std::size_t(lists), 0);
  capacity = std::max<std::int64_t>(capacity, 16);
  if (std::int64_t(idx.size()) < capacity) idx.resize(std::size_t(capacity));
  if (with_values && std::int64_t(val.size()) < capacity) val.resize(std::size_t(capacity));
  end = 0;
}

void ListPool::place(index_t l, index_t c) {
  if (end + c > std::int64_t(idx.size())) {
    grow(l, c);  // compacts (l is empty) and places l
    return;
  }
  start[l] = index_t(end);
  cap[l] = c;
  len[l] = 0;
  end += c;
}

void ListPool::grow(index_t l, index_t need) {
  const index_t want = need + need / 2 + 4;
  if (end + want <= std::int64_t(idx.size())) {  // move l to the end
    const std::int64_t from = start[l], to = end;
    std::copy(idx.begin() + from, idx.begin() + from + len[l], idx.begin() + to);
    if (with_values) std::copy(val.begin() + from, val.begin() + from + len[l], val.begin() + to);
    start[l] = index_t(to);
    cap[l] = want;
    end += want;
    return;
  }
  // Compact every list into the spare pool, l last with its new room.
  const index_t lists = index_t(start.size());
  std::int64_t needed = want;
  for (index_t x = 0; x < lists; ++x)
    if (x != l) needed += len[x] + len[x] / 4 + 2;
  const std::int64_t size = std::max<std::int64_t>(std::int64_t(idx.size()), 2 * needed);
  if (std::int64_t(idx_spare.size()) < size) idx_spare.resize(std::size_t(size));
  if (with_values && std::int64_t(val_spare.size()) < size) val_spare.resize(std::size_t(size));
  std::int64_t pos = 0;
  for (index_t x = 0; x < lists; ++x) {
    if (x == l) continue;
    const std::int64_t from = start[x];
    std::copy(idx.begin() + from, idx.begin() + from + len[x], idx_spare.begin() + pos);
    if (with_values) std::copy(val.begin() + from, val.begin() + from + len[x], val_spare.begin() + pos);
    start[x] = index_t(pos);
    cap[x] = len[x] + len[x] / 4 + 2;
    pos += cap[x];
  }
  {
    const std::int64_t from = start[l];
    std::copy(idx.begin() + from, idx.begin() + from + len[l], idx_spare.begin() + pos);
    if (with_values) std::copy(val.begin() + from, val.begin() + from + len[l], val_spare.begin() + pos);
    start[l] = index_t(pos);
    cap[l] = want;
    pos += want;
  }
  idx.swap(idx_spare);
  if (with_values) val.swap(val_spare);
  end = pos;
  if (std::int64_t(idx.size()) < size) {  // the old pool was the smaller
    idx.resize(std::size_t(size));
    if (with_values) val.resize(std::size_t(size));
  }
}

}  // namespace detail

// ---- Data ----------------------------------------------------------------------

void BasisFactor::Data::allocate(index_t rows, int updates) {
  m = rows;
  max_updates = std::max(updates, 0);
  capacity = checked_index(std::int64_t(rows) + max_updates + 1, "basis factor slots");
  const std::size_t c = std::size_t(capacity), mm = std::size_t(rows);
  slot_of_row.assign(mm, 0);
  row_of_slot.assign(mm, 0);
  slot_of_position.assign(mm, 0);
  position_of_slot.assign(c, -1);
  diag.assign(c, 1.0);
  r_head.assign(c, -1);
  acc.assign(std::size_t(max_updates) + 1, 0.0);
  w.assign(c, 0.0);
  list.assign(c, 0);
  topo.assign(c, 0);
  stack_node.assign(c, 0);
  stack_pos.assign(c, 0);
  mark.assign(c, 0u);
  stamp = 0;
  ft_spike.assign(c, 0.0);
  ft_spike_list.assign(c, 0);
  ft_spike_count = 0;
  ft_spike_valid = false;
  etas.reserve(std::size_t(max_updates) + 1);
  changed.reserve(c);
}

// ---- BasisFactor: construction and the exported factors --------------------------

namespace {

// List l of the pool (unordered), sorted by index, appended to (idx, val);
// `tmp` is scratch.
void append_sorted(const detail::ListPool& pool, index_t l, std::vector<std::pair<index_t, double>>& tmp,
                   std::vector<index_t>& idx, std::vector<double>& val) {
  const index_t len = pool.len[l];
  const index_t* ix = pool.indices(l);
  const double* vx = pool.values(l);
  tmp.assign(std::size_t(len), {});
  for (index_t k = 0; k < len; ++k) tmp[k] = {ix[k], vx[k]};
  std::sort(tmp.begin(), tmp.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [i, v] : tmp) {
    idx.push_back(i);
    val.push_back(v);
  }
}

// A slot-space vector has room for every slot in use.
void check_slot_vector(std::size_t size, index_t slots, const char* where) {
  if (index_t(size) < slots)
    throw DimensionError(std::string(where) + ": the vector has " + std::to_string(size) + " entries, the factor " +
                         std::to_string(slots) + " slots");
}

}  // namespace

BasisFactor::BasisFactor(const BasisFactorOptions& options) : options_(options) {
  if (options_.max_updates < 0) throw Error("BasisFactor: max_updates must be >= 0");
  if (!(options_.pivot_threshold > 0.0 && options_.pivot_threshold <= 1.0))
    throw Error("BasisFactor: pivot_threshold must lie in (0, 1]");
}

index_t BasisFactor::slots() const { return data_ ? data_->n_slots : 0; }

Csr<double> BasisFactor::lower_factor() const {
  Csr<double> L;
  L.rows = L.cols = m_;
  if (!data_) return L;
  const Data& d = *data_;
  L.row_ptr.assign(std::size_t(m_) + 1, 0);
  L.col_idx.reserve(d.lt_idx.size() + std::size_t(m_));
  L.values.reserve(d.lt_idx.size() + std::size_t(m_));
  for (index_t s = 0; s < m_; ++s) {
    for (index_t p = d.lt_start[s]; p < d.lt_start[s + 1]; ++p) {  // ascending by construction
      L.col_idx.push_back(d.lt_idx[p]);
      L.values.push_back(d.lt_val[p]);
    }
    L.col_idx.push_back(s);
    L.values.push_back(1.0);
    L.row_ptr[s + 1] = index_t(L.col_idx.size());
  }
  return L;
}

Csr<double> BasisFactor::upper_factor(index_t size) const {
  const index_t ns = slots();
  if (size < ns)
    throw DimensionError("BasisFactor::upper_factor: size " + std::to_string(size) + " is below the " +
                         std::to_string(ns) + " slots in use");
  Csr<double> U;
  U.rows = U.cols = size;
  U.row_ptr.assign(std::size_t(size) + 1, 0);
  if (!data_) {
    for (index_t s = 0; s < size; ++s) {
      U.col_idx.push_back(s);
      U.values.push_back(1.0);
      U.row_ptr[s + 1] = s + 1;
    }
    return U;
  }
  const Data& d = *data_;
  U.col_idx.reserve(std::size_t(d.nnz_u) + std::size_t(size));
  U.values.reserve(std::size_t(d.nnz_u) + std::size_t(size));
  std::vector<std::pair<index_t, double>> row;
  for (index_t s = 0; s < size; ++s) {
    U.col_idx.push_back(s);
    U.values.push_back(s < ns ? d.diag[s] : 1.0);
    if (s < ns) append_sorted(d.urow, s, row, U.col_idx, U.values);
    U.row_ptr[s + 1] = index_t(U.col_idx.size());
  }
  return U;
}

void BasisFactor::upper_columns(std::span<const index_t> columns, std::vector<index_t>& col_ptr,
                                std::vector<index_t>& rows, std::vector<double>& values) const {
  const index_t ns = slots();
  col_ptr.assign(1, 0);
  rows.clear();
  values.clear();
  std::vector<std::pair<index_t, double>> col;
  for (const index_t s : columns) {
    if (s < ns && data_) append_sorted(data_->ucol, s, col, rows, values);
    rows.push_back(s);  // the diagonal, below every entry of an upper column
    values.push_back(s < ns && data_ ? data_->diag[s] : 1.0);
    col_ptr.push_back(index_t(rows.size()));
  }
}

std::span<const index_t> BasisFactor::slot_of_row() const {
  if (!data_) return {};
  return {data_->slot_of_row.data(), std::size_t(m_)};
}

std::span<const index_t> BasisFactor::position_of_slot() const {
  if (!data_) return {};
  return {data_->position_of_slot.data(), std::size_t(data_->n_slots)};
}

std::span<const index_t> BasisFactor::changed_upper_columns() const {
  if (!data_) return {};
  return {data_->changed.data(), data_->changed.size()};
}

void BasisFactor::apply_row_etas(std::span<double> z) const {
  if (!data_) return;
  const Data& d = *data_;
  check_slot_vector(z.size(), d.n_slots, "BasisFactor::apply_row_etas");
  for (const detail::Eta& e : d.etas) {  // z[fresh] = z[t] - r.z; z[t] = 0
    double v = z[e.t];
    for (index_t p = e.begin; p < e.end; ++p) v -= d.r_val[p] * z[d.r_idx[p]];
    z[e.fresh] = v;
    z[e.t] = 0.0;
  }
}

void BasisFactor::apply_row_etas_transposed(std::span<double> z) const {
  if (!data_) return;
  const Data& d = *data_;
  check_slot_vector(z.size(), d.n_slots, "BasisFactor::apply_row_etas_transposed");
  for (auto it = d.etas.rbegin(); it != d.etas.rend(); ++it) {  // the transpose of the map above
    const double v = z[it->fresh];
    z[it->fresh] = 0.0;
    z[it->t] = v;
    if (v == 0.0) continue;
    for (index_t p = it->begin; p < it->end; ++p) z[d.r_idx[p]] -= d.r_val[p] * v;
  }
}

void BasisFactor::set_ft_spike(std::span<const double> z) {
  if (!data_) throw Error("BasisFactor::set_ft_spike: the basis was not factorised");
  Data& d = *data_;
  check_slot_vector(z.size(), d.n_slots, "BasisFactor::set_ft_spike");
  d.forget_ft_spike();
  index_t c = 0;
  for (index_t s = 0; s < d.n_slots; ++s) {
    if (z[s] == 0.0) continue;
    d.ft_spike[s] = z[s];
    d.ft_spike_list[c++] = s;
  }
  d.ft_spike_count = c;
  d.ft_spike_valid = true;
}

}  // namespace balsa::lp
