// Dense banded storage (include/balsa/sparse.hpp, Banded): construction,
// conversions from and to CSR, SpMV and checks. The layout is LAPACK's band
// storage with equal lower and upper bandwidth k (column j of A contiguous).
#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "balsa/sparse.hpp"
#include "sparse/banded_check.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {
std::string s(std::int64_t v) { return std::to_string(v); }
}  // namespace

template <class T>
Banded<T>::Banded(index_t n_, index_t k_) try : n(n_), k(k_) {
  if (n < 0 || k < 0) throw DimensionError("banded matrix: n and k must be non-negative (got n = " + s(n) + ", k = " + s(k) + ")");
  if (n > 0 && k >= n)
    throw DimensionError("banded matrix: half-bandwidth k = " + s(k) + " must be smaller than n = " + s(n) +
                         " (a band that wide is the whole matrix)");
  const std::int64_t count = std::int64_t(n) * ld();
  try {
    parallel::fresh_assign(data, std::size_t(count), T(0));
  } catch (const std::exception&) {  // std::bad_alloc, or std::length_error beyond a vector's reach
    throw HostOutOfMemory("banded matrix: n = " + s(n) + ", k = " + s(k) + " needs " + s(count) + " values (" +
                          s(count * std::int64_t(sizeof(T))) + " bytes), more than this host can allocate");
  }
} catch (...) {
  rethrow_as_balsa_error("Banded::Banded");
}

template <class T>
index_t half_bandwidth(const Csr<T>& A) try {
  validate(A);
  index_t k = 0;
#pragma omp parallel for reduction(max : k) schedule(static) if (A.nnz() > 100000)
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) k = std::max(k, std::abs(A.col_idx[p] - i));
  return k;
} catch (...) {
  rethrow_as_balsa_error("half_bandwidth");
}

template <class T>
Banded<T> to_banded(const Csr<T>& A, index_t k) try {
  require_square(A, "banded conversion");
  const index_t bw = half_bandwidth(A);
  if (k < 0) k = A.rows > 0 ? bw : 0;
  if (bw > k) {
    // Name the first entry outside the requested band.
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
        if (std::abs(A.col_idx[p] - i) > k)
          throw DimensionError("banded conversion: entry (" + s(i) + ", " + s(A.col_idx[p]) + ") lies outside the band of half-bandwidth " +
                               s(k) + " (the matrix's half-bandwidth is " + s(bw) + ")");
  }
  Banded<T> B(A.rows, k);
  // Each (i, j) has its own slot, so rows fill in parallel (duplicates summed).
#pragma omp parallel for schedule(static) if (A.nnz() > 100000)
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) B(i, A.col_idx[p]) += A.values[p];
  return B;
} catch (...) {
  rethrow_as_balsa_error("to_banded");
}

