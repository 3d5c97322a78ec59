// TASSL analysis, scheduling stage (Picciau thesis, Sect. 4.2): inside each
// sub-graph of a partition (tassl_partition.hpp), every edge j -> i (the
// multiply-add x_i -= l_ij x_j) is given a time slot; one block runs a
// sub-graph slot by slot with a barrier between slots (thesis Alg. 3.2).
//
// Rules: at most one edge into the same vertex per slot (so no two threads
// update x_i at once: the read-write conflicts of Alg. 4.3); an internal edge
// j -> i (j in the same sub-graph) only in a slot after the last slot of the
// edges into j. External edges (j in another sub-graph, solved at an earlier
// sub-graph level) go to the external slots, which all come before the
// internal ones; every external edge gets one (the printed Alg. 4.4 schedules
// only those of the first wavefront: fixed here), the k-th external edge into
// i in external slot k.
//
// Assignment: each vertex in dependency order takes its internal in-edges in
// order of readiness (slot after the parent's last in-edge slot) and puts each
// into the first slot that is both ready and after the vertex's previous one.
// This is list scheduling with one edge into a vertex per slot, and reaches
// the lower bound for each vertex given its parents' finishing slots.
//
// The diagonal is not an operation: rows are scaled by 1/l_ii beforehand
// (x_i = b_i / l_ii - sum_j (l_ij / l_ii) x_j), so an x_i is final once its
// last in-edge has run.
#pragma once

#include <span>
#include <vector>

#include "balsa/sparse.hpp"
#include "trsv/tassl/tassl_partition.hpp"

namespace balsa::tassl {

struct SlotEdge {
  index_t to, from;  // x_to -= a * x_from; both vertex numbers of A
  index_t value;     // a = l_{to,from} is A.values[A.row_ptr[to] + value] (its offset in the row)
};

struct SubgraphSchedule {
  // External slot q: edges ext[ext_ptr[q] .. ext_ptr[q + 1]); internal slot q likewise.
  std::vector<index_t> ext_ptr{0}, int_ptr{0};
  std::vector<SlotEdge> ext, internal;
  index_t ext_slots() const { return index_t(ext_ptr.size()) - 1; }
  index_t int_slots() const { return index_t(int_ptr.size()) - 1; }
};

struct Schedule {
  std::vector<SubgraphSchedule> subgraphs;  // parallel to Partition's sub-graphs
  std::size_t external_edges = 0, internal_edges = 0;
};

// The time slots of one sub-graph s: its vertices in dependency order, every
// vertex's sub-graph (sub_of), and `finish`, n entries of scratch (the last
// internal slot into each vertex; written for the sub-graph's vertices).
SubgraphSchedule schedule_subgraph(std::span<const index_t> row_ptr, std::span<const index_t> col_idx, Triangle tri,
                                   std::span<const index_t> vertices, index_t s, std::span<const index_t> sub_of,
                                   std::span<index_t> finish);

// The time slots of every sub-graph of P (a partition of A's `tri` triangle).
template <class T>
Schedule schedule(const Csr<T>& A, Triangle tri, const Partition& P);

}  // namespace balsa::tassl
