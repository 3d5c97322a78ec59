// TASSL triangular solve on the GPU (TrsvAlgorithm::Tassl; Picciau thesis
// Alg. 3.2, analysis ch. 4).
//
// Analysis (CPU): partition (tassl_partition), time slots (tassl_schedule),
// and the layout the kernel reads (tassl_layout.hpp, which describes the
// three phases of a block). Solve: one launch per sub-graph level, one block
// per sub-graph, x_loc in shared memory; the launches are captured once into
// a CUDA graph that every solve replays (b and x through a device slot, as in
// level_set.cu).
//
// The internal slots are latency-bound: a round is a shared-memory
// read-modify-write and a barrier. So the entries of the next D rounds are
// always in flight: lane t holds rounds r+1 .. r+D in registers, refilling
// the one it has just applied; the loads are addressed by round alone. The
// barrier is among the round lanes only (__syncwarp for one warp, a named
// barrier for more), while the block's other threads wait for phase 3.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <type_traits>

#include <cuda_pipeline.h>

#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_layout_patch.hpp"
#include "trsv/tassl/tassl_update.hpp"
#include "trsv/tassl/tassl_stats.hpp"
#include "core/clock.hpp"

namespace balsa::trsv_gpu {

namespace {

using detail::RhsAndX;

template <class T>
struct Arrays {
  const index_t* order;  // position -> vertex
  const T* diag;         // by position
  const index_t* ext_rows;  // positions with external in-edges
  const index_t* ext_ptr;   // by external row: its first edge (the next row's: its end)
  const index_t* ext_from;
  const T* ext_val;  // scaled by the row's 1/l_ii
  const std::uint32_t* int_key;
  const T* int_val;  // scaled by the row's 1/l_ii
};

// Rounds each lane keeps in flight: fewer for wide blocks (registers; and
// their many warps hide latency by themselves).
template <int W>
constexpr int prefetch_rounds() {
  return W >= 512 ? 4 : W >= 256 ? 8 : 16;
}
// Threads of a block whose rounds have W lanes: the loads and stores of
// phases 1 and 3 are latency-bound chains (order -> b), so they get at least
// 512 threads; only the first W run the rounds.
template <int W>
constexpr int block_threads() {
  return W < tassl::kMinBlockThreads ? tassl::kMinBlockThreads : W;
}

// Staged rounds (narrow blocks, W <= 64): the round lanes copy chunks of
// kStageRounds rounds' entries into shared memory with cp.async, double
// buffered, and read each batch of 8 rounds from there. Measured on an H200
// (bench/results/2026-11-22-tassl-notes.md): with the register prefetch alone
// a one-warp round took about 134 ns, the in-order issue of the next rounds'
// global loads sitting on every round's path (as for the level-set thin runs).
constexpr std::size_t kStageBytes = tassl::kStagingBytes;  // both buffers
constexpr int kStageBatch = 8;
// Up to two warps: measured on the H200, staging halved the small real
// matrices' times at 64 lanes (jagmesh7 0.039 -> 0.019 ms, cryg2500 0.046 ->
// 0.023 ms); wider blocks hide latency with their own warps.
constexpr bool stageable(int width) { return width <= 64; }
template <class T, int W>
struct Stage {
  static constexpr int kRounds =
      int(kStageBytes / 2 / (std::size_t(W) * (sizeof(std::uint32_t) + sizeof(T)))) / kStageBatch * kStageBatch;
  static constexpr std::size_t kKeyBytes = std::size_t(kRounds) * W * sizeof(std::uint32_t);
  static constexpr std::size_t kChunkBytes = kKeyBytes + std::size_t(kRounds) * W * sizeof(T);
  static_assert(kRounds >= kStageBatch && kKeyBytes % 16 == 0 && kChunkBytes % 16 == 0);
};
__host__ __device__ constexpr std::size_t align16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

// The barrier between two rounds: among the W round lanes only.
template <int W>
__device__ __forceinline__ void round_barrier() {
  if constexpr (W == 32)
    __syncwarp();
  else if constexpr (W == block_threads<W>())
    __syncthreads();
  else
    asm volatile("bar.sync 1, %0;" ::"n"(W) : "memory");
}

// One internal-slot entry: x_loc[row] -= a x_loc[col] (padding: nothing).
template <class T>
__device__ __forceinline__ void apply_entry(T* xl, std::uint32_t key, T a) {
  if (key != tassl::kPadEntry) xl[key >> 16] -= a * xl[key & 0xFFFFu];
}

// Alg. 3.2 phase 1: x_loc = b / l_ii, then the external slots by external row.
template <class T, int P>
__device__ __forceinline__ void load_local(const Arrays<T>& g, const tassl::Block& blk, const T* __restrict__ b,
                                           const T* __restrict__ x, T* xl, int tid) {
#pragma unroll 4
  for (index_t u = tid; u < blk.size; u += P) {
    const index_t p = blk.base + u;
    xl[u] = b[__ldg(g.order + p)] / __ldg(g.diag + p);
  }
  __syncthreads();
  for (index_t r = blk.ext_row_begin + tid; r < blk.ext_row_end; r += P) {
    const index_t p = __ldg(g.ext_rows + r);
    const index_t end = __ldg(g.ext_ptr + r + 1);
    T sum = T(0);
    for (index_t e = __ldg(g.ext_ptr + r); e < end; ++e) sum += __ldg(g.ext_val + e) * x[__ldg(g.ext_from + e)];
    xl[p - blk.base] -= sum;
  }
  __syncthreads();
}

// Alg. 3.2 phase 2, staged (on the round lanes, tid < W): chunks of the
// entries copied to shared memory with cp.async, double buffered, read in
// batches of 8 rounds.
template <class T, int W>
__device__ __forceinline__ void internal_rounds_staged(const Arrays<T>& g, const tassl::Block& blk, T* xl,
                                                       unsigned char* smem, int tid) {
  using S = Stage<T, W>;
  unsigned char* stage = smem + align16(std::size_t(blk.size) * sizeof(T));
  const index_t chunks = (blk.rounds + S::kRounds - 1) / S::kRounds;
  auto issue = [&](index_t c) {  // chunk c's entries into buffer c % 2 (one commit group)
    const std::size_t first = std::size_t(c) * S::kRounds * W;
    const std::size_t count = std::size_t(min(index_t(S::kRounds), blk.rounds - c * S::kRounds)) * W;
    unsigned char* buf = stage + (c & 1) * S::kChunkBytes;
    const auto* ks = reinterpret_cast<const uint4*>(g.int_key + blk.entry_begin + first);
    const auto* vs = reinterpret_cast<const uint4*>(g.int_val + blk.entry_begin + first);
    for (std::size_t i = tid; i < count * sizeof(std::uint32_t) / 16; i += W)
      __pipeline_memcpy_async(reinterpret_cast<uint4*>(buf) + i, ks + i, 16);
    for (std::size_t i = tid; i < count * sizeof(T) / 16; i += W)
      __pipeline_memcpy_async(reinterpret_cast<uint4*>(buf + S::kKeyBytes) + i, vs + i, 16);
    __pipeline_commit();
  };
  if (tid < W && chunks > 0) {
    issue(0);
    for (index_t c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) {
        issue(c + 1);  // its buffer's last reader, chunk c - 1, ended with a round barrier
        __pipeline_wait_prior(1);
      } else {
        __pipeline_wait_prior(0);
      }
      round_barrier<W>();  // every lane's copies of chunk c are visible
      const unsigned char* buf = stage + (c & 1) * S::kChunkBytes;
      const auto* sk = reinterpret_cast<const std::uint32_t*>(buf) + tid;
      const auto* sv = reinterpret_cast<const T*>(buf + S::kKeyBytes) + tid;
      const index_t rounds = min(index_t(S::kRounds), blk.rounds - c * S::kRounds);
      for (index_t j0 = 0; j0 < rounds; j0 += kStageBatch) {
        std::uint32_t kk[kStageBatch];
        T aa[kStageBatch];
#pragma unroll
        for (int d = 0; d < kStageBatch; ++d) {
          kk[d] = j0 + d < rounds ? sk[(j0 + d) * W] : tassl::kPadEntry;
          aa[d] = j0 + d < rounds ? sv[(j0 + d) * W] : T(0);
        }
#pragma unroll
        for (int d = 0; d < kStageBatch; ++d)
          if (j0 + d < rounds) {
            apply_entry(xl, kk[d], aa[d]);
            round_barrier<W>();
          }
      }
    }
  }
}

// Alg. 3.2 phase 2 from global memory (round lanes only): each lane keeps
// D rounds' entries in flight in registers.
template <class T, int W>
__device__ __forceinline__ void internal_rounds_prefetched(const Arrays<T>& g, const tassl::Block& blk, T* xl, int tid) {
  constexpr int D = prefetch_rounds<W>();
  const std::uint32_t* key = g.int_key + blk.entry_begin + tid;
  const T* val = g.int_val + blk.entry_begin + tid;
  std::uint32_t k[D];
  T a[D];
#pragma unroll
  for (int d = 0; d < D; ++d) {
    k[d] = d < blk.rounds ? __ldg(key + std::size_t(d) * W) : tassl::kPadEntry;
    a[d] = d < blk.rounds ? __ldg(val + std::size_t(d) * W) : T(0);
  }
  for (index_t r0 = 0; r0 < blk.rounds; r0 += D) {
#pragma unroll
    for (int d = 0; d < D; ++d) {
      if (r0 + d < blk.rounds) {  // uniform over the round lanes
        apply_entry(xl, k[d], a[d]);
        round_barrier<W>();
        const index_t r = r0 + D + d;
        if (r < blk.rounds) {
          k[d] = __ldg(key + std::size_t(r) * W);
          a[d] = __ldg(val + std::size_t(r) * W);
        }
      }
    }
  }
}

// One sub-graph for one right-hand side: Alg. 3.2's three phases.
template <class T, int W, bool STAGED>
__device__ __forceinline__ void solve_subgraph(const Arrays<T>& g, const tassl::Block& blk, const T* __restrict__ b,
                                               T* __restrict__ x, unsigned char* smem) {
  constexpr int P = block_threads<W>();
  T* xl = reinterpret_cast<T*>(smem);
  const int tid = int(threadIdx.x);
  // 1. x_loc = b / l_ii, then the external slots by external row.
  load_local<T, P>(g, blk, b, x, xl, tid);
  // 2. The internal slots, round by round, on the first W threads.
  if constexpr (STAGED)
    internal_rounds_staged<T, W>(g, blk, xl, smem, tid);
  else if (tid < W)
    internal_rounds_prefetched<T, W>(g, blk, xl, tid);
  __syncthreads();
  // 3. Write back.
#pragma unroll 4
  for (index_t u = tid; u < blk.size; u += P) x[__ldg(g.order + blk.base + u)] = xl[u];
}

// One block per SM at most (x_loc fills the shared memory), said to ptxas:
// without the minimum of 1, it capped the 512-thread kernels at 32 registers
// and spilled the prefetched rounds (ptxas -v; measured 52 ms on banded 4M).
// Block (blockIdx.x, blockIdx.y) solves sub-graph blockIdx.x for the
// right-hand sides blockIdx.y, blockIdx.y + gridDim.y, ...: many columns in
// one launch, the columns beyond the grid reusing the block's schedule from L2.
template <class T, int W, bool STAGED>
__global__ void __launch_bounds__(block_threads<W>(), 1)
    tassl_subgraph_kernel(Arrays<T> g, const tassl::Block* __restrict__ blocks, const RhsAndX<T>* slot) {
  extern __shared__ __align__(16) unsigned char smem[];
  const tassl::Block blk = blocks[blockIdx.x];
  const RhsAndX<T> io = *slot;
  for (index_t c = index_t(blockIdx.y); c < io.columns; c += index_t(gridDim.y)) {
    solve_subgraph<T, W, STAGED>(g, blk, io.b + c * io.ld, io.x + c * io.ld, smem);
    __syncthreads();  // x_loc and the staging buffers are reused by the next column
  }
}

// f(std::integral_constant<int, W>{}) for the block width W (a power of two, 32..1024).
template <class F>
void with_width(int w, F&& f) {
  switch (w) {
    case 32: f(std::integral_constant<int, 32>{}); break;
    case 64: f(std::integral_constant<int, 64>{}); break;
    case 128: f(std::integral_constant<int, 128>{}); break;
    case 256: f(std::integral_constant<int, 256>{}); break;
    case 512: f(std::integral_constant<int, 512>{}); break;
    default: f(std::integral_constant<int, 1024>{}); break;
  }
}

// Pattern updates: ranges of host arrays copied to device arrays in one
// host-to-device copy (descriptors, then the packed ranges) and one kernel
// that scatters them, one block per range. Every array holds 4- or 8-byte
// entries, so ranges move as 32-bit words.
struct CopyRange {
  std::uint32_t* dst;
  std::uint64_t src_word, words;
};

__global__ void scatter_ranges(const CopyRange* ranges, const std::uint32_t* packed) {
  const CopyRange r = ranges[blockIdx.x];
  for (std::uint64_t k = threadIdx.x; k < r.words; k += blockDim.x) r.dst[k] = packed[r.src_word + k];
}

class Patcher {
 public:
  template <class U>
  void add(U* device, const U* host, tassl::Range g) {
    static_assert(sizeof(U) % 4 == 0);
    if (g.end <= g.begin) return;
    const std::size_t words = std::size_t(g.end - g.begin) * sizeof(U) / 4;
    ranges_.push_back({reinterpret_cast<std::uint32_t*>(device + g.begin), std::uint64_t(data_.size()), words});
    const auto* from = reinterpret_cast<const std::uint32_t*>(host + g.begin);
    data_.insert(data_.end(), from, from + words);
  }
  // Copies and scatters on the solver's stream; the bytes copied.
  std::int64_t run(cuda::DeviceBuffer<unsigned char>& staging) {
    if (ranges_.empty()) return 0;
    const std::size_t head = (ranges_.size() * sizeof(CopyRange) + 15) / 16 * 16;
    std::vector<unsigned char> bytes(head + data_.size() * 4);
    std::memcpy(bytes.data(), ranges_.data(), ranges_.size() * sizeof(CopyRange));
    std::memcpy(bytes.data() + head, data_.data(), data_.size() * 4);
    if (staging.size() < bytes.size()) staging = cuda::DeviceBuffer<unsigned char>(bytes.size() + bytes.size() / 2);
    BALSA_CUDA_CHECK(
        cudaMemcpyAsync(staging.data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice, cuda::stream()));
    scatter_ranges<<<unsigned(ranges_.size()), 256, 0, cuda::stream()>>>(
        reinterpret_cast<const CopyRange*>(staging.data()), reinterpret_cast<const std::uint32_t*>(staging.data() + head));
    BALSA_CUDA_CHECK(cudaGetLastError());
    BALSA_CUDA_CHECK(cudaStreamSynchronize(cuda::stream()));  // `bytes` goes out of scope
    return std::int64_t(bytes.size());
  }

