// The CPU reference of ILU(0) and IC(0): one factorisation attempt, serial,
// in place, accumulating in the working precision T. The oracle of the GPU
// kernels (factor/incomplete.cu), which perform the same floating-point
// operations in the same order, so both give the same bits.
//
// ILU(0): Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed.,
// Alg. 10.4 (the IKJ variant of Gaussian elimination restricted to A's
// pattern, sec. 10.3.2). IC(0): its symmetric counterpart (sec. 10.3.1 and
// Picciau's thesis ch. 5), row by row ("left-looking by rows") on the lower
// triangle:
//   l_ik = (a_ik - sum_{j<k} l_ij l_kj) / l_kk   for k < i,
//   l_ii = sqrt(a_ii - sum_{j<i} l_ij^2),
// every sum over the pattern only, each subtraction done in increasing j.
#include <algorithm>
#include <cmath>
#include <string>

#include "balsa/factor.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

// The checks every attempt relies on: sizes, and diagonal[i] pointing at
// (i, i) (for Ic0 also the last entry of its row: a lower-triangular pattern).
template <class T>
void check_reference_input(IncompleteKind kind, const Csr<T>& pattern, std::span<const index_t> diagonal,
                           std::span<T> values) {
  const index_t n = pattern.rows;
  if (pattern.cols != n || pattern.row_ptr.size() != std::size_t(n) + 1 || diagonal.size() != std::size_t(n) ||
      values.size() != std::size_t(pattern.nnz()) || pattern.col_idx.size() != std::size_t(pattern.nnz()))
    throw DimensionError("incomplete_factor_reference: pattern (" + std::to_string(pattern.rows) + " x " +
                         std::to_string(pattern.cols) + ", " + std::to_string(pattern.nnz()) + " entries), " +
                         std::to_string(diagonal.size()) + " diagonal positions and " + std::to_string(values.size()) +
                         " values do not agree");
  for (index_t i = 0; i < n; ++i) {
    const index_t d = diagonal[std::size_t(i)];
    const bool inside = d >= pattern.row_ptr[i] && d < pattern.row_ptr[i + 1];
    if (!inside || pattern.col_idx[d] != i || (kind == IncompleteKind::Ic0 && d != pattern.row_ptr[i + 1] - 1))
      throw MatrixError("incomplete_factor_reference: diagonal position of row " + std::to_string(i) +
                        (kind == IncompleteKind::Ic0 ? " is not the last entry (i, i) of a lower-triangular row"
                                                     : " does not hold (i, i)"));
  }
}

// a - b c with the product rounded on its own (two statements: no compiler
// may fuse them into one multiply-add), as the GPU kernels compute it.
template <class T>
T minus_product(T a, T b, T c) {
  const T product = b * c;
  return a - product;
}

// Position of column j in col_idx[lo, hi) (sorted), or -1.
index_t find(const std::vector<index_t>& col_idx, index_t lo, index_t hi, index_t j) {
  const auto first = col_idx.begin() + lo, last = col_idx.begin() + hi;
  const auto it = std::lower_bound(first, last, j);
  return it != last && *it == j ? index_t(it - col_idx.begin()) : -1;
}

// Whether every value of positions [begin, end) is finite.
template <class T>
bool finite_range(std::span<const T> v, index_t begin, index_t end) {
  for (index_t p = begin; p < end; ++p)
    if (!std::isfinite(v[p])) return false;
  return true;
}

