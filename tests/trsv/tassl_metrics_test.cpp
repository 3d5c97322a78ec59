// TASSL metrics and the thesis' performance model (trsv/tassl/tassl_metrics.*):
// every metric of tiny graphs (chains, stars, two chains, block-diagonal)
// against values worked out by hand, the model's predictions for given
// parameters, and the identity t = (1 - C) tau n_edges of (3.13)/(3.30) on
// the real matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "balsa/graph.hpp"
#include "support/test_support.hpp"
#include "trsv/tassl/tassl_metrics.hpp"

namespace balsa {
namespace {

using Edges = std::vector<std::pair<index_t, index_t>>;  // (from j, to i): the entry l_ij

// Diagonal 2 and -1 for every edge; `tri` only says which side the edges are on.
Csr<double> graph_matrix(index_t n, const Edges& edges) {
  Coo<double> c;
  c.rows = c.cols = n;
  for (index_t i = 0; i < n; ++i) {
    c.row_idx.push_back(i);
    c.col_idx.push_back(i);
    c.values.push_back(2.0);
  }
  for (const auto& [j, i] : edges) {
    c.row_idx.push_back(i);
    c.col_idx.push_back(j);
    c.values.push_back(-1.0);
  }
  return to_csr(c);
}

struct Analysed {
  tassl::Partition P;
  tassl::Schedule S;
  tassl::Layout layout;
  tassl::Metrics m;
};

Analysed analyse(const Csr<double>& A, index_t n_max, Triangle tri = Triangle::Lower) {
  Analysed a;
  a.P = tassl::partition(A, tri, n_max);
  a.S = tassl::schedule(A, tri, a.P);
  a.layout = tassl::lay_out(a.P, a.S);
  a.m = tassl::metrics(A, tri, level_sets(A, tri), a.P, a.S, &a.layout);
  return a;
}

// Ratios are formed as the code forms them, so equal means exactly equal.
double ratio(double a, double b) { return a / b; }

void expect_level_set(const tassl::LevelSetMetrics& m, index_t n_levels, std::int64_t sum_o, index_t widest, double C,
                      double W) {
  EXPECT_EQ(m.n_levels, n_levels);
  EXPECT_EQ(m.sum_o, sum_o);
  EXPECT_EQ(m.widest, widest);
  EXPECT_DOUBLE_EQ(m.C, C);
  EXPECT_DOUBLE_EQ(m.W, W);
}

struct Range {
  std::int64_t min, max;
  double median;
};
struct TasslExpect {
  index_t n_levels, kernels, subgraphs, isolated;
  std::int64_t internal, external, critical, total, widest;
  Range slots, internal_slots, external_slots;
  double C, W;
};

void expect_range(const tassl::SlotRange& r, const Range& e, const char* what) {
  EXPECT_EQ(r.min, e.min) << what;
  EXPECT_EQ(r.max, e.max) << what;
  EXPECT_DOUBLE_EQ(r.median, e.median) << what;
}

void expect_tassl(const tassl::TasslMetrics& m, const TasslExpect& e) {
  EXPECT_EQ(m.n_levels, e.n_levels);
  EXPECT_EQ(m.kernels, e.kernels);
  EXPECT_EQ(m.subgraphs, e.subgraphs);
  EXPECT_EQ(m.isolated, e.isolated);
  EXPECT_EQ(m.internal_edges, e.internal);
  EXPECT_EQ(m.external_edges, e.external);
  EXPECT_EQ(m.critical_slots, e.critical);
  EXPECT_EQ(m.total_slots, e.total);
  EXPECT_EQ(m.widest, e.widest);
  expect_range(m.slots, e.slots, "slots");
  expect_range(m.internal_slots, e.internal_slots, "internal slots");
  expect_range(m.external_slots, e.external_slots, "external slots");
  EXPECT_DOUBLE_EQ(m.C, e.C);
  EXPECT_DOUBLE_EQ(m.W, e.W);
}

// (level, n, internal slots, external slots, widest slot) per sub-graph.
void expect_subgraphs(const tassl::TasslMetrics& m, const std::vector<std::vector<std::int64_t>>& e) {
  ASSERT_EQ(m.per_subgraph.size(), e.size());
  for (std::size_t g = 0; g < e.size(); ++g) {
    const tassl::SubgraphCounts& c = m.per_subgraph[g];
    EXPECT_EQ((std::vector<std::int64_t>{c.level, c.n, c.slots, c.ext_slots, c.widest_slot}), e[g]) << "sub-graph " << g;
  }
}

// (launch, n, width, threads, rounds, lane_ext) per block of the layout.
void expect_blocks(const tassl::TasslMetrics& m, const std::vector<std::vector<std::int64_t>>& e) {
  ASSERT_TRUE(m.has_layout);
  ASSERT_EQ(m.per_block.size(), e.size());
  for (std::size_t b = 0; b < e.size(); ++b) {
    const tassl::BlockCounts& c = m.per_block[b];
    EXPECT_EQ((std::vector<std::int64_t>{c.launch, c.n, c.width, c.threads, c.rounds, c.lane_ext}), e[b]) << "block " << b;
  }
}

struct PredictionExpect {
  double compute, sync, transfer;
  std::int64_t steps, kernels, global_barriers, local_barriers;
  double C, eta, sigma, lambda, tau;
};

void expect_prediction(const tassl::Prediction& p, const PredictionExpect& e) {
  EXPECT_DOUBLE_EQ(p.compute, e.compute);
  EXPECT_DOUBLE_EQ(p.sync, e.sync);
  EXPECT_DOUBLE_EQ(p.transfer, e.transfer);
  EXPECT_DOUBLE_EQ(p.total(), e.compute + e.sync + e.transfer);
  EXPECT_EQ(p.steps, e.steps);
  EXPECT_EQ(p.kernels, e.kernels);
  EXPECT_EQ(p.global_barriers, e.global_barriers);
  EXPECT_EQ(p.local_barriers, e.local_barriers);
  EXPECT_DOUBLE_EQ(p.C, e.C);
  EXPECT_DOUBLE_EQ(p.eta, e.eta);
  EXPECT_DOUBLE_EQ(p.sigma, e.sigma);
  EXPECT_DOUBLE_EQ(p.lambda, e.lambda);
  EXPECT_DOUBLE_EQ(p.tau, e.tau);
}

// Round numbers (binary fractions) so that every sum below is exact.
tassl::MachineParams params() {
  tassl::MachineParams p;
  p.kappa = 10;
  p.sigma_global = 3;
  p.sigma_local = 0.5;
  p.beta = 0.25;
  p.iota = 1;
  return p;
}
const tassl::Efficiency kEta{0.5, 1.0, 0.25};  // level-set, internal, external

const Edges kChain5{{0, 1}, {1, 2}, {2, 3}, {3, 4}};

TEST(TasslMetrics, ChainInOneSubgraph) {
  const Analysed a = analyse(graph_matrix(5, kChain5), 8);
  EXPECT_EQ(a.m.n, 5);
  EXPECT_EQ(a.m.n_edges, 4);
  expect_level_set(a.m.level_set, 5, 4, 1, 0.0, 0.25);
  expect_tassl(a.m.tassl, {1, 1, 1, 0, 4, 0, 4, 4, 1, {4, 4, 4}, {4, 4, 4}, {0, 0, 0}, 0.0, 0.25});
  expect_subgraphs(a.m.tassl, {{0, 5, 4, 0, 1}});
  expect_blocks(a.m.tassl, {{0, 5, 32, 512, 4, 0}});
  EXPECT_EQ(a.m.tassl.launches, 1);
  EXPECT_EQ(a.m.tassl.rounds, 4);
  EXPECT_EQ(a.m.tassl.critical_barriers, 7);
}

TEST(TasslMetrics, ChainSplitIntoThreeSubgraphLevels) {
  const Analysed a = analyse(graph_matrix(5, kChain5), 2);
  // The split (thesis Alg. 4.2): {0,1} {2,3} {4}, one per sub-graph level.
  ASSERT_EQ(a.P.vertices, (std::vector<index_t>{0, 1, 2, 3, 4}));
  ASSERT_EQ(a.P.subgraph_ptr, (std::vector<index_t>{0, 2, 4, 5}));
  expect_level_set(a.m.level_set, 5, 4, 1, 0.0, 0.25);
  expect_tassl(a.m.tassl, {3, 3, 3, 0, 2, 2, 4, 4, 1, {1, 2, 1}, {0, 1, 1}, {0, 1, 1}, 0.0, 0.25});
  expect_subgraphs(a.m.tassl, {{0, 2, 1, 0, 1}, {1, 2, 1, 1, 1}, {2, 1, 0, 1, 1}});
  expect_blocks(a.m.tassl, {{0, 2, 32, 512, 1, 0}, {1, 2, 32, 512, 1, 1}, {2, 1, 32, 512, 0, 1}});
  EXPECT_EQ(a.m.tassl.launches, 3);
  EXPECT_EQ(a.m.tassl.rounds, 2);
  EXPECT_EQ(a.m.tassl.critical_barriers, 11);

  // (3.6): 4 operations at eta 1/2; a kernel per level, or one and 4 global barriers.
  expect_prediction(tassl::predict_level_set(a.m, params(), kEta),
                    {8, 50, 0, 4, 5, 0, 0, 0.0, 0.5, 6.25, 0.0, 2.0 * 7.25});
  expect_prediction(tassl::predict_level_set(a.m, params(), kEta, {.one_launch = true}),
                    {8, 22, 0, 4, 1, 4, 0, 0.0, 0.5, 2.75, 0.0, 2.0 * 3.75});
  // (3.22): sub-graph levels cost (1 + 0.5 + 0.5), (1 + 4 + 1 + 0.5), (4 + 0.5 + 0.25), plus 3 kappa.
  const tassl::Prediction t = tassl::predict_tassl(a.m, params(), kEta);
  expect_prediction(t, {10, 32, 1.25, 4, 3, 0, 4, 0.0, 0.4, 3.2, 0.125, 2.5 * 4.325});
  EXPECT_DOUBLE_EQ(t.total(), 43.25);
  EXPECT_DOUBLE_EQ((1.0 - t.C) * t.tau * double(a.m.n_edges), t.total());  // (3.30)
  expect_prediction(tassl::predict_tassl(a.m, params(), kEta, {.one_launch = true}),
                    {10, 18, 1.25, 4, 1, 2, 4, 0.0, 0.4, 1.8, 0.125, 2.5 * 2.925});
  // The layout: 3 more block barriers per block (11 on the critical path).
  expect_prediction(tassl::predict_layout(a.m, params(), kEta),
                    {10, 35.5, 1.25, 4, 3, 0, 11, 0.0, 0.4, 3.55, 0.125, 2.5 * 4.675});
}

TEST(TasslMetrics, UpperChainEqualsLowerChain) {
  Edges up;  // i depends on i + 1
  for (index_t i = 0; i < 4; ++i) up.push_back({i + 1, i});
  const Analysed a = analyse(graph_matrix(5, up), 8, Triangle::Upper);
  EXPECT_EQ(a.m.n_edges, 4);
  expect_level_set(a.m.level_set, 5, 4, 1, 0.0, 0.25);
  expect_tassl(a.m.tassl, {1, 1, 1, 0, 4, 0, 4, 4, 1, {4, 4, 4}, {4, 4, 4}, {0, 0, 0}, 0.0, 0.25});
  // The lower triangle of the same matrix has no edges: all of it is V0.
  const Analysed low = analyse(graph_matrix(5, up), 8, Triangle::Lower);
  EXPECT_EQ(low.m.n_edges, 0);
  expect_level_set(low.m.level_set, 1, 0, 5, 1.0, 0.0);
  expect_tassl(low.m.tassl, {0, 1, 0, 5, 0, 0, 0, 0, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1.0, 0.0});
  const tassl::Prediction p = tassl::predict_tassl(low.m, params(), kEta);
  EXPECT_DOUBLE_EQ(p.total(), 10.0);  // one kernel for V0
  EXPECT_TRUE(std::isinf(p.sigma));
}

TEST(TasslMetrics, OutStarAndInStar) {
  const Analysed out = analyse(graph_matrix(5, {{0, 1}, {0, 2}, {0, 3}, {0, 4}}), 8);
  expect_level_set(out.m.level_set, 2, 1, 4, 0.75, 1.0);
  expect_tassl(out.m.tassl, {1, 1, 1, 0, 4, 0, 1, 1, 4, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 0.75, 1.0});
  // Split: {0,1}, then {2,3} and {4} at level 1; 2 and 3 each read x_0 on their own lane.
  const Analysed out_split = analyse(graph_matrix(5, {{0, 1}, {0, 2}, {0, 3}, {0, 4}}), 2);
  ASSERT_EQ(out_split.P.subgraph_ptr, (std::vector<index_t>{0, 2, 4, 5}));
  expect_tassl(out_split.m.tassl, {2, 2, 3, 0, 1, 3, 2, 3, 3, {1, 1, 1}, {0, 1, 0}, {0, 1, 1}, 0.5, 0.75});
  expect_subgraphs(out_split.m.tassl, {{0, 2, 1, 0, 1}, {1, 2, 0, 1, 2}, {1, 1, 0, 1, 1}});
  expect_blocks(out_split.m.tassl, {{0, 2, 32, 512, 1, 0}, {1, 2, 32, 512, 0, 1}, {1, 1, 32, 512, 0, 1}});

  const Edges in_star{{0, 4}, {1, 4}, {2, 4}, {3, 4}};
  const Analysed in = analyse(graph_matrix(5, in_star), 8);
  expect_level_set(in.m.level_set, 2, 4, 4, 0.0, 1.0);
  expect_tassl(in.m.tassl, {1, 1, 1, 0, 4, 0, 4, 4, 1, {4, 4, 4}, {4, 4, 4}, {0, 0, 0}, 0.0, 0.25});

  // Split: roots round-robin {0,3} {1} {2}, then 4 joins {2}; 4 has three external in-edges.
  const Analysed split = analyse(graph_matrix(5, in_star), 2);
  ASSERT_EQ(split.P.vertices, (std::vector<index_t>{0, 3, 1, 2, 4}));
  expect_tassl(split.m.tassl, {2, 2, 3, 0, 1, 3, 4, 4, 1, {0, 4, 0}, {0, 1, 0}, {0, 3, 0}, 0.0, 0.25});
  expect_subgraphs(split.m.tassl, {{0, 2, 0, 0, 0}, {0, 1, 0, 0, 0}, {1, 2, 1, 3, 1}});
  expect_blocks(split.m.tassl, {{0, 2, 32, 512, 0, 0}, {0, 1, 32, 512, 0, 0}, {1, 2, 32, 512, 1, 3}});
  EXPECT_EQ(split.m.tassl.critical_barriers, 7);
  // (3.22): level 0 costs beta 2 + 0 barriers (the larger empty sub-graph); level 1
  // 3/0.25 + 1 operations, 4 barriers, beta 2.
  expect_prediction(tassl::predict_tassl(split.m, params(), kEta),
                    {13, 22, 1.0, 4, 2, 0, 4, 0.0, ratio(4, 13), ratio(22, 13), ratio(1, 13),
                     ratio(1, ratio(4, 13)) * (1 + ratio(22, 13) + ratio(1, 13))});
  // The layout: 3 block barriers per block, and the rounds'.
  expect_prediction(tassl::predict_layout(split.m, params(), kEta),
                    {13, 23.5, 1.0, 4, 2, 0, 7, 0.0, ratio(4, 13), ratio(23.5, 13), ratio(1, 13),
                     ratio(1, ratio(4, 13)) * (1 + ratio(23.5, 13) + ratio(1, 13))});
}

TEST(TasslMetrics, TwoIndependentChains) {
  const Csr<double> A = graph_matrix(6, {{0, 1}, {1, 2}, {3, 4}, {4, 5}});
  const Analysed two = analyse(A, 3);  // one sub-graph per chain, both at level 0
  expect_level_set(two.m.level_set, 3, 2, 2, 0.5, 0.5);
  expect_tassl(two.m.tassl, {1, 1, 2, 0, 4, 0, 2, 4, 2, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, 0.5, 0.5});
  const Analysed one = analyse(A, 6);  // both chains in one sub-graph: slots of two edges
  expect_tassl(one.m.tassl, {1, 1, 1, 0, 4, 0, 2, 2, 2, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, 0.5, 0.5});
  expect_subgraphs(one.m.tassl, {{0, 6, 2, 0, 2}});
  // Level-set: 2 operations, 3 kernels. TASSL: 2 slots + 6 values + 1 kernel.
  expect_prediction(tassl::predict_level_set(two.m, params(), kEta),
                    {4, 30, 0, 2, 3, 0, 0, 0.5, 0.5, 7.5, 0.0, 2.0 * 8.5});
  expect_prediction(tassl::predict_tassl(one.m, params(), kEta),
                    {2, 11, 1.5, 2, 1, 0, 2, 0.5, 1.0, 5.5, 0.75, 7.25});
}

TEST(TasslMetrics, BlockDiagonalWithIsolatedVertex) {
  // Two dense lower 3 x 3 blocks and vertex 6 alone (V0).
  const Analysed a = analyse(graph_matrix(7, {{0, 1}, {0, 2}, {1, 2}, {3, 4}, {3, 5}, {4, 5}}), 3);
  EXPECT_EQ(a.m.n_edges, 6);
  expect_level_set(a.m.level_set, 3, 3, 3, 0.5, 0.5);  // o_k = 0, 1, 2; |V_0| = 3 counts vertex 6
  expect_tassl(a.m.tassl,
               {1, 1, 2, 1, 6, 0, 2, 4, 4, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, 1.0 - ratio(2, 6), ratio(4, 6)});
  expect_subgraphs(a.m.tassl, {{0, 3, 2, 0, 2}, {0, 3, 2, 0, 2}});
  expect_blocks(a.m.tassl, {{0, 3, 32, 512, 2, 0}, {0, 3, 32, 512, 2, 0}, {0, 1, 32, 512, 0, 0}});  // V0's last
  EXPECT_EQ(a.m.tassl.rounds, 4);
  EXPECT_EQ(a.m.tassl.critical_barriers, 5);
  expect_prediction(tassl::predict_tassl(a.m, params(), kEta),
                    {2, 11, 0.75, 2, 1, 0, 2, 1.0 - ratio(2, 6), 1.0, 5.5, 0.375, 6.875});
}

TEST(TasslMetrics, SlowestSubgraphIsNotTheOneWithMostSlots) {
  // A chain of 3 (two slots) and a star of 6 (one slot) side by side at level 0.
  const Analysed a = analyse(graph_matrix(9, {{0, 1}, {1, 2}, {3, 4}, {3, 5}, {3, 6}, {3, 7}, {3, 8}}), 6);
  expect_subgraphs(a.m.tassl, {{0, 3, 2, 0, 1}, {0, 6, 1, 0, 5}});
  expect_level_set(a.m.level_set, 3, 2, 6, 1.0 - ratio(2, 7), ratio(6, 7));
  EXPECT_DOUBLE_EQ(a.m.tassl.C, 1.0 - ratio(2, 7));  // p_hat by slots: the chain
  EXPECT_DOUBLE_EQ(a.m.tassl.W, ratio(6, 7));
  tassl::MachineParams p;
  p.iota = 1;
  p.beta = 1;  // chain 2 + 3, star 1 + 6: the star is p_hat (3.23)
  expect_prediction(tassl::predict_tassl(a.m, p, {}), {1, 0, 6, 1, 1, 0, 1, 1.0 - ratio(1, 7), 1.0, 0.0, 6.0, 7.0});
  p.beta = 0.25;  // chain 2.75, star 2.5: the chain
  expect_prediction(tassl::predict_tassl(a.m, p, {}), {2, 0, 0.75, 2, 1, 0, 2, 1.0 - ratio(2, 7), 1.0, 0.0, 0.375, 1.375});
}

TEST(TasslMetrics, LayoutBarrierInterpolatesInWarps) {
  tassl::Metrics m;  // by hand: one launch; rounds of 64 and of 32 lanes, in blocks of 512 threads
  m.n_edges = 10;
  m.tassl.has_layout = true;
  m.tassl.launches = 1;
  m.tassl.per_block = {{0, 0, 64, 512, 8, 0}, {0, 0, 32, 512, 2, 0}};
  tassl::MachineParams p;
  p.sigma_local = 1;
  p.sigma_local_wide = 32;  // one warp 1, 32 warps 32: 2 for 64 threads, 16 for 512
  const tassl::Prediction r = tassl::predict_layout(m, p, {});
  EXPECT_DOUBLE_EQ(r.sync, 64.0);  // 8 round barriers of 2 and 3 block barriers of 16 (the other: 2 + 48)
  EXPECT_EQ(r.local_barriers, 11);
  m.tassl.per_block = {{0, 0, 1024, 1024, 1, 0}};
  EXPECT_DOUBLE_EQ(tassl::predict_layout(m, p, {}).sync, 128.0);  // 4 barriers of 32
  p.sigma_local_wide = 0;  // no wide value: every barrier costs sigma_local
  EXPECT_DOUBLE_EQ(tassl::predict_layout(m, p, {}).sync, 4.0);
}

TEST(TasslMetrics, ImpliedEfficiency) {
  const Analysed a = analyse(graph_matrix(5, kChain5), 8);
  const tassl::Prediction p = tassl::predict_level_set(a.m, params(), kEta);  // sync 50, 4 steps of iota 1
  EXPECT_DOUBLE_EQ(tassl::implied_efficiency(p, p.total()), 0.5);
  EXPECT_DOUBLE_EQ(tassl::implied_efficiency(p, 54.0), 1.0);
  EXPECT_TRUE(std::isnan(tassl::implied_efficiency(p, 50.0)));
}

TEST(TasslMetrics, ThesisParameters) {  // Table 3.1 and the eta-bar of Tables 3.3-3.4
  const tassl::MachineParams p = tassl::thesis_params();
  EXPECT_EQ(p.kappa, 2.929e-5);
  EXPECT_EQ(p.iota, 4.938e-9);
  EXPECT_EQ(p.sigma_global, 3.659e-6);
  EXPECT_EQ(p.sigma_local, 1.247e-7);
  EXPECT_EQ(p.beta, 1.596e-8);
  EXPECT_EQ(tassl::thesis_mean_efficiency().level_set, 1.695e-1);
  EXPECT_EQ(tassl::thesis_mean_efficiency().internal, 4.407e-1);
}

TEST(TasslMetrics, Errors) {
  const Csr<double> A = graph_matrix(5, kChain5);
  const Analysed a = analyse(A, 8);
  const Csr<double> B = graph_matrix(4, {{0, 1}});
  EXPECT_THROW_MSG(tassl::metrics(B, Triangle::Lower, level_sets(B, Triangle::Lower), a.P, a.S), DimensionError,
                   "do not match");
  const tassl::Metrics m = tassl::metrics(A, Triangle::Lower, level_sets(A, Triangle::Lower), a.P, a.S);
  EXPECT_FALSE(m.tassl.has_layout);
  EXPECT_THROW_MSG(tassl::predict_layout(m, params(), kEta), Error, "without a layout");
}

// On every real matrix: the bounds of C and W, and (3.13)/(3.30) from the parts.
TEST(TasslMetrics, RealMatricesModelIdentity) {
  test::for_each_square_real_matrix<double>([](const Csr<double>& full) {
    const Csr<double> L = extract_triangle(full, Triangle::Lower);
    const Analysed a = analyse(L, 256);
    EXPECT_GE(a.m.tassl.C, 0.0);
    EXPECT_LE(a.m.tassl.C, 1.0);
    EXPECT_GE(a.m.level_set.C, 0.0);
    EXPECT_LE(a.m.level_set.C, 1.0);
    EXPECT_EQ(a.m.tassl.internal_edges + a.m.tassl.external_edges, a.m.n_edges);
    EXPECT_LE(a.m.tassl.critical_slots, a.m.tassl.total_slots);
    for (const tassl::Prediction& p : {tassl::predict_level_set(a.m, tassl::thesis_params(), kEta),
                                       tassl::predict_tassl(a.m, tassl::thesis_params(), kEta),
                                       tassl::predict_layout(a.m, tassl::thesis_params(), kEta)}) {
      if (p.steps == 0) continue;
      EXPECT_NEAR((1.0 - p.C) * p.tau * double(a.m.n_edges), p.total(), 1e-9 * p.total());  // 1 - C rounds
      EXPECT_NEAR(tassl::implied_efficiency(p, p.total()), p.eta, 1e-12);
    }
  });
}

}  // namespace
}  // namespace balsa
