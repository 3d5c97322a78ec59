// Cuthill-McKee (CM) ordering of the SaP report (Li, Serban & Negrut,
// "SaP::GPU", sec. 2.2.1 "Bandwidth reduction" and sec. 3.3 CM-S1..S3), on
// the CPU. Declared in include/balsa/reorder.hpp.
//
//   CM-S1  the pattern of A + A^T without the diagonal as a symmetric
//          adjacency structure, every node's neighbours pre-sorted by
//          increasing degree (ties by index), so no search sorts again;
//   CM-S2  per connected component, breadth-first searches from several
//          start nodes (the level structure: height, widest level, last level);
//   CM-S3  the order in which a search visits the nodes (neighbours by
//          increasing degree) is the candidate CM ordering.
//
// Components are ordered by their least-degree node (degree, then index;
// isolated nodes, degree 0, therefore come first, by index), the node the
// first search of a component starts from. Later starts follow sec. 3.3:
// the least-degree node of the last level not tried yet (else the
// least-degree untried node of the component); the searches stop when the
// level structure gets no taller or its widest level no narrower than the
// best so far (the rule of the report's ref. [37]), or after max_starts
// searches. Each search computes its candidate's half-bandwidth on the fly;
// the smallest wins. Cost: O(nnz) for CM-S1 (counting sorts only) and per
// search O(nnz of the component).
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "balsa/reorder.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"

