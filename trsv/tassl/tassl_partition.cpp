// TASSL partitioning stage (see tassl_partition.hpp; thesis Sect. 4.1).
#include "trsv/tassl/tassl_partition.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>

#include "balsa/error.hpp"
#include "balsa/graph.hpp"
#include "graph/components.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/clock.hpp"

namespace balsa::tassl {

namespace {

// The dependency graph, read from the rows of A (parents of i: the
// off-diagonal entries of row i inside the triangle); the split also needs
// every vertex's out-degree (number of children) and dependency level.
struct Graph {
  Graph(index_t rows, Triangle tri, std::span<const index_t> ptr, std::span<const index_t> idx)
      : n(rows), lower(tri == Triangle::Lower), row_ptr(ptr), col_idx(idx) {}
  index_t n = 0;
  bool lower = true;
  std::span<const index_t> row_ptr, col_idx;
  std::vector<index_t> out_degree, level;  // filled only when a component is split
  index_t key(index_t v) const { return lower ? v : n - 1 - v; }  // dependency order
  bool is_parent(index_t i, index_t j) const { return lower ? j < i : j > i; }
  template <class F>
  void for_each_parent(index_t i, F&& f) const {
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p)
      if (is_parent(i, col_idx[p])) f(col_idx[p]);
  }
  void compute_degrees_and_levels() {
    out_degree.assign(std::size_t(n), 0);
    for (index_t i = 0; i < n; ++i) for_each_parent(i, [&](index_t j) { ++out_degree[std::size_t(j)]; });
    level = dependency_levels(n, row_ptr, col_idx, lower ? Triangle::Lower : Triangle::Upper);
  }
};

// Alg. 4.1: the first sub-graph with index >= start that has room, or -1.
index_t associate(std::vector<index_t>& size, index_t start, index_t n_max) {
  for (index_t k = start; k < index_t(size.size()); ++k)
    if (size[k] < n_max) {
      ++size[k];
      return k;
    }
  return -1;
}

// Sorts v by `order`, ties by dependency order. One 64-bit sort key per
// vertex (the degree part above the dependency key), `keys` is scratch.
void sort_by(const Graph& g, VertexOrder order, std::vector<index_t>& v, std::vector<std::uint64_t>& keys) {
  keys.resize(v.size());
  for (std::size_t t = 0; t < v.size(); ++t) {
    const auto degree = std::uint64_t(g.out_degree[std::size_t(v[t])]);
    const std::uint64_t major = order == VertexOrder::OutDegreeDescending  ? ~degree & 0xffffffffu
                                : order == VertexOrder::OutDegreeAscending ? degree
                                                                           : 0;
    keys[t] = major << 32 | std::uint64_t(std::uint32_t(g.key(v[t])));
  }
  std::sort(keys.begin(), keys.end());
  for (std::size_t t = 0; t < v.size(); ++t) {
    const auto k = index_t(keys[t] & 0xffffffffu);
    v[t] = g.lower ? k : g.n - 1 - k;
  }
}

// The wavefronts of Alg. 4.2 on one component, in the order the heuristic
// visits them. A vertex joins the wavefront after the one holding its last
// placed parent, so wavefront k is exactly the component's vertices of
// dependency level k (level 0: the roots); within a wavefront, `order`
// decides. `comp` is in dependency order; the levels are bucketed stably.
std::vector<index_t> wavefront_order(const Graph& g, const std::vector<index_t>& comp, VertexOrder order,
                                     index_t& n_roots) {
  index_t top = 0;
  for (const index_t v : comp) top = std::max(top, g.level[std::size_t(v)]);
  std::vector<index_t> ptr(std::size_t(top) + 2, 0);
  for (const index_t v : comp) ++ptr[std::size_t(g.level[std::size_t(v)]) + 1];
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  n_roots = ptr[1];
  std::vector<index_t> seq(comp.size()), fill(ptr.begin(), ptr.end() - 1);
  for (const index_t v : comp) seq[std::size_t(fill[std::size_t(g.level[std::size_t(v)])]++)] = v;
  if (order != VertexOrder::IndexAscending) {
    std::vector<index_t> wave;
    std::vector<std::uint64_t> keys;
    for (index_t k = 0; k <= top; ++k) {
      wave.assign(seq.begin() + ptr[k], seq.begin() + ptr[k + 1]);
      sort_by(g, order, wave, keys);
      std::copy(wave.begin(), wave.end(), seq.begin() + ptr[k]);
    }
  }
  return seq;
}

// Alg. 4.2 on one component: sub[v] for its vertices (local sub-graph index
// < n_split), or false when the heuristic fails with this ordering for every
// n_init (halved after each failure); `attempts` counts the runs.
bool split_component(const Graph& g, const std::vector<index_t>& comp, index_t n_split, index_t n_max,
                     VertexOrder order, std::vector<index_t>& sub, index_t& attempts) {
  index_t n_roots = 0;
  const std::vector<index_t> seq = wavefront_order(g, comp, order, n_roots);
  std::vector<index_t> size;
  for (index_t n_init = std::min(n_split, n_roots); n_init > 0; n_init /= 2) {
    ++attempts;
    size.assign(std::size_t(n_split), 0);
    bool ok = true;
    for (std::size_t t = 0; t < seq.size() && ok; ++t) {
      const index_t v = seq[t];
      // Roots round-robin over sub-graphs 0 .. n_init-1 (the printed index
      // runs to n_init + 1); any other vertex goes no lower than its parents.
      index_t start = 0;
      if (index_t(t) < n_roots)
        start = index_t(t % std::size_t(n_init));
      else
        g.for_each_parent(v, [&](index_t j) { start = std::max(start, sub[std::size_t(j)]); });
      const index_t k = associate(size, start, n_max);
      sub[std::size_t(v)] = k;
      ok = k >= 0;
    }
    if (ok) return true;
  }
  return false;
}

// The always-feasible split: the component's vertices by (dependency level,
// dependency order) cut into pieces of n_max.
void split_by_levels(const std::vector<index_t>& comp, index_t n_max, const std::vector<index_t>& level,
                     std::vector<index_t>& sub) {
  std::vector<index_t> order = comp;  // in dependency order
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return level[a] < level[b]; });
  for (std::size_t t = 0; t < order.size(); ++t) sub[order[t]] = index_t(t / std::size_t(n_max));
}

