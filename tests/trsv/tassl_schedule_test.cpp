// TASSL scheduling stage (trsv/tassl/tassl_schedule.*) and its CPU oracle
// (trsv/tassl/tassl_cpu.*): every edge in exactly one slot of its own sub-graph;
// no two edges into one vertex in a slot; an internal edge j -> i after every
// edge into j; external slots as many as the largest external in-degree; and
// the scheduled solve equal to the reference substitution.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"
#include "trsv/tassl/tassl_cpu.hpp"
#include "trsv/tassl/tassl_schedule.hpp"

namespace balsa {
namespace {

void expect_valid_schedule(const Csr<double>& A, Triangle tri, const tassl::Partition& P, const tassl::Schedule& S) {
  const bool lower = tri == Triangle::Lower;
  std::vector<index_t> sub(std::size_t(A.rows), -1);
  for (index_t s = 0; s < P.subgraphs(); ++s)
    for (index_t t = P.subgraph_ptr[s]; t < P.subgraph_ptr[s + 1]; ++t) sub[P.vertices[t]] = s;
  std::set<index_t> expected, seen;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (lower ? A.col_idx[p] < i : A.col_idx[p] > i) expected.insert(p);
  std::vector<index_t> last_into(std::size_t(A.rows), -1);  // last internal slot of an edge into v
  std::size_t ext_total = 0, int_total = 0;
  for (index_t s = 0; s < P.subgraphs(); ++s) {
    const tassl::SubgraphSchedule& g = S.subgraphs[std::size_t(s)];
    // The rules both kinds of slot share; `each` adds the kind's own.
    auto check_slots = [&](const std::vector<index_t>& ptr, const std::vector<tassl::SlotEdge>& edges,
                           const char* kind, auto each) {
      for (index_t q = 0; q + 1 < index_t(ptr.size()); ++q) {
        std::set<index_t> targets;
        for (index_t e = ptr[q]; e < ptr[q + 1]; ++e) {
          const tassl::SlotEdge& x = edges[std::size_t(e)];
          EXPECT_EQ(sub[x.to], s);
          EXPECT_EQ(A.col_idx[A.row_ptr[x.to] + x.value], x.from);
          EXPECT_TRUE(targets.insert(x.to).second) << "two edges into " << x.to << " in " << kind << " slot " << q;
          EXPECT_TRUE(seen.insert(A.row_ptr[x.to] + x.value).second);
          each(x, q);
        }
      }
    };
    std::map<index_t, index_t> ext_degree;
    check_slots(g.ext_ptr, g.ext, "external", [&](const tassl::SlotEdge& x, index_t) {
      EXPECT_NE(sub[x.from], s) << "an internal edge in an external slot";
      ++ext_degree[x.to];
      ++ext_total;
    });
    index_t most = 0;
    for (const auto& [v, k] : ext_degree) most = std::max(most, k);
    EXPECT_EQ(g.ext_slots(), most) << "sub-graph " << s;
    for (index_t q = 0; q < g.int_slots(); ++q)  // slots ascend: the last write wins
      for (index_t e = g.int_ptr[q]; e < g.int_ptr[q + 1]; ++e) last_into[g.internal[std::size_t(e)].to] = q;
    check_slots(g.int_ptr, g.internal, "internal", [&](const tassl::SlotEdge& x, index_t q) {
      EXPECT_EQ(sub[x.from], s) << "an external edge in an internal slot";
      EXPECT_LT(last_into[x.from], q) << "edge " << x.from << " -> " << x.to << " before x_" << x.from << " is final";
      ++int_total;
    });
  }
  EXPECT_EQ(seen, expected) << "every edge exactly once";
  EXPECT_EQ(S.external_edges, ext_total);
  EXPECT_EQ(S.internal_edges, int_total);
}

void expect_solves(const Csr<double>& A, Triangle tri, DiagonalKind diag, index_t n_max) {
  SCOPED_TRACE(std::string(tri == Triangle::Lower ? "Lower" : "Upper") + (diag == DiagonalKind::Unit ? " Unit" : "") +
               ", n_max " + std::to_string(n_max));
  const tassl::Partition P = tassl::partition(A, tri, n_max);
  const tassl::Schedule S = tassl::schedule(A, tri, P);
  expect_valid_schedule(A, tri, P, S);
  const std::vector<double> b = random_vector<double>(A.rows, 3);
  std::vector<double> x = test::poisoned<double>(b.size()), ref(b.size());
  trsv_reference<double>(A, tri, diag, b, ref);
  tassl::solve_scheduled<double>(A, diag, P.subgraph_level, S, b, x);
  EXPECT_TRUE(test::matches(x, ref, 1e-10));
}

void expect_all(const Csr<double>& L) {
  const Csr<double> D = test::with_dominant_diagonal(L);
  const Csr<double> U = transpose(D);
  for (const index_t n_max : {16, 300, 100000}) {
    expect_solves(D, Triangle::Lower, DiagonalKind::NonUnit, n_max);
    expect_solves(U, Triangle::Upper, DiagonalKind::NonUnit, n_max);
  }
}

TEST(TasslSchedule, GeneratedMatrices) {
  expect_all(random_lower_banded<double>(5000, 40, 4, 3));
  expect_all(extract_triangle(laplacian_3d<double>(12, 12, 12), Triangle::Lower));
  expect_all(random_block_diagonal_lower<double>(8, 400, 0.02, 4));
  expect_all(star_lower<double>(2000));
  expect_all(chain_lower<double>(1000));
}

TEST(TasslSchedule, UnitDiagonal) {
  Csr<double> L = random_lower_banded<double>(3000, 30, 3, 9);
  for (index_t i = 0; i < L.rows; ++i)  // keep the unit system well conditioned
    for (index_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p)
      if (L.col_idx[p] != i) L.values[p] *= 0.1;
  expect_solves(L, Triangle::Lower, DiagonalKind::Unit, 100);
}

TEST(TasslSchedule, RealMatrices) {
  const int tested = test::for_each_square_real_matrix<double>(
      [](const Csr<double>& A) { expect_all(extract_triangle(A, Triangle::Lower)); });
  EXPECT_GT(tested, 5);
}

}  // namespace
}  // namespace balsa
