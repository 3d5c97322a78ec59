// Internal: DirectMethod::Auto's choice (direct/direct_choice.cpp).
#pragma once

#include "balsa/direct.hpp"

namespace balsa::direct {

// The cheap features of A the LU choice reads (pattern only).
struct LuFeatures {
  index_t n = 0;
  std::int64_t nnz = 0;
  double nnz_per_row = 0;
  double pattern_symmetry = 0;  // the fraction of off-diagonal entries whose mirror is stored
  double zero_diagonal = 0;     // the fraction of rows without a nonzero diagonal entry
};
template <class T> LuFeatures lu_features(const Csr<T>& A);
// UMFPACK or KLU for an A that is not symmetric with a positive diagonal.
DirectMethod choose_lu(const LuFeatures& f);
// Cholmod when A is symmetric (values) with a positive diagonal, else choose_lu.
template <class T> DirectMethod choose_direct_method(const Csr<T>& A);

}  // namespace balsa::direct
