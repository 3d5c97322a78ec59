// Symmetric and nonsymmetric permutations (perm[new] = old).
#include <algorithm>
#include <atomic>
#include <string>
#include <tuple>
#include <utility>

#include "balsa/sparse.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/exceptions.hpp"
#include "sparse/transpose.hpp"

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

// Row lengths, their prefix sum, then each row's entries renamed and sorted
// by new column in place (insertion sort for short rows, a stable sort of
// (column, position) pairs for long ones).
PermutedPattern permuted_pattern(index_t rows, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                 std::span<const index_t> row_perm, std::span<const index_t> col_new) {
  constexpr index_t kShortRow = 32;
  PermutedPattern p;
  p.row_ptr = parallel::fresh_vector<index_t>(std::size_t(rows) + 1, 0);
#pragma omp parallel for schedule(static) if (rows > parallel::kParallelMin)
  for (index_t i = 0; i < rows; ++i) {
    const std::size_t o = std::size_t(row_perm[std::size_t(i)]);
    p.row_ptr[std::size_t(i) + 1] = row_ptr[o + 1] - row_ptr[o];
  }
  parallel::prefix_sum(p.row_ptr);
  const std::size_t nnz = std::size_t(p.row_ptr.back());
  p.col_idx = parallel::fresh_vector<index_t>(nnz);
  p.source = parallel::fresh_vector<index_t>(nnz);
#pragma omp parallel for schedule(dynamic, 1024) if (rows > parallel::kParallelMin)
  for (index_t i = 0; i < rows; ++i) {
    const std::size_t o = std::size_t(row_perm[std::size_t(i)]), q0 = std::size_t(p.row_ptr[std::size_t(i)]);
    const index_t len = row_ptr[o + 1] - row_ptr[o];
    index_t* col = p.col_idx.data() + q0;
    index_t* src = p.source.data() + q0;
    if (len <= kShortRow) {
      for (index_t k = 0; k < len; ++k) {
        const index_t pos = row_ptr[o] + k, c = col_new[std::size_t(col_idx[std::size_t(pos)])];
        index_t at = k;
        for (; at > 0 && col[at - 1] > c; --at) {
          col[at] = col[at - 1];
          src[at] = src[at - 1];
        }
        col[at] = c;
        src[at] = pos;
      }
      continue;
    }
    std::vector<std::pair<index_t, index_t>> row(static_cast<std::size_t>(len));
    for (index_t k = 0; k < len; ++k) {
      const index_t pos = row_ptr[o] + k;
      row[std::size_t(k)] = {col_new[std::size_t(col_idx[std::size_t(pos)])], pos};
    }
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (index_t k = 0; k < len; ++k) std::tie(col[k], src[k]) = row[std::size_t(k)];
  }
  return p;
}

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
  PermutedPattern p = permuted_pattern(A.rows, A.row_ptr, A.col_idx, row_perm, col_new);
  Csr<T> B{A.rows, A.cols, std::move(p.row_ptr), std::move(p.col_idx), parallel::fresh_vector<T>(p.source.size())};
  parallel::gather(std::span<const index_t>(p.source), std::span<const T>(A.values), std::span<T>(B.values));
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
