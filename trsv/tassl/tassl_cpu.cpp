// The CPU oracle of TASSL's solve (see tassl_cpu.hpp).
#include "trsv/tassl/tassl_cpu.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/instantiate.hpp"

namespace balsa::tassl {

template <class T>
void solve_scheduled(const Csr<T>& A, DiagonalKind diag, std::span<const index_t> subgraph_level, const Schedule& S,
                     std::span<const T> b, std::span<T> x) {
  const std::size_t n = std::size_t(A.rows);
  if (b.size() != n || x.size() != n || S.subgraphs.size() != subgraph_level.size())
    throw DimensionError("TASSL solve: sizes of b, x, partition and schedule do not match the matrix");
  std::vector<T> d(n, T(1));
  if (diag == DiagonalKind::NonUnit)
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
        if (A.col_idx[p] == i) d[std::size_t(i)] = A.values[p];
  for (std::size_t i = 0; i < n; ++i) x[i] = b[i] / d[i];  // every vertex starts at b_i / l_ii
  std::vector<index_t> order(subgraph_level.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t a, index_t c) { return subgraph_level[std::size_t(a)] < subgraph_level[std::size_t(c)]; });
  auto run = [&](const std::vector<index_t>& ptr, const std::vector<SlotEdge>& edges) {
    for (std::size_t q = 0; q + 1 < ptr.size(); ++q)  // a slot; a barrier after it
      for (index_t e = ptr[q]; e < ptr[q + 1]; ++e) {
        const SlotEdge& s = edges[std::size_t(e)];
        x[std::size_t(s.to)] -= (A.values[A.row_ptr[s.to] + s.value] / d[std::size_t(s.to)]) * x[std::size_t(s.from)];
      }
  };
  for (const index_t s : order) {
    run(S.subgraphs[std::size_t(s)].ext_ptr, S.subgraphs[std::size_t(s)].ext);
    run(S.subgraphs[std::size_t(s)].int_ptr, S.subgraphs[std::size_t(s)].internal);
  }
}

#define BALSA_INSTANTIATE(T)                                                                             \
  template void solve_scheduled<T>(const Csr<T>&, DiagonalKind, std::span<const index_t>, const Schedule&, \
                                   std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
