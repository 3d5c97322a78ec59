// CPU sparse matrix-vector product (OpenMP over rows) and vector helpers.
#include <algorithm>
#include <cmath>
#include <string>

#include "balsa/sparse.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {
void require_length(std::size_t got, index_t want, const char* what) {
  if (got != std::size_t(want))
    throw DimensionError(std::string("SpMV: ") + what + " has length " + std::to_string(got) + ", expected " +
                         std::to_string(want));
}
}  // namespace

template <class T>
void spmv(T alpha, const Csr<T>& A, std::span<const T> x, T beta, std::span<T> y) try {
  validate(A);
  require_length(x.size(), A.cols, "x");
  require_length(y.size(), A.rows, "y");
  // Each row's dot product is accumulated in T, in storage order (the same
  // order the GPU kernels use per thread, so results agree to rounding).
#pragma omp parallel for schedule(static) if (A.nnz() > 100000)
  for (index_t i = 0; i < A.rows; ++i) {
    T sum = T(0);
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) sum += A.values[k] * x[A.col_idx[k]];
    y[i] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[i];
  }
} catch (...) {
  rethrow_as_balsa_error("spmv");
}

template <class T>
std::vector<T> multiply(const Csr<T>& A, std::span<const T> x) try {
  std::vector<T> y(std::size_t(A.rows));
  spmv(T(1), A, x, T(0), std::span<T>(y));
  return y;
} catch (...) {
  rethrow_as_balsa_error("multiply");
}

template <class T>
double norm2(std::span<const T> x) try {
  double s = 0.0;
  for (const T v : x) s += double(v) * double(v);
  return std::sqrt(s);
} catch (...) {
  rethrow_as_balsa_error("norm2");
}

template <class T>
double norm_inf(std::span<const T> x) try {
  double m = 0.0;
  for (const T v : x) m = std::max(m, std::abs(double(v)));
  return m;
} catch (...) {
  rethrow_as_balsa_error("norm_inf");
}

template <class T>
double relative_residual(const Csr<T>& A, std::span<const T> x, std::span<const T> b) try {
  validate(A);
  require_length(x.size(), A.cols, "x");
  require_length(b.size(), A.rows, "b");
  double r2 = 0.0;
#pragma omp parallel for reduction(+ : r2) schedule(static) if (A.nnz() > 100000)
  for (index_t i = 0; i < A.rows; ++i) {
    double sum = 0.0;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) sum += double(A.values[k]) * double(x[A.col_idx[k]]);
    const double r = double(b[i]) - sum;
    r2 += r * r;
  }
  const double nb = norm2(b);
  return std::sqrt(r2) / (nb > 0.0 ? nb : 1.0);
} catch (...) {
  rethrow_as_balsa_error("relative_residual");
}

template <class T>
double relative_residual_of(std::span<const T> y, std::span<const T> b) try {
  require_length(y.size(), index_t(b.size()), "y");
  double r2 = 0.0;
#pragma omp parallel for reduction(+ : r2) schedule(static) if (b.size() > 100000)
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double r = double(b[i]) - double(y[i]);
    r2 += r * r;
  }
  const double nb = norm2(b);
  return std::sqrt(r2) / (nb > 0.0 ? nb : 1.0);
} catch (...) {
  rethrow_as_balsa_error("relative_residual_of");
}

template <class T>
double relative_error(std::span<const T> x, std::span<const T> reference) try {
  require_length(x.size(), index_t(reference.size()), "x");
  double e = 0, m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = std::abs(double(x[i]) - double(reference[i]));
    if (std::isnan(d) || d > e) e = d;  // a NaN, once in, stays
    m = std::max(m, std::abs(double(reference[i])));
  }
  return m > 0 ? e / m : e;
} catch (...) {
  rethrow_as_balsa_error("relative_error");
}

#define BALSA_INSTANTIATE(T)                                                           \
  template double relative_error(std::span<const T>, std::span<const T>);               \
  template double relative_residual_of(std::span<const T>, std::span<const T>);        \
  template void spmv(T, const Csr<T>&, std::span<const T>, T, std::span<T>);           \
  template std::vector<T> multiply(const Csr<T>&, std::span<const T>);                 \
  template double norm2(std::span<const T>);                                           \
  template double norm_inf(std::span<const T>);                                        \
  template double relative_residual(const Csr<T>&, std::span<const T>, std::span<const T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
