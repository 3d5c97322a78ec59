// Checks shared by the generator tests (tests/sparse/generators_test.cpp,
// generators_random_test.cpp, random_test.cpp), independent of the library's
// own checks: canonical CSR, entries, exact symmetry, identity of two
// matrices, lower triangularity, off-diagonal sums, and independence of the
// OpenMP thread count.
#pragma once

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <optional>

#include "balsa/sparse.hpp"

namespace balsa::generator_checks {

template <class T>
bool canonical(const Csr<T>& A) {
  if (A.row_ptr.size() != std::size_t(A.rows) + 1 || A.row_ptr[0] != 0) return false;
  if (A.col_idx.size() != std::size_t(A.nnz()) || A.values.size() != std::size_t(A.nnz())) return false;
  for (index_t i = 0; i < A.rows; ++i) {
    if (A.row_ptr[i + 1] < A.row_ptr[i]) return false;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      if (A.col_idx[p] < 0 || A.col_idx[p] >= A.cols) return false;
      if (p > A.row_ptr[i] && A.col_idx[p] <= A.col_idx[p - 1]) return false;
    }
  }
  return true;
}

// A(i, j), or nothing when not stored (A canonical).
template <class T>
std::optional<T> entry(const Csr<T>& A, index_t i, index_t j) {
  const auto first = A.col_idx.begin() + A.row_ptr[i], last = A.col_idx.begin() + A.row_ptr[i + 1];
  const auto it = std::lower_bound(first, last, j);
  if (it == last || *it != j) return std::nullopt;
  return A.values[std::size_t(it - A.col_idx.begin())];
}

template <class T>
bool exactly_symmetric(const Csr<T>& A) {
  if (A.rows != A.cols) return false;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const auto t = entry(A, A.col_idx[p], i);
      if (!t || *t != A.values[p]) return false;
    }
  return true;
}

template <class T>
bool identical(const Csr<T>& A, const Csr<T>& B) {
  return A.rows == B.rows && A.cols == B.cols && A.row_ptr == B.row_ptr && A.col_idx == B.col_idx &&
         A.values == B.values;
}

template <class T>
bool lower_triangular(const Csr<T>& A) {
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] > i) return false;
  return true;
}

// Sum of |a_ij|, j != i, in column order and double (as the generators do).
template <class T>
double off_diagonal_abs_sum(const Csr<T>& A, index_t i) {
  double s = 0.0;
  for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
    if (A.col_idx[p] != i) s += std::abs(double(A.values[p]));
  return s;
}

// The matrix built with 1 thread and with 3 threads (uneven split on any machine).
template <class F>
void expect_thread_independent(F make) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto a = make();
  omp_set_num_threads(3);
  const auto b = make();
  omp_set_num_threads(saved);
  EXPECT_TRUE(identical(a, b));
}

// The typed suite of the generator tests, float and double.
template <class T>
class GeneratorsTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GeneratorsTyped, ValueTypes);

}  // namespace balsa::generator_checks
