// balsa: the performance model of a triangular solve in Picciau's thesis,
// ch. 3, for level-set and TASSL schedules: the metrics of a matrix, the
// machine parameters (the thesis' Table 3.1, or measured on this GPU by
// microbenchmarks) and the predicted solve times. `balsa trsv FILE
// --explain` prints them.
//
//   balsa::tassl::Analysis a = balsa::tassl::analyse(L, balsa::Triangle::Lower);
//   balsa::tassl::Prediction p = balsa::tassl::predict_tassl(a.metrics, balsa::tassl::thesis_params(),
//                                                            balsa::tassl::thesis_mean_efficiency());
//
// Graph: edge j -> i per off-diagonal l_ij of the triangle, n_edges of them, one
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
//  trsv/tassl/tassl.cu runs it: a thread runs its external rows' edges in turn; the
//  round lanes barrier once per round, the whole block 3 times (after the
//  loads, after the external rows, before the stores).
//
// Microbenchmarks (run_microbench): the thesis' model parameters (sect.
// 3.1.2, Table 3.1) on the current device (trsv/tassl/tassl_microbench.cu;
// without CUDA a CudaError). Times from CUDA events, the median of
// `repeats` runs; a per-unit cost is the least-squares slope of those
// medians over a count (the thesis' "n_barriers sigma + t_offset"
// interpolation), so fixed launch costs drop out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"

namespace balsa::tassl {

// Most vertices of a TASSL sub-graph (its local indices are 16-bit).
inline constexpr index_t kMaxSubgraphVertices = 65535;

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
  index_t launch = 0, n = 0, width = 32;  // width: the round lanes
  index_t threads = 512;                  // as tassl.cu's blocks (kMinBlockThreads, trsv/tassl/tassl_layout.hpp)
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

struct MicrobenchOptions {
  int repeats = 21;
};

struct MicrobenchResult {
  std::string device;
  int sm_count = 0;
  // kappa: an empty kernel of one 128-thread block per SM.
  double kappa_launch = 0;        // one plain launch, start to completion
  double kappa_launch_slope = 0;  // per launch of 1..512 back-to-back plain launches
  double kappa_graph = 0;         // one replay of a CUDA graph of one such kernel
  // sigma_global: one kernel boundary inside a CUDA graph (slope over 1..512
  // dependent kernels per graph), how balsa's solvers separate levels.
  double sigma_global = 0;
  double sigma_local_32 = 0, sigma_local_1024 = 0;  // one __syncthreads, one block of 32 / 1024 threads
  // beta: doubles copied global -> shared -> global, seconds per byte of the
  // array; one block of 1024 threads, and one such block per SM (all bytes).
  double beta_block_per_byte = 0, beta_gpu_per_byte = 0;
  double iota = 0;                  // one dependent double multiply-add, one warp, registers
  double iota_stream_per_edge = 0;  // per edge of a whole-GPU SpMV-like stream (value, index, gather)
};

MicrobenchResult run_microbench(const MicrobenchOptions& options = {});

// The model's parameters from measurements, for values of `value_bytes`.
// one_launch (a CUDA graph replay, as balsa's solvers): kappa is one graph
// replay; otherwise the per-launch slope of plain launches.
inline MachineParams machine_params(const MicrobenchResult& r, std::size_t value_bytes, bool one_launch) {
  MachineParams p;
  p.kappa = one_launch ? r.kappa_graph : r.kappa_launch_slope;
  p.sigma_global = r.sigma_global;
  p.sigma_local = r.sigma_local_32;
  p.sigma_local_wide = r.sigma_local_1024;
  p.beta = r.beta_block_per_byte * double(value_bytes);
  p.iota = r.iota;
  return p;
}

// What TASSL's analysis finds for a triangle (thesis sec. 3.2.1, ch. 4),
// with the times of its stages (on the CPU).
struct Analysis {
  index_t n_max = 0;
  Metrics metrics;  // with the GPU layout (metrics.tassl.has_layout)
  TasslStats stats;
  double levels_seconds = 0, partition_seconds = 0, schedule_seconds = 0, layout_seconds = 0;
  // Of the partition: components (V0, union-find, merging), out-degrees and
  // levels, the split.
  double components_seconds = 0, graph_seconds = 0, split_seconds = 0;
};
// Level sets, partition, schedule and GPU layout of the `tri` triangle of
// the square matrix A (entries outside it are ignored), and their metrics.
// n_max = 0: as many vertices as one block's shared memory holds values of
// T on this machine's GPU (an H200's without one).
template <class T>
Analysis analyse(const Csr<T>& A, Triangle tri, index_t n_max = 0);

}  // namespace balsa::tassl
