// Pattern updates of triangular solvers (thesis ch. 6): the incremental
// TASSL analysis (trsv/tassl/tassl_update), its layout patches checked by
// emulating the kernel elsewhere (tassl_layout_test), and
// TriangularSolver::replace_columns / update_pattern on the CPU: after every
// update the solve equals a fresh analysis' and the reference, the partition
// stays feasible, and bad input leaves the solver as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "trsv/pattern_update.hpp"
#include "trsv/tassl/tassl_schedule.hpp"
#include "trsv/tassl/tassl_update.hpp"

namespace balsa {
namespace {

// A lower matrix from (row, column) entries plus a diagonal of 4 (-1 off it).
Csr<double> lower_from(index_t n, const std::vector<std::pair<index_t, index_t>>& edges) {
  std::vector<std::vector<index_t>> rows(static_cast<std::size_t>(n));
  for (const auto& [i, j] : edges) rows[std::size_t(i)].push_back(j);
  Csr<double> L;
  L.rows = L.cols = n;
  for (index_t i = 0; i < n; ++i) {
    std::vector<index_t>& r = rows[std::size_t(i)];
    r.push_back(i);
    std::sort(r.begin(), r.end());
    for (const index_t j : r) {
      L.col_idx.push_back(j);
      L.values.push_back(j == i ? 4.0 : -1.0);
    }
    L.row_ptr.push_back(index_t(L.col_idx.size()));
  }
  return L;
}

// Table 6.1, built explicitly on a 10-vertex graph (as the thesis' Fig. 6.4):
// V0 = {3, 4, 5} (no edges); sub-graphs Vp = {0, 8} (level 0), Vq = {1, 6}
// (level 1), Vk = {2, 7} (level 2) with edges 0 -> 1 (p -> q) and 1 -> 2
// (q -> k), and Vs = {9} (level 1, no edges). Each case adds one edge
// jdiff -> i and expects U (a feasible update) or R (a re-partition: the
// edge closes a cycle of sub-graphs).
struct Table61 {
  static constexpr index_t n = 10;
  Csr<double> L = lower_from(n, {{1, 0}, {2, 1}});
  tassl::Partition P = [] {
    tassl::Partition p;
    p.n = n;
    p.n_max = 4;
    p.isolated = {3, 4, 5};
    p.vertices = {0, 8, 1, 6, 2, 7, 9};
    p.subgraph_ptr = {0, 2, 4, 6, 7};
    p.subgraph_level = {0, 1, 2, 1};  // Vp, Vq, Vk, Vs (Vs = {9}: level 1, no edges)
    p.levels = 3;
    return p;
  }();
  // Adds j -> i; true if the update stayed feasible (then checked).
  bool add(index_t j, index_t i, std::string& reason) const {
    std::vector<std::pair<index_t, index_t>> edges = {{1, 0}, {2, 1}, {i, j}};
    const Csr<double> L2 = lower_from(n, edges);
    tassl::Incremental inc(P, tassl::schedule(L, Triangle::Lower, P), Triangle::Lower, L.row_ptr);
    inc.check(L.row_ptr, L.col_idx);
    tassl::PatternChange change;
    change.added = {{i, j}};
    change.rows = {i};
    const tassl::UpdateResult r = inc.apply(L2.row_ptr, L2.col_idx, change, 1 << 30);
    reason = r.reason;
    if (r.feasible) inc.check(L2.row_ptr, L2.col_idx);
    return r.feasible;
  }
};

TEST(TasslUpdate, EveryCaseOfTable61) {
  const Table61 t;
  // Representatives: V0 {3, 4, 5}, Vp {0, 8}, Vq {1, 6}, Vk {2, 7}; an edge j -> i needs j < i.
  struct Case {
    const char* what;
    index_t j, i;
    bool update;
  };
  const Case cases[] = {
      {"V0 -> V0", 3, 4, true},   {"V0 -> Vp", 3, 8, true},   {"V0 -> Vq", 4, 6, true},
      {"V0 -> Vk", 5, 7, true},   {"Vp -> V0", 0, 3, true},   {"Vq -> V0", 1, 4, true},
      {"Vk -> V0", 2, 5, true},   {"Vp -> Vp", 0, 8, true},   {"Vq -> Vq", 1, 6, true},
      {"Vk -> Vk", 2, 7, true},   {"Vp -> Vq", 0, 6, true},   {"Vp -> Vk", 0, 7, true},
      {"Vq -> Vk", 1, 7, true},   {"Vq -> Vp (R)", 1, 8, false}, {"Vk -> Vp (R)", 2, 8, false},
      {"Vk -> Vq (R)", 2, 6, false},
      // Beyond the thesis' index rule: Vq -> Vs with Vs at Vq's level and no
      // path back: feasible by raising Vs's level.
      {"Vq -> Vs (same level, no path back)", 6, 9, true},
  };
  for (const Case& c : cases) {
    std::string reason;
    EXPECT_EQ(t.add(c.j, c.i, reason), c.update) << c.what << ": " << reason;
    if (!c.update) {
      EXPECT_NE(reason.find("cycle"), std::string::npos) << c.what << ": " << reason;
    }
  }
}

TEST(TasslUpdate, FullSubgraphsGetNewOnesAndLevelsRise) {
  // n_max 2: a chain 0 -> 1 -> 2 -> 3 is two sub-graphs; vertices of V0
  // joining it find no room and get new sub-graphs.
  const Csr<double> L = lower_from(8, {{1, 0}, {2, 1}, {3, 2}});
  const tassl::Partition P = tassl::partition(L, Triangle::Lower, 2);
  tassl::Incremental inc(P, tassl::schedule(L, Triangle::Lower, P), Triangle::Lower, L.row_ptr);
  const index_t before = inc.subgraphs();
  const Csr<double> L2 = lower_from(8, {{1, 0}, {2, 1}, {3, 2}, {5, 3}, {6, 5}, {7, 4}});
  const tassl::PatternChange change = trsv_update::pattern_difference(L, L2, Triangle::Lower);
  const tassl::UpdateResult r = inc.apply(L2.row_ptr, L2.col_idx, change, 1 << 30);
  ASSERT_TRUE(r.feasible) << r.reason;
  inc.check(L2.row_ptr, L2.col_idx);
  EXPECT_GT(inc.subgraphs(), before);
  EXPECT_EQ(r.created, inc.subgraphs() - before);
  EXPECT_EQ(r.left_isolated.size(), 4u);  // 4, 5, 6, 7
  EXPECT_EQ(inc.isolated(), 0);
  EXPECT_GE(inc.levels(), 3);
}

TEST(TasslUpdate, GivesUpOverTheEdgeBudgetAndTheLevelLimit) {
  const Csr<double> L = random_lower_banded<double>(600, 30, 3, 2);
  const tassl::Partition P = tassl::partition(L, Triangle::Lower, 50);
  const ColumnReplacement<double> c = random_column_replacement(L, Triangle::Lower, 4, 9);
  const Csr<double> L2 = with_columns_replaced(L, c);
  const tassl::PatternChange change = trsv_update::pattern_difference(L, L2, Triangle::Lower);
  {
    tassl::Incremental inc(P, tassl::schedule(L, Triangle::Lower, P), Triangle::Lower, L.row_ptr);
    const tassl::UpdateResult r = inc.apply(L2.row_ptr, L2.col_idx, change, 3);
    EXPECT_FALSE(r.feasible);
    EXPECT_NE(r.reason.find("budget"), std::string::npos) << r.reason;
  }
  tassl::Incremental inc(P, tassl::schedule(L, Triangle::Lower, P), Triangle::Lower, L.row_ptr);
  const tassl::UpdateResult r = inc.apply(L2.row_ptr, L2.col_idx, change, 1 << 30);
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_GT(r.scheduled_edges, 0);
  inc.check(L2.row_ptr, L2.col_idx);
}

// The thesis' sequences on the incremental analysis alone: 30 updates of 1
// to 5 columns, feasible and equal in slots to a fresh schedule of the same
// partition after each (the touched sub-graphs are scheduled in full).
TEST(TasslUpdate, RandomSequencesStayFeasible) {
  for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
    Csr<double> L = random_block_diagonal_lower<double>(6, 120, 0.03, 5);
    if (tri == Triangle::Upper) L = transpose(L);
    const tassl::Partition P = tassl::partition(L, tri, 40);
    tassl::Incremental inc(P, tassl::schedule(L, tri, P), tri, L.row_ptr);
    for (int step = 0; step < 30; ++step) {
      SCOPED_TRACE("step " + std::to_string(step) + (tri == Triangle::Lower ? " lower" : " upper"));
      const ColumnReplacement<double> c = random_column_replacement(L, tri, 1 + step % 5, 100 + step);
      const Csr<double> L2 = with_columns_replaced(L, c);
      const tassl::PatternChange change = trsv_update::pattern_difference(L, L2, tri);
      const tassl::UpdateResult r = inc.apply(L2.row_ptr, L2.col_idx, change, 1 << 30);
      if (!r.feasible) {  // a cycle: the solver would re-partition; so do we
        EXPECT_NE(r.reason.find("cycle"), std::string::npos) << r.reason;
        const tassl::Partition Q = tassl::partition(L2, tri, 40);
        inc = tassl::Incremental(Q, tassl::schedule(L2, tri, Q), tri, L2.row_ptr);
      }
      EXPECT_NO_THROW(inc.check(L2.row_ptr, L2.col_idx));
      // Exact: every sub-graph's slots are a fresh schedule's of the same partition.
      std::vector<index_t> finish(std::size_t(L2.rows), -1);
      for (index_t s = 0; s < inc.subgraphs(); ++s) {
        const tassl::SubgraphSchedule fresh =
            tassl::schedule_subgraph(L2.row_ptr, L2.col_idx, tri, inc.members[std::size_t(s)], s, inc.sub_of, finish);
        const tassl::SubgraphSchedule& mine = inc.schedule.subgraphs[std::size_t(s)];
        ASSERT_EQ(mine.int_ptr, fresh.int_ptr) << "sub-graph " << s;
        ASSERT_EQ(mine.ext_ptr, fresh.ext_ptr) << "sub-graph " << s;
        for (index_t q = 0; q < fresh.int_slots(); ++q) {
          auto key = [](const tassl::SlotEdge& e) { return std::tuple(e.to, e.from, e.value); };
          std::vector<std::tuple<index_t, index_t, index_t>> a, b;
          for (index_t e = fresh.int_ptr[q]; e < fresh.int_ptr[q + 1]; ++e) {
            a.push_back(key(mine.internal[std::size_t(e)]));
            b.push_back(key(fresh.internal[std::size_t(e)]));
          }
          std::sort(a.begin(), a.end());
          std::sort(b.begin(), b.end());
          ASSERT_EQ(a, b) << "sub-graph " << s << ", slot " << q;
        }
      }
      L = L2;
    }
  }
}

// The solver's new matrix agrees with the generator's independent one, and
// the change lists exactly the rows and edges that differ.
TEST(TasslUpdate, NewMatrixAndChangeMatchAnIndependentBuild) {
  const Csr<double> L = random_lower_banded<double>(300, 20, 4, 6);
  const ColumnReplacement<double> c = random_column_replacement(L, Triangle::Lower, 7, 3);
  const trsv_update::NewColumns<double> nc{c.columns, c.col_ptr, c.row_idx, c.values};
  tassl::PatternChange change;
  const Csr<double> mine = trsv_update::with_columns_replaced(L, Triangle::Lower, nc, change);
  const Csr<double> theirs = with_columns_replaced(L, c);
  EXPECT_EQ(mine.row_ptr, theirs.row_ptr);
  EXPECT_EQ(mine.col_idx, theirs.col_idx);
  EXPECT_EQ(mine.values, theirs.values);
  const tassl::PatternChange diff = trsv_update::pattern_difference(L, theirs, Triangle::Lower);
  auto sorted = [](std::vector<tassl::Edge> e) {
    std::sort(e.begin(), e.end(), [](auto a, auto b) { return std::pair(a.child, a.parent) < std::pair(b.child, b.parent); });
    return e;
  };
  auto same = [&](const std::vector<tassl::Edge>& a, const std::vector<tassl::Edge>& b) {
    const auto x = sorted(a), y = sorted(b);
    return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                      [](auto p, auto q) { return p.child == q.child && p.parent == q.parent; });
  };
  EXPECT_TRUE(same(change.added, diff.added));
  EXPECT_TRUE(same(change.removed, diff.removed));
  EXPECT_TRUE(std::includes(change.rows.begin(), change.rows.end(), diff.rows.begin(), diff.rows.end()));
}

