// Conversions between COO, CSR, CSC and dense storage, and transpose.
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <string>

#include "balsa/sparse.hpp"
#include "core/instantiate.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "sparse/transpose.hpp"
#include "core/exceptions.hpp"

namespace balsa {

template <class T>
Csr<T> to_csr(const Coo<T>& A) try {
  validate(A);
  const index_t nnz_in = checked_index(A.nnz(), "number of COO entries");
  require_host_memory(coo_to_csr_bytes(A.rows, nnz_in, sizeof(T)), "to_csr: " + matrix_words(A.rows, A.cols, nnz_in),
                      0, "its conversion to CSR (" + std::to_string(std::int64_t(A.rows) + 1) + " row pointers)");
  // Counting sort by row, then sort each row by column and sum duplicates.
  // Invariant after the scatter: row r's entries sit in [ptr[r], ptr[r+1]).
  std::vector<index_t> ptr(std::size_t(A.rows) + 1, 0);
  for (index_t k = 0; k < nnz_in; ++k) ++ptr[A.row_idx[k] + 1];
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  std::vector<index_t> cols(nnz_in);
  std::vector<T> vals(nnz_in);
  {
    std::vector<index_t> next(ptr.begin(), ptr.end() - 1);
    for (index_t k = 0; k < nnz_in; ++k) {
      const index_t dst = next[A.row_idx[k]]++;
      cols[dst] = A.col_idx[k];
      vals[dst] = A.values[k];
    }
  }
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr.assign(std::size_t(A.rows) + 1, 0);
  B.col_idx.reserve(nnz_in);
  B.values.reserve(nnz_in);
  std::vector<std::pair<index_t, T>> row;
  for (index_t r = 0; r < A.rows; ++r) {
    row.clear();
    for (index_t k = ptr[r]; k < ptr[r + 1]; ++k) row.emplace_back(cols[k], vals[k]);
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first)
        B.values.back() += row[k].second;  // duplicate: sum
      else {
        B.col_idx.push_back(row[k].first);
        B.values.push_back(row[k].second);
      }
    }
    B.row_ptr[r + 1] = static_cast<index_t>(B.col_idx.size());
  }
  return B;
} catch (...) {
  rethrow_as_balsa_error("to_csr");
}

namespace {

// The blocks of rows of transpose_pattern: block b holds rows
// [row_begin[b], row_begin[b+1]) and its entries' columns lie in
// [col_lo[b], col_lo[b] + width(b)); its column counts, then slots, sit at
// hist[hist_begin[b] + c - col_lo[b]].
struct RowBlocks {
  std::vector<index_t> row_begin, col_lo;
  std::vector<std::int64_t> hist_begin;
  std::int64_t width(std::size_t b) const { return hist_begin[b + 1] - hist_begin[b]; }
  std::size_t count() const { return col_lo.size(); }
};

// One block per thread when the blocks' column ranges together stay within
// cols + nnz counters (banded and triangular matrices: about cols); else one.
RowBlocks row_blocks(index_t rows, index_t cols, std::span<const index_t> ptr, std::span<const index_t> idx) {
  const index_t nnz = ptr[rows];
  const std::size_t threads = nnz > parallel::kParallelMin ? std::size_t(omp_get_max_threads()) : 1;
  RowBlocks b;
  b.row_begin.resize(threads + 1);
  for (std::size_t t = 0; t <= threads; ++t) b.row_begin[t] = index_t(std::size_t(rows) * t / threads);
  b.col_lo.assign(threads, 0);
  b.hist_begin.assign(threads + 1, 0);
  if (threads > 1) {
#pragma omp parallel for schedule(static, 1)
    for (std::size_t t = 0; t < threads; ++t) {
      index_t lo = cols, hi = -1;
      for (index_t k = ptr[b.row_begin[t]]; k < ptr[b.row_begin[t + 1]]; ++k) {
        lo = std::min(lo, idx[k]);
        hi = std::max(hi, idx[k]);
      }
      b.col_lo[t] = hi < lo ? 0 : lo;
      b.hist_begin[t + 1] = hi < lo ? 0 : hi - lo + 1;
    }
    std::partial_sum(b.hist_begin.begin(), b.hist_begin.end(), b.hist_begin.begin());
    if (b.hist_begin.back() <= std::int64_t(cols) + nnz) return b;
  }
  return {{0, rows}, {0}, {0, cols}};  // one block, every column
}

}  // namespace

