// TASSL's analysis kept across a sequence of matrices whose patterns differ
// in a few columns (Picciau thesis ch. 6): the partition is updated rather
// than recomputed (Sect. 6.1, Alg. 6.1-6.2) and only the sub-graphs the
// change touches get new time slots (Sect. 6.2, Alg. 6.3).
//
// The state: every vertex's sub-graph (-1: V0, no edge), each sub-graph's
// vertices in dependency order, its sub-graph level, its schedule, and the
// sub-graph DAG (external edges counted per pair of sub-graphs).
//
// Partition update. The thesis keeps feasibility condition I as "an edge
// goes from a sub-graph to one of equal or higher index" and re-partitions
// (Table 6.1's R cases) when an added edge breaks it. Here the condition is
// the one the solve needs: the sub-graph DAG is acyclic, its levels strictly
// increasing along every external edge. An added edge j -> i between two
// sub-graphs is accepted when level(s_j) < level(s_i), or when no path of the
// DAG leads from s_i back to s_j (a search pruned by level); s_i's level and
// its descendants' are then raised. Only a cycle (the edge closes one) is an
// R case. Vertices of V0 that gain edges are placed as Alg. 6.2 places them,
// with next_nonfull_subg (Alg. 6.1) restricted to sub-graphs that cannot
// close a cycle: a parent from V0 into its child's sub-graph when it has room,
// else into a level-0 sub-graph (no parents, so no path back); a child from V0
// into its parent's sub-graph when it has room, else into a sub-graph of a
// higher level; a new sub-graph when none has room (condition II: at most
// n_max vertices). Vertices are never moved between sub-graphs, and levels are
// never lowered when edges go (a removed edge cannot break feasibility).
//
// Schedule update (Alg. 6.3, exact). In each touched sub-graph, the
// vertices whose rows changed get their in-edges slotted again by the
// list-scheduling rule of tassl_schedule (from their parents' current last
// slots); then, in dependency order, so does every vertex with an internal
// parent whose last slot moved, earlier or later; every other vertex keeps
// its slots. List scheduling is a function of a vertex's row and its
// parents' last slots, so the result is the schedule a fresh analysis gives
// this partition: no empty slots left behind by removed edges (Fig. 6.6's
// slowdown), unlike Alg. 6.3, which follows only the new column's reach
// (Fig. 6.7c). Cost: a scan of the touched sub-graphs' rows after the first
// changed vertex (slots are kept per entry, carried across patterns), the
// re-slotted vertices' sorts, and a counting sort of the touched sub-graphs'
// edges.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "balsa/sparse.hpp"
#include "trsv/tassl/tassl_partition.hpp"
#include "trsv/tassl/tassl_schedule.hpp"

namespace balsa::tassl {

// An off-diagonal entry a_ij inside the triangle: the edge parent j -> child i.
struct Edge {
  index_t child = 0, parent = 0;
};

// How the matrix solved changed: entries removed and added (off-diagonal,
// inside the triangle), and every row whose entries changed in pattern or
// value (sorted, unique).
struct PatternChange {
  std::vector<Edge> removed, added;
  std::vector<index_t> rows;
};

// What changed in one sub-graph's schedule (for the layout's patch).
struct SubgraphDelta {
  std::vector<index_t> old_int_ptr;  // its internal slots before the update
  std::vector<index_t> slots;        // internal slots whose edges changed (sorted)
  bool ext = false;                  // its external edges changed
  bool members = false;              // vertices joined it
};

struct UpdateResult {
  bool feasible = true;          // false: re-partition (reason says why); the state is then invalid
  std::string reason;
  std::vector<index_t> changed;  // sub-graphs scheduled again (sorted; created ones included)
  std::vector<index_t> moved;    // sub-graphs whose level rose (sorted)
  index_t created = 0;           // new sub-graphs (the last `created` indices)
  std::vector<index_t> left_isolated;  // vertices that left V0
  bool isolated_rows = false;    // a row of V0 changed (its diagonal)
  std::int64_t scheduled_edges = 0;    // edges of the sub-graphs scheduled again (scanned)
  index_t reslotted = 0;               // vertices whose in-edges got slots again
  std::vector<SubgraphDelta> deltas;   // parallel to `changed`
};

class Incremental {
 public:
  // P and S of the matrix whose pattern has row pointers row_ptr.
  Incremental(const Partition& P, Schedule S, Triangle tri, std::span<const index_t> row_ptr);

