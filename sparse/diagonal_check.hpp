// Internal: the MatrixError of require_nonzero_diagonal (sparse/triangle.cpp)
// from a DiagonalReport that its caller computed in its own pass (the
// Jacobi preconditioner, from its diagonal's positions).
#pragma once

#include "balsa/sparse.hpp"

namespace balsa {

// Throws MatrixError naming the first missing or zero diagonal entry the
// report counts (the earlier of the two), with the counts; nothing when
// there is none.
void require_nonzero_diagonal(const DiagonalReport& report);

}  // namespace balsa
