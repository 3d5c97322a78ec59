// Test helpers for ILU(0)/IC(0) (tests/factor/factor_test.cpp, gpu_factor_test.cpp):
// matrices to factor and the defining properties of the zero-fill
// factorisations, checked entry by entry to a rounding-error bound.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "balsa/sparse.hpp"

namespace balsa::test {

// Position of (i, j) in a canonical CSR matrix, or -1.
template <class T>
index_t find_entry(const Csr<T>& M, index_t i, index_t j) {
  const auto first = M.col_idx.begin() + M.row_ptr[i], last = M.col_idx.begin() + M.row_ptr[i + 1];
  const auto it = std::lower_bound(first, last, j);
  return it != last && *it == j ? index_t(it - M.col_idx.begin()) : -1;
}

// A with every diagonal entry stored and set to
// dominance * (1 + sum_{j != i} |a_ij|) (strictly dominant for dominance >= 1).
template <class T>
Csr<T> with_diagonal(const Csr<T>& A, double dominance) {
  Coo<T> c = to_coo(A);
  for (std::size_t k = 0; k < c.values.size(); ++k)
    if (c.row_idx[k] == c.col_idx[k]) c.values[k] = T(0);
  std::vector<double> sum(std::size_t(A.rows), 0.0);
  for (std::size_t k = 0; k < c.values.size(); ++k) sum[std::size_t(c.row_idx[k])] += std::abs(double(c.values[k]));
  for (index_t i = 0; i < A.rows; ++i) {
    c.row_idx.push_back(i);
    c.col_idx.push_back(i);
    c.values.push_back(T(dominance * (1.0 + sum[std::size_t(i)])));
  }
  return to_csr(c);  // sums the zeroed old diagonal with the new one
}

// (M + M^T) / 2.
template <class T>
Csr<T> symmetric_part(const Csr<T>& M) {
  Coo<T> c = to_coo(M);
  const std::size_t n = c.values.size();
  for (std::size_t k = 0; k < n; ++k) {
    c.values[k] = c.values[k] / T(2);
    c.row_idx.push_back(c.col_idx[k]);
    c.col_idx.push_back(c.row_idx[k]);
    c.values.push_back(c.values[k]);
  }
  return to_csr(c);
}

// The diagonal value the factorisation sees after a shift alpha (rounded as
// balsa rounds it: one product, one sum, in T).
template <class T>
T shifted_value(T a, double alpha) {
  const T s = T(alpha) * a;
  return a + s;
}

// ILU(0)'s defining property (Saad sec. 10.3.2): (L U)_ij = a_ij for every
// (i, j) of A's pattern, L unit lower and U upper stored together in F (A's
// pattern), A's diagonal shifted by `shift`. Each entry is held to the
// componentwise backward-error bound of LU (Higham Thm 9.3) with a margin:
// |(L U)_ij - a_ij| <= (2 m + 2) eps (|L| |U|)_ij + eps |a_ij|, m the terms.
template <class T>
void expect_ilu0_property(const Csr<T>& A, double shift, const Csr<T>& F) {
  ASSERT_EQ(F.row_ptr, A.row_ptr);
  ASSERT_EQ(F.col_idx, A.col_idx);
  const double eps = double(std::numeric_limits<T>::epsilon());
  int failures = 0;
  for (index_t i = 0; i < A.rows && failures < 5; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t j = A.col_idx[p];
      const double a = double(j == i ? shifted_value(A.values[p], shift) : A.values[p]);
      double s = 0.0, bound = 0.0;
      int terms = 0;
      for (index_t q = F.row_ptr[i]; q < F.row_ptr[i + 1] && F.col_idx[q] < i && F.col_idx[q] <= j; ++q) {
        const index_t u = find_entry(F, F.col_idx[q], j);  // u_kj, k <= j
        if (u < 0) continue;
        const double t = double(F.values[q]) * double(F.values[u]);
        s += t;
        bound += std::abs(t);
        ++terms;
      }
      if (j >= i) {  // l_ii = 1
        s += double(F.values[p]);
        bound += std::abs(double(F.values[p]));
        ++terms;
      }
      const double allowed = (2.0 * terms + 2.0) * eps * bound + eps * std::abs(a);
      if (!(std::abs(s - a) <= allowed)) {
        ADD_FAILURE() << "ILU(0): (L U)(" << i << ", " << j << ") = " << s << " but a_ij = " << a << " (allowed error "
                      << allowed << ")";
        if (++failures >= 5) break;
      }
    }
}

// IC(0)'s defining property: (L L^T)_ij = a_ij for every (i, j) of A's lower
// triangle (L in F, A's lower pattern), A's diagonal shifted by `shift`, to
// the Cholesky bound (Higham Thm 10.3) with a margin for the square root.
template <class T>
void expect_ic0_property(const Csr<T>& A, double shift, const Csr<T>& F) {
  ASSERT_EQ(F.rows, A.rows);
  const double eps = double(std::numeric_limits<T>::epsilon());
  int failures = 0;
  for (index_t i = 0; i < A.rows && failures < 5; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1] && A.col_idx[p] <= i; ++p) {
      const index_t j = A.col_idx[p];
      const double a = double(j == i ? shifted_value(A.values[p], shift) : A.values[p]);
      ASSERT_GE(find_entry(F, i, j), 0) << "IC(0): (" << i << ", " << j << ") missing from the factor";
      double s = 0.0, bound = 0.0;
      int terms = 0;
      for (index_t q = F.row_ptr[i]; q < F.row_ptr[i + 1] && F.col_idx[q] <= j; ++q) {
        const index_t r = find_entry(F, j, F.col_idx[q]);  // l_jk, k <= j
        if (r < 0) continue;
        const double t = double(F.values[q]) * double(F.values[r]);
        s += t;
        bound += std::abs(t);
        ++terms;
      }
      const double allowed = (2.0 * terms + 4.0) * eps * bound + eps * std::abs(a);
      if (!(std::abs(s - a) <= allowed)) {
        ADD_FAILURE() << "IC(0): (L L^T)(" << i << ", " << j << ") = " << s << " but a_ij = " << a
                      << " (allowed error " << allowed << ")";
        if (++failures >= 5) break;
      }
    }
}

}  // namespace balsa::test
