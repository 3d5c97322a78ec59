// Internal: the dependency levels of a triangular pattern computed on the
// GPU (graph/levels_device.cu; graph/levels_device_no_cuda.cpp without
// CUDA), with the host's balsa::level_sets (graph/levels.cpp) as the oracle
// and the fallback. The result is the host's, bit for bit: each row's level,
// the rows sorted by level (increasing rows within a level) and the level
// pointers.
//
// Where it runs (DeviceLevelsRule): the device sweep waits along dependency
// chains, one hop at a time, so a deep chain makes it slower than the host's
// single pass. Before any sweep a cheap bound is taken on the device: each
// row's nearest dependency (i's highest j < i for Lower) makes a forest,
// whose depths (pointer jumping, log2 n passes) bound the levels from below;
// it is exact on a chain and near the levels of a 3D Laplacian's
// factor, and it sees the depth of banded factors. Past the rule's limit the
// host runs. A depth the bound misses (a long path through dependencies that
// are never the nearest) is caught by the sweep's time cap: the sweep gives
// up, and the host runs. Too little device memory (the rule's budget,
// else the free memory) also sends the work to the host. The result says
// which ran and why.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/graph.hpp"
#include "balsa/sparse.hpp"

namespace balsa::levels_gpu {

struct DeviceLevelsRule {
  // The host runs when the chain bound exceeds max(min_chain, n / rows_per_hop):
  // one level of the sweep costs about what the host's pass spends on
  // rows_per_hop rows (H200 host of 16 cores, bench/results/2026-11-29-setup-device-levels-h200.md:
  // ~2 us a level on deep banded factors against ~10 ns a row).
  index_t min_chain = 1000;
  double rows_per_hop = 200.0;
  // The sweep gives up after this many milliseconds (<= 0: 20 ms plus 50 ns a row).
  double time_cap_ms = 0.0;
  // Device bytes the analysis may take (0: the free device memory).
  std::size_t memory_budget = 0;
  // Skip the chain rule (tests: the sweep on a chain), or the device (the
  // host's analysis, for comparisons).
  bool force_device = false;
  bool force_host = false;
};

// Rows below this many go to the host without asking the device (launch
// costs dominate): device_or_host_level_sets' choice, not device_level_sets'.
inline constexpr index_t kDeviceLevelsMinRows = 20000;

// The levels on the device: `rows` (n, level order) and `level_ptr` (levels + 1)
// are device arrays; `host_level_ptr` its host copy (the only array that
// comes back, besides one count). on_device: the sweep ran (else the host did,
// for `reason`). chain_bound: the rule's bound, a lower bound on the levels (-1: not taken).
struct DeviceLevels {
  index_t n = 0;
  cuda::DeviceBuffer<index_t> rows, level_ptr;
  std::vector<index_t> host_level_ptr = {0};
  bool on_device = false;
  std::string reason;
  index_t chain_bound = -1;
  double seconds = 0.0;
  index_t count() const { return index_t(host_level_ptr.size()) - 1; }
};

// Levels of the triangular pattern (n, row_ptr, col_idx) in device memory
// (row_ptr[n] entries), as the host's level_sets(dependency_levels(...)):
// only entries strictly inside `tri` count. On the current stream; returns
// after the result is on the device. The host fallback copies the pattern to
// the host and the result back. out.rows and out.level_ptr are kept when
// they already have the result's sizes (tests poison them first).
void device_level_sets(index_t n, const index_t* row_ptr, const index_t* col_idx, Triangle tri, DeviceLevels& out,
                       const DeviceLevelsRule& rule = {});

// Bytes the device analysis of n rows takes (its arrays and CUB's scratch).
std::size_t device_level_sets_bytes(index_t n);

// A host pattern's level sets where they are cheaper: on the device (the
// pattern uploaded, the rows brought back) when `gpu` (the caller's device is
// a usable GPU), n is at least kDeviceLevelsMinRows and the rule
// (current_rule()) agrees, else on the host. `where` says which ran
// (Device::Cuda or Device::Cpu) and `reason` why the host did (empty when
// the device ran).
struct PlacedLevels {
  LevelSets sets;
  Device where = Device::Cpu;
  std::string reason;
  double seconds = 0.0;
};
PlacedLevels device_or_host_level_sets(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                       Triangle tri, bool gpu);

// The rule device_or_host_level_sets follows on this thread: the default, or
// that of the innermost live ScopedRule (tests force budgets, caps and the
// device path through the solvers that call it).
const DeviceLevelsRule& current_rule();
class ScopedRule {
 public:
  explicit ScopedRule(const DeviceLevelsRule& rule);
  ~ScopedRule();
  ScopedRule(const ScopedRule&) = delete;
  ScopedRule& operator=(const ScopedRule&) = delete;

 private:
  DeviceLevelsRule rule_;
  const DeviceLevelsRule* previous_;
};

namespace detail {
// device_level_sets with the host pattern when the caller has it (the
// fallback then reads it instead of copying the device's back).
void device_level_sets(index_t n, const index_t* row_ptr, const index_t* col_idx, Triangle tri,
                       const DeviceLevelsRule& rule, std::span<const index_t> host_row_ptr,
                       std::span<const index_t> host_col_idx, DeviceLevels& out);
}  // namespace detail

}  // namespace balsa::levels_gpu