 private:
  std::vector<CopyRange> ranges_;
  std::vector<std::uint32_t> data_;
};

// Most right-hand sides given their own blocks in one launch; more columns
// loop inside the blocks.
constexpr index_t kMaxGridColumns = 32;

template <class T>
class TasslSolver final : public Algorithm<T> {
 public:
  TasslSolver(const Csr<T>& A, Triangle tri, DiagonalKind diag, const TasslTuning& tuning) : n_(A.rows), nnz_(A.nnz()) {
    const index_t n_max = tuning.n_max > 0 ? tuning.n_max : tassl_default_n_max(sizeof(T));
    if (n_max > tassl::kMaxSubgraphVertices)
      throw Error("TASSL: n_max " + std::to_string(n_max) + " exceeds the " +
                  std::to_string(tassl::kMaxSubgraphVertices) + " vertices that 16-bit slot indices address");
    stage_ = tuning.stage;
    if (std::size_t(n_max) * sizeof(T) > optin_)
      throw Error("TASSL: n_max " + std::to_string(n_max) + " values do not fit the " + std::to_string(optin_) +
                  " bytes of shared memory a block may use");
    auto t0 = Clock::now();
    const tassl::Partition P = tassl::partition(A, tri, n_max);
    const double t_partition = seconds_since(t0);
    t0 = Clock::now();
    tassl::Schedule S = tassl::schedule(A, tri, P);
    const double t_schedule = seconds_since(t0);
    t0 = Clock::now();
    tuning_ = {.max_width = tuning.max_width};
    layout_ = tassl::lay_out(P, S, tuning_);
    stats_ = tassl::summarize(P, S, layout_);
    stats_.partition_seconds = t_partition;
    stats_.schedule_seconds = t_schedule;
    row_ptr_ = A.row_ptr;
    diag_off_ = tassl::diagonal_offsets(A, diag);
    diag_ = diag;
    inc_ = std::make_unique<tassl::Incremental>(P, std::move(S), tri, std::span<const index_t>(A.row_ptr));  // kept for pattern updates (thesis ch. 6)
    stats_.layout_seconds = seconds_since(t0);
    if (n_ == 0) return;
    t0 = Clock::now();
    // With room for pattern updates' moved blocks (as much again as 1/4,
    // plus 4096 entries) so that they seldom reallocate and capture again.
    upload_with_room(order_, layout_.order);
    upload_with_room(ext_ptr_, layout_.ext_ptr);
    upload_with_room(ext_rows_, layout_.ext_rows);
    upload_with_room(ext_from_, layout_.ext_from);
    upload_with_room(int_key_, layout_.int_key);
    blocks_ = cuda::DeviceBuffer<tassl::Block>(std::span<const tassl::Block>(layout_.blocks));
    slot_ = cuda::DeviceBuffer<RhsAndX<T>>(1);
    upload_values(std::span<const T>(A.values));
    exec_.emplace(1, capture(1));
    BALSA_CUDA_CHECK(cudaStreamSynchronize(cuda::stream()));
    stats_.upload_seconds = seconds_since(t0);
  }