// Saad Alg. 10.4, row i. Invariant before step k (a column of row i's
// strictly lower part, in increasing order): row i holds a_i* minus the
// products l_ik' u_k'* of every earlier k' of its lower part, restricted to
// the pattern. Returns false when the row breaks down (the pivot u_ii stays
// in its diagonal slot).
template <class T>
bool ilu0_row(const Csr<T>& m, std::span<const index_t> diag, std::span<T> v, index_t i, double tol) {
  const index_t begin = m.row_ptr[i], end = m.row_ptr[i + 1], di = diag[i];
  const T a_ii = v[di];  // the row's own diagonal before elimination
  for (index_t p = begin; p < di; ++p) {
    const index_t k = m.col_idx[p];
    const T l = v[p] / v[diag[k]];  // l_ik = a_ik / u_kk
    v[p] = l;
    // a_ij -= l_ik u_kj for every j > k in both row i and row k's upper part:
    // walk the shorter of the two column lists, binary-search the other
    // (each a_ij changes at most once per step, so the walk order is free).
    const index_t rfirst = p + 1, qfirst = diag[k] + 1, qend = m.row_ptr[k + 1];
    if (end - rfirst <= qend - qfirst) {
      for (index_t r = rfirst; r < end; ++r)
        if (const index_t q = find(m.col_idx, qfirst, qend, m.col_idx[r]); q >= 0) v[r] = minus_product(v[r], l, v[q]);
    } else {
      for (index_t q = qfirst; q < qend; ++q)
        if (const index_t r = find(m.col_idx, rfirst, end, m.col_idx[q]); r >= 0) v[r] = minus_product(v[r], l, v[q]);
    }
  }
  const T u_ii = v[di];
  return finite_range<T>(v, begin, end) && std::abs(double(u_ii)) > tol * std::abs(double(a_ii));
}

// IC(0), row i of the lower triangle (diagonal last). Invariant before step
// k: l_ij is final for every j < k of the row. The diagonal slot receives
// sqrt(d_i), or d_i itself when the row breaks down.
template <class T>
bool ic0_row(const Csr<T>& m, std::span<const index_t> diag, std::span<T> v, index_t i, double tol) {
  const index_t begin = m.row_ptr[i], di = diag[i];
  const T a_ii = v[di];
  T d = a_ii;
  for (index_t p = begin; p < di; ++p) {
    const index_t k = m.col_idx[p];
    // s = a_ik - sum_j l_ij l_kj over the columns j < k common to rows i and k
    // (row i's positions before p, row k's before its diagonal), subtracted
    // in increasing j: walk the shorter list, binary-search the other.
    T s = v[p];
    const index_t qfirst = m.row_ptr[k], qend = diag[k];
    if (p - begin <= qend - qfirst) {
      for (index_t r = begin; r < p; ++r)
        if (const index_t q = find(m.col_idx, qfirst, qend, m.col_idx[r]); q >= 0) s = minus_product(s, v[r], v[q]);
    } else {
      for (index_t q = qfirst; q < qend; ++q)
        if (const index_t r = find(m.col_idx, begin, p, m.col_idx[q]); r >= 0) s = minus_product(s, v[r], v[q]);
    }
    const T l = s / v[diag[k]];
    v[p] = l;
    d = minus_product(d, l, l);
  }
  const bool ok = finite_range<T>(v, begin, di) && std::isfinite(d) && double(d) > 0.0 &&
                  double(d) > tol * double(a_ii);  // d > 0 also when a_ii < 0: sqrt(d) must exist
  v[di] = ok ? std::sqrt(d) : d;
  return ok;
}

}  // namespace

template <class T>
index_t incomplete_factor_reference(IncompleteKind kind, const Csr<T>& pattern, std::span<const index_t> diagonal,
                                    std::span<T> values, double pivot_tolerance) try {
  check_reference_input(kind, pattern, diagonal, values);
  // Rows in increasing order: every row k < i that row i reads is final.
  for (index_t i = 0; i < pattern.rows; ++i) {
    const bool ok = kind == IncompleteKind::Ilu0 ? ilu0_row(pattern, diagonal, values, i, pivot_tolerance)
                                                 : ic0_row(pattern, diagonal, values, i, pivot_tolerance);
    if (!ok) return i;
  }
  return -1;
} catch (...) {
  rethrow_as_balsa_error("incomplete_factor_reference");
}

#define BALSA_INSTANTIATE(T)                                                                            \
  template index_t incomplete_factor_reference<T>(IncompleteKind, const Csr<T>&, std::span<const index_t>, \
                                                  std::span<T>, double);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
