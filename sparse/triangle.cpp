// Triangles, diagonals and value checks: the preconditions of the triangular
// solvers, factorizations and Krylov methods.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <string>

#include "balsa/sparse.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/exceptions.hpp"
#include "sparse/diagonal_check.hpp"

namespace balsa {

namespace {
bool in_triangle(index_t i, index_t j, Triangle tri, Diag diag) {
  if (i == j) return diag == Diag::Include;
  return tri == Triangle::Lower ? j < i : j > i;
}
const char* name(Triangle tri) { return tri == Triangle::Lower ? "lower" : "upper"; }
std::string at(index_t i, index_t j) { return "(row " + std::to_string(i) + ", column " + std::to_string(j) + ")"; }
}  // namespace

// Rows in parallel: a count per row, its prefix sum, then each row's copy.
template <class T>
Csr<T> extract_triangle(const Csr<T>& A, Triangle tri, Diag diag) try {
  validate(A);
  auto keep = [&](index_t i, index_t p) { return in_triangle(i, A.col_idx[std::size_t(p)], tri, diag); };
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr = parallel::kept_row_ptr(A.rows, A.row_ptr, keep);
  parallel::fresh_assign(B.col_idx, std::size_t(B.row_ptr.back()));
  parallel::fresh_assign(B.values, std::size_t(B.row_ptr.back()));
  parallel::for_each_kept(A.rows, A.row_ptr, B.row_ptr, keep, [&](index_t, index_t p, index_t q) {
    B.col_idx[std::size_t(q)] = A.col_idx[std::size_t(p)];
    B.values[std::size_t(q)] = A.values[std::size_t(p)];
  });
  return B;
} catch (...) {
  rethrow_as_balsa_error("extract_triangle");
}

// The first stored entry outside the triangle (diagonal included), in row order.
template <class T>
std::optional<std::pair<index_t, index_t>> first_outside(const Csr<T>& A, Triangle tri) try {
  validate(A);
  auto outside = [&](index_t i, index_t k) { return !in_triangle(i, A.col_idx[k], tri, Diag::Include); };
  const index_t i = parallel::first_where(A.rows, [&](index_t r) {
    for (index_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      if (outside(r, k)) return true;
    return false;
  });
  if (i == A.rows) return std::nullopt;
  index_t k = A.row_ptr[i];
  while (!outside(i, k)) ++k;
  return std::pair{i, A.col_idx[k]};
} catch (...) {
  rethrow_as_balsa_error("first_outside");
}

template <class T>
bool is_triangular(const Csr<T>& A, Triangle tri) try {
  return !first_outside(A, tri);
} catch (...) {
  rethrow_as_balsa_error("is_triangular");
}

template <class T>
void require_triangular(const Csr<T>& A, Triangle tri) try {
  if (const auto bad = first_outside(A, tri))
    throw MatrixError(std::string("matrix is not ") + name(tri) + " triangular: entry at " +
                      at(bad->first, bad->second) + " is " + (tri == Triangle::Lower ? "above" : "below") +
                      " the diagonal");
} catch (...) {
  rethrow_as_balsa_error("require_triangular");
}

// Rows in parallel: sums of the counts, minima of the first rows.
template <class T>
DiagonalReport inspect_diagonal(const Csr<T>& A) try {
  validate(A);
  const index_t n = std::min(A.rows, A.cols);
  index_t missing = 0, zero = 0, first_missing = n, first_zero = n;
#pragma omp parallel for reduction(+ : missing, zero) reduction(min : first_missing, first_zero) schedule(static) \
    if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i) {
    bool found = false;
    T sum = T(0);
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) {
        found = true;
        sum += A.values[k];
      }
    if (!found) {
      ++missing;
      first_missing = std::min(first_missing, i);
    } else if (sum == T(0)) {
      ++zero;
      first_zero = std::min(first_zero, i);
    }
  }
  DiagonalReport r;
  r.missing = missing;
  r.zero = zero;
  r.first_missing = missing ? first_missing : -1;
  r.first_zero = zero ? first_zero : -1;
  return r;
} catch (...) {
  rethrow_as_balsa_error("inspect_diagonal");
}