  void solve(const T* b, T* x) override { solve_many(b, x, n_, 1); }

  // One replay for every column: a graph per grid height min(columns,
  // kMaxGridColumns), captured on first use.
  void solve_many(const T* B, T* X, index_t rows, index_t columns) override {
    if (n_ == 0 || columns == 0) return;
    const int height = int(std::min<index_t>(columns, kMaxGridColumns));
    auto it = exec_.find(height);
    if (it == exec_.end()) it = exec_.emplace(height, capture(height)).first;
    const RhsAndX<T> s{B, X, columns, rows};  // pageable source: staged before cudaMemcpyAsync returns
    BALSA_CUDA_CHECK(cudaMemcpyAsync(slot_.data(), &s, sizeof s, cudaMemcpyHostToDevice, cuda::stream()));
    BALSA_CUDA_CHECK(cudaGraphLaunch(it->second.get(), cuda::stream()));
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "Tassl");
    if (n_ == 0) return;
    upload_values(values);
  }

  // Thesis ch. 6: the analysis updated (tassl_update.hpp), the layout patched
  // (tassl_layout_patch.hpp), and only the patched ranges copied to the
  // device, in one copy and one scatter kernel.
  bool update_pattern(const Csr<T>& M, PatternUpdate& u) override {
    if (M.rows != n_) throw DimensionError("TASSL update: a matrix of another size");
    const tassl::UpdateResult r = inc_->apply(M.row_ptr, M.col_idx, *u.change, u.edge_budget, u.max_levels);
    if (!r.feasible) {
      u.reason = r.reason;
      return false;
    }
    if (tassl::layout_waste(layout_) > 0.5) {
      u.reason = "over half of the layout's arrays is space left by moved blocks (compaction)";
      return false;
    }
    u.scheduled_edges = r.scheduled_edges;
    row_ptr_ = M.row_ptr;
    nnz_ = M.nnz();
    for (const index_t i : u.change->rows) {  // the diagonal offsets of the changed rows
      diag_off_[std::size_t(i)] = -1;
      if (diag_ == DiagonalKind::NonUnit)
        for (index_t p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p)
          if (M.col_idx[p] == i) diag_off_[std::size_t(i)] = p - M.row_ptr[i];
    }
    // From here the layout follows the analysis; an internal error leaves
    // them apart, so it sends the update to a full analysis (reported).
    try {
      return patch_device(M, r, u);
    } catch (const std::exception& e) {
      u.reason = std::string("internal error while patching the layout (analysed afresh): ") + e.what();
      return false;
    }
  }

