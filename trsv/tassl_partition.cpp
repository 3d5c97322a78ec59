// TASSL partitioning stage (see tassl_partition.hpp; thesis Sect. 4.1).
#include "trsv/tassl_partition.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "balsa/error.hpp"
#include "balsa/graph.hpp"
#include "sparse/instantiate.hpp"

namespace balsa::tassl {

namespace {

// The dependency graph: parents(i) from the rows, children(j) from the transpose.
struct Graph {
  index_t n = 0;
  bool lower = true;
  std::vector<index_t> parent_ptr, parents, child_ptr, children;
  index_t key(index_t v) const { return lower ? v : n - 1 - v; }  // dependency order
  index_t out_degree(index_t v) const { return child_ptr[v + 1] - child_ptr[v]; }
};

Graph build_graph(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx, Triangle tri) {
  Graph g;
  g.n = n;
  g.lower = tri == Triangle::Lower;
  g.parent_ptr.assign(std::size_t(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      const index_t j = col_idx[p];
      if (g.lower ? j < i : j > i) g.parents.push_back(j);
    }
    g.parent_ptr[std::size_t(i) + 1] = index_t(g.parents.size());
  }
  g.child_ptr.assign(std::size_t(n) + 1, 0);
  for (const index_t j : g.parents) ++g.child_ptr[std::size_t(j) + 1];
  std::partial_sum(g.child_ptr.begin(), g.child_ptr.end(), g.child_ptr.begin());
  g.children.resize(g.parents.size());
  std::vector<index_t> fill(g.child_ptr.begin(), g.child_ptr.end() - 1);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = g.parent_ptr[i]; p < g.parent_ptr[i + 1]; ++p) g.children[fill[g.parents[p]]++] = i;
  return g;
}

index_t find(std::vector<index_t>& up, index_t v) {
  while (up[v] != v) v = up[v] = up[up[v]];
  return v;
}

// Alg. 4.1: the first sub-graph with index >= start that has room, or -1.
index_t associate(std::vector<index_t>& size, index_t start, index_t n_max) {
  for (index_t k = start; k < index_t(size.size()); ++k)
    if (size[k] < n_max) {
      ++size[k];
      return k;
    }
  return -1;
}

void sort_by(const Graph& g, VertexOrder order, std::vector<index_t>& v) {
  switch (order) {
    case VertexOrder::OutDegreeDescending:
      std::sort(v.begin(), v.end(), [&](index_t a, index_t b) {
        return g.out_degree(a) != g.out_degree(b) ? g.out_degree(a) > g.out_degree(b) : g.key(a) < g.key(b);
      });
      break;
    case VertexOrder::OutDegreeAscending:
      std::sort(v.begin(), v.end(), [&](index_t a, index_t b) {
        return g.out_degree(a) != g.out_degree(b) ? g.out_degree(a) < g.out_degree(b) : g.key(a) < g.key(b);
      });
      break;
    case VertexOrder::IndexAscending:
      std::sort(v.begin(), v.end(), [&](index_t a, index_t b) { return g.key(a) < g.key(b); });
      break;
  }
}

// Alg. 4.2 on one component: sub[v] for its vertices (local sub-graph index
// < n_split), or false when the heuristic fails with this ordering for every
// n_init. `pending` is scratch (per vertex), `attempts` counts the runs.
bool split_component(const Graph& g, const std::vector<index_t>& comp, index_t n_split, index_t n_max,
                     VertexOrder order, std::vector<index_t>& sub, std::vector<index_t>& pending, index_t& attempts) {
  std::vector<index_t> roots;
  for (const index_t v : comp)
    if (g.parent_ptr[v + 1] == g.parent_ptr[v]) roots.push_back(v);
  sort_by(g, order, roots);
  std::vector<index_t> size, wave, next;
  for (index_t n_init = std::min<index_t>(n_split, index_t(roots.size())); n_init > 0; n_init /= 2) {
    ++attempts;
    size.assign(std::size_t(n_split), 0);
    for (const index_t v : comp) {
      sub[v] = -1;
      pending[v] = g.parent_ptr[v + 1] - g.parent_ptr[v];
    }
    bool ok = true;
    std::size_t assigned = 0;
    auto place = [&](index_t v, index_t start) {
      const index_t k = associate(size, start, n_max);
      if (k < 0) return false;
      sub[v] = k;
      ++assigned;
      for (index_t p = g.child_ptr[v]; p < g.child_ptr[v + 1]; ++p)
        if (--pending[g.children[p]] == 0) next.push_back(g.children[p]);
      return true;
    };
    next.clear();
    // Roots round-robin over sub-graphs 0 .. n_init-1 (the printed index runs to n_init + 1).
    for (std::size_t r = 0; r < roots.size() && ok; ++r) ok = place(roots[r], index_t(r % std::size_t(n_init)));
    while (ok && !next.empty()) {  // wavefronts: a vertex once all its parents are placed
      wave.swap(next);
      next.clear();
      sort_by(g, order, wave);
      for (std::size_t w = 0; w < wave.size() && ok; ++w) {
        const index_t v = wave[w];
        index_t start = 0;
        for (index_t p = g.parent_ptr[v]; p < g.parent_ptr[v + 1]; ++p) start = std::max(start, sub[g.parents[p]]);
        ok = place(v, start);
      }
    }
    if (ok && assigned == comp.size()) return true;
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

}  // namespace

ComponentSizes component_sizes(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                               Triangle tri) {
  std::vector<index_t> up(static_cast<std::size_t>(n));
  std::iota(up.begin(), up.end(), 0);
  std::vector<char> has_edge(std::size_t(n), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      const index_t j = col_idx[p];
      if (tri == Triangle::Lower ? j >= i : j <= i) continue;
      has_edge[i] = has_edge[j] = 1;
      const index_t a = find(up, i), b = find(up, j);
      if (a != b) up[std::max(a, b)] = std::min(a, b);
    }
  std::vector<index_t> size(std::size_t(n), 0);
  ComponentSizes out;
  for (index_t v = 0; v < n; ++v)
    if (has_edge[v]) {
      const index_t r = find(up, v);
      if (size[r]++ == 0) ++out.count;
      out.largest = std::max(out.largest, size[r]);
    }
  return out;
}

Partition partition(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx, Triangle tri,
                    index_t n_max) {
  if (n_max < 1) throw DimensionError("TASSL partition: n_max must be at least 1, got " + std::to_string(n_max));
  if (row_ptr.size() != std::size_t(n) + 1) throw DimensionError("TASSL partition: row_ptr does not match n");
  const Graph g = build_graph(n, row_ptr, col_idx, tri);
  Partition out;
  out.n = n;
  out.n_max = n_max;

  // Components (union-find over the edges) of the vertices that have one.
  std::vector<index_t> up(static_cast<std::size_t>(n));
  std::iota(up.begin(), up.end(), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = g.parent_ptr[i]; p < g.parent_ptr[i + 1]; ++p) {
      const index_t a = find(up, i), b = find(up, g.parents[p]);
      if (a != b) up[std::max(a, b)] = std::min(a, b);
    }
  std::vector<index_t> comp_of(std::size_t(n), -1);
  std::vector<std::vector<index_t>> comps;
  for (index_t t = 0; t < n; ++t) {  // in dependency order, so each component's list is too
    const index_t v = g.lower ? t : n - 1 - t;
    const bool isolated = g.parent_ptr[v + 1] == g.parent_ptr[v] && g.child_ptr[v + 1] == g.child_ptr[v];
    if (isolated) {
      out.isolated.push_back(v);
      continue;
    }
    const index_t r = find(up, v);
    if (comp_of[r] < 0) {
      comp_of[r] = index_t(comps.size());
      comps.emplace_back();
    }
    comps[std::size_t(comp_of[r])].push_back(v);
  }
  out.stats.components = index_t(comps.size());

  std::vector<std::size_t> small, large;
  for (std::size_t c = 0; c < comps.size(); ++c) (comps[c].size() <= std::size_t(n_max) ? small : large).push_back(c);

  auto add_subgraph = [&](std::vector<index_t> vs, index_t level) {
    std::sort(vs.begin(), vs.end(), [&](index_t a, index_t b) { return g.key(a) < g.key(b); });
    out.vertices.insert(out.vertices.end(), vs.begin(), vs.end());
    out.subgraph_ptr.push_back(index_t(out.vertices.size()));
    out.subgraph_level.push_back(level);
  };

  // Sect. 4.1.2: small components, smallest first, packed into groups of at most n_max.
  std::stable_sort(small.begin(), small.end(), [&](std::size_t a, std::size_t b) { return comps[a].size() < comps[b].size(); });
  std::vector<index_t> group;
  for (const std::size_t c : small) {
    if (group.size() + comps[c].size() > std::size_t(n_max)) {
      add_subgraph(std::move(group), 0);
      ++out.stats.merged_groups;
      group.clear();
    }
    group.insert(group.end(), comps[c].begin(), comps[c].end());
  }
  if (!group.empty()) {
    add_subgraph(std::move(group), 0);
    ++out.stats.merged_groups;
  }

  // Sect. 4.1.3: large components split (independent of each other: in parallel).
  std::vector<index_t> sub(std::size_t(n), -1), scratch(std::size_t(n), 0);
  std::vector<int> used_order(large.size(), -1);
  std::vector<index_t> attempts(large.size(), 0);
#pragma omp parallel for schedule(dynamic)
  for (std::size_t t = 0; t < large.size(); ++t) {
    const std::vector<index_t>& comp = comps[large[t]];
    const index_t n_split = index_t((comp.size() + std::size_t(n_max) - 1) / std::size_t(n_max));
    for (std::size_t o = 0; o < kVertexOrders.size() && used_order[t] < 0; ++o)
      if (split_component(g, comp, n_split, n_max, kVertexOrders[o], sub, scratch, attempts[t])) used_order[t] = int(o);
  }
  if (std::find(used_order.begin(), used_order.end(), -1) != used_order.end()) {  // fallbacks
    const std::vector<index_t> level = dependency_levels(n, row_ptr, col_idx, tri);
    for (std::size_t t = 0; t < large.size(); ++t)
      if (used_order[t] < 0) split_by_levels(comps[large[t]], n_max, level, sub);
  }
  out.stats.split_components = index_t(large.size());
  std::vector<index_t> level_of_sub;  // scratch per component: local sub-graph -> level
  std::vector<std::vector<index_t>> members;
  for (std::size_t t = 0; t < large.size(); ++t) {
    out.stats.split_attempts += attempts[t];
    if (used_order[t] >= 0) ++out.stats.split_by_order[std::size_t(used_order[t])];
    else ++out.stats.fallbacks;
    const std::vector<index_t>& comp = comps[large[t]];
    index_t local = 0;
    for (const index_t v : comp) local = std::max(local, sub[v] + 1);
    members.assign(std::size_t(local), {});
    for (const index_t v : comp) members[std::size_t(sub[v])].push_back(v);
    // Sub-graph levels: local indices are a topological order of the sub-graph DAG.
    level_of_sub.assign(std::size_t(local), 0);
    for (index_t s = 0; s < local; ++s)
      for (const index_t v : members[std::size_t(s)])
        for (index_t p = g.parent_ptr[v]; p < g.parent_ptr[v + 1]; ++p) {
          const index_t q = sub[g.parents[p]];
          if (q > s) throw Error("TASSL partition: internal error, an edge goes to a lower sub-graph");
          if (q < s) level_of_sub[s] = std::max(level_of_sub[s], level_of_sub[q] + 1);
        }
    for (index_t s = 0; s < local; ++s)
      if (!members[std::size_t(s)].empty()) add_subgraph(std::move(members[std::size_t(s)]), level_of_sub[s]);
  }
  for (const index_t l : out.subgraph_level) out.levels = std::max(out.levels, l + 1);
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
