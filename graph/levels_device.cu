// Dependency levels on the GPU (graph/levels_device.hpp): the chain bound
// (pointer jumping over each row's nearest dependency),
// the level sweep, the stable sort of the rows by level and the level
// pointers, all on the current stream.
//
// The sweep is a synchronization-free max-plus pass in the style of Liu et
// al. (2016, Sect. 3): level[i] = max(level[j] + 1) over i's dependencies
// j, each row waiting on its dependencies' published levels (the level
// itself is the flag: -1 until written), as the CSR solve of
// trsv/sync_free/sync_free_csr.cu waits on x. A thread per row (the factor
// patterns it serves have short rows), rows taken by warp tickets in
// dependency order (so every row waited on is already running: no deadlock
// whatever the residency). Each row publishes alone: a warp that published
// its 32 levels together would chain every warp to the one before it through
// the i - 1 entries of a grid line (about n/32 hops in a row on a
// 3D Laplacian, against its depth of ~3 n^(1/3) here). The wait carries a
// time cap (the sweep gives up, and the host runs).
//
// The sort is CUB's radix sort of (level, row) pairs: a least-significant-
// digit sort is stable, so rows stay in increasing order within a level, as
// the host's counting sort leaves them (graph/levels.cpp).
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "graph/levels_device.hpp"

namespace balsa::levels_gpu {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFull = 0xffffffffu;

int blocks_for(std::int64_t threads) { return int(std::max<std::int64_t>(1, (threads + kThreads - 1) / kThreads)); }

struct MaxOp {
  __host__ __device__ index_t operator()(index_t a, index_t b) const { return a > b ? a : b; }
};

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Row at position p of the dependency order (ascending rows for Lower,
// descending for Upper), and the position of row j.
__device__ __forceinline__ index_t at(index_t p, index_t n, bool lower) { return lower ? p : n - 1 - p; }

// Is column j a dependency of row i (strictly inside the triangle)? As the host's dependency_levels.
__device__ __forceinline__ bool depends(index_t i, index_t j, index_t n, bool lower) {
  return lower ? (j < i && j >= 0) : (j > i && j < n);
}

// Chain bound (the rule's quick bound), step 1: each position's nearest
// dependency (the highest position it depends on), -1 for none, and its
// depth so far (1 with a dependency, else 0). The nearest dependencies form
// a forest whose depths are lower bounds on the levels.
__global__ void nearest_kernel(index_t n, const index_t* row_ptr, const index_t* col_idx, bool lower, index_t* up,
                               index_t* depth) {
  const index_t p = index_t(blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x);
  if (p >= n) return;
  const index_t i = at(p, n, lower);
  index_t nearest = -1;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    if (depends(i, j, n, lower)) nearest = max(nearest, lower ? j : n - 1 - j);
  }
  up[p] = nearest;
  depth[p] = nearest >= 0 ? 1 : 0;
}

// Step 2, one round of pointer jumping (Wyllie's list ranking): every
// position adds its ancestor's depth and jumps to that ancestor's ancestor;
// after ceil(log2 n) rounds each depth is the position's depth in the forest.
__global__ void jump_kernel(index_t n, const index_t* up, const index_t* depth, index_t* up_next, index_t* depth_next) {
  const index_t p = index_t(blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x);
  if (p >= n) return;
  const index_t a = up[p];
  up_next[p] = a >= 0 ? up[a] : -1;
  depth_next[p] = depth[p] + (a >= 0 ? depth[a] : 0);
}

__global__ void stamp_kernel(std::uint64_t* t0) { *t0 = global_ns(); }

// Waits for the level of row j (-1 until published): relaxed polls, a
// __nanosleep back-off after a few (it also lets a diverged producing lane
// of the same warp run), the stop word and the time cap every 64 polls.
// Returns the level, or -1 when the sweep stops.
__device__ index_t wait_level(const index_t* level, index_t j, const int* give_up, const std::uint64_t* t0,
                              std::uint64_t cap_ns) {
  volatile const index_t* published = level;
  volatile const int* stop = give_up;
  for (unsigned polls = 0;; ++polls) {
    const index_t lj = published[j];
    if (lj >= 0) return lj;
    if (polls % 64 == 63 && (*stop || global_ns() - *t0 > cap_ns)) return -1;
    if (polls >= 16) __nanosleep(64);
  }
}

// The level sweep (see the top of this file): a thread per row, 32
// consecutive positions of the dependency order per warp ticket. A row
// waits only on lower positions: rows of warps with earlier tickets (already
// running) or earlier lanes of its own warp (independent thread scheduling,
// sm_70+, is starvation-free; no warp-wide operation follows the ticket's
// broadcast), so by induction every wait ends. Each row publishes its level
// as soon as it is known (the level is its own flag). give_up: set by the
// first lane past the cap; the others then stop, and the levels are void.
__global__ void __launch_bounds__(kThreads)
    sweep_kernel(index_t n, const index_t* row_ptr, const index_t* col_idx, bool lower, index_t* level,
                 unsigned* ticket, int* give_up, const std::uint64_t* t0, std::uint64_t cap_ns) {
  const unsigned lane = threadIdx.x % 32;
  index_t base = 0;
  if (lane == 0) base = index_t(atomicAdd(ticket, 32u));
  base = __shfl_sync(kFull, base, 0);  // the warp's only full-warp operation
  const index_t p = base + index_t(lane);
  if (p >= n) return;
  const index_t i = at(p, n, lower);
  index_t lev = 0;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    if (!depends(i, j, n, lower)) continue;
    const index_t lj = wait_level(level, j, give_up, t0, cap_ns);
    if (lj < 0) {
      atomicExch(give_up, 1);
      return;
    }
    lev = max(lev, lj + 1);
  }
  static_cast<volatile index_t*>(level)[i] = lev;
}