namespace balsa {

namespace {

// CM-S1 (report sec. 3.3): the symmetric adjacency of A + A^T (diagonal
// dropped, duplicates merged). adj[ptr[v] .. ptr[v + 1]) lists v's
// neighbours by increasing (degree, index); rank lists every node in that
// order and rank_of[v] is v's place in it, so "less degree, ties by index"
// is one integer comparison.
// Offsets are 32-bit unsigned: A + A^T has at most 2 (nnz(A) - n) < 2^32
// off-diagonal entries, and half-size arrays keep more of them in cache.
using offset_t = std::uint32_t;
struct Adjacency {
  std::vector<offset_t> ptr;
  std::vector<index_t> adj, rank, rank_of;
  index_t degree(index_t v) const { return index_t(ptr[std::size_t(v) + 1] - ptr[std::size_t(v)]); }
};

// Software prefetching: these passes read and write arrays in an order the
// hardware cannot guess (through a node's neighbours), so each asks for the
// data of an entry or node kAhead steps ahead (the searches of a randomly
// numbered 1e6-node grid ran 3-4x faster with it).
constexpr std::size_t kAhead = 16;
// (Both forced inline: as a call, prefetch_walk made the searches 4x slower.)
template <class V>
[[gnu::always_inline]] inline void prefetch(const std::vector<V>& v, std::size_t i) {
  if (i < v.size()) __builtin_prefetch(v.data() + i, 1);
}
// For a walk over nodes[0 .. end) that reads each node's list
// lists[ptr[v] .. ptr[v + 1]) and then target[] of every node listed: at
// step k, the ptr entry of the node kAhead steps on, the list of the one
// kAhead / 2 on and the target entries of the one kAhead / 4 on.
template <class V>
[[gnu::always_inline]] inline void prefetch_walk(std::span<const index_t> nodes, std::size_t k,
                                                 const std::vector<offset_t>& ptr, const std::vector<index_t>& lists,
                                                 const std::vector<V>& target) {
  if (k + kAhead < nodes.size()) prefetch(ptr, std::size_t(nodes[k + kAhead]));
  if (k + kAhead / 2 < nodes.size()) prefetch(lists, ptr[std::size_t(nodes[k + kAhead / 2])]);
  if (k + kAhead / 4 < nodes.size()) {
    const std::size_t w = std::size_t(nodes[k + kAhead / 4]);
    for (offset_t q = ptr[w]; q < ptr[w + 1]; ++q) prefetch(target, std::size_t(lists[q]));
  }
}

Adjacency symmetric_adjacency(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx) {
  const std::size_t un = std::size_t(n), nnz = std::size_t(row_ptr[un]);
  auto col_ahead = [&](std::size_t p, std::size_t d) { return p + d < nnz ? std::size_t(col_idx[p + d]) : un; };
  // Each off-diagonal a_ij gives j to i's list and i to j's (duplicates kept).
  std::vector<offset_t> start(un + 1, 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      prefetch(start, col_ahead(std::size_t(p), kAhead) + 1);
      if (const index_t j = col_idx[p]; j != i) ++start[std::size_t(i) + 1], ++start[std::size_t(j) + 1];
    }
  for (std::size_t v = 0; v < un; ++v) start[v + 1] += start[v];
  std::vector<index_t> raw = parallel::fresh_vector<index_t>(std::size_t(start[un]));
  {
    std::vector<offset_t> fill(start.begin(), start.end() - 1);
    for (index_t i = 0; i < n; ++i)
      for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
        prefetch(fill, col_ahead(std::size_t(p), kAhead));
        if (const std::size_t k = col_ahead(std::size_t(p), kAhead / 2); k < un) prefetch(raw, fill[k]);
        if (const index_t j = col_idx[p]; j != i) raw[std::size_t(fill[i]++)] = j, raw[std::size_t(fill[j]++)] = i;
      }
  }
  // Merge duplicates in place (a stamp per node), which gives the degrees.
  Adjacency g;
  g.ptr.assign(un + 1, 0);
  {
    std::vector<index_t> seen(un, -1);
    offset_t w = 0;
    for (index_t v = 0; v < n; ++v) {
      for (offset_t q = start[std::size_t(v)]; q < start[std::size_t(v) + 1]; ++q) {
        if (q + kAhead < raw.size()) prefetch(seen, std::size_t(raw[q + kAhead]));
        if (const index_t u = raw[std::size_t(q)]; seen[std::size_t(u)] != v)
          seen[std::size_t(u)] = v, raw[std::size_t(w++)] = u;
      }
      g.ptr[std::size_t(v) + 1] = w;
    }
  }
  // Nodes by (degree, index): a counting sort by degree, stable in index.
  index_t max_degree = 0;
  for (index_t v = 0; v < n; ++v) max_degree = std::max(max_degree, g.degree(v));
  std::vector<index_t> bucket(std::size_t(max_degree) + 2, 0);
  for (index_t v = 0; v < n; ++v) ++bucket[std::size_t(g.degree(v)) + 1];
  for (std::size_t d = 0; d + 1 < bucket.size(); ++d) bucket[d + 1] += bucket[d];
  g.rank = parallel::fresh_vector<index_t>(un);
  g.rank_of = parallel::fresh_vector<index_t>(un);
  for (index_t v = 0; v < n; ++v) {
    const index_t r = bucket[std::size_t(g.degree(v))]++;
    g.rank[std::size_t(r)] = v, g.rank_of[std::size_t(v)] = r;
  }
  // Scatter each node v, in rank order, into its neighbours' lists: every
  // list comes out sorted by (degree, index) without a comparison sort.
  g.adj = parallel::fresh_vector<index_t>(std::size_t(g.ptr[un]));
  std::vector<offset_t> fill(g.ptr.begin(), g.ptr.end() - 1);
  for (std::size_t k = 0; k < un; ++k) {
    prefetch_walk(g.rank, k, g.ptr, raw, fill);
    const index_t v = g.rank[k];
    for (offset_t q = g.ptr[std::size_t(v)]; q < g.ptr[std::size_t(v) + 1]; ++q)
      g.adj[std::size_t(fill[std::size_t(raw[std::size_t(q)])]++)] = v;
  }
  return g;
}

// One CM search (CM-S2 and CM-S3, report sec. 3.3) and what it found.
struct Search {
  index_t size = 0;        // nodes reached: the component
  index_t height = 0;      // levels
  index_t width = 0;       // nodes in the widest level
  index_t last_begin = 0;  // the last level is order[last_begin .. size)
  index_t bandwidth = 0;   // half-bandwidth of the component in this order
};

// visit[v]: v's position in the current search's order, or one of these.
constexpr index_t kUnreached = -1, kPlaced = -2;  // kPlaced: in an earlier component

// Breadth-first search from s visiting neighbours by increasing degree: order
// gets the component in CM order, visit[v] the position of each node it
// reaches (all kUnreached before). The half-bandwidth comes on the fly: when
// u (at position head) is processed, every neighbour is placed, and the
// farthest one after u is an earlier-placed one or the last one u appends.
Search cm_search(const Adjacency& g, index_t s, std::vector<index_t>& visit, std::vector<index_t>& order) {
  Search r;
  order[0] = s;
  visit[std::size_t(s)] = 0;
  index_t head = 0, tail = 1, level_end = 1;
  r.height = 1, r.width = 1;
  for (; head < tail; ++head) {
    if (head == level_end) {  // a new level: order[head .. tail)
      r.last_begin = head, level_end = tail, ++r.height;
      r.width = std::max(r.width, index_t(tail - head));
    }
    prefetch_walk(std::span<const index_t>(order.data(), std::size_t(tail)), std::size_t(head), g.ptr, g.adj, visit);
    const index_t u = order[std::size_t(head)];
    const index_t before = tail;
    for (offset_t q = g.ptr[std::size_t(u)]; q < g.ptr[std::size_t(u) + 1]; ++q) {
      const index_t v = g.adj[std::size_t(q)];
      if (const index_t at = visit[std::size_t(v)]; at >= 0) {
        r.bandwidth = std::max(r.bandwidth, at - head);
      } else {
        visit[std::size_t(v)] = tail;
        order[std::size_t(tail++)] = v;
      }
    }
    if (tail > before) r.bandwidth = std::max(r.bandwidth, index_t(tail - 1 - head));
  }
  r.size = tail;
  return r;
}

// The least-degree node (ties by index) of nodes[] not tried yet, or -1.
index_t least_untried(const Adjacency& g, std::span<const index_t> nodes, const std::vector<char>& tried) {
  index_t best = -1;
  for (const index_t v : nodes)
    if (!tried[std::size_t(v)] && (best < 0 || g.rank_of[std::size_t(v)] < g.rank_of[std::size_t(best)])) best = v;
  return best;
}

Ordering cm_ordering(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                     const CuthillMcKeeOptions& options) {
  Ordering out;
  for (index_t i = 0; i < n; ++i)
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p)
      out.bandwidth_before = std::max(out.bandwidth_before, col_idx[p] > i ? col_idx[p] - i : i - col_idx[p]);
  const Adjacency g = symmetric_adjacency(n, row_ptr, col_idx);  // CM-S1
  out.perm = parallel::fresh_vector<index_t>(std::size_t(n));
  std::vector<index_t> visit = parallel::fresh_vector<index_t>(std::size_t(n), kUnreached);
  std::vector<index_t> order = parallel::fresh_vector<index_t>(std::size_t(n));
  std::vector<char> tried(std::size_t(n), 0);
  std::vector<index_t> tried_list;
  index_t placed = 0;
  // Components in the order of their least-degree node: the first node of
  // the rank order no search has reached yet starts the next component.
  for (const index_t first : g.rank) {
    if (visit[std::size_t(first)] == kPlaced) continue;
    ++out.components;
    index_t s = first, best_bandwidth = -1, size = 0;
    Search ref;  // the level structure the stopping rules compare with
    for (int t = 0; t < options.max_starts; ++t) {
      for (index_t q = 0; q < size; ++q) visit[std::size_t(order[std::size_t(q)])] = kUnreached;
      const Search r = cm_search(g, s, visit, order);  // CM-S2, CM-S3
      ++out.starts;
      size = r.size;
      tried[std::size_t(s)] = 1, tried_list.push_back(s);
      if (best_bandwidth < 0 || r.bandwidth < best_bandwidth) {  // keep the narrowest band
        best_bandwidth = r.bandwidth;
        std::copy(order.begin(), order.begin() + r.size, out.perm.begin() + placed);
      }
      // The report's stopping rules (sec. 3.3, CM-S2): a start that gives
      // no taller level structure, or no narrower widest level, than the
      // best so far ends the search of this component.
      if (t > 0 && (r.height <= ref.height || r.width >= ref.width)) break;
      ref = r;
      // Next start: the least-degree untried node of the last level, else
      // of the whole component (the report takes a random one there).
      const std::span<const index_t> comp(order.data(), std::size_t(r.size));
      s = least_untried(g, comp.subspan(std::size_t(r.last_begin)), tried);
      if (s < 0) s = least_untried(g, comp, tried);
      if (s < 0) break;  // every node tried
    }
    out.bandwidth_after = std::max(out.bandwidth_after, best_bandwidth);
    for (index_t q = 0; q < size; ++q) visit[std::size_t(order[std::size_t(q)])] = kPlaced;
    placed += size;
    for (const index_t v : tried_list) tried[std::size_t(v)] = 0;
    tried_list.clear();
  }
  if (options.reverse) std::reverse(out.perm.begin(), out.perm.end());
  return out;
}

}  // namespace

template <class T>
Ordering cuthill_mckee(const Csr<T>& A, const CuthillMcKeeOptions& options) try {
  const Clock::time_point t0 = Clock::now();
  require_square(A, "cuthill_mckee");
  validate(A);
  if (options.max_starts < 1)
    throw Error("cuthill_mckee: max_starts must be at least 1, got " + std::to_string(options.max_starts));
  Ordering out = cm_ordering(A.rows, A.row_ptr, A.col_idx, options);
  out.seconds = seconds_since(t0);  // validation included
  return out;
} catch (...) {
  rethrow_as_balsa_error("cuthill_mckee");
}

#define BALSA_INSTANTIATE(T) template Ordering cuthill_mckee(const Csr<T>&, const CuthillMcKeeOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
