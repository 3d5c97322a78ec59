// Internal: the partitioned ("spike") triangular solve for narrow profiles
// (TrsvAlgorithm::Spike; issue 28). SaP's split-and-parallelize (Li, Serban &
// Negrut, the SaP report sect. 2.1: partition, independent block solves,
// spikes coupling neighbours, a reduced system over the partition's
// boundaries) applied to a triangle, where the spikes are exact: no truncation.
//
// The triangle in "lower form": form row k is row k of a Lower triangle, or
// row n-1-k of an Upper one with columns mirrored, so every off-diagonal entry
// (k, c) has k - w <= c < k, w the bandwidth (profile width). The form rows
// are cut into P chains of m consecutive rows. The state s_i of the solve
// after chain i is the w unknowns x[end_i - w, end_i). Solving chain i with
// b and the state s_{i-1} before it is linear in both, so
//     s_i = d_i + T_i s_{i-1},
// d_i the last w unknowns of chain i solved from b with a zero state before it
// (the independent block solve), T_i (w x w) the last w rows of chain i solved
// from a zero b with the state e_j, column j (the spike's bottom: -L_ii^{-1}
// B_i, B_i the coupling block). The recurrence over the P boundaries (the
// reduced system, w x w products) runs in two levels: groups of G chains
// solved from a zero state (e_q at their ends), a sequential pass over the Q
// groups with U_q (the whole group's spike bottom, computed as T_i is, over
// the group's rows), then the groups again from their true states. A last
// pass solves every chain from b and its true state s_{i-1}: x exactly.
// Work: two chain solves (2 nnz) + (2G + Q) w x w products; storage P w^2 +
// Q w^2 values (<= n w when m >= w), bounded by TrsvOptions::spike_max_bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "balsa/trsv.hpp"

namespace balsa::trsv_spike {

struct Form {
  index_t n = 0;
  index_t w = 0;                  // max over form rows of k - (first column), 0 when diagonal
  bool reversed = false;          // Upper: form row k is row n-1-k
  std::vector<index_t> row_ptr;   // off-diagonal entries of form row k
  std::vector<index_t> col;       // their form columns, ascending
  std::vector<index_t> source;    // their positions in M.values
  std::vector<index_t> diag_pos;  // form row k's diagonal in M.values, -1 when Unit
  index_t row(index_t k) const { return reversed ? n - 1 - k : k; }  // the matrix's row of form row k
};
// The lower form of M (canonical CSR, every entry in `tri`; the diagonal
// present unless Unit, where stored diagonal entries are ignored).
template <class T>
Form make_form(const Csr<T>& M, Triangle tri, DiagonalKind diag);
// Only the bandwidth (O(n), no copies): what the choice needs.
template <class T>
index_t bandwidth(const Csr<T>& M, Triangle tri);

// The cut: P chains of m rows (the last may be shorter) in Q groups of G.
struct Partition {
  index_t m = 0, P = 0, G = 0, Q = 0;
};
// The machine constants of the cost model below (seconds), fitted on an
// H200 (bench/results/2026-11-26-chains-*: chain rows 256..4096 on the random
// band and the thesis' IC(0) factors at n = 1e6).
struct CostModel {
  double row = 5.0e-8;          // one form row of a chain pass (a warp's 32-row tile / 32)
  double entry = 2.8e-8;        // per off-diagonal entry of the row (the lane's dependent loads)
  double step_base = 1.5e-6;    // one step of the recurrence: barriers and the state's loads
  double step_per_w2 = 1.5e-9;  // per value of T_i (w^2 of them through shared memory)
  double launch = 3.0e-6;       // per kernel of a solve
};
// Predicted GPU solve time of a partition of a triangle of bandwidth w with
// `entries` off-diagonal entries a row on average: 2 chain passes of m rows,
// 2G + Q recurrence steps (P when Q = 1), 5 launches (3 when Q = 1).
double predict_seconds(const Partition& p, index_t w, double entries, const CostModel& c = {});
// The partition for n rows of bandwidth w: m = chain_rows when given, else
// the power of two (>= max(32, w)) that minimises predict_seconds; G the
// square root of P rounded up.
Partition make_partition(index_t n, index_t w, double entries, index_t chain_rows = 0, const CostModel& c = {});
// Values of T and U (P w^2 + Q w^2): the analysis' storage.
std::int64_t spike_values(const Partition& p, index_t w);
// The partition's fields of `s` (bandwidth, chains, groups, spike bytes) for
// values of `value_bytes`; the prediction and the fallback stay.
void describe(SpikeStats& s, const Partition& p, index_t w, std::size_t value_bytes);
// Only the model's fields of `s`: what the stats keep when Spike is not used.
inline SpikeStats model_only(const SpikeStats& s) {
  return {.bandwidth = s.bandwidth, .predicted_seconds = s.predicted_seconds, .fallback = s.fallback};
}

// The widest profile: the GPU chain kernel keeps the last w + 32 unknowns of
// each of its 4 warps' chains in shared memory (a ring of 4096: 128 KB in double).
inline constexpr index_t kMaxBandwidth = 4096 - 32;
// The default bound on that storage, bytes.
inline constexpr std::int64_t kDefaultMaxBytes = std::int64_t(512) << 20;

// Why Spike cannot take this matrix (on the GPU a bandwidth over
// kMaxBandwidth; storage over `max_bytes`), or empty.
std::string refusal(index_t w, const Partition& p, std::size_t value_bytes, std::int64_t max_bytes, bool gpu);

// The CPU algorithm (and the GPU's oracle): CpuSpike, trsv/spike/spike_cpu.hpp.

}  // namespace balsa::trsv_spike
