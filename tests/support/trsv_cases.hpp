// Triangular systems shared by the CPU and GPU triangular-solve tests.
#pragma once

#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"

namespace balsa::test {

template <class T>
struct TriangularCase {
  std::string name;
  Csr<T> L;  // lower triangular, canonical, nonzero diagonal
};

// Generated lower-triangular cases of several shapes (deep chains, a star,
// wide levels, blocks) plus lower triangles of the real matrices whose
// values fit T (diagonal made dominant where it is missing or zero).
template <class T>
std::vector<TriangularCase<T>> triangular_cases(bool with_real_matrices = true);

// A with every diagonal entry set to 1 + sum of |off-diagonals| of its row
// (adds missing diagonal entries): a well-conditioned triangular system.
template <class T>
Csr<T> with_dominant_diagonal(const Csr<T>& A);

// Solves with the reference and checks `x` against it: every entry written,
// relative error (or, for ill-conditioned systems, residual) in tolerance.
template <class T>
void expect_matches_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b,
                              std::span<const T> x, const std::string& what);

}  // namespace balsa::test