// A stable counting sort of the (kept) entries by column, over blocks of
// rows (the scheme of a parallel radix sort's pass): each block counts its
// columns; a column's slots go to block 0's entries first, then block 1's,
// ...; each block then scatters its rows in order, so rows come out sorted
// in every column whatever the number of blocks.
TransposedPattern transpose_pattern(index_t rows, index_t cols, std::span<const index_t> ptr,
                                    std::span<const index_t> idx, std::optional<Triangle> part) try {
  const auto keep = [part](index_t r, index_t c) { return !part || (*part == Triangle::Lower ? c <= r : c >= r); };
  const RowBlocks b = row_blocks(rows, cols, ptr, idx);
  const std::size_t blocks = b.count();
  const bool par = blocks > 1;
  std::vector<index_t> hist(std::size_t(b.hist_begin.back()), 0);
  // Block t's counter of column c: hist[base(t) + c] (locals in the loops:
  // stores to index arrays would otherwise force reloads of b's arrays).
  auto base = [&](std::size_t t) { return b.hist_begin[t] - b.col_lo[t]; };
#pragma omp parallel for schedule(static, 1) if (par)
  for (std::size_t t = 0; t < blocks; ++t) {
    index_t* h = hist.data();
    const std::int64_t o = base(t);
    for (index_t r = b.row_begin[t]; r < b.row_begin[t + 1]; ++r)
      for (index_t k = ptr[r]; k < ptr[r + 1]; ++k)
        if (keep(r, idx[k])) ++h[o + idx[k]];
  }
  TransposedPattern out;
  parallel::fresh_assign(out.row_ptr, std::size_t(cols) + 1, 0);
  // Column c's count, then its blocks' first slots (blocks whose range holds c).
  auto over_blocks = [&](index_t c, auto&& f) {
    for (std::size_t t = 0; t < blocks; ++t)
      if (c >= b.col_lo[t] && c - b.col_lo[t] < b.width(t)) f(hist[std::size_t(base(t) + c)]);
  };
#pragma omp parallel for schedule(static) if (par)
  for (index_t c = 0; c < cols; ++c) {
    index_t count = 0;
    over_blocks(c, [&](index_t h) { count += h; });
    out.row_ptr[std::size_t(c) + 1] = count;
  }
  parallel::prefix_sum(out.row_ptr);
#pragma omp parallel for schedule(static) if (par)
  for (index_t c = 0; c < cols; ++c) {
    index_t next = out.row_ptr[std::size_t(c)];
    over_blocks(c, [&](index_t& h) { next += std::exchange(h, next); });  // count -> the block's first slot
  }
  parallel::fresh_assign(out.col_idx, std::size_t(out.row_ptr.back()));
  parallel::fresh_assign(out.source, std::size_t(out.row_ptr.back()));
#pragma omp parallel for schedule(static, 1) if (par)
  for (std::size_t t = 0; t < blocks; ++t) {
    index_t* h = hist.data();
    index_t* col = out.col_idx.data();
    index_t* src = out.source.data();
    const std::int64_t o = base(t);
    for (index_t r = b.row_begin[t]; r < b.row_begin[t + 1]; ++r)
      for (index_t k = ptr[r]; k < ptr[r + 1]; ++k) {
        if (!keep(r, idx[k])) continue;
        const index_t q = h[o + idx[k]]++;
        col[q] = r;
        src[q] = k;
      }
  }
  return out;
} catch (...) {
  rethrow_as_balsa_error("transpose_pattern");
}

// The pattern's transpose, then the values gathered through its source map.
template <class T>
Csr<T> transpose(const Csr<T>& A) try {
  validate(A);
  require_host_memory(transpose_bytes(A.cols, A.nnz(), sizeof(T)), "transpose: " + matrix_words(A.rows, A.cols, A.nnz()),
                      0, "its transpose (" + std::to_string(std::int64_t(A.cols) + 1) + " row pointers)");
  TransposedPattern t = transpose_pattern(A.rows, A.cols, A.row_ptr, A.col_idx);
  Csr<T> B{A.cols, A.rows, std::move(t.row_ptr), std::move(t.col_idx), parallel::fresh_vector<T>(t.source.size())};
  parallel::gather(std::span<const index_t>(t.source), std::span<const T>(A.values), std::span<T>(B.values));
  return B;
} catch (...) {
  rethrow_as_balsa_error("transpose");
}

// The CSC arrays of A are the CSR arrays of A^T, and the other way round.
template <class T>
Csc<T> to_csc(const Csr<T>& A) try {
  Csr<T> t = transpose(A);
  return {A.rows, A.cols, std::move(t.row_ptr), std::move(t.col_idx), std::move(t.values)};
} catch (...) {
  rethrow_as_balsa_error("to_csc");
}

template <class T>
Csr<T> to_csr(const Csc<T>& A) try {
  validate(A);
  Csr<T> t{A.cols, A.rows, A.col_ptr, A.row_idx, A.values};  // A^T in CSR
  return transpose(t);
} catch (...) {
  rethrow_as_balsa_error("to_csr");
}