  bool patch_device(const Csr<T>& M, const tassl::UpdateResult& r, PatternUpdate& u) {
    const tassl::LayoutPatch patch = tassl::patch_layout(layout_, *inc_, r, tuning_);
    u.blocks = index_t(patch.blocks.size() + patch.partial.size());
    u.relocated = patch.relocated;
    // Values of the blocks laid out again, into the host mirror.
    scaled_.diag.resize(layout_.order.size(), T(1));
    scaled_.ext.resize(layout_.ext_from.size(), T(0));
    scaled_.internal.resize(layout_.int_key.size(), T(0));
    for (const std::size_t b : patch.blocks)
      tassl::scale_block(layout_, b, std::span<const index_t>(row_ptr_), std::span<const T>(M.values),
                         std::span<const index_t>(diag_off_), scaled_);
    for (const tassl::LayoutPatch::Partial& p : patch.partial)
      tassl::scale_block(layout_, p.block, std::span<const index_t>(row_ptr_), std::span<const T>(M.values),
                         std::span<const index_t>(diag_off_), scaled_, &p.entries, p.ext);
    // Device arrays large enough (a reallocation moves them: capture again).
    bool moved = false;
    moved |= ensure(order_, layout_.order.size());
    moved |= ensure(diag_dev_, layout_.order.size());
    moved |= ensure(ext_rows_, layout_.ext_rows.size());
    moved |= ensure(ext_ptr_, layout_.ext_ptr.size());
    moved |= ensure(ext_from_, layout_.ext_from.size());
    moved |= ensure(ext_val_, layout_.ext_from.size());
    moved |= ensure(int_key_, layout_.int_key.size());
    moved |= ensure(int_val_, layout_.int_key.size());
    if (blocks_.size() != layout_.blocks.size()) {
      blocks_ = cuda::DeviceBuffer<tassl::Block>(layout_.blocks.size());
      moved = true;
    }
    Patcher pack;
    for (const tassl::Range& g : patch.positions) {
      pack.add(order_.data(), layout_.order.data(), g);
      pack.add(diag_dev_.data(), scaled_.diag.data(), g);
    }
    for (const tassl::Range& g : patch.ext_rows) {
      pack.add(ext_rows_.data(), layout_.ext_rows.data(), g);
      pack.add(ext_ptr_.data(), layout_.ext_ptr.data(), g);
    }
    for (const tassl::Range& g : patch.ext_edges) {
      pack.add(ext_from_.data(), layout_.ext_from.data(), g);
      pack.add(ext_val_.data(), scaled_.ext.data(), g);
    }
    for (const tassl::Range& g : patch.entries) {
      pack.add(int_key_.data(), layout_.int_key.data(), g);
      pack.add(int_val_.data(), scaled_.internal.data(), g);
    }
    pack.add(blocks_.data(), layout_.blocks.data(), {0, std::int64_t(layout_.blocks.size())});
    u.uploaded_bytes = pack.run(staging_);
    if (patch.launches_changed || moved) {
      exec_.clear();
      exec_.emplace(1, capture(1));
      u.recaptured = true;
    }
    tassl::refresh(stats_, *inc_, &layout_);
    return true;
  }