// ---- TriangularSolver::replace_columns on the CPU ----

template <class T>
class TrsvUpdateCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrsvUpdateCpu, ValueTypes);

// The user's A for a lower base matrix: itself or its transpose (upper),
// with a unit diagonal variant (off-diagonals scaled down).
template <class T>
Csr<T> oriented(const Csr<T>& L, Triangle tri) {
  return tri == Triangle::Lower ? L : transpose(L);
}

TYPED_TEST(TrsvUpdateCpu, SequencesMatchAFreshAnalysis) {
  using T = TypeParam;
  const double tol = std::is_same_v<T, float> ? 2e-4 : 1e-11;
  const Csr<T> base = random_block_diagonal_lower<T>(5, 150, 0.03, 7);
  for (const TrsvAlgorithm alg : {TrsvAlgorithm::Tassl, TrsvAlgorithm::LevelSet, TrsvAlgorithm::Auto})
    for (const Triangle tri : {Triangle::Lower, Triangle::Upper})
      for (const Operation op : {Operation::NonTranspose, Operation::Transpose})
        for (const DiagonalKind diag : {DiagonalKind::NonUnit, DiagonalKind::Unit}) {
          const std::string what = std::string(to_string(alg)) + (tri == Triangle::Lower ? " lower" : " upper") +
                                   (op == Operation::Transpose ? " A^T" : " A") +
                                   (diag == DiagonalKind::Unit ? " unit" : "");
          SCOPED_TRACE(what);
          const TrsvOptions o{.algorithm = alg, .device = Device::Cpu, .triangle = tri, .diagonal = diag,
                              .operation = op, .tassl_n_max = 48};
          Csr<T> A = oriented(base, tri);
          TriangularSolver<T> solver(A, o);
          const std::vector<T> b = random_vector<T>(A.rows, 11);
          for (int step = 0; step < 8; ++step) {
            const ColumnReplacement<T> c = random_column_replacement(A, tri, 1 + step % 3, 40 + step);
            solver.replace_columns(c.columns, c.col_ptr, c.row_idx, c.values);
            A = with_columns_replaced(A, c);
            std::vector<T> x = test::poisoned<T>(b.size()), fresh = test::poisoned<T>(b.size()), ref(b.size());
            solver.solve(b, x);
            TriangularSolver<T>(A, o).solve(b, fresh);
            const Csr<T> M = op == Operation::Transpose ? transpose(A) : A;
            const Triangle mt = op == Operation::Transpose ? (tri == Triangle::Lower ? Triangle::Upper : Triangle::Lower) : tri;
            trsv_reference<T>(M, mt, diag, b, ref);
            EXPECT_TRUE(test::matches(x, ref, tol)) << "step " << step;
            EXPECT_TRUE(test::matches(x, fresh, tol)) << "step " << step;
          }
          const TrsvUpdateStats& u = solver.stats().updates;
          EXPECT_EQ(u.updates, 8);
          EXPECT_EQ(u.incremental + u.reanalyses, 8);
          if (solver.stats().algorithm == TrsvAlgorithm::Tassl) {
            EXPECT_GT(u.incremental, 0);
          } else {
            EXPECT_EQ(u.reanalyses, 8);
            EXPECT_NE(u.last_reason.find("no incremental analysis"), std::string::npos) << u.last_reason;
          }
          EXPECT_EQ(solver.stats().nnz, A.nnz());
        }
}

