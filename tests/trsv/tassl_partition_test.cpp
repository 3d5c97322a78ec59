// TASSL partitioning stage (trsv/tassl/tassl_partition.*): every partition must be
// feasible (each vertex once; sub-graphs of at most n_max vertices in
// dependency order; an edge between sub-graphs goes to a strictly higher
// sub-graph level) and its levels exact (1 + the highest level it depends on).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/sparse.hpp"
#include "graph/components.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"
#include "trsv/tassl/tassl_partition.hpp"

namespace balsa {
namespace {

bool inside(Triangle tri, index_t i, index_t j) { return tri == Triangle::Lower ? j < i : j > i; }

void expect_feasible(const Csr<double>& A, Triangle tri, const tassl::Partition& P) {
  const index_t n = A.rows;
  std::vector<index_t> sub(std::size_t(n), -2), place(std::size_t(n), -1);
  for (const index_t v : P.isolated) {
    ASSERT_EQ(sub[v], -2) << "vertex " << v << " twice";
    sub[v] = -1;
  }
  ASSERT_EQ(P.subgraph_level.size(), std::size_t(P.subgraphs()));
  for (index_t s = 0; s < P.subgraphs(); ++s) {
    const index_t size = P.subgraph_ptr[s + 1] - P.subgraph_ptr[s];
    EXPECT_GT(size, 0) << "empty sub-graph " << s;
    EXPECT_LE(size, P.n_max) << "sub-graph " << s;
    for (index_t t = P.subgraph_ptr[s]; t < P.subgraph_ptr[s + 1]; ++t) {
      const index_t v = P.vertices[t];
      ASSERT_EQ(sub[v], -2) << "vertex " << v << " twice";
      sub[v] = s;
      place[v] = t;
    }
  }
  for (index_t v = 0; v < n; ++v) ASSERT_NE(sub[v], -2) << "vertex " << v << " missing";
  std::vector<index_t> level(std::size_t(P.subgraphs()), 0);
  std::vector<bool> has_edge(std::size_t(n), false);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t j = A.col_idx[p];
      if (!inside(tri, i, j)) continue;
      has_edge[i] = has_edge[j] = true;
      ASSERT_GE(sub[i], 0) << "an isolated vertex has an edge";
      ASSERT_GE(sub[j], 0) << "an isolated vertex has an edge";
      if (sub[i] == sub[j]) {
        EXPECT_LT(place[j], place[i]) << "edge " << j << " -> " << i << " against the order inside its sub-graph";
      } else {
        EXPECT_LT(P.subgraph_level[sub[j]], P.subgraph_level[sub[i]]) << "edge " << j << " -> " << i;
        level[sub[i]] = std::max(level[sub[i]], P.subgraph_level[sub[j]] + 1);
      }
    }
  for (const index_t v : P.isolated) EXPECT_FALSE(has_edge[v]);
  for (index_t s = 0; s < P.subgraphs(); ++s) EXPECT_EQ(P.subgraph_level[s], level[s]) << "level of sub-graph " << s;
  index_t levels = 0;
  for (const index_t l : P.subgraph_level) levels = std::max(levels, l + 1);
  EXPECT_EQ(P.levels, levels);
}

void expect_both_triangles(const Csr<double>& L, index_t n_max) {
  SCOPED_TRACE("n_max " + std::to_string(n_max));
  expect_feasible(L, Triangle::Lower, tassl::partition(L, Triangle::Lower, n_max));
  const Csr<double> U = transpose(L);
  expect_feasible(U, Triangle::Upper, tassl::partition(U, Triangle::Upper, n_max));
}

TEST(TasslPartition, ChainSplitsIntoConsecutivePieces) {
  const Csr<double> L = chain_lower<double>(5000);
  const tassl::Partition P = tassl::partition(L, Triangle::Lower, 100);
  expect_feasible(L, Triangle::Lower, P);
  EXPECT_EQ(P.subgraphs(), 50);
  EXPECT_EQ(P.levels, 50);
  EXPECT_EQ(P.stats.split_components, 1);
  expect_both_triangles(L, 7);
}

TEST(TasslPartition, SmallComponentsAreMerged) {
  // 16 diagonal blocks of 250..1000 rows at 1%: many small components.
  const Csr<double> L = random_block_diagonal_lower<double>(16, 1000, 0.01, 5);
  const tassl::Partition P = tassl::partition(L, Triangle::Lower, 4000);
  expect_feasible(L, Triangle::Lower, P);
  EXPECT_GT(P.stats.components, 1);
  EXPECT_LE(P.stats.merged_groups, P.stats.components);
  EXPECT_EQ(P.stats.split_components, 0);
  EXPECT_EQ(P.levels, 1);  // no edge between sub-graphs
  expect_both_triangles(L, 300);
}

TEST(TasslPartition, GeneratedMatrices) {
  for (const index_t n_max : {1, 64, 1000, 20000}) {
    expect_both_triangles(random_lower_banded<double>(20000, 50, 4, 7), n_max);
    expect_both_triangles(extract_triangle(laplacian_3d<double>(20, 20, 20), Triangle::Lower), n_max);
    expect_both_triangles(star_lower<double>(3000), n_max);
  }
}

TEST(TasslPartition, RealMatrices) {
  const int tested = test::for_each_square_real_matrix<double>([](const Csr<double>& A) {
    const Csr<double> L = extract_triangle(A, Triangle::Lower);
    for (const index_t n_max : {32, 512}) expect_both_triangles(L, n_max);
  });
  EXPECT_GT(tested, 5);
}

TEST(TasslPartition, EverySplitComponentIsAccountedFor) {
  const Csr<double> L = random_lower_banded<double>(20000, 50, 4, 7);
  const tassl::Partition P = tassl::partition(L, Triangle::Lower, 256);
  const auto& st = P.stats;
  EXPECT_EQ(st.split_by_order[0] + st.split_by_order[1] + st.split_by_order[2] + st.fallbacks, st.split_components);
  EXPECT_GE(st.split_attempts, st.split_components - st.fallbacks);
}

// The components come from a concurrent union-find and the split reads the
// wavefronts from the dependency levels: the partition must not depend on the
// number of threads, and the component count must match a plain serial count.
TEST(TasslPartition, SameForAnyThreadCount) {
  const Csr<double> L = random_block_diagonal_lower<double>(64, 700, 0.004, 9);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const tassl::Partition one = tassl::partition(L, Triangle::Lower, 500);
  const graph::ComponentSizes c1 = graph::component_sizes(L.rows, L.row_ptr, L.col_idx, Triangle::Lower);
  omp_set_num_threads(8);
  const tassl::Partition eight = tassl::partition(L, Triangle::Lower, 500);
  const graph::ComponentSizes c8 = graph::component_sizes(L.rows, L.row_ptr, L.col_idx, Triangle::Lower);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.vertices, eight.vertices);
  EXPECT_EQ(one.subgraph_ptr, eight.subgraph_ptr);
  EXPECT_EQ(one.subgraph_level, eight.subgraph_level);
  EXPECT_EQ(one.isolated, eight.isolated);
  EXPECT_EQ(c1.count, c8.count);
  EXPECT_EQ(c1.largest, c8.largest);
  expect_feasible(L, Triangle::Lower, eight);