  void describe(TrsvStats& s) const override { s.tassl = stats_; }

 private:
  void upload_values(std::span<const T> values) {
    scaled_ = tassl::scale_values<T>(layout_, std::span<const index_t>(row_ptr_), values, std::span<const index_t>(diag_off_));
    bool moved = false;
    auto put = [&](cuda::DeviceBuffer<T>& buffer, const std::vector<T>& host) {
      if (buffer.empty()) buffer = cuda::DeviceBuffer<T>(host.size() + host.size() / 4 + 4096);
      moved |= ensure(buffer, host.size());
      if (!host.empty()) cuda::detail::copy_to_device(buffer.data(), host.data(), host.size() * sizeof(T));
    };
    put(diag_dev_, scaled_.diag);
    put(ext_val_, scaled_.ext);
    put(int_val_, scaled_.internal);
    if (moved && !exec_.empty()) {
      exec_.clear();
      exec_.emplace(1, capture(1));
    }
  }

  template <class U>
  static void upload_with_room(cuda::DeviceBuffer<U>& buffer, const std::vector<U>& host) {
    buffer = cuda::DeviceBuffer<U>(host.size() + host.size() / 4 + 4096);
    if (!host.empty()) cuda::detail::copy_to_device(buffer.data(), host.data(), host.size() * sizeof(U));
  }