__global__ void iota_kernel(index_t n, index_t* out) {
  const index_t p = index_t(blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x);
  if (p < n) out[p] = p;
}

// level_ptr[l] = the first position of level l in the sorted keys; level_ptr[levels] = n.
__global__ void level_ptr_kernel(index_t n, const unsigned* sorted, index_t* level_ptr) {
  const index_t p = index_t(blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x);
  if (p >= n) return;
  const unsigned key = sorted[p];
  if (p == 0 || sorted[p - 1] != key) level_ptr[key] = p;
  if (p == n - 1) level_ptr[key + 1] = n;
}

// CUB's scratch for n items: the larger of the reductions' and the sort's.
std::size_t scratch_bytes(index_t n) {
  std::size_t reduce = 0, sort = 0;
  const index_t* in = nullptr;
  index_t* out = nullptr;
  const int items = int(std::max<index_t>(n, 1));
  BALSA_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, reduce, in, out, items, MaxOp{}, index_t(0), cuda::stream()));
  const unsigned* keys = nullptr;
  unsigned* keys_out = nullptr;
  BALSA_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, sort, keys, keys_out, in, out, items, 0, 32, cuda::stream()));
  return std::max({reduce, sort, std::size_t(1)});
}

// Max of in[0, n) into *out (device), on the stream.
void device_max(const index_t* in, index_t n, index_t* out, cuda::DeviceBuffer<unsigned char>& scratch) {
  std::size_t bytes = scratch.size();
  BALSA_CUDA_CHECK(
      cub::DeviceReduce::Reduce(scratch.data(), bytes, in, out, int(n), MaxOp{}, index_t(0), cuda::stream()));
}

// `buffer` holding n entries: kept when it already does (a caller's, poisoned by tests), else new.
void sized(cuda::DeviceBuffer<index_t>& buffer, std::size_t n) {
  if (buffer.size() != n) buffer = cuda::DeviceBuffer<index_t>(n);
}

index_t download_one(const index_t* p) {
  index_t v = 0;
  cuda::detail::copy_to_host(&v, p, sizeof v);
  return v;
}