TYPED_TEST(TrsvUpdateCpu, UpdatePatternFindsTheColumnsAndTakesTheValues) {
  using T = TypeParam;
  const double tol = std::is_same_v<T, float> ? 2e-4 : 1e-11;
  Csr<T> L = random_lower_banded<T>(400, 25, 3, 8);
  TriangularSolver<T> solver(L, {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cpu, .tassl_n_max = 64});
  const std::vector<T> b = random_vector<T>(L.rows, 12);
  for (int step = 0; step < 4; ++step) {
    Csr<T> next = with_columns_replaced(L, random_column_replacement(L, Triangle::Lower, 2, 70 + step));
    for (T& v : next.values) v *= T(1.5);  // every value changes too
    solver.update_pattern(next);
    L = next;
    std::vector<T> x = test::poisoned<T>(b.size()), ref(b.size());
    solver.solve(b, x);
    trsv_reference<T>(L, Triangle::Lower, DiagonalKind::NonUnit, b, ref);
    EXPECT_TRUE(test::matches(x, ref, tol)) << "step " << step;
  }
  EXPECT_EQ(solver.stats().updates.updates, 4);
  solver.update_pattern(L);  // the same pattern: values only, no update counted
  EXPECT_EQ(solver.stats().updates.updates, 4);
}

