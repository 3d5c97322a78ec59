// balsa::solve's measures (solve/measures.hpp).
#include "solve/measures.hpp"

#include <algorithm>
#include <cmath>

#include "core/clock.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"

namespace balsa::solve_detail {

template <class T>
SolveFeatures features(const Csr<T>& A) {
  const auto t0 = Clock::now();
  SolveFeatures f;
  f.n = A.rows;
  f.nnz = A.nnz();
  index_t zero_diagonal = 0, negative_diagonal = 0, dominant = 0;
  double norm_inf = 0, largest = 0, smallest = INFINITY;
#pragma omp parallel for schedule(static) reduction(+ : zero_diagonal, negative_diagonal, dominant) \
    reduction(max : norm_inf, largest) reduction(min : smallest) if (f.nnz > parallel::kParallelMin)
  for (index_t i = 0; i < A.rows; ++i) {
    double diag = 0, off = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const double v = double(A.values[std::size_t(p)]);
      if (A.col_idx[std::size_t(p)] == i)
        diag = v;
      else
        off += std::abs(v);
    }
    zero_diagonal += diag == 0 ? 1 : 0;
    negative_diagonal += diag < 0 ? 1 : 0;
    dominant += std::abs(diag) >= off && diag != 0 ? 1 : 0;
    norm_inf = std::max(norm_inf, std::abs(diag) + off);
    largest = std::max(largest, std::abs(diag));
    smallest = std::min(smallest, std::abs(diag));
  }
  f.diagonal_spread = A.rows == 0 ? 1.0 : smallest > 0 ? largest / smallest : INFINITY;
  f.zero_diagonal = zero_diagonal;
  f.positive_diagonal = zero_diagonal == 0 && negative_diagonal == 0;
  f.dominant_rows = A.rows > 0 ? double(dominant) / double(A.rows) : 1.0;
  f.norm_inf = norm_inf;
  f.symmetric = first_asymmetry(A).symmetric();
  f.seconds = seconds_since(t0);
  return f;
}

template <class T>
BackwardErrors backward_errors(const Csr<T>& A, double norm_inf, std::span<const T> b, std::span<const T> x) {
  double r_inf = 0, r2 = 0, b2 = 0, b_inf = 0, x_inf = 0, omega = 0;
  bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : r_inf, b_inf, x_inf, omega) reduction(+ : r2, b2) \
    reduction(&& : finite) if (A.nnz() > parallel::kParallelMin)
  for (index_t i = 0; i < A.rows; ++i) {
    double ax = 0, scale = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const double a = double(A.values[std::size_t(p)]), xj = double(x[std::size_t(A.col_idx[std::size_t(p)])]);
      ax += a * xj;
      scale += std::abs(a) * std::abs(xj);
    }
    const double bi = double(b[std::size_t(i)]), r = bi - ax;
    finite = finite && std::isfinite(r) && std::isfinite(double(x[std::size_t(i)]));
    scale += std::abs(bi);
    r_inf = std::max(r_inf, std::abs(r));
    r2 += r * r;
    b2 += bi * bi;
    b_inf = std::max(b_inf, std::abs(bi));
    x_inf = std::max(x_inf, std::abs(double(x[std::size_t(i)])));
    if (r != 0) omega = std::max(omega, scale > 0 ? std::abs(r) / scale : INFINITY);
  }
  BackwardErrors e;
  if (!finite) return e;
  const double denominator = norm_inf * x_inf + b_inf;
  e.normwise = r_inf == 0 ? 0 : denominator > 0 ? r_inf / denominator : INFINITY;
  e.componentwise = omega;
  e.relative_residual = b2 > 0 ? std::sqrt(r2 / b2) : (r2 == 0 ? 0 : INFINITY);
  return e;
}

bool accepted(const BackwardErrors& e, double tolerance, Acceptance how) {
  switch (how) {
    case Acceptance::Componentwise: return e.componentwise <= tolerance;
    case Acceptance::Normwise: return e.normwise <= tolerance;
    default: return e.componentwise <= tolerance || e.normwise <= tolerance;
  }
}

#define BALSA_INSTANTIATE(T)                                  \
  template SolveFeatures features(const Csr<T>&);             \
  template BackwardErrors backward_errors(const Csr<T>&, double, std::span<const T>, std::span<const T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::solve_detail
