// DirectMethod::Auto (direct/direct_choice.hpp). CHOLMOD for a symmetric A
// with a positive diagonal (the front end falls back to UMFPACK when it is
// not positive definite after all); otherwise UMFPACK or KLU by the rule
// below, fitted on measured times.
//
// RULE-FIT: placeholder, replaced by the fitted rule.
#include "direct/direct_choice.hpp"

#include <algorithm>
#include <cmath>

#include "core/exceptions.hpp"
#include "core/instantiate.hpp"

namespace balsa::direct {

namespace {

// The stored diagonal entry of row i (0 when missing). Rows sorted.
template <class T>
T diagonal_entry(const Csr<T>& A, index_t i) {
  const auto begin = A.col_idx.begin() + A.row_ptr[i], end = A.col_idx.begin() + A.row_ptr[i + 1];
  const auto it = std::lower_bound(begin, end, i);
  return it != end && *it == i ? A.values[std::size_t(it - A.col_idx.begin())] : T(0);
}

template <class T>
bool positive_diagonal(const Csr<T>& A) {
  for (index_t i = 0; i < A.rows; ++i)
    if (!(diagonal_entry(A, i) > T(0))) return false;
  return true;
}

// Whether (j, i) is stored (rows sorted).
template <class T>
bool stored(const Csr<T>& A, index_t i, index_t j) {
  return std::binary_search(A.col_idx.begin() + A.row_ptr[i], A.col_idx.begin() + A.row_ptr[i + 1], j);
}

}  // namespace

template <class T>
LuFeatures lu_features(const Csr<T>& A) try {
  LuFeatures f;
  f.n = A.rows;
  f.nnz = A.nnz();
  f.nnz_per_row = A.rows ? double(f.nnz) / double(A.rows) : 0;
  std::int64_t off = 0, mirrored = 0, zero_diagonal = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    zero_diagonal += diagonal_entry(A, i) == T(0);
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t j = A.col_idx[p];
      if (j == i) continue;
      ++off;
      mirrored += stored(A, j, i);
    }
  }
  f.pattern_symmetry = off ? double(mirrored) / double(off) : 1;
  f.zero_diagonal = A.rows ? double(zero_diagonal) / double(A.rows) : 0;
  return f;
} catch (...) {
  rethrow_as_balsa_error("lu_features");
}

DirectMethod choose_lu(const LuFeatures& f) {
  return f.pattern_symmetry < 0.5 ? DirectMethod::Klu : DirectMethod::Umfpack;
}

template <class T>
DirectMethod choose_direct_method(const Csr<T>& A) try {
  if (first_asymmetry(A).symmetric() && positive_diagonal(A)) return DirectMethod::Cholmod;
  return choose_lu(lu_features(A));
} catch (...) {
  rethrow_as_balsa_error("choose_direct_method");
}

#define BALSA_INSTANTIATE(T)                               \
  template LuFeatures lu_features(const Csr<T>&);          \
  template DirectMethod choose_direct_method(const Csr<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::direct
