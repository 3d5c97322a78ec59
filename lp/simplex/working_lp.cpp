// The computational form of an LP and its scaling (see working_lp.hpp).
#include "lp/simplex/working_lp.hpp"

#include <algorithm>
#include <cmath>

namespace balsa::lp {

namespace {

// The power of two nearest to v (> 0), within 2^-256 .. 2^256 (a factor
// outside would turn extreme but finite entries into 0 or inf).
double power_of_two(double v) { return std::exp2(std::clamp(std::round(std::log2(v)), -256.0, 256.0)); }

// Geometric-mean passes (each row, then each column, divided by the square
// root of its largest times its smallest magnitude) until the spread of
// magnitudes stops shrinking, then every column equilibrated to a largest
// magnitude of one. Factors are powers of two, so scaling rounds nothing.
void compute_scaling(const Csc<double>& A, Scaling& s) {
  const index_t m = A.rows, n = A.cols;
  s.row.assign(std::size_t(m), 1.0);
  s.col.assign(std::size_t(n), 1.0);
  if (A.nnz() == 0) return;
  std::vector<double> rmin(static_cast<std::size_t>(m)), rmax(static_cast<std::size_t>(m));
  double last_spread = 0;
  for (int pass = 0; pass < 8; ++pass) {
    std::fill(rmin.begin(), rmin.end(), lp_infinity);
    std::fill(rmax.begin(), rmax.end(), 0.0);
    for (index_t j = 0; j < n; ++j)
      for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k) {
        const double v = std::abs(A.values[k]) * s.col[j];
        if (v == 0) continue;
        rmin[A.row_idx[k]] = std::min(rmin[A.row_idx[k]], v);
        rmax[A.row_idx[k]] = std::max(rmax[A.row_idx[k]], v);
      }
    for (index_t i = 0; i < m; ++i)
      if (rmax[i] > 0) s.row[i] = power_of_two(1.0 / (std::sqrt(rmin[i]) * std::sqrt(rmax[i])));
    double spread = 0;
    for (index_t j = 0; j < n; ++j) {
      double lo = lp_infinity, hi = 0;
      for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k) {
        const double v = std::abs(A.values[k]) * s.row[A.row_idx[k]];
        if (v == 0) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (hi > 0) {
        s.col[j] = power_of_two(1.0 / (std::sqrt(lo) * std::sqrt(hi)));
        spread = std::max(spread, hi / lo);
      }
    }
    if (pass > 0 && spread > 0.9 * last_spread) break;
    last_spread = spread;
  }
  for (index_t i = 0; i < m; ++i) s.row[i] = power_of_two(s.row[i]);
  for (index_t j = 0; j < n; ++j) {
    double hi = 0;
    for (index_t k = A.col_ptr[j]; k < A.col_ptr[j + 1]; ++k)
      hi = std::max(hi, std::abs(A.values[k]) * s.row[A.row_idx[k]] * power_of_two(s.col[j]));
    s.col[j] = hi > 0 ? power_of_two(power_of_two(s.col[j]) / hi) : 1.0;
  }
}

}  // namespace

WorkingLp make_working_lp(const LinearProgram& lp, bool scale, Scaling& scaling) {
  WorkingLp w;
  w.m = lp.rows();
  w.n = lp.cols();
  w.A = lp.A;
  if (scale) {
    compute_scaling(w.A, scaling);
  } else {
    scaling.row.assign(std::size_t(w.m), 1.0);
    scaling.col.assign(std::size_t(w.n), 1.0);
  }
  for (index_t j = 0; j < w.n; ++j)
    for (index_t k = w.A.col_ptr[j]; k < w.A.col_ptr[j + 1]; ++k)
      w.A.values[k] *= scaling.row[w.A.row_idx[k]] * scaling.col[j];
  w.rows = to_csr(w.A);
  const std::size_t N = std::size_t(w.n + w.m);
  w.cost.assign(N, 0.0);
  w.lower.assign(N, 0.0);
  w.upper.assign(N, 0.0);
  const double sense = lp.sense == ObjectiveSense::Maximize ? -1.0 : 1.0;
  for (index_t j = 0; j < w.n; ++j) {
    w.cost[j] = sense * lp.cost[j] * scaling.col[j];
    w.lower[j] = lp.col_lower[j] / scaling.col[j];
    w.upper[j] = lp.col_upper[j] / scaling.col[j];
  }
  for (index_t i = 0; i < w.m; ++i) {
    w.lower[w.n + i] = -lp.row_upper[i] * scaling.row[i];
    w.upper[w.n + i] = -lp.row_lower[i] * scaling.row[i];
  }
  return w;
}

}  // namespace balsa::lp