template <class T>
Csr<T> to_csr(const Banded<T>& A) try {
  const std::int64_t n = A.n, k = A.k;
  checked_index(n * (2 * k + 1) - k * (k + 1), "to_csr(Banded): number of stored entries");
  Csr<T> C;
  C.rows = C.cols = A.n;
  C.row_ptr.assign(std::size_t(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i)
    C.row_ptr[std::size_t(i) + 1] = C.row_ptr[std::size_t(i)] + index_t(std::min(n - 1, i + k) - std::max<std::int64_t>(0, i - k) + 1);
  C.col_idx.resize(std::size_t(C.nnz()));
  C.values.resize(std::size_t(C.nnz()));
#pragma omp parallel for schedule(static) if (n * k > 100000)
  for (index_t i = 0; i < A.n; ++i) {
    std::size_t p = std::size_t(C.row_ptr[i]);
    for (index_t j = std::max<index_t>(0, i - A.k); j <= std::min<index_t>(A.n - 1, i + A.k); ++j, ++p) {
      C.col_idx[p] = j;
      C.values[p] = A(i, j);
    }
  }
  return C;
} catch (...) {
  rethrow_as_balsa_error("to_csr");
}

template <class To, class From>
Banded<To> convert_values(const Banded<From>& A) try {
  Banded<To> B;
  B.n = A.n;
  B.k = A.k;
  parallel::reserve_fresh(B.data, A.data.size());
  B.data.resize(A.data.size());
#pragma omp parallel for schedule(static) if (A.data.size() > 100000)
  for (std::size_t i = 0; i < A.data.size(); ++i) B.data[i] = To(A.data[i]);
  return B;
} catch (...) {
  rethrow_as_balsa_error("convert_values");
}

template <class T>
void spmv(const Banded<T>& A, std::span<const T> x, std::span<T> y) try {
  if (x.size() != std::size_t(A.n) || y.size() != std::size_t(A.n))
    throw DimensionError("banded SpMV: x has " + s(std::int64_t(x.size())) + " and y " + s(std::int64_t(y.size())) +
                         " entries, the matrix " + s(A.n) + " rows");
#pragma omp parallel for schedule(static) if (std::int64_t(A.n) * A.k > 100000)
  for (index_t i = 0; i < A.n; ++i) {
    T sum = T(0);
    for (index_t j = std::max<index_t>(0, i - A.k); j <= std::min<index_t>(A.n - 1, i + A.k); ++j) sum += A(i, j) * x[j];
    y[i] = sum;
  }
} catch (...) {
  rethrow_as_balsa_error("spmv");
}

template <class T>
double relative_residual(const Banded<T>& A, std::span<const T> x, std::span<const T> b) try {
  std::vector<T> ax(std::size_t(A.n));
  spmv(A, x, std::span<T>(ax));
  return relative_residual_of(std::span<const T>(ax), b);
} catch (...) {
  rethrow_as_balsa_error("relative_residual");
}

template <class T>
void detail::throw_nonfinite_band_entry(const Banded<T>& A, std::size_t position) try {
  const std::int64_t j = std::int64_t(position) / A.ld(), i = j + std::int64_t(position) % A.ld() - A.k;
  throw MatrixError("banded matrix: entry (" + s(i) + ", " + s(j) + ") is " + std::to_string(double(A.data[position])));
} catch (...) {
  rethrow_as_balsa_error("detail::throw_nonfinite_band_entry");
}

template <class T>
void require_finite(const Banded<T>& A) try {
  const std::size_t bad = parallel::first_where(std::int64_t(A.data.size()), [&](std::int64_t p) {
    return !std::isfinite(double(A.data[std::size_t(p)]));
  });
  if (bad < A.data.size()) detail::throw_nonfinite_band_entry(A, bad);
} catch (...) {
  rethrow_as_balsa_error("require_finite");
}

template <class T>
double max_abs(const Banded<T>& A) try {
  double m = 0;
#pragma omp parallel for reduction(max : m) schedule(static) if (A.data.size() > 100000)
  for (std::size_t p = 0; p < A.data.size(); ++p) m = std::max(m, double(std::abs(A.data[p])));
  return m;
} catch (...) {
  rethrow_as_balsa_error("max_abs");
}

#define BALSA_INSTANTIATE(T)                                                                        \
  template struct Banded<T>;                                                                        \
  template index_t half_bandwidth(const Csr<T>&);                                                   \
  template Banded<T> to_banded(const Csr<T>&, index_t);                                             \
  template Csr<T> to_csr(const Banded<T>&);                                                         \
  template void spmv(const Banded<T>&, std::span<const T>, std::span<T>);                           \
  template double relative_residual(const Banded<T>&, std::span<const T>, std::span<const T>);      \
  template void require_finite(const Banded<T>&);                                                   \
  template void detail::throw_nonfinite_band_entry(const Banded<T>&, std::size_t);                  \
  template double max_abs(const Banded<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE
template Banded<float> convert_values(const Banded<double>&);
template Banded<double> convert_values(const Banded<float>&);
template Banded<float> convert_values(const Banded<float>&);
template Banded<double> convert_values(const Banded<double>&);

}  // namespace balsa
