// Internal: the new matrix of a triangular solver's pattern update
// (TriangularSolver::replace_columns / update_pattern; thesis ch. 6), and
// what changed in the dependency graph of the matrix solved, M (A, or A^T
// for transposed solves). Streaming passes over M, O(nnz): the checks run
// before anything is built, so bad input leaves the solver untouched.
#pragma once

#include <span>
#include <vector>

#include "balsa/sparse.hpp"
#include "trsv/tassl/tassl_update.hpp"

namespace balsa::trsv_update {

// Columns of the user's A as replace_columns takes them.
template <class T>
struct NewColumns {
  std::span<const index_t> columns, col_ptr, row_idx;
  std::span<const T> values;
};

// The checks of replace_columns for an n x n matrix with entries in `tri`:
// sizes, column indices (in range, once), rows (in range, strictly
// increasing, inside the triangle), the diagonal (present and nonzero
// unless Unit), finite values. Errors name the column and row.
template <class T>
void check_new_columns(index_t n, Triangle tri, DiagonalKind diag, const NewColumns<T>& c);

// M (entries in `tri`) with the given columns replaced; `change` gets the
// edges removed and added and every row holding an entry of those columns.
template <class T>
Csr<T> with_columns_replaced(const Csr<T>& M, Triangle tri, const NewColumns<T>& c, tassl::PatternChange& change);

// M with the given rows replaced (the "columns" are M's rows: a transposed
// solve's columns of A); the changed rows are those rows.
template <class T>
Csr<T> with_rows_replaced(const Csr<T>& M, Triangle tri, const NewColumns<T>& c, tassl::PatternChange& change);

// What differs between the patterns of M and M_new (same size): the edges
// removed and added, and the rows whose pattern differs.
template <class T>
tassl::PatternChange pattern_difference(const Csr<T>& M, const Csr<T>& M_new, Triangle tri);

}  // namespace balsa::trsv_update
