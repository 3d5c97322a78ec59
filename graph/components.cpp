// Weakly connected components by a concurrent union-find (graph/components.hpp).
#include "graph/components.hpp"

#include <algorithm>
#include <atomic>

#include "core/parallel.hpp"
#include "core/exceptions.hpp"

namespace balsa::graph {

namespace {

// Concurrent union-find (links the larger root under the smaller with a
// compare-and-swap, finds with path halving): roots only ever decrease, so
// every thread's view stays a forest and the final roots are the smallest
// vertex of each component whatever the interleaving.
index_t find_root(std::vector<index_t>& up, index_t v) {
  for (;;) {
    const index_t u = std::atomic_ref<index_t>(up[std::size_t(v)]).load(std::memory_order_relaxed);
    if (u == v) return v;
    const index_t w = std::atomic_ref<index_t>(up[std::size_t(u)]).load(std::memory_order_relaxed);
    if (w != u) std::atomic_ref<index_t>(up[std::size_t(v)]).store(w, std::memory_order_relaxed);
    v = w;
  }
}

void unite(std::vector<index_t>& up, index_t a, index_t b) {
  for (;;) {
    a = find_root(up, a);
    b = find_root(up, b);
    if (a == b) return;
    if (a < b) std::swap(a, b);  // link the larger root a under b
    index_t expected = a;
    if (std::atomic_ref<index_t>(up[std::size_t(a)]).compare_exchange_weak(expected, b, std::memory_order_relaxed))
      return;
  }
}

// Below this many rows the union-find runs on one thread (starting threads
// would cost more than it saves).
constexpr index_t kParallelRows = 100000;

}  // namespace

std::vector<index_t> component_roots(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                     Triangle tri) try {
  const bool lower = tri == Triangle::Lower;
  std::vector<index_t> up = parallel::fresh_vector<index_t>(std::size_t(n));
#pragma omp parallel for schedule(static) if (n > kParallelRows)
  for (index_t i = 0; i < n; ++i) up[std::size_t(i)] = i;
  std::vector<char> has_edge(std::size_t(n), 0);
#pragma omp parallel for schedule(static) if (n > kParallelRows)
  for (index_t i = 0; i < n; ++i)
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      const index_t j = col_idx[p];
      if (lower ? j >= i : j <= i) continue;  // the diagonal and the other triangle are no edges
      has_edge[std::size_t(i)] = 1;
      std::atomic_ref<char>(has_edge[std::size_t(j)]).store(1, std::memory_order_relaxed);
      unite(up, i, j);
    }
  std::vector<index_t> root = parallel::fresh_vector<index_t>(std::size_t(n));
#pragma omp parallel for schedule(static) if (n > kParallelRows)
  for (index_t v = 0; v < n; ++v) root[std::size_t(v)] = has_edge[std::size_t(v)] ? find_root(up, v) : index_t(-1);
  return root;
} catch (...) {
  rethrow_as_balsa_error("component_roots");
}

ComponentSizes component_sizes(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                               Triangle tri) try {
  const std::vector<index_t> root = component_roots(n, row_ptr, col_idx, tri);
  std::vector<index_t> size = parallel::fresh_vector<index_t>(std::size_t(n), 0);
  ComponentSizes out;
  for (const index_t r : root)
    if (r >= 0) {
      if (size[std::size_t(r)]++ == 0) ++out.count;
      out.largest = std::max(out.largest, size[std::size_t(r)]);
    }
  return out;
} catch (...) {
  rethrow_as_balsa_error("component_sizes");
}

}  // namespace balsa::graph