// Sub-graph vertices in dependency order.
void add_subgraph(Partition& out, const std::vector<index_t>& vs, index_t level) {
  out.vertices.insert(out.vertices.end(), vs.begin(), vs.end());
  out.subgraph_ptr.push_back(index_t(out.vertices.size()));
  out.subgraph_level.push_back(level);
}

// Components of the vertices that have an edge (V0, out.isolated: those
// without), each in dependency order.
std::vector<std::vector<index_t>> components(const Graph& g, std::span<const index_t> row_ptr,
                                             std::span<const index_t> col_idx, Triangle tri, Partition& out) {
  const index_t n = out.n;
  const std::vector<index_t> root = graph::component_roots(n, row_ptr, col_idx, tri);
  std::vector<index_t> comp_of(std::size_t(n), -1);
  std::vector<std::vector<index_t>> comps;
  for (index_t t = 0; t < n; ++t) {  // in dependency order, so each component's list is too
    const index_t v = g.lower ? t : n - 1 - t;
    const index_t r = root[std::size_t(v)];
    if (r < 0) {
      out.isolated.push_back(v);
      continue;
    }
    if (comp_of[r] < 0) {
      comp_of[r] = index_t(comps.size());
      comps.emplace_back();
    }
    comps[std::size_t(comp_of[r])].push_back(v);
  }
  return comps;
}

// Sect. 4.1.2: small components, smallest first, packed into groups of at most n_max.
void merge_small(const Graph& g, const std::vector<std::vector<index_t>>& comps, std::vector<std::size_t>& small,
                 index_t n_max, Partition& out) {
  std::stable_sort(small.begin(), small.end(), [&](std::size_t a, std::size_t b) { return comps[a].size() < comps[b].size(); });
  std::vector<index_t> group;
  for (const std::size_t c : small) {
    if (group.size() + comps[c].size() > std::size_t(n_max)) {
      std::sort(group.begin(), group.end(), [&](index_t a, index_t b) { return g.key(a) < g.key(b); });
      add_subgraph(out, group, 0);
      ++out.stats.merged_groups;
      group.clear();
    }
    group.insert(group.end(), comps[c].begin(), comps[c].end());
  }
  if (!group.empty()) {
    std::sort(group.begin(), group.end(), [&](index_t a, index_t b) { return g.key(a) < g.key(b); });
    add_subgraph(out, group, 0);
    ++out.stats.merged_groups;
  }
}

