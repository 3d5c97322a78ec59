// balsa-bench: pure helpers of the benchmark driver (statistics, byte and
// flop counts, the floor model, number formatting, result checks, matrix
// preparation). Header-only and free of CUDA, fmt and the balsa library
// proper (only its header types), so tests/bench/bench_trsv_test.cpp uses them
// without linking anything new.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../apps/number_format.hpp"
#include "balsa/sparse.hpp"

namespace balsa::bench {

// ---- statistics ---------------------------------------------------------------
inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Geometric mean of the finite positive values (others are skipped); NaN if none.
inline double geomean(const std::vector<double>& v) {
  double log_sum = 0.0;
  int count = 0;
  for (double x : v)
    if (std::isfinite(x) && x > 0.0) {
      log_sum += std::log(x);
      ++count;
    }
  return count ? std::exp(log_sum / count) : std::numeric_limits<double>::quiet_NaN();
}

inline double min_of(const std::vector<double>& v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::min_element(v.begin(), v.end());
}
inline double max_of(const std::vector<double>& v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::max_element(v.begin(), v.end());
}

// ---- work and traffic of one triangular solve ---------------------------------
// Bytes a solve must move at least: the CSR arrays of L read once (values and
// 32-bit column indices, n+1 row pointers), b read once, x written once:
//   bytes = nnz*(sizeof(T)+4) + (n+1)*4 + 2*n*sizeof(T)
inline double trsv_bytes(std::int64_t n, std::int64_t nnz, std::size_t value_size) {
  return double(nnz) * double(value_size + 4) + double(n + 1) * 4.0 + 2.0 * double(n) * double(value_size);
}
inline constexpr const char* trsv_bytes_formula = "bytes = nnz*(sizeof(T)+4) + (n+1)*4 + 2*n*sizeof(T)";

// One multiply and one add per stored entry (the diagonal's division counted as one of them).
inline double trsv_flops(std::int64_t nnz) { return 2.0 * double(nnz); }

inline double gflops(std::int64_t nnz, double seconds) { return trsv_flops(nnz) / seconds / 1e9; }
inline double gbytes_per_second(double bytes, double seconds) { return bytes / seconds / 1e9; }

// The floor model (seconds): moving the solve's bytes at the peak bandwidth,
// or its dependency levels one after another at an assumed per-level latency,
// whichever is longer. A model, not a lower bound: a solver whose levels cost
// less than the assumed latency (a single block's barrier, about 0.5 us on an
// H200) runs under it.
inline double floor_seconds(double bytes, std::int64_t levels, double peak_gbs, double level_latency_us) {
  return std::max(bytes / (peak_gbs * 1e9), double(levels) * level_latency_us * 1e-6);
}

// ---- formatting ------------------------------------------------------------------
// format_number: apps/number_format.hpp (the one number formatter of balsa and balsa-bench).
using app::format_number;
inline std::string format_ratio(double x) { return std::isnan(x) ? "-" : format_number(x) + "x"; }
inline std::string format_sci(double x) {
  if (std::isnan(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", x);
  return buf;
}
// 1234567 -> "1,234,567"
inline std::string format_count(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

// ---- checking a computed solution -------------------------------------------------
// Componentwise (Oettli-Prager) backward error of x for the lower-triangular
// system L x = b: max_i |b - L x|_i / (|b| + |L| |x|)_i, in double. Substitution
// in any order keeps it near (row length) * eps, however ill-conditioned L
// is, so it judges every algorithm fairly; a wrong, stale or unwritten entry
// makes it O(1). +inf when x holds a NaN/Inf.
template <class T>
double backward_error(const Csr<T>& L, std::span<const T> b, std::span<const T> x) {
  double worst = 0.0;
#pragma omp parallel for reduction(max : worst) schedule(static, 4096)
  for (index_t i = 0; i < L.rows; ++i) {
    double r = double(b[i]), d = std::fabs(double(b[i]));
    for (index_t k = L.row_ptr[i]; k < L.row_ptr[i + 1]; ++k) {
      const double p = double(L.values[k]) * double(x[L.col_idx[k]]);
      r -= p;
      d += std::fabs(p);
    }
    double e = d > 0.0 ? std::fabs(r) / d : (r == 0.0 ? 0.0 : std::numeric_limits<double>::infinity());
    if (!std::isfinite(double(x[i])) || std::isnan(e)) e = std::numeric_limits<double>::infinity();
    worst = std::max(worst, e);
  }
  return worst;
}

// ||x - y||_2 / ||y||_2 in double (NaN-propagating; 0/0 -> 0).
template <class T, class U>
double relative_difference(std::span<const T> x, std::span<const U> y) {
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = double(x[i]) - double(y[i]);
    num += d * d;
    den += double(y[i]) * double(y[i]);
  }
  if (std::isnan(num)) return std::numeric_limits<double>::quiet_NaN();
  return den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Componentwise error of a computed y = L x: max_i |y - L x|_i / (|L| |x|)_i
// in double (+inf on a NaN/Inf in y; rows with (|L||x|)_i = 0 need y_i = 0).
template <class T>
double spmv_error(const Csr<T>& L, std::span<const T> x, std::span<const T> y) {
  double worst = 0.0;
#pragma omp parallel for reduction(max : worst) schedule(static, 4096)
  for (index_t i = 0; i < L.rows; ++i) {
    double r = double(y[i]), d = 0.0;
    for (index_t k = L.row_ptr[i]; k < L.row_ptr[i + 1]; ++k) {
      const double p = double(L.values[k]) * double(x[L.col_idx[k]]);
      r -= p;
      d += std::fabs(p);
    }
    double e = d > 0.0 ? std::fabs(r) / d : (r == 0.0 ? 0.0 : std::numeric_limits<double>::infinity());
    if (!std::isfinite(double(y[i])) || std::isnan(e)) e = std::numeric_limits<double>::infinity();
    worst = std::max(worst, e);
  }
  return worst;
}

// Tolerance on backward_error: a generous multiple of the bound
// gamma_k = k*eps for rows of up to k entries (the check computes the
// residual in double, so float gets its own eps).
template <class T>
double backward_error_tolerance(index_t max_row_nnz) {
  return std::max(1000.0, 16.0 * double(max_row_nnz)) * double(std::numeric_limits<T>::epsilon());
}

template <class T>
index_t max_row_nnz(const Csr<T>& A) {
  index_t m = 0;
  for (index_t i = 0; i < A.rows; ++i) m = std::max(m, A.row_ptr[i + 1] - A.row_ptr[i]);
  return m;
}

// ---- preparing a matrix from a file -------------------------------------------------
// The leading min(rows, cols) square block of a canonical CSR matrix.
template <class T>
Csr<T> leading_square_block(const Csr<T>& A) {
  const index_t m = std::min(A.rows, A.cols);
  Csr<T> B;
  B.rows = B.cols = m;
  B.row_ptr.assign(std::size_t(m) + 1, 0);
  for (index_t i = 0; i < m; ++i) {
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] < m) {
        B.col_idx.push_back(A.col_idx[k]);
        B.values.push_back(A.values[k]);
      }
    B.row_ptr[i + 1] = index_t(B.col_idx.size());
  }
  return B;
}

}  // namespace balsa::bench