  // Serial count: label propagation to a fixed point over the undirected edges.
  std::vector<index_t> label(std::size_t(L.rows));
  std::vector<bool> has_edge(std::size_t(L.rows), false);
  for (index_t v = 0; v < L.rows; ++v) label[v] = v;
  for (bool changed = true; changed;) {
    changed = false;
    for (index_t i = 0; i < L.rows; ++i)
      for (index_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
        const index_t j = L.col_idx[p];
        if (j >= i) continue;
        has_edge[i] = has_edge[j] = true;
        const index_t m = std::min(label[i], label[j]);
        if (label[i] != m || label[j] != m) changed = true;
        label[i] = label[j] = m;
      }
  }
  std::vector<index_t> size(std::size_t(L.rows), 0);
  index_t count = 0, largest = 0;
  for (index_t v = 0; v < L.rows; ++v)
    if (has_edge[v]) {
      if (size[label[v]]++ == 0) ++count;
      largest = std::max(largest, size[label[v]]);
    }
  EXPECT_GT(count, 64);  // some blocks fall apart at this density
  EXPECT_EQ(c8.count, count);
  EXPECT_EQ(c8.largest, largest);
  EXPECT_EQ(eight.stats.components, count);
}

TEST(TasslPartition, BadArguments) {
  const Csr<double> L = chain_lower<double>(10);
  EXPECT_THROW_MSG(tassl::partition(L, Triangle::Lower, 0), DimensionError, "n_max");
  const Csr<double> R{2, 3, {0, 1, 2}, {0, 1}, {1.0, 1.0}};
  EXPECT_THROW_MSG(tassl::partition(R, Triangle::Lower, 4), DimensionError, "not square");
}

}  // namespace
}  // namespace balsa