  // A device array of at least `need` entries (half as much again when it
  // grows, keeping its contents): true when it moved.
  template <class U>
  static bool ensure(cuda::DeviceBuffer<U>& buffer, std::size_t need) {
    if (buffer.size() >= need) return false;
    cuda::DeviceBuffer<U> bigger(need + need / 2 + 64);
    if (!buffer.empty())
      cuda::detail::copy_on_device(bigger.data(), buffer.data(), buffer.bytes());
    buffer = std::move(bigger);
    return true;
  }

  // A launch's kernel: staged when its width allows and x_loc plus the
  // staging buffers fit a block's shared memory.
  struct Kernel {
    int width;
    bool staged;
    auto operator<=>(const Kernel&) const = default;
  };
  template <class F>
  static void with_kernel(Kernel k, F&& f) {
    with_width(k.width, [&](auto w) {
      constexpr int W = decltype(w)::value;
      if constexpr (stageable(W)) {
        if (k.staged) return f(tassl_subgraph_kernel<T, W, true>, block_threads<W>());
      }
      f(tassl_subgraph_kernel<T, W, false>, block_threads<W>());
    });
  }
  std::size_t launch_smem(const tassl::LevelLaunch& L, bool staged) const {
    std::size_t bytes = align16(std::size_t(L.most_size) * sizeof(T));
    if (staged)
      with_width(L.width, [&](auto w) {
        constexpr int W = decltype(w)::value;
        if constexpr (stageable(W)) bytes += 2 * Stage<T, W>::kChunkBytes;
      });
    return bytes;
  }
  Kernel kernel_for(const tassl::LevelLaunch& L) const {
    const bool staged = stage_ && stageable(L.width) && launch_smem(L, true) <= optin_;
    return {L.width, staged};
  }

