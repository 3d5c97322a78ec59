// Symmetric and nonsymmetric permutations (perm[new] = old).
#include <algorithm>
#include <atomic>
#include <string>

#include "balsa/sparse.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {
// MatrixError naming the first entry of perm (in order) that is outside
// [0, n) or repeats an earlier one (the error path: serial, a flag per value).
[[noreturn]] void throw_first_bad_entry(std::span<const index_t> perm, index_t n) {
  std::vector<char> seen(std::size_t(n), 0);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const index_t p = perm[i];
    if (p < 0 || p >= n)
      throw MatrixError("permutation entry " + std::to_string(i) + " = " + std::to_string(p) + " is outside [0, " +
                        std::to_string(n) + ")");
    if (seen[p]) throw MatrixError("permutation repeats " + std::to_string(p) + " (at entry " + std::to_string(i) + ")");
    seen[p] = 1;
  }
  throw Error("check_permutation: no bad entry found");  // unreachable for the callers' perm
}

// The inverse of perm after checking that it is a permutation of 0..n-1:
// every entry in range, then inv[perm[i]] = i scattered in parallel and
// read back; a repeated value leaves some entry i with inv[perm[i]] != i.
std::vector<index_t> checked_inverse(std::span<const index_t> perm, index_t n) {
  if (perm.size() != std::size_t(n))
    throw DimensionError("permutation has " + std::to_string(perm.size()) + " entries, expected " + std::to_string(n));
  if (parallel::first_where(n, [&](index_t i) { return perm[i] < 0 || perm[i] >= n; }) < n)
    throw_first_bad_entry(perm, n);
  std::vector<index_t> inv(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i)  // relaxed atomic stores: repeated values race, defined
    std::atomic_ref<index_t>(inv[std::size_t(perm[i])]).store(i, std::memory_order_relaxed);
  if (parallel::first_where(n, [&](index_t i) { return inv[std::size_t(perm[i])] != i; }) < n)
    throw_first_bad_entry(perm, n);
  return inv;
}
}  // namespace

void check_permutation(std::span<const index_t> perm, index_t n) { checked_inverse(perm, n); }

std::vector<index_t> inverse_permutation(std::span<const index_t> perm) try {
  return checked_inverse(perm, checked_index(std::int64_t(perm.size()), "permutation length"));
} catch (...) {
  rethrow_as_balsa_error("inverse_permutation");
}

template <class T>
Csr<T> permute(const Csr<T>& A, std::span<const index_t> row_perm, std::span<const index_t> col_perm) try {
  validate(A);
  check_permutation(row_perm, A.rows);
  const std::vector<index_t> col_new = inverse_permutation(col_perm);  // old column -> new column
  if (col_new.size() != std::size_t(A.cols))
    throw DimensionError("column permutation has " + std::to_string(col_perm.size()) + " entries, expected " +
                         std::to_string(A.cols));
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr.assign(std::size_t(A.rows) + 1, 0);
  for (index_t i = 0; i < A.rows; ++i) B.row_ptr[i + 1] = B.row_ptr[i] + (A.row_ptr[row_perm[i] + 1] - A.row_ptr[row_perm[i]]);
  B.col_idx.resize(A.nnz());
  B.values.resize(A.nnz());
  // Each new row i is old row row_perm[i] with renamed columns, re-sorted.
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < A.rows; ++i) {
    const index_t src = row_perm[i];
    std::vector<std::pair<index_t, T>> row;
    row.reserve(std::size_t(A.row_ptr[src + 1] - A.row_ptr[src]));
    for (index_t k = A.row_ptr[src]; k < A.row_ptr[src + 1]; ++k) row.emplace_back(col_new[A.col_idx[k]], A.values[k]);
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      B.col_idx[B.row_ptr[i] + k] = row[k].first;
      B.values[B.row_ptr[i] + k] = row[k].second;
    }
  }
  return B;
} catch (...) {
  rethrow_as_balsa_error("permute");
}

template <class T>
Csr<T> permute_symmetric(const Csr<T>& A, std::span<const index_t> perm) try {
  require_square(A, "symmetric permutation");
  return permute(A, perm, perm);
} catch (...) {
  rethrow_as_balsa_error("permute_symmetric");
}

template <class T>
std::vector<T> permute_vector(std::span<const T> x, std::span<const index_t> perm) try {
  check_permutation(perm, checked_index(std::int64_t(x.size()), "vector length"));
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[perm[i]];
  return y;
} catch (...) {
  rethrow_as_balsa_error("permute_vector");
}

#define BALSA_INSTANTIATE(T)                                                                      \
  template Csr<T> permute(const Csr<T>&, std::span<const index_t>, std::span<const index_t>);    \
  template Csr<T> permute_symmetric(const Csr<T>&, std::span<const index_t>);                    \
  template std::vector<T> permute_vector(std::span<const T>, std::span<const index_t>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