void require_nonzero_diagonal(const DiagonalReport& r) {
  // Report the earlier of the two problems, so the message names the first bad row.
  if (r.missing > 0 && (r.zero == 0 || r.first_missing < r.first_zero))
    throw MatrixError("missing diagonal entry at " + at(r.first_missing, r.first_missing) + " (" +
                      std::to_string(r.missing) + " missing in all)");
  if (r.zero > 0)
    throw MatrixError("zero diagonal entry at " + at(r.first_zero, r.first_zero) + " (" + std::to_string(r.zero) +
                      " zero in all)");
}

template <class T>
void require_nonzero_diagonal(const Csr<T>& A) try {
  require_nonzero_diagonal(inspect_diagonal(A));
} catch (...) {
  rethrow_as_balsa_error("require_nonzero_diagonal");
}

template <class T>
std::vector<T> diagonal(const Csr<T>& A) try {
  validate(A);
  std::vector<T> d(std::size_t(std::min(A.rows, A.cols)), T(0));
  const index_t n = index_t(d.size());
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) d[i] += A.values[k];
  return d;
} catch (...) {
  rethrow_as_balsa_error("diagonal");
}

// Rows (entries) in parallel; the first bad one is named, as a serial scan would.
template <class T>
void require_finite(const Csr<T>& A) try {
  validate(A);
  const std::size_t p = parallel::first_where(A.values.size(), [&](std::size_t k) { return !std::isfinite(A.values[k]); });
  if (p == A.values.size()) return;
  const index_t i = index_t(std::upper_bound(A.row_ptr.begin(), A.row_ptr.end(), index_t(p)) - A.row_ptr.begin()) - 1;
  throw MatrixError(std::string(std::isnan(A.values[p]) ? "NaN" : "Inf") + " value at " + at(i, A.col_idx[p]));
} catch (...) {
  rethrow_as_balsa_error("require_finite");
}

template <class T>
void require_finite(std::span<const T> x, std::string_view what) try {
  const std::size_t i = parallel::first_where(x.size(), [&](std::size_t k) { return !std::isfinite(x[k]); });
  if (i < x.size())
    throw Error(std::string(std::isnan(x[i]) ? "NaN" : "Inf") + " in " + std::string(what) + " at index " +
                std::to_string(i));
} catch (...) {
  rethrow_as_balsa_error("require_finite");
}

template <class T>
void require_square(const Csr<T>& A, std::string_view what) try {
  if (A.rows != A.cols)
    throw DimensionError(std::string(what) + " needs a square matrix, got " + std::to_string(A.rows) + " x " +
                         std::to_string(A.cols));
} catch (...) {
  rethrow_as_balsa_error("require_square");
}

template <class T>
index_t fix_diagonal(Csr<T>& L, bool all_rows) try {
  index_t fixed = 0;
  Csr<T> out;
  out.rows = L.rows;
  out.cols = L.cols;
  out.row_ptr.assign(std::size_t(L.rows) + 1, 0);
  out.col_idx.reserve(L.col_idx.size() + 16);
  out.values.reserve(L.values.size() + 16);
  for (index_t i = 0; i < L.rows; ++i) {
    double off = 0.0;
    T diag = T(0);
    for (index_t k = L.row_ptr[i]; k < L.row_ptr[i + 1]; ++k) {
      if (L.col_idx[k] == i) {
        diag = L.values[k];
        continue;
      }
      off += std::fabs(double(L.values[k]));
      out.col_idx.push_back(L.col_idx[k]);
      out.values.push_back(L.values[k]);
    }
    if (diag == T(0) || all_rows) {
      diag = T(off + 1.0);
      ++fixed;
    }
    out.col_idx.push_back(i);
    out.values.push_back(diag);
    out.row_ptr[i + 1] = index_t(out.col_idx.size());
  }
  L = std::move(out);
  return fixed;
} catch (...) {
  rethrow_as_balsa_error("fix_diagonal");
}

#define BALSA_INSTANTIATE(T)                                              \
  template Csr<T> extract_triangle(const Csr<T>&, Triangle, Diag);        \
  template bool is_triangular(const Csr<T>&, Triangle);                   \
  template void require_triangular(const Csr<T>&, Triangle);              \
  template DiagonalReport inspect_diagonal(const Csr<T>&);                \
  template void require_nonzero_diagonal(const Csr<T>&);                  \
  template std::vector<T> diagonal(const Csr<T>&);                        \
  template void require_finite(const Csr<T>&);                            \
  template void require_finite(std::span<const T>, std::string_view);     \
  template void require_square(const Csr<T>&, std::string_view);         \
  template index_t fix_diagonal(Csr<T>&, bool);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