  // The launches of one solve, a grid of (sub-graphs of the level) x height.
  cuda::GraphExec capture(int height) {
    std::map<Kernel, std::size_t> most;  // shared memory opt-in per kernel: the most any launch uses
    for (const tassl::LevelLaunch& L : layout_.launches) {
      const Kernel k = kernel_for(L);
      most[k] = std::max(most[k], launch_smem(L, k.staged));
    }
    for (const auto& [k, bytes] : most)
      with_kernel(k, [&, bytes = int(bytes)](auto kernel, int) {
        cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), std::size_t(bytes));
      });
    const Arrays<T> g{order_.data(),   diag_dev_.data(), ext_rows_.data(), ext_ptr_.data(),
                      ext_from_.data(), ext_val_.data(), int_key_.data(),  int_val_.data()};
    return cuda::capture_graph([&](cudaStream_t stream) {
      for (const tassl::LevelLaunch& L : layout_.launches) {
        if (L.last_block == L.first_block) continue;
        const Kernel k = kernel_for(L);
        const dim3 grid(unsigned(L.last_block - L.first_block), unsigned(height));
        with_kernel(k, [&](auto kernel, int threads) {
          kernel<<<grid, threads, launch_smem(L, k.staged), stream>>>(g, blocks_.data() + L.first_block,
                                                                     slot_.data());
        });
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      }
      return cudaSuccess;
    });
  }

  index_t n_;
  index_t nnz_;
  DiagonalKind diag_ = DiagonalKind::NonUnit;
  tassl::LayoutTuning tuning_;
  std::unique_ptr<tassl::Incremental> inc_;
  tassl::ScaledValues<T> scaled_;  // host mirror of the device values (patched by updates)
  cuda::DeviceBuffer<unsigned char> staging_;  // pattern updates: descriptors and packed ranges
  std::size_t optin_ = cuda::optin_shared_bytes();  // shared memory a block may opt in to
  bool stage_ = true;
  tassl::Layout layout_;
  std::vector<index_t> row_ptr_, diag_off_;  // of the matrix solved: values are addressed by (row, offset)
  TasslStats stats_;
  cuda::DeviceBuffer<index_t> order_, ext_rows_, ext_ptr_, ext_from_;
  cuda::DeviceBuffer<std::uint32_t> int_key_;
  cuda::DeviceBuffer<tassl::Block> blocks_;
  cuda::DeviceBuffer<T> diag_dev_, ext_val_, int_val_;
  cuda::DeviceBuffer<RhsAndX<T>> slot_;
  std::map<int, cuda::GraphExec> exec_;  // by grid height; destroyed before the buffers
};

}  // namespace

index_t tassl_default_n_max(std::size_t value_bytes) {
  return tassl::default_n_max(cuda::optin_shared_bytes(), value_bytes);
}

template <class T>
std::unique_ptr<Algorithm<T>> make_tassl(const Csr<T>& A, Triangle tri, DiagonalKind diag, const TasslTuning& tuning) {
  return std::make_unique<TasslSolver<T>>(A, tri, diag, tuning);
}

#define BALSA_INSTANTIATE(T) \
  template std::unique_ptr<Algorithm<T>> make_tassl<T>(const Csr<T>&, Triangle, DiagonalKind, const TasslTuning&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
