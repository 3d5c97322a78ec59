// TASSL scheduling stage (see tassl_schedule.hpp; thesis Sect. 4.2).
#include "trsv/tassl/tassl_schedule.hpp"

#include <algorithm>
#include <span>

#include "balsa/error.hpp"
#include "core/instantiate.hpp"

namespace balsa::tassl {

namespace {

// Edges grouped by slot (a counting sort, stable): ptr[q] .. ptr[q + 1] in `out`.
void bucket(const std::vector<std::pair<index_t, SlotEdge>>& edges, std::vector<index_t>& ptr,
            std::vector<SlotEdge>& out) {
  index_t slots = 0;
  for (const auto& e : edges) slots = std::max(slots, e.first + 1);
  ptr.assign(std::size_t(slots) + 1, 0);
  for (const auto& e : edges) ++ptr[std::size_t(e.first) + 1];
  for (index_t q = 0; q < slots; ++q) ptr[q + 1] += ptr[q];
  out.resize(edges.size());
  std::vector<index_t> next(ptr.begin(), ptr.end() - 1);
  for (const auto& e : edges) out[std::size_t(next[std::size_t(e.first)]++)] = e.second;
}

}  // namespace

SubgraphSchedule schedule_subgraph(std::span<const index_t> row_ptr, std::span<const index_t> col_idx, Triangle tri,
                                   std::span<const index_t> vertices, index_t s, std::span<const index_t> sub_of,
                                   std::span<index_t> finish) {
  const bool lower = tri == Triangle::Lower;
  std::vector<std::pair<index_t, SlotEdge>> ext, internal;
  std::vector<std::pair<index_t, SlotEdge>> ready;  // (first allowed slot, edge) of one vertex
  for (const index_t i : vertices) {  // dependency order
    index_t n_ext = 0;
    ready.clear();
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      const index_t j = col_idx[p];
      if (lower ? j >= i : j <= i) continue;  // the diagonal and the other triangle
      const SlotEdge e{i, j, p - row_ptr[i]};
      if (sub_of[j] != s) ext.push_back({n_ext++, e});  // k-th external edge into i: external slot k
      else ready.push_back({finish[j] + 1, e});
    }
    std::stable_sort(ready.begin(), ready.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    index_t slot = -1;
    for (const auto& [first, e] : ready) {
      slot = std::max(first, slot + 1);  // one edge into i per slot, after j's last in-edge
      internal.push_back({slot, e});
    }
    finish[i] = slot;
  }
  SubgraphSchedule g;
  bucket(ext, g.ext_ptr, g.ext);
  bucket(internal, g.int_ptr, g.internal);
  return g;
}

template <class T>
Schedule schedule(const Csr<T>& A, Triangle tri, const Partition& P) {
  if (A.rows != P.n) throw DimensionError("TASSL schedule: the partition is of another matrix");
  std::vector<index_t> sub_of(std::size_t(A.rows), -1);
  for (index_t s = 0; s < P.subgraphs(); ++s)
    for (index_t t = P.subgraph_ptr[s]; t < P.subgraph_ptr[s + 1]; ++t) sub_of[P.vertices[t]] = s;
  Schedule out;
  out.subgraphs.resize(std::size_t(P.subgraphs()));
  std::vector<index_t> finish(std::size_t(A.rows), -1);  // last internal slot of the edges into a vertex
  // Sub-graphs are independent (each reads and writes `finish` of its own
  // vertices only): in parallel, then the edge counts added up.
#pragma omp parallel for schedule(dynamic, 4)
  for (index_t s = 0; s < P.subgraphs(); ++s)
    out.subgraphs[std::size_t(s)] = schedule_subgraph(
        A.row_ptr, A.col_idx, tri,
        std::span<const index_t>(P.vertices.data() + P.subgraph_ptr[s], std::size_t(P.subgraph_ptr[s + 1] - P.subgraph_ptr[s])),
        s, sub_of, finish);
  for (const SubgraphSchedule& g : out.subgraphs) {
    out.external_edges += g.ext.size();
    out.internal_edges += g.internal.size();
  }
  return out;
}

#define BALSA_INSTANTIATE(T) template Schedule schedule<T>(const Csr<T>&, Triangle, const Partition&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
