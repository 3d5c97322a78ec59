// Internal: UMFPACK (SuiteSparse's multifrontal LU) as the direct method at
// the end of balsa::solve's chain, and the baseline of `balsa bench sparse`.
// Double precision; a float system is solved in double.
#pragma once

#include <span>
#include <string>

#include "balsa/sparse.hpp"

namespace balsa::direct {

struct UmfpackResult {
  bool ok = false;          // factored and solved (false: message says why)
  bool singular = false;    // UMFPACK found the matrix numerically singular
  std::string message;
  double rcond = 0;         // UMFPACK's reciprocal condition estimate (pivots)
  double factor_seconds = 0, solve_seconds = 0;
};

// x = A \ b for a square canonical A; x untouched unless ok.
template <class T>
UmfpackResult umfpack_solve(const Csr<T>& A, std::span<const T> b, std::span<T> x);

}  // namespace balsa::direct
