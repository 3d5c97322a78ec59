// TASSL analysis, partitioning stage (Picciau thesis, Sect. 4.1): the
// dependency graph of a triangular matrix split into sub-graphs of at most
// n_max vertices, each solvable inside one GPU block's shared memory, such
// that every edge between two sub-graphs of a component goes from a lower
// sub-graph index to a higher one (the thesis' feasibility conditions I and
// II), then the sub-graph levels of the resulting sub-graph DAG.
//
// Steps: isolated vertices V0 (no parent, no child); weakly connected
// components of the rest (union-find over the edges); components below n_max
// merged greedily, smallest first, into groups of at most n_max vertices
// (Sect. 4.1.2); larger components split by the wavefront heuristic of
// Alg. 4.1-4.2 (Sect. 4.1.3), trying the three vertex orderings in turn and
// halving the number of initial sub-graphs after each failure. Two fixes to
// the printed algorithm: the round-robin index of the roots cycles over
// exactly n_init sub-graphs, and a component on which every ordering fails
// falls back to cutting its level order into consecutive pieces of n_max
// vertices (always feasible: edges go from lower to higher levels), which the
// statistics report.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::tassl {

// Shared memory a block of an H200 may opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin):
// the CPU path's default n_max is this many bytes of values, as on that GPU.
inline constexpr std::size_t kDefaultSharedBytes = 232448;

// The orderings (kappa) the split heuristic tries, in this order.
enum class VertexOrder { OutDegreeDescending, OutDegreeAscending, IndexAscending };
inline constexpr std::array<VertexOrder, 3> kVertexOrders = {
    VertexOrder::OutDegreeDescending, VertexOrder::OutDegreeAscending, VertexOrder::IndexAscending};

struct PartitionStats {
  index_t components = 0;        // weakly connected components with at least one edge
  index_t merged_groups = 0;     // sub-graphs made of one or more small components
  index_t split_components = 0;  // components larger than n_max
  std::array<index_t, 3> split_by_order{};  // which ordering succeeded, per split component
  index_t split_attempts = 0;    // runs of the heuristic (failures included)
  index_t fallbacks = 0;         // split components cut in level order instead
  // Wall time of the steps: components (V0, union-find, merging), the
  // out-degrees and dependency levels the split needs, the split (and the
  // sub-graph levels).
  double components_seconds = 0, graph_seconds = 0, split_seconds = 0;
};

struct Partition {
  index_t n = 0;
  index_t n_max = 0;
  std::vector<index_t> isolated;  // V0, in dependency order
  // Sub-graph s holds vertices[subgraph_ptr[s] .. subgraph_ptr[s + 1]), in
  // dependency order (increasing index for Lower, decreasing for Upper).
  std::vector<index_t> subgraph_ptr{0};
  std::vector<index_t> vertices;
  std::vector<index_t> subgraph_level;  // per sub-graph: 0 = depends on no other sub-graph
  index_t levels = 0;                   // sub-graph levels
  PartitionStats stats;
  index_t subgraphs() const { return index_t(subgraph_ptr.size()) - 1; }
};

// Partitions the dependency graph of A's `tri` triangle (edge j -> i for each
// off-diagonal a_ij inside the triangle; other entries are ignored).
// n_max >= 1.
template <class T>
Partition partition(const Csr<T>& A, Triangle tri, index_t n_max);

// The same on a bare pattern (row_ptr/col_idx of an n x n matrix).
Partition partition(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx, Triangle tri,
                    index_t n_max);

}  // namespace balsa::tassl
