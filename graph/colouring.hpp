// Internal: the greedy multicolouring of include/balsa/graph.hpp on a
// pattern already checked by the caller (the Krylov solvers' multicolour
// ordering, krylov/ordering.cpp).
#pragma once

#include <span>

#include "balsa/graph.hpp"

namespace balsa::graph {

// greedy_colouring of a square pattern of n rows that the caller validated;
// rows_sorted: its rows are sorted (then a structurally symmetric pattern is
// recognised and not transposed).
Colouring greedy_colouring(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                           bool rows_sorted);

}  // namespace balsa::graph
