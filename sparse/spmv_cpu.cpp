// CPU sparse matrix-vector product (OpenMP over rows) and vector helpers.
#include <algorithm>
#include <cmath>
#include <string>

#include "balsa/sparse.hpp"
#include "sparse/instantiate.hpp"

namespace balsa {

namespace {
void require_length(std::size_t got, index_t want, const char* what) {
  if (got != std::size_t(want))
    throw DimensionError(std::string("SpMV: ") + what + " has length " + std::to_string(got) + ", expected " +
                         std::to_string(want));
}
}  // namespace

template <class T>
void spmv(T alpha, const Csr<T>& A, std::span<const T> x, T beta, std::span<T> y) {
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
}

template <class T>
std::vector<T> multiply(const Csr<T>& A, std::span<const T> x) {
  std::vector<T> y(std::size_t(A.rows));
  spmv(T(1), A, x, T(0), std::span<T>(y));
  return y;
}

template <class T>
double norm2(std::span<const T> x) {
  double s = 0.0;
  for (const T v : x) s += double(v) * double(v);
  return std::sqrt(s);
}

template <class T>
double norm_inf(std::span<const T> x) {
  double m = 0.0;
  for (const T v : x) m = std::max(m, std::abs(double(v)));
  return m;
}

template <class T>
double relative_residual(const Csr<T>& A, std::span<const T> x, std::span<const T> b) {
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
}

template <class T>
double relative_residual_of(std::span<const T> y, std::span<const T> b) {
  require_length(y.size(), index_t(b.size()), "y");
  double r2 = 0.0;
#pragma omp parallel for reduction(+ : r2) schedule(static) if (b.size() > 100000)
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double r = double(b[i]) - double(y[i]);
    r2 += r * r;
  }
  const double nb = norm2(b);
  return std::sqrt(r2) / (nb > 0.0 ? nb : 1.0);
}

#define BALSA_INSTANTIATE(T)                                                           \
  template double relative_residual_of(std::span<const T>, std::span<const T>);        \
  template void spmv(T, const Csr<T>&, std::span<const T>, T, std::span<T>);           \
  template std::vector<T> multiply(const Csr<T>&, std::span<const T>);                 \
  template double norm2(std::span<const T>);                                           \
  template double norm_inf(std::span<const T>);                                        \
  template double relative_residual(const Csr<T>&, std::span<const T>, std::span<const T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
