// Internal: weakly connected components of the dependency graph of a
// triangle (edge j -> i for each off-diagonal a_ij inside the triangle), by
// a concurrent union-find. TASSL's partition (trsv/tassl/) and Auto's
// statistics use them; the sparse SaP pipeline's orderings will too.
#pragma once

#include <span>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::graph {

// Per vertex: the smallest vertex of its weakly connected component, or -1
// for a vertex with no edge. Parallel over rows (OpenMP) for large n.
std::vector<index_t> component_roots(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                     Triangle tri);

// How many components have at least one edge, and the largest's size.
struct ComponentSizes {
  index_t count = 0;
  index_t largest = 0;
};
ComponentSizes component_sizes(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                               Triangle tri);

}  // namespace balsa::graph