// The rule's bound: 1 + the deepest position of the nearest-dependency
// forest, a lower bound on the levels (every forest edge is a dependency).
// Work: four arrays of n.
index_t chain_bound(index_t n, const index_t* row_ptr, const index_t* col_idx, bool lower, index_t* work[4],
                    index_t* one, cuda::DeviceBuffer<unsigned char>& scratch) {
  index_t *up = work[0], *depth = work[1], *up_next = work[2], *depth_next = work[3];
  nearest_kernel<<<blocks_for(n), kThreads, 0, cuda::stream()>>>(n, row_ptr, col_idx, lower, up, depth);
  BALSA_CHECK_LAUNCH();
  for (int round = 0; round < int(std::bit_width(unsigned(n))); ++round) {
    jump_kernel<<<blocks_for(n), kThreads, 0, cuda::stream()>>>(n, up, depth, up_next, depth_next);
    BALSA_CHECK_LAUNCH();
    std::swap(up, up_next);
    std::swap(depth, depth_next);
  }
  device_max(depth, n, one, scratch);
  return download_one(one) + 1;
}

double cap_ms(const DeviceLevelsRule& rule, index_t n) {
  return rule.time_cap_ms > 0 ? rule.time_cap_ms : 20.0 + 5e-5 * double(n);
}

// The sweep into `level` (n); false when it gave up at the time cap.
bool sweep(index_t n, const index_t* row_ptr, const index_t* col_idx, bool lower, index_t* level, double cap,
           cuda::DeviceBuffer<index_t>& small) {
  // small: [0] ticket, [1] give_up, [2, 4) the start time, [4] a result
  BALSA_CUDA_CHECK(cudaMemsetAsync(level, 0xFF, std::size_t(n) * sizeof(index_t), cuda::stream()));
  BALSA_CUDA_CHECK(cudaMemsetAsync(small.data(), 0, 2 * sizeof(index_t), cuda::stream()));
  auto* t0 = reinterpret_cast<std::uint64_t*>(small.data() + 2);
  stamp_kernel<<<1, 1, 0, cuda::stream()>>>(t0);
  BALSA_CHECK_LAUNCH();
  const auto cap_ns = std::uint64_t(std::max(cap, 0.0) * 1e6);
  sweep_kernel<<<blocks_for(n), kThreads, 0, cuda::stream()>>>(n, row_ptr, col_idx, lower, level,
                                                               reinterpret_cast<unsigned*>(small.data()),
                                                               reinterpret_cast<int*>(small.data() + 1), t0, cap_ns);
  BALSA_CHECK_LAUNCH();
  return download_one(small.data() + 1) == 0;
}

// Sort and pointers: rows (n) in level order, the level pointers (device and host).
void group_by_level(index_t n, index_t* level, cuda::DeviceBuffer<index_t>& work, cuda::DeviceBuffer<index_t>& small,
                    cuda::DeviceBuffer<unsigned char>& scratch, DeviceLevels& out) {
  device_max(level, n, small.data() + 4, scratch);
  const index_t levels = download_one(small.data() + 4) + 1;
  index_t* iota = work.data();
  auto* sorted = reinterpret_cast<unsigned*>(work.data() + n);
  iota_kernel<<<blocks_for(n), kThreads, 0, cuda::stream()>>>(n, iota);
  BALSA_CHECK_LAUNCH();
  const int end_bit = std::max(1, int(std::bit_width(unsigned(levels - 1))));
  std::size_t bytes = scratch.size();
  BALSA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, reinterpret_cast<const unsigned*>(level),
                                                   sorted, iota, out.rows.data(), int(n), 0, end_bit, cuda::stream()));
  sized(out.level_ptr, std::size_t(levels) + 1);
  level_ptr_kernel<<<blocks_for(n), kThreads, 0, cuda::stream()>>>(n, sorted, out.level_ptr.data());
  BALSA_CHECK_LAUNCH();
  out.host_level_ptr.resize(std::size_t(levels) + 1);
  out.level_ptr.download(out.host_level_ptr);
}

