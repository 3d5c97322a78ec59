// Internal: A's pattern as CHOLMOD reads it, for COLAMD (qr/ordering.cpp)
// and the supernodal analysis (qr/symbolic.cpp).
#pragma once

#include <cholmod.h>

#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::qr {

// A^T as CHOLMOD sees it: n x m, column i = row i of A (CSR of A = CSC of
// A^T), sorted and packed, pattern only; 64-bit indices (R's pattern can
// pass 2^31 entries). p and idx hold the copies it points to: they must
// outlive it.
cholmod_sparse transpose_pattern(const Csr<double>& A, std::vector<SuiteSparse_long>& p,
                                 std::vector<SuiteSparse_long>& idx);

}  // namespace balsa::qr