  // Applies `change`; row_ptr/col_idx are the new matrix's pattern. Gives up
  // (feasible = false) on a cycle between sub-graphs, or when the sub-graphs
  // to schedule again hold more than `edge_budget` edges (the caller's
  // estimate of what a full analysis costs), or when the sub-graph levels
  // grow past max_levels (the solve would lose to a fresh partition). Cost: the change's edges, the
  // DAG searches, and the touched sub-graphs' edges; the first call also
  // builds the sub-graph DAG (all external edges).
  UpdateResult apply(std::span<const index_t> row_ptr, std::span<const index_t> col_idx, const PatternChange& change,
                     std::int64_t edge_budget, index_t max_levels = std::numeric_limits<index_t>::max());

  // Conditions I (acyclic, levels increasing along external edges, every
  // edge's ends placed) and II (at most n_max vertices) for the pattern, and
  // the schedule's rules; throws Error naming the first violation. O(nnz): tests.
  void check(std::span<const index_t> row_ptr, std::span<const index_t> col_idx) const;

  index_t vertices() const { return index_t(sub_of.size()); }
  index_t subgraphs() const { return index_t(members.size()); }
  index_t levels() const;
  index_t isolated() const;

  Triangle tri;
  index_t n_max = 0;
  std::vector<index_t> sub_of;                // vertex -> sub-graph, -1: V0
  std::vector<std::vector<index_t>> members;  // sub-graph -> its vertices in dependency order
  std::vector<index_t> level;                 // sub-graph -> its sub-graph level
  Schedule schedule;

 private:
  struct Link {
    index_t child = 0;  // sub-graph
    index_t edges = 0;  // external edges from this sub-graph into it
  };
  void build_dag();
  void link(index_t from, index_t to, int delta);
  bool reaches(index_t from, index_t to);  // a DAG path from -> to (levels prune)
  void raise(index_t s, index_t to_level, UpdateResult& r);
  index_t create(index_t at_level, UpdateResult& r);
  index_t first_with_room(index_t min_level, index_t max_level) const;  // Alg. 6.1 over a level range, -1: none
  void place(index_t v, index_t s);
  std::string add_edge(const Edge& e, UpdateResult& r);  // Alg. 6.2 for one edge; a reason when infeasible
  void mark_changed(std::span<const index_t> row_ptr, const PatternChange& change, UpdateResult& r) const;
  void index_slots();
  void reschedule(std::span<const index_t> row_ptr, std::span<const index_t> col_idx, const PatternChange& change,
                  UpdateResult& r);
  index_t key(index_t v) const { return tri == Triangle::Lower ? v : vertices() - 1 - v; }

  std::vector<std::vector<Link>> dag_;  // sub-graph -> its children in the sub-graph DAG
  bool dag_ready_ = false;
  // Sect. 6.2 (see above) on sub-graph s; returns the vertices re-slotted.
  index_t reslot(index_t s, std::span<const index_t> row_ptr, std::span<const index_t> col_idx, SubgraphDelta& delta);
  // Old edges of vertices not re-slotted plus the fresh ones, bucketed by
  // slot; the slots that lost or gained an edge are marked in `dirty`.
  void rebucket(std::vector<index_t>& ptr, std::vector<SlotEdge>& edges,
                const std::vector<std::pair<index_t, SlotEdge>>& fresh, std::vector<char>& dirty) const;
  // slot_ carried over to the new pattern (rows not dirty keep their entries).
  void carry_slots(std::span<const index_t> row_ptr);

  std::vector<index_t> row_ptr_;  // of the pattern the state describes
  std::vector<index_t> slot_;     // per entry of that pattern: its internal slot, or -1; built on the first update
  std::vector<index_t> finish_;   // per vertex: its last internal in-slot (-1: none)
  std::vector<char> dirty_, redone_, moved_;  // per vertex: row changed; re-slotted; last slot moved
  std::vector<char> seen_;       // scratch of reaches()
};

}  // namespace balsa::tassl