template <class T>
Coo<T> to_coo(const Csr<T>& A) try {
  validate(A);
  Coo<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_idx.resize(A.nnz());
  for (index_t r = 0; r < A.rows; ++r)
    std::fill(B.row_idx.begin() + A.row_ptr[r], B.row_idx.begin() + A.row_ptr[r + 1], r);
  B.col_idx = A.col_idx;
  B.values = A.values;
  return B;
} catch (...) {
  rethrow_as_balsa_error("to_coo");
}

template <class T>
Coo<T> sorted_coo(const Coo<T>& A) try {
  validate(A);
  std::vector<std::size_t> order(A.values.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  const auto key = [&A](std::size_t k) { return std::pair(A.row_idx[k], A.col_idx[k]); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  Coo<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  for (std::size_t q = 0; q < order.size(); ++q) {
    const std::size_t k = order[q];
    if (q > 0 && key(k) == key(order[q - 1])) {
      B.values.back() += A.values[k];  // duplicate: sum
      continue;
    }
    B.row_idx.push_back(A.row_idx[k]);
    B.col_idx.push_back(A.col_idx[k]);
    B.values.push_back(A.values[k]);
  }
  return B;
} catch (...) {
  rethrow_as_balsa_error("sorted_coo");
}

template <class T>
DenseMatrix<T>::DenseMatrix(index_t r, index_t c, T fill) try : rows(r), cols(c) {
  checked_index(r, "dense matrix rows");
  checked_index(c, "dense matrix columns");
  // Dense storage is indexed by size_t, but balsa keeps every count 32-bit:
  // a dense matrix of more than 2^31-1 entries is an error, not a huge allocation.
  checked_index(std::int64_t(r) * std::int64_t(c), "dense matrix entries (rows * columns)");
  require_host_memory(vectors_bytes(r, c, sizeof(T)),
                      "DenseMatrix: a " + std::to_string(r) + " x " + std::to_string(c) + " matrix", 0,
                      "its dense values");
  values.assign(static_cast<std::size_t>(r) * static_cast<std::size_t>(c), fill);
} catch (...) {
  rethrow_as_balsa_error("DenseMatrix::DenseMatrix");
}

template <class T>
DenseMatrix<T> to_dense(const Csr<T>& A) try {
  validate(A);
  DenseMatrix<T> D(A.rows, A.cols);
  for (index_t r = 0; r < A.rows; ++r)
    for (index_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) D(r, A.col_idx[k]) += A.values[k];
  return D;
} catch (...) {
  rethrow_as_balsa_error("to_dense");
}

template <class T>
Csr<T> to_csr(const DenseMatrix<T>& A) try {
  if (A.values.size() != static_cast<std::size_t>(A.rows) * static_cast<std::size_t>(A.cols))
    throw DimensionError("dense matrix: " + std::to_string(A.values.size()) + " values for " +
                         std::to_string(A.rows) + " x " + std::to_string(A.cols));
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr.assign(std::size_t(A.rows) + 1, 0);
  std::int64_t nnz = 0;
  for (index_t r = 0; r < A.rows; ++r) {
    for (index_t c = 0; c < A.cols; ++c)
      if (A(r, c) != T(0)) {
        B.col_idx.push_back(c);
        B.values.push_back(A(r, c));
        ++nnz;
      }
    B.row_ptr[r + 1] = checked_index(nnz, "number of nonzeros");
  }
  return B;
} catch (...) {
  rethrow_as_balsa_error("to_csr");
}

template <class To, class From>
Csr<To> convert_values(const Csr<From>& A) try {
  Csr<To> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr = A.row_ptr;
  B.col_idx = A.col_idx;
  B.values.assign(A.values.begin(), A.values.end());
  return B;
} catch (...) {
  rethrow_as_balsa_error("convert_values");
}

#define BALSA_INSTANTIATE(T)                              \
  template struct DenseMatrix<T>;                         \
  template Csr<T> to_csr(const Coo<T>&);                  \
  template Csr<T> to_csr(const Csc<T>&);                  \
  template Csr<T> to_csr(const DenseMatrix<T>&);          \
  template Csc<T> to_csc(const Csr<T>&);                  \
  template Coo<T> to_coo(const Csr<T>&);                  \
  template Coo<T> sorted_coo(const Coo<T>&);              \
  template DenseMatrix<T> to_dense(const Csr<T>&);        \
  template Csr<T> transpose(const Csr<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
template Csr<float> convert_values<float, double>(const Csr<double>&);
template Csr<double> convert_values<double, float>(const Csr<float>&);
template Csr<float> convert_values<float, float>(const Csr<float>&);
template Csr<double> convert_values<double, double>(const Csr<double>&);
// Index-valued transpose: tracks where each entry goes (e.g. for value updates
// of a transposed copy).
template Csr<index_t> transpose(const Csr<index_t>&);

}  // namespace balsa
