// Triangles, diagonals and value checks: the preconditions of the triangular
// solvers, factorizations and Krylov methods.
#include <cmath>
#include <optional>
#include <utility>
#include <string>

#include "balsa/sparse.hpp"
#include "sparse/instantiate.hpp"

namespace balsa {

namespace {
bool in_triangle(index_t i, index_t j, Triangle tri, Diag diag) {
  if (i == j) return diag == Diag::Include;
  return tri == Triangle::Lower ? j < i : j > i;
}
const char* name(Triangle tri) { return tri == Triangle::Lower ? "lower" : "upper"; }
std::string at(index_t i, index_t j) { return "(row " + std::to_string(i) + ", column " + std::to_string(j) + ")"; }
}  // namespace

template <class T>
Csr<T> extract_triangle(const Csr<T>& A, Triangle tri, Diag diag) {
  validate(A);
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr.assign(std::size_t(A.rows) + 1, 0);
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (in_triangle(i, A.col_idx[k], tri, diag)) {
        B.col_idx.push_back(A.col_idx[k]);
        B.values.push_back(A.values[k]);
      }
    B.row_ptr[i + 1] = static_cast<index_t>(B.col_idx.size());
  }
  return B;
}

// The first stored entry outside the triangle (diagonal included), in row order.
template <class T>
std::optional<std::pair<index_t, index_t>> first_outside(const Csr<T>& A, Triangle tri) {
  validate(A);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (!in_triangle(i, A.col_idx[k], tri, Diag::Include)) return std::pair{i, A.col_idx[k]};
  return std::nullopt;
}

template <class T>
bool is_triangular(const Csr<T>& A, Triangle tri) {
  return !first_outside(A, tri);
}

template <class T>
void require_triangular(const Csr<T>& A, Triangle tri) {
  if (const auto bad = first_outside(A, tri))
    throw MatrixError(std::string("matrix is not ") + name(tri) + " triangular: entry at " +
                      at(bad->first, bad->second) + " is " + (tri == Triangle::Lower ? "above" : "below") +
                      " the diagonal");
}

template <class T>
DiagonalReport inspect_diagonal(const Csr<T>& A) {
  validate(A);
  DiagonalReport r;
  const index_t n = std::min(A.rows, A.cols);
  for (index_t i = 0; i < n; ++i) {
    bool found = false;
    T sum = T(0);
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) {
        found = true;
        sum += A.values[k];
      }
    if (!found) {
      if (r.missing++ == 0) r.first_missing = i;
    } else if (sum == T(0)) {
      if (r.zero++ == 0) r.first_zero = i;
    }
  }
  return r;
}

template <class T>
void require_nonzero_diagonal(const Csr<T>& A) {
  const DiagonalReport r = inspect_diagonal(A);
  // Report the earlier of the two problems, so the message names the first bad row.
  if (r.missing > 0 && (r.zero == 0 || r.first_missing < r.first_zero))
    throw MatrixError("missing diagonal entry at " + at(r.first_missing, r.first_missing) + " (" +
                      std::to_string(r.missing) + " missing in all)");
  if (r.zero > 0)
    throw MatrixError("zero diagonal entry at " + at(r.first_zero, r.first_zero) + " (" + std::to_string(r.zero) +
                      " zero in all)");
}

template <class T>
std::vector<T> diagonal(const Csr<T>& A) {
  validate(A);
  std::vector<T> d(std::size_t(std::min(A.rows, A.cols)), T(0));
  for (index_t i = 0; i < index_t(d.size()); ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) d[i] += A.values[k];
  return d;
}

template <class T>
void require_finite(const Csr<T>& A) {
  validate(A);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (!std::isfinite(A.values[k]))
        throw MatrixError(std::string(std::isnan(A.values[k]) ? "NaN" : "Inf") + " value at " + at(i, A.col_idx[k]));
}

template <class T>
void require_finite(std::span<const T> x, std::string_view what) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw Error(std::string(std::isnan(x[i]) ? "NaN" : "Inf") + " in " + std::string(what) + " at index " +
                  std::to_string(i));
}

template <class T>
void require_square(const Csr<T>& A, std::string_view what) {
  if (A.rows != A.cols)
    throw DimensionError(std::string(what) + " needs a square matrix, got " + std::to_string(A.rows) + " x " +
                         std::to_string(A.cols));
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
  template void require_square(const Csr<T>&, std::string_view);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