TEST(TrsvUpdate, RepartitionEveryAndLevelGrowthRules) {
  Csr<double> L = random_block_diagonal_lower<double>(4, 200, 0.02, 3);
  TriangularSolver<double> every(L, {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cpu, .tassl_n_max = 64,
                                     .tassl_repartition_every = 3});
  for (int step = 0; step < 6; ++step) {
    const ColumnReplacement<double> c = random_column_replacement(L, Triangle::Lower, 1, 200 + step);
    every.replace_columns(c.columns, c.col_ptr, c.row_idx, c.values);
    L = with_columns_replaced(L, c);
  }
  EXPECT_EQ(every.stats().updates.reanalyses, 2);  // the 3rd and 6th
  EXPECT_EQ(every.stats().updates.incremental, 4);
  EXPECT_NE(every.stats().updates.last_reason.find("tassl_repartition_every"), std::string::npos);
}

TEST(TrsvUpdate, BadInputLeavesTheSolverIntact) {
  const Csr<double> L = random_lower_banded<double>(50, 6, 2, 4);
  TriangularSolver<double> solver(L, {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cpu, .tassl_n_max = 16});
  const std::vector<double> b = random_vector<double>(50, 3);
  std::vector<double> before(50), after(50);
  solver.solve(b, before);
  using V = std::vector<index_t>;
  using D = std::vector<double>;
  struct Bad {
    const char* what;
    V columns, col_ptr, rows;
    D values;
    const char* message;
  };
  const double nan = std::nan("");
  const Bad bad[] = {
      {"column out of range", {50}, {0, 1}, {49}, {1.0}, "out of range"},
      {"negative column", {-1}, {0, 1}, {3}, {1.0}, "out of range"},
      {"column twice", {3, 3}, {0, 1, 2}, {3, 3}, {1.0, 1.0}, "given twice"},
      {"above the diagonal", {10}, {0, 2}, {5, 10}, {1.0, 2.0}, "row 5, column 10 is above the diagonal"},
      {"missing diagonal", {10}, {0, 1}, {12}, {1.0}, "no diagonal"},
      {"zero diagonal", {10}, {0, 2}, {10, 12}, {0.0, 1.0}, "zero diagonal at row 10, column 10"},
      {"NaN", {10}, {0, 2}, {10, 12}, {2.0, nan}, "NaN or Inf at row 12, column 10"},
      {"Inf diagonal", {10}, {0, 1}, {10}, {INFINITY}, "NaN or Inf"},
      {"rows not sorted", {10}, {0, 3}, {10, 14, 12}, {2.0, 1.0, 1.0}, "strictly increasing"},
      {"duplicate row", {10}, {0, 3}, {10, 12, 12}, {2.0, 1.0, 1.0}, "strictly increasing"},
      {"row out of range", {10}, {0, 2}, {10, 50}, {2.0, 1.0}, "out of range"},
      {"col_ptr size", {10}, {0}, {10}, {2.0}, "col_ptr"},
      {"values size", {10}, {0, 1}, {10}, {}, "values"},
  };
  for (const Bad& c : bad) {
    try {
      solver.replace_columns(c.columns, c.col_ptr, c.rows, c.values);
      ADD_FAILURE() << c.what << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << c.what << ": " << e.what();
    }
    solver.solve(b, after);
    EXPECT_EQ(before, after) << c.what;
  }
  EXPECT_EQ(solver.stats().updates.updates, 0);
  // update_pattern: another size, a non-triangular matrix.
  EXPECT_THROW(solver.update_pattern(random_lower_banded<double>(49, 6, 2, 4)), DimensionError);
  EXPECT_THROW(solver.update_pattern(transpose(L)), MatrixError);
  solver.solve(b, after);
  EXPECT_EQ(before, after);
}

}  // namespace
}  // namespace balsa
