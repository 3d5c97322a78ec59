// Conversions between COO, CSR, CSC and dense storage, and transpose.
#include <algorithm>
#include <numeric>
#include <utility>
#include <string>

#include "balsa/sparse.hpp"
#include "sparse/instantiate.hpp"

namespace balsa {

template <class T>
Csr<T> to_csr(const Coo<T>& A) {
  validate(A);
  const index_t nnz_in = checked_index(A.nnz(), "number of COO entries");
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
}

// Transpose of the compressed arrays (CSR of A -> CSR of A^T, which is also
// the CSC of A). Columns come out sorted because rows are visited in order.
template <class T>
static void transpose_arrays(index_t rows, index_t cols, const std::vector<index_t>& ptr,
                             const std::vector<index_t>& idx, const std::vector<T>& val,
                             std::vector<index_t>& out_ptr, std::vector<index_t>& out_idx,
                             std::vector<T>& out_val) {
  const index_t nnz = ptr[rows];
  out_ptr.assign(std::size_t(cols) + 1, 0);
  for (index_t k = 0; k < nnz; ++k) ++out_ptr[idx[k] + 1];
  std::partial_sum(out_ptr.begin(), out_ptr.end(), out_ptr.begin());
  out_idx.resize(nnz);
  out_val.resize(nnz);
  std::vector<index_t> next(out_ptr.begin(), out_ptr.end() - 1);
  for (index_t r = 0; r < rows; ++r)
    for (index_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      const index_t dst = next[idx[k]]++;
      out_idx[dst] = r;
      out_val[dst] = val[k];
    }
}

template <class T>
Csr<T> transpose(const Csr<T>& A) {
  validate(A);
  Csr<T> B;
  B.rows = A.cols;
  B.cols = A.rows;
  transpose_arrays(A.rows, A.cols, A.row_ptr, A.col_idx, A.values, B.row_ptr, B.col_idx, B.values);
  return B;
}

// The CSC arrays of A are the CSR arrays of A^T, and the other way round.
template <class T>
Csc<T> to_csc(const Csr<T>& A) {
  Csr<T> t = transpose(A);
  return {A.rows, A.cols, std::move(t.row_ptr), std::move(t.col_idx), std::move(t.values)};
}

template <class T>
Csr<T> to_csr(const Csc<T>& A) {
  validate(A);
  Csr<T> t{A.cols, A.rows, A.col_ptr, A.row_idx, A.values};  // A^T in CSR
  return transpose(t);
}

template <class T>
Coo<T> to_coo(const Csr<T>& A) {
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
}

template <class T>
DenseMatrix<T>::DenseMatrix(index_t r, index_t c, T fill) : rows(r), cols(c) {
  checked_index(r, "dense matrix rows");
  checked_index(c, "dense matrix columns");
  // Dense storage is indexed by size_t, but balsa keeps every count 32-bit:
  // a dense matrix of more than 2^31-1 entries is an error, not a huge allocation.
  checked_index(std::int64_t(r) * std::int64_t(c), "dense matrix entries (rows * columns)");
  values.assign(static_cast<std::size_t>(r) * static_cast<std::size_t>(c), fill);
}

template <class T>
DenseMatrix<T> to_dense(const Csr<T>& A) {
  validate(A);
  DenseMatrix<T> D(A.rows, A.cols);
  for (index_t r = 0; r < A.rows; ++r)
    for (index_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) D(r, A.col_idx[k]) += A.values[k];
  return D;
}

template <class T>
Csr<T> to_csr(const DenseMatrix<T>& A) {
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
}

template <class To, class From>
Csr<To> convert_values(const Csr<From>& A) {
  Csr<To> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr = A.row_ptr;
  B.col_idx = A.col_idx;
  B.values.assign(A.values.begin(), A.values.end());
  return B;
}

#define BALSA_INSTANTIATE(T)                              \
  template struct DenseMatrix<T>;                         \
  template Csr<T> to_csr(const Coo<T>&);                  \
  template Csr<T> to_csr(const Csc<T>&);                  \
  template Csr<T> to_csr(const DenseMatrix<T>&);          \
  template Csc<T> to_csc(const Csr<T>&);                  \
  template Coo<T> to_coo(const Csr<T>&);                  \
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
