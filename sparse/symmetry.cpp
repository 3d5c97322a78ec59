// Numerical symmetry of a canonical CSR matrix (include/balsa/sparse.hpp).
#include <algorithm>
#include <cmath>

#include "balsa/sparse.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "sparse/mirror.hpp"

namespace balsa {

namespace {
// |a - m| <= rtol max(|a|, |m|) (false for NaN).
bool close(double a, double m, double rtol) { return std::abs(a - m) <= rtol * std::max(std::abs(a), std::abs(m)); }

// Position in row i of the first entry whose mirror differs beyond rtol (a
// missing mirror counts as 0), or -1. Rows sorted.
template <class T>
index_t first_in_row(const Csr<T>& A, index_t i, double rtol) {
  for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
    const index_t j = A.col_idx[k];
    if (j == i) continue;
    const auto first = A.col_idx.begin() + A.row_ptr[j], last = A.col_idx.begin() + A.row_ptr[j + 1];
    const auto it = std::lower_bound(first, last, i);
    const double a = double(A.values[k]);
    const double m = (it != last && *it == i) ? double(A.values[std::size_t(it - A.col_idx.begin())]) : 0.0;
    if (!close(a, m, rtol)) return k;
  }
  return -1;
}
}  // namespace

template <class T>
Asymmetry first_asymmetry(const Csr<T>& A, double rtol) try {
  if (A.rows != A.cols) return {0, 0, double(A.rows), double(A.cols), false};
  // One pass over the mirrored pairs (each pair once, from its upper entry)
  // settles the common case, a symmetric A; otherwise every entry is tested
  // against its mirror, in row order, to name the first that differs.
  if (sparse::upper_entries_mirrored(A.rows, A.row_ptr, A.col_idx, [&](index_t k, index_t m) {
        return close(double(A.values[std::size_t(k)]), double(A.values[std::size_t(m)]), rtol);
      }))
    return {};
  index_t bad = A.rows;
#pragma omp parallel for reduction(min : bad) schedule(dynamic, 256) if (A.nnz() > 100000)
  for (index_t i = 0; i < A.rows; ++i)
    if (first_in_row(A, i, rtol) >= 0) bad = std::min(bad, i);
  if (bad == A.rows) return {};
  const index_t k = first_in_row(A, bad, rtol), j = A.col_idx[k];
  const auto first = A.col_idx.begin() + A.row_ptr[j], last = A.col_idx.begin() + A.row_ptr[j + 1];
  const auto it = std::lower_bound(first, last, bad);
  const bool stored = it != last && *it == bad;
  return {bad, j, double(A.values[k]), stored ? double(A.values[std::size_t(it - A.col_idx.begin())]) : 0.0, stored};
} catch (...) {
  rethrow_as_balsa_error("first_asymmetry");
}

#define BALSA_INSTANTIATE(T) template Asymmetry first_asymmetry(const Csr<T>&, double);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