// A split component's sub-graphs (sub: local index per vertex) added with
// their levels: local indices are a topological order of the sub-graph DAG.
// members and level_of_sub are scratch.
void add_split(const Graph& g, const std::vector<index_t>& comp, const std::vector<index_t>& sub,
               std::vector<std::vector<index_t>>& members, std::vector<index_t>& level_of_sub, Partition& out) {
  index_t local = 0;
  for (const index_t v : comp) local = std::max(local, sub[v] + 1);
  members.assign(std::size_t(local), {});
  for (const index_t v : comp) members[std::size_t(sub[v])].push_back(v);  // in dependency order
  level_of_sub.assign(std::size_t(local), 0);
  for (index_t s = 0; s < local; ++s)
    for (const index_t v : members[std::size_t(s)])
      g.for_each_parent(v, [&](index_t j) {
        const index_t q = sub[std::size_t(j)];
        if (q > s) throw Error("TASSL partition: internal error, an edge goes to a lower sub-graph");
        if (q < s) level_of_sub[s] = std::max(level_of_sub[s], level_of_sub[q] + 1);
      });
  for (index_t s = 0; s < local; ++s)
    if (!members[std::size_t(s)].empty()) add_subgraph(out, members[std::size_t(s)], level_of_sub[s]);
}

// Sect. 4.1.3: large components split (independent of each other: in
// parallel), by the first vertex order that works, else by levels.
void split_large(const Graph& g, const std::vector<std::vector<index_t>>& comps, const std::vector<std::size_t>& large,
                 index_t n_max, Partition& out) {
  std::vector<index_t> sub(std::size_t(out.n), -1);
  std::vector<int> used_order(large.size(), -1);
  std::vector<index_t> attempts(large.size(), 0);
#pragma omp parallel for schedule(dynamic) if (large.size() > 1)
  for (std::size_t t = 0; t < large.size(); ++t) {
    const std::vector<index_t>& comp = comps[large[t]];
    const index_t n_split = index_t((comp.size() + std::size_t(n_max) - 1) / std::size_t(n_max));
    for (std::size_t o = 0; o < kVertexOrders.size() && used_order[t] < 0; ++o)
      if (split_component(g, comp, n_split, n_max, kVertexOrders[o], sub, attempts[t])) used_order[t] = int(o);
  }
  for (std::size_t t = 0; t < large.size(); ++t)  // fallbacks
    if (used_order[t] < 0) split_by_levels(comps[large[t]], n_max, g.level, sub);
  out.stats.split_components = index_t(large.size());
  std::vector<index_t> level_of_sub;  // scratch per component: local sub-graph -> level
  std::vector<std::vector<index_t>> members;
  for (std::size_t t = 0; t < large.size(); ++t) {
    out.stats.split_attempts += attempts[t];
    if (used_order[t] >= 0) ++out.stats.split_by_order[std::size_t(used_order[t])];
    else ++out.stats.fallbacks;
    add_split(g, comps[large[t]], sub, members, level_of_sub, out);
  }
}

}  // namespace

Partition partition(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx, Triangle tri,
                    index_t n_max) {
  if (n_max < 1) throw DimensionError("TASSL partition: n_max must be at least 1, got " + std::to_string(n_max));
  if (row_ptr.size() != std::size_t(n) + 1) throw DimensionError("TASSL partition: row_ptr does not match n");
  auto clock = std::chrono::steady_clock::now();
  Graph g(n, tri, row_ptr, col_idx);
  Partition out;
  out.n = n;
  out.n_max = n_max;
  const std::vector<std::vector<index_t>> comps = components(g, row_ptr, col_idx, tri, out);
  out.stats.components = index_t(comps.size());
  std::vector<std::size_t> small, large;
  for (std::size_t c = 0; c < comps.size(); ++c) (comps[c].size() <= std::size_t(n_max) ? small : large).push_back(c);
  merge_small(g, comps, small, n_max, out);
  out.stats.components_seconds = seconds_since(clock);
  clock = std::chrono::steady_clock::now();
  if (!large.empty()) g.compute_degrees_and_levels();
  out.stats.graph_seconds = seconds_since(clock);
  clock = std::chrono::steady_clock::now();
  split_large(g, comps, large, n_max, out);
  for (const index_t l : out.subgraph_level) out.levels = std::max(out.levels, l + 1);
  out.stats.split_seconds = seconds_since(clock);
  return out;
}

template <class T>
Partition partition(const Csr<T>& A, Triangle tri, index_t n_max) {
  if (A.rows != A.cols)
    throw DimensionError("TASSL partition: the matrix is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                         ", not square");
  return partition(A.rows, A.row_ptr, A.col_idx, tri, n_max);
}

#define BALSA_INSTANTIATE(T) template Partition partition<T>(const Csr<T>&, Triangle, index_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
