// Structural statistics of a sparse matrix (balsa info).
#include "balsa/stats.hpp"

#include <algorithm>
#include <cmath>

#include "balsa/graph.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {
LevelStats summarize(const LevelSets& s, index_t n) {
  LevelStats r;
  r.levels = s.count();
  if (r.levels == 0) return r;
  r.min_width = n;
  for (index_t k = 0; k < r.levels; ++k) {
    r.max_width = std::max(r.max_width, s.width(k));
    r.min_width = std::min(r.min_width, s.width(k));
  }
  r.mean_width = double(n) / double(r.levels);
  return r;
}

// True when (i, j) is stored iff (j, i) is (and, with values, a_ij == a_ji).
// Canonical CSR: compare A with its transpose entry by entry.
template <class T>
void symmetry(const Csr<T>& A, bool& pattern, bool& values) {
  pattern = values = false;
  if (A.rows != A.cols) return;
  const Csr<T> At = transpose(A);
  if (At.row_ptr != A.row_ptr || At.col_idx != A.col_idx) return;
  pattern = true;
  values = At.values == A.values;
}
}  // namespace

template <class T>
StructureStats structure_stats(const Csr<T>& A) try {
  validate(A, /*require_sorted=*/true);
  StructureStats s;
  s.rows = A.rows;
  s.cols = A.cols;
  s.nnz = A.nnz();
  double sum = 0.0, sum2 = 0.0;
  s.row_nnz_min = A.rows > 0 ? A.cols : 0;
  for (index_t i = 0; i < A.rows; ++i) {
    const index_t len = A.row_ptr[i + 1] - A.row_ptr[i];
    s.row_nnz_min = std::min(s.row_nnz_min, len);
    s.row_nnz_max = std::max(s.row_nnz_max, len);
    s.empty_rows += len == 0;
    sum += len;
    sum2 += double(len) * len;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const index_t j = A.col_idx[k];
      if (j < i) {
        ++s.nnz_lower;
        s.lower_bandwidth = std::max(s.lower_bandwidth, i - j);
      } else if (j > i) {
        ++s.nnz_upper;
        s.upper_bandwidth = std::max(s.upper_bandwidth, j - i);
      } else {
        ++s.nnz_diagonal;
      }
      if (!std::isfinite(A.values[k])) s.finite = false;
    }
  }
  if (A.rows > 0) {
    s.row_nnz_mean = sum / A.rows;
    s.row_nnz_stddev = std::sqrt(std::max(0.0, sum2 / A.rows - s.row_nnz_mean * s.row_nnz_mean));
  }
  s.diagonal = inspect_diagonal(A);
  symmetry(A, s.pattern_symmetric, s.values_symmetric);
  if (A.rows == A.cols) {
    s.lower_levels = summarize(level_sets(A, Triangle::Lower), A.rows);
    s.upper_levels = summarize(level_sets(A, Triangle::Upper), A.rows);
  }
  return s;
} catch (...) {
  rethrow_as_balsa_error("structure_stats");
}

template StructureStats structure_stats(const Csr<float>&);
template StructureStats structure_stats(const Csr<double>&);

}  // namespace balsa
