// Internal: DirectMethod::Auto's choice (direct/direct_choice.cpp).
#pragma once

#include "balsa/direct.hpp"

namespace balsa::direct {

// CHOLMOD's case: A symmetric (values) with a positive diagonal.
template <class T> bool cholesky_suits(const Csr<T>& A);
// Otherwise Auto analyses with KLU first; this says whether KLU keeps A,
// from the flops its analysis predicts (else UMFPACK).
bool klu_suits(double klu_predicted_flops);
// The threshold of klu_suits (fitted: direct_choice.cpp).
inline constexpr double kKluFlopsLimit = 5.35e7;

// Cheap features of A's pattern (bench direct records them beside the times
// to fit the rule again).
struct LuFeatures {
  double nnz_per_row = 0;
  double pattern_symmetry = 0;  // the fraction of off-diagonal entries whose mirror is stored
  double zero_diagonal = 0;     // the fraction of rows without a nonzero diagonal entry
};
template <class T> LuFeatures lu_features(const Csr<T>& A);

}  // namespace balsa::direct