// The host's analysis of the pattern, uploaded. host_row_ptr / host_col_idx:
// the pattern on the host when the caller has it (else it is copied back).
void on_host(index_t n, const index_t* row_ptr, const index_t* col_idx, Triangle tri,
             std::span<const index_t> host_row_ptr, std::span<const index_t> host_col_idx, DeviceLevels& out) {
  std::vector<index_t> rp, ci;
  if (host_row_ptr.empty() && n > 0) {
    rp.resize(std::size_t(n) + 1);
    cuda::detail::copy_to_host(rp.data(), row_ptr, rp.size() * sizeof(index_t));
    ci.resize(std::size_t(rp[std::size_t(n)]));
    cuda::detail::copy_to_host(ci.data(), col_idx, ci.size() * sizeof(index_t));
    host_row_ptr = rp;
    host_col_idx = ci;
  }
  if (n == 0) host_row_ptr = std::span<const index_t>(&n, 1);  // {0}
  const LevelSets s = level_sets(dependency_levels(n, host_row_ptr, host_col_idx, tri));
  sized(out.rows, s.rows.size());
  if (!s.rows.empty()) out.rows.upload(s.rows);
  sized(out.level_ptr, s.level_ptr.size());
  out.level_ptr.upload(s.level_ptr);
  out.host_level_ptr = s.level_ptr;
  out.on_device = false;
}

}  // namespace

std::size_t device_level_sets_bytes(index_t n) {
  // level, 2n of work (iota and sorted keys; with level and rows, the chain bound's four arrays), rows, level_ptr,
  // small, scratch
  return (5 * std::size_t(n) + 16) * sizeof(index_t) + scratch_bytes(n);
}

namespace detail {

void device_level_sets(index_t n, const index_t* row_ptr, const index_t* col_idx, Triangle tri,
                       const DeviceLevelsRule& rule, std::span<const index_t> host_row_ptr,
                       std::span<const index_t> host_col_idx, DeviceLevels& out) {
  const auto t0 = Clock::now();
  out.n = n;
  out.on_device = false;
  out.reason.clear();
  out.chain_bound = -1;
  const bool lower = tri == Triangle::Lower;
  auto fall_back = [&](std::string why) {
    out.reason = std::move(why);
    on_host(n, row_ptr, col_idx, tri, host_row_ptr, host_col_idx, out);
    out.seconds = seconds_since(t0);
  };
  if (n == 0) return fall_back("no rows");
  if (rule.force_host) return fall_back("the host asked for (DeviceLevelsRule::force_host)");
  const std::size_t need = device_level_sets_bytes(n);
  const std::size_t budget = rule.memory_budget > 0 ? rule.memory_budget : cuda::memory_info().first;
  if (need > budget)
    return fall_back("device memory: the analysis needs " + std::to_string(need) + " bytes, " + std::to_string(budget) +
                     " available");
  try {
    cuda::DeviceBuffer<index_t> level{std::size_t(n)}, work{2 * std::size_t(n)}, small{std::size_t(8)};
    cuda::DeviceBuffer<unsigned char> scratch{scratch_bytes(n)};
    sized(out.rows, std::size_t(n));
    index_t* arrays[4] = {work.data(), work.data() + n, level.data(), out.rows.data()};
    out.chain_bound = chain_bound(n, row_ptr, col_idx, lower, arrays, small.data() + 4, scratch);
    const index_t limit = std::max(rule.min_chain, index_t(double(n) / std::max(rule.rows_per_hop, 1.0)));
    if (!rule.force_device && out.chain_bound > limit)
      return fall_back("a dependency chain of at least " + std::to_string(out.chain_bound) +
                       " levels (the rule's limit " + std::to_string(limit) + ")");
    const double cap = cap_ms(rule, n);
    if (!sweep(n, row_ptr, col_idx, lower, level.data(), cap, small))
      return fall_back("the device sweep passed its time cap of " + std::to_string(cap) +
                       " ms (a deep dependency chain)");
    group_by_level(n, level.data(), work, small, scratch, out);
    out.on_device = true;
  } catch (const DeviceOutOfMemory& e) {
    return fall_back(std::string("device memory: ") + e.what());
  }
  out.seconds = seconds_since(t0);
}

}  // namespace detail

void device_level_sets(index_t n, const index_t* row_ptr, const index_t* col_idx, Triangle tri, DeviceLevels& out,
                       const DeviceLevelsRule& rule) try {
  if (n < 0) throw DimensionError("device_level_sets: " + std::to_string(n) + " rows");
  if (n > 0 && !row_ptr) throw Error("device_level_sets: null row pointer");
  detail::device_level_sets(n, row_ptr, col_idx, tri, rule, {}, {}, out);
} catch (...) {
  rethrow_as_balsa_error("device_level_sets");
}

}  // namespace balsa::levels_gpu
