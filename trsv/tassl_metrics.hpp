// TASSL metrics and the performance model of Picciau's thesis, ch. 3. Graph:
// edge j -> i per off-diagonal l_ij of the triangle, n_edges of them, one
// multiply-add (3.3) each. Times in seconds, counts integers.
//  Level-set (Sect. 3.1.2): o_k = largest in-degree in level V_k;
//    C = 1 - sum o_k / n_edges (3.8), W = max |V_k| / n_edges (3.14),
//    t = iota sum o_k / eta + kappa n_kernel + sigma_global (n_levels - n_kernel) (3.6).
//  TASSL (Sect. 3.2.3): sub-graph g has n_slots,g internal and n'_slots,g
//    external time slots and n_g vertices; p_hat is the slowest sub-graph of
//    sub-graph level p (3.23). C (3.25), W (3.31), t (3.22) with eta_int and
//    eta_ext as in (3.34); eta (3.26), sigma (3.28), lambda (3.29), tau (3.30).
//  Choices: n_kernel = n_levels (one_launch: 1, then sigma_global per level
//  boundary, as a CUDA graph replay). Metrics' C takes p_hat = most slots (no
//  machine); a Prediction's the argmax of (3.23). No edges: C = 1, W = 0. V0
//  is in no level; V0 alone is one kernel. No host transfer (3.4) nor
//  permutation (3.33) terms. beta: per element of x, global -> local -> global.
//  predict_layout (not in the thesis) applies (3.22) to the GPU layout as
//  trsv/tassl.cu runs it: a thread runs its external rows' edges in turn; the
//  round lanes barrier once per round, the whole block 3 times (after the
//  loads, after the external rows, before the stores).
#pragma once

#include <cstdint>
#include <vector>

#include "balsa/graph.hpp"
#include "balsa/sparse.hpp"
#include "trsv/tassl_layout.hpp"
#include "trsv/tassl_partition.hpp"
#include "trsv/tassl_schedule.hpp"

namespace balsa::tassl {

struct SlotRange {  // over sub-graphs
  std::int64_t min = 0, max = 0;
  double median = 0.0;
};

// Sect. 3.1.1-3.1.2: the level-set (cuSPARSE, Alg. 3.1) schedule.
struct LevelSetMetrics {
  index_t n_levels = 0;
  std::int64_t sum_o = 0;  // sum_k o_k: operations on the critical path
  index_t widest = 0;      // max_k |V_k|
  double C = 1.0, W = 0.0;
};

// Per sub-graph (Sect. 3.2.3) and per block of the GPU layout.
struct SubgraphCounts {
  index_t level = 0, n = 0;
  std::int64_t slots = 0, ext_slots = 0;  // n_slots,g and n'_slots,g
  std::int64_t widest_slot = 0;           // max_q,q' {|T_g,q|, |T'_g,q'|}
};
struct BlockCounts {
  index_t launch = 0, n = 0, width = 32, threads = kMinBlockThreads;  // threads: as tassl.cu's blocks  // width: the round lanes
  std::int64_t rounds = 0, lane_ext = 0;  // lane_ext: most external edges one thread runs
};

// Sect. 3.2.1-3.2.3: the TASSL schedule.
struct TasslMetrics {
  index_t n_levels = 0;  // sub-graph levels
  index_t kernels = 0;   // launches of the thesis' solve: n_levels, at least 1 when n > 0
  index_t subgraphs = 0, isolated = 0;
  std::int64_t internal_edges = 0, external_edges = 0;
  std::int64_t critical_slots = 0;  // sum_p (n_slots + n'_slots) of the sub-graph with most slots
  std::int64_t total_slots = 0;     // over all sub-graphs: every block barrier of the thesis' solve
  std::int64_t widest = 0;          // numerator of (3.31)
  SlotRange slots, internal_slots, external_slots;  // per sub-graph; slots = internal + external
  double C = 1.0, W = 0.0;
  std::vector<SubgraphCounts> per_subgraph;
  // The GPU layout, when given (has_layout).
  bool has_layout = false;
  index_t launches = 0;
  std::int64_t rounds = 0, critical_barriers = 0;  // sum over launches of the longest block's rounds + 3
  std::vector<BlockCounts> per_block;
};

struct Metrics {
  index_t n = 0;
  std::int64_t n_edges = 0;
  LevelSetMetrics level_set;
  TasslMetrics tassl;
};

// A and tri give the edges; `levels` are A's level sets; P, S (and layout)
// TASSL's analysis of the same matrix.
template <class T>
Metrics metrics(const Csr<T>& A, Triangle tri, const LevelSets& levels, const Partition& P, const Schedule& S,
                const Layout* layout = nullptr);

// Table 3.1's parameters (seconds; beta per element, iota per operation).
// sigma_local_wide: a barrier of 1024 threads; 0: as sigma_local. Used by
// the layout prediction only, interpolated linearly in warps.
struct MachineParams {
  double kappa = 0, sigma_global = 0, sigma_local = 0, beta = 0, iota = 0;
  double sigma_local_wide = 0;
};
MachineParams thesis_params();  // Table 3.1, Nvidia Quadro K4000, double precision

// Operation efficiencies: eta_k (3.5) for every level; eta_int, eta_ext (3.34).
struct Efficiency {
  double level_set = 1.0, internal = 1.0, external = 1.0;
};
Efficiency thesis_mean_efficiency();  // eta-bar of Tables 3.3 and 3.4

struct ModelOptions {
  // The solve as one launch (a CUDA graph replay): kappa once, sigma_global
  // for every further level boundary. Otherwise kappa for every level.
  bool one_launch = false;
};

struct Prediction {
  double compute = 0, sync = 0, transfer = 0;  // seconds
  std::int64_t steps = 0;  // operations on the critical path: (1 - C) n_edges
  std::int64_t kernels = 0, global_barriers = 0, local_barriers = 0;  // on the critical path
  double C = 1, eta = 1, sigma = 0, lambda = 0, tau = 0;
  double iota = 0;
  double total() const { return compute + sync + transfer; }
};

Prediction predict_level_set(const Metrics& m, const MachineParams& p, const Efficiency& e, const ModelOptions& o = {});
Prediction predict_tassl(const Metrics& m, const MachineParams& p, const Efficiency& e, const ModelOptions& o = {});
// Requires m.tassl.has_layout.
Prediction predict_layout(const Metrics& m, const MachineParams& p, const Efficiency& e, const ModelOptions& o = {});

// The single efficiency factor (every eta equal, p_hat kept) for which the
// prediction's time equals `seconds`; NaN when its sync and transfer terms
// alone reach `seconds`, or there are no operations.
double implied_efficiency(const Prediction& p, double seconds);

}  // namespace balsa::tassl
