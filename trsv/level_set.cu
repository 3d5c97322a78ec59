// Level-set triangular solve on the GPU (TrsvAlgorithm::LevelSet).
//
// Analysis (CPU): the dependency levels of A (balsa::level_sets); the rows are
// reordered level by level into an off-diagonal CSR copy plus the diagonal.
// A row's "position" is its index in that order; every dependency of a row
// sits at a lower position, in an earlier level.
//
// Schedule: walking the levels, a level that needs more than `thin_passes`
// passes of the single block (rows x LANES > thin_passes x thin_block) gets a
// launch of its own over the whole GPU (LANES threads per row). A run of
// consecutive thinner levels becomes ONE launch of a single block that walks
// those levels with a block barrier between them. The launch sequence is
// captured once into a CUDA graph and replayed by every solve; b and x reach
// the kernels through a device "pointer slot" that solve() rewrites
// (stream-ordered) before each replay, so the graph never changes.
//
// Cost of a thin level (the latency that decides deep, narrow systems): the
// block's critical path per level is barrier -> read the x_j it depends on ->
// x_i -> barrier. Three things keep global memory off it:
//  * x ring: the block keeps the x values it computed in a shared-memory ring
//    indexed by position (slot = position mod ring size). A dependency inside
//    the run is read from the ring when the ring cannot have overwritten it
//    yet (checked per entry at analysis), else from global x (written by the
//    same block, visible after the barrier).
//  * external entries: a dependency on a row solved by an earlier launch is
//    final before this launch starts; such entries come first in their row
//    and are summed while prefetching, before the barrier.
//  * prefetch: during level l a thread already loads its row of the next step
//    (pointers, up to kKept entries per lane, b_i, a_ii), so after the barrier
//    only ring reads and arithmetic remain.
// (The same split of dependencies into external ones, ready at the start, and
// internal ones, exchanged through shared memory, is the idea TASSL's
// sub-graphs build on; here a run of levels is the "sub-graph" and it has one
// block.)
#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <memory>

#include "balsa/graph.hpp"
#include "cuda/check.hpp"
#include "sparse/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"

namespace balsa::trsv_gpu {

namespace {

using detail::with_lanes;

constexpr int kMaxThinBlock = 1024;
constexpr int kWideBlock = 256;
constexpr std::size_t kRingBytes = 128 * 1024;  // default ring: 128 KB of the ~227 KB a block may use
constexpr index_t kSkip = INT_MIN;              // an unused register slot (never a ring slot or ~column)

template <class T>
struct Slot {  // the right-hand side and solution of the current solve
  const T* b;
  T* x;
};

// The level-ordered system: row at position k is row rows[k] of A.
// ref[p] of an entry in a wide level, or an external entry of a thin run
// (p < ext_end[k]): the original column. Internal entries of a thin run: the
// ring slot (>= 0) or ~column (< 0: read from global x).
template <class T>
struct LevelRows {
  const index_t* row_ptr;  // off-diagonal entries of position k
  const index_t* ext_end;  // end of position k's external entries (thin runs)
  const index_t* ref;
  const T* values;
  const T* diag;  // a_ii of position k (1 for Unit)
  const index_t* rows;
};

// ---- wide levels ----------------------------------------------------------------

// x_i = (b_i - sum_{j != i} a_ij x_j) / a_ii for position k by a group of
// LANES consecutive lanes; every lane of the warp must call it (shuffles over
// the full warp), inactive groups with active == false.
template <class T, int LANES>
__device__ __forceinline__ void solve_row(const LevelRows<T>& m, index_t k, bool active, const T* b, T* x) {
  const int lane = threadIdx.x % LANES;
  T sum = T(0);
  if (active)
    // 64-bit p: row_ptr[k + 1] may lie within LANES of INT32_MAX.
    for (std::int64_t p = m.row_ptr[k] + lane; p < m.row_ptr[k + 1]; p += LANES) sum += m.values[p] * x[m.ref[p]];
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
  if (active && lane == 0) {
    const index_t i = m.rows[k];
    x[i] = (b[i] - sum) / m.diag[k];
  }
}

// One wide level: positions [first, last), all independent of each other.
template <class T, int LANES>
__global__ void __launch_bounds__(kWideBlock)
    solve_wide_level_kernel(LevelRows<T> m, const Slot<T>* slot, index_t first, index_t last) {
  const T* b = slot->b;
  T* x = slot->x;
  const std::size_t count = std::size_t(last - first);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  // `base` is the first thread of this warp: the loop is warp-uniform.
  for (std::size_t base = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) & ~std::size_t(31); base / LANES < count;
       base += stride) {
    const std::size_t r = (base + threadIdx.x % 32) / LANES;
    solve_row<T, LANES>(m, first + index_t(r < count ? r : 0), r < count, b, x);
  }
}

// ---- runs of thin levels -------------------------------------------------------------

// Entries per lane a prefetch holds in registers (more are read after the barrier).
template <int LANES>
constexpr int kKept = LANES == 1 ? 4 : 2;

// One lane's share of a row, loaded ahead of the barrier.
template <class T, int LANES>
struct Fetched {
  T partial;  // this lane's sum over its external entries
  T rhs, diag;
  index_t i;
  index_t ref[kKept<LANES>];  // internal entries held: ring slot or ~column; kSkip when unused
  T val[kKept<LANES>];
  std::int64_t next;  // this lane's remaining entries: next, next + LANES, ... < end
  index_t ext, end;
};

template <class T, int LANES>
__device__ __forceinline__ void prefetch_row(const LevelRows<T>& m, index_t k, bool active, const T* b, const T* x,
                                             Fetched<T, LANES>& f) {
  const int lane = threadIdx.x % LANES;
  f.partial = T(0);
#pragma unroll
  for (int j = 0; j < kKept<LANES>; ++j) {
    f.ref[j] = kSkip;
    f.val[j] = T(0);
  }
  f.next = 0;
  f.ext = f.end = 0;
  if (!active) return;
  const std::int64_t begin = __ldg(m.row_ptr + k);
  f.ext = __ldg(m.ext_end + k);
  f.end = __ldg(m.row_ptr + k + 1);
#pragma unroll
  for (int j = 0; j < kKept<LANES>; ++j) {
    const std::int64_t p = begin + lane + std::int64_t(j) * LANES;
    if (p < f.end) {
      const index_t r = __ldg(m.ref + p);
      const T v = __ldg(m.values + p);
      if (p < f.ext) {
        f.partial += v * x[r];  // solved by an earlier launch: final (plain load, x is written in this solve)
      } else {
        f.ref[j] = r;
        f.val[j] = v;
      }
    }
  }
  f.next = begin + lane + std::int64_t(kKept<LANES>) * LANES;
  if (lane == 0) {
    f.i = __ldg(m.rows + k);
    f.rhs = __ldg(b + f.i);
    f.diag = __ldg(m.diag + k);
  }
}

template <class T>
__device__ __forceinline__ T internal_x(index_t r, const T* ring, const T* x) {
  return r >= 0 ? ring[r] : x[~r];
}

// Completes position k from its prefetch; every lane of the warp calls it.
template <class T, int LANES>
__device__ __forceinline__ void finish_row(const LevelRows<T>& m, const Fetched<T, LANES>& f, index_t k, bool active,
                                           T* ring, unsigned ring_mask, T* x) {
  T sum = f.partial;
#pragma unroll
  for (int j = 0; j < kKept<LANES>; ++j)
    if (f.ref[j] != kSkip) sum += f.val[j] * internal_x(f.ref[j], ring, x);
  for (std::int64_t p = f.next; p < f.end; p += LANES) {  // rows longer than the registers hold
    const index_t r = __ldg(m.ref + p);
    sum += __ldg(m.values + p) * (p < f.ext ? x[r] : internal_x(r, ring, x));
  }
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
  if (active && threadIdx.x % LANES == 0) {
    const T xi = (f.rhs - sum) / f.diag;
    ring[unsigned(k) & ring_mask] = xi;
    x[f.i] = xi;
  }
}

// Levels [first_level, last_level) by one block. A "step" is one pass of the
// block over a level (a level of more rows than the block has groups takes
// several); the block barrier separates levels, not passes. Each step
// prefetches the next one before finishing its own rows.
template <class T, int LANES>
__global__ void __launch_bounds__(kMaxThinBlock)
    solve_thin_run_kernel(LevelRows<T> m, const Slot<T>* slot, const index_t* level_ptr, index_t first_level,
                          index_t last_level, unsigned ring_mask) {
  extern __shared__ __align__(16) unsigned char ring_bytes[];
  T* ring = reinterpret_cast<T*>(ring_bytes);
  const T* b = slot->b;
  T* x = slot->x;
  const index_t per_pass = index_t(blockDim.x / LANES);
  const index_t g = index_t(threadIdx.x / LANES);
  index_t level = first_level;
  index_t k0 = __ldg(level_ptr + level), level_end = __ldg(level_ptr + level + 1);
  Fetched<T, LANES> cur, nxt;
  prefetch_row<T, LANES>(m, k0 + g, k0 + g < level_end, b, x, cur);
  for (;;) {  // block-uniform control flow
    index_t next_k0 = k0 + per_pass, next_end = level_end, next_level = level;
    const bool level_done = next_k0 >= level_end;
    if (level_done) {
      next_level = level + 1;
      next_k0 = level_end;
      next_end = next_level < last_level ? __ldg(level_ptr + next_level + 1) : level_end;
    }
    const bool more = next_level < last_level;
    prefetch_row<T, LANES>(m, next_k0 + g, more && next_k0 + g < next_end, b, x, nxt);
    finish_row<T, LANES>(m, cur, k0 + g, k0 + g < level_end, ring, ring_mask, x);
    if (!more) break;
    if (level_done) __syncthreads();  // x of this level visible (ring and global) to the next
    cur = nxt;
    k0 = next_k0;
    level_end = next_end;
    level = next_level;
  }
}

// ---- host ------------------------------------------------------------------------------

struct Launch {
  bool wide;
  index_t first_level, last_level;
  int lanes;
  int threads = 0;      // thin runs: block size
  index_t ring = 0;     // thin runs: ring entries (a power of two)
};

index_t floor_pow2(std::size_t v) { return index_t(std::bit_floor(std::max<std::size_t>(v, 1))); }
index_t ceil_pow2(std::size_t v) { return index_t(std::bit_ceil(std::max<std::size_t>(v, 1))); }

template <class T>
class LevelSetSolver final : public Algorithm<T> {
 public:
  LevelSetSolver(const Csr<T>& A, DiagonalKind diag, const LevelSets& levels, LevelSetTuning tuning)
      : n_(A.rows), nnz_(A.nnz()) {
    if (n_ == 0) return;
    if (const char* e = std::getenv("BALSA_TRSV_THIN_PASSES"); e && std::atoi(e) > 0) tuning.thin_passes = std::atoi(e);
    if (tuning.thin_block < 32 || tuning.thin_block > kMaxThinBlock || !std::has_single_bit(unsigned(tuning.thin_block)))
      throw Error("LevelSetTuning: thin_block must be a power of two in [32, 1024]");
    pattern_ = detail::split_diagonal(A, diag, levels.rows);
    plan(levels, tuning);
    encode_thin_runs(levels);
    std::vector<T> off, d;
    detail::gather_values(pattern_, std::span<const T>(A.values), off, d);
    row_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern_.row_ptr));
    ext_end_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(ext_end_host_));
    ref_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(ref_host_));
    values_ = cuda::DeviceBuffer<T>(std::span<const T>(off));
    diag_ = cuda::DeviceBuffer<T>(std::span<const T>(d));
    rows_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.rows));
    level_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.level_ptr));
    slot_ = cuda::DeviceBuffer<Slot<T>>(1);
    capture(levels.level_ptr);
    std::vector<index_t>().swap(ext_end_host_);
    std::vector<index_t>().swap(ref_host_);
  }

  ~LevelSetSolver() override {
    (void)cudaStreamSynchronize(cudaStreamLegacy);  // no replay in flight when the graph goes
  }

  void solve(const T* b, T* x) override {
    if (n_ == 0) return;
    const Slot<T> s{b, x};  // pageable source: staged before cudaMemcpyAsync returns
    // On the legacy default stream, like every balsa GPU solver: ordered with
    // the caller's work there (and with the other solvers).
    BALSA_CUDA_CHECK(cudaMemcpyAsync(slot_.data(), &s, sizeof s, cudaMemcpyHostToDevice, cudaStreamLegacy));
    BALSA_CUDA_CHECK(cudaGraphLaunch(exec_.get(), cudaStreamLegacy));
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "LevelSet");
    if (n_ == 0) return;
    std::vector<T> off, d;
    detail::gather_values(pattern_, values, off, d);
    // cudaMemcpy on the legacy stream: after the replays queued there, before later ones.
    values_.upload(off);
    diag_.upload(d);
  }

 private:
  // The launch sequence: wide levels alone, runs of thin levels merged.
  void plan(const LevelSets& levels, const LevelSetTuning& tuning) {
    auto lanes = [&](index_t first, index_t last) {
      const index_t r0 = levels.level_ptr[first], r1 = levels.level_ptr[last];
      return detail::lanes_for(double(pattern_.row_ptr[r1] - pattern_.row_ptr[r0]) / double(r1 - r0));
    };
    auto threads_for = [&](index_t l, int lanes_l) { return std::int64_t(levels.width(l)) * lanes_l; };
    const std::int64_t thin_limit = std::int64_t(tuning.thin_passes) * tuning.thin_block;
    auto wide = [&](index_t l) { return threads_for(l, lanes(l, l + 1)) > thin_limit; };
    index_t ring_cap = tuning.ring_entries;
    if (ring_cap <= 0) {
      int device = 0, optin = 0;
      BALSA_CUDA_CHECK(cudaGetDevice(&device));
      BALSA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      ring_cap = floor_pow2(std::min<std::size_t>(kRingBytes, std::size_t(optin)) / sizeof(T));
    } else if (!std::has_single_bit(unsigned(ring_cap))) {
      throw Error("LevelSetTuning: ring_entries must be a power of two");
    }
    for (index_t l = 0; l < levels.count();) {
      if (wide(l)) {
        launches_.push_back({true, l, l + 1, lanes(l, l + 1)});
        ++l;
        continue;
      }
      index_t e = l;
      while (e < levels.count() && !wide(e)) ++e;
      Launch run{false, l, e, lanes(l, e)};
      std::int64_t most = 0;
      for (index_t k = l; k < e; ++k) most = std::max(most, threads_for(k, run.lanes));
      run.threads = int(std::clamp<std::int64_t>(ceil_pow2(std::size_t(most)), 32, tuning.thin_block));
      run.ring = std::min(ring_cap, ceil_pow2(std::size_t(levels.level_ptr[e] - levels.level_ptr[l])));
      launches_.push_back(run);
      l = e;
    }
  }

  // ref_host_ and ext_end_host_ (see LevelRows); reorders the entries of thin
  // runs' rows (external ones first) in pattern_, so value_pos follows.
  void encode_thin_runs(const LevelSets& levels) {
    std::vector<index_t> pos_of(static_cast<std::size_t>(n_));
    for (index_t k = 0; k < n_; ++k) pos_of[static_cast<std::size_t>(levels.rows[k])] = k;
    ref_host_ = pattern_.col_idx;
    ext_end_host_.assign(pattern_.row_ptr.begin() + 1, pattern_.row_ptr.end());
    std::vector<index_t> cols, where;
    for (const Launch& L : launches_) {
      if (L.wide) continue;
      const index_t first = levels.level_ptr[L.first_level];
      for (index_t l = L.first_level; l < L.last_level; ++l) {
        const index_t level_end = levels.level_ptr[l + 1];
        for (index_t k = levels.level_ptr[l]; k < level_end; ++k) {
          const index_t begin = pattern_.row_ptr[k], end = pattern_.row_ptr[k + 1];
          cols.assign(pattern_.col_idx.begin() + begin, pattern_.col_idx.begin() + end);
          where.assign(pattern_.value_pos.begin() + begin, pattern_.value_pos.begin() + end);
          index_t out = begin;
          for (int pass = 0; pass < 2; ++pass) {  // external entries, then internal ones
            for (std::size_t e = 0; e < cols.size(); ++e) {
              const index_t dep = pos_of[static_cast<std::size_t>(cols[e])];
              if ((dep < first) != (pass == 0)) continue;
              pattern_.col_idx[out] = cols[e];
              pattern_.value_pos[out] = where[e];
              // Ring slot of dep is rewritten by position dep + ring, which
              // may be solved during this level (passes of a level are not
              // separated by barriers): safe iff dep + ring >= level_end.
              ref_host_[out] = pass == 0                   ? cols[e]
                               : level_end - dep <= L.ring ? index_t(unsigned(dep) & unsigned(L.ring - 1))
                                                           : ~cols[e];
              ++out;
            }
            if (pass == 0) ext_end_host_[k] = out;
          }
        }
      }
    }
  }

  void capture(const std::vector<index_t>& level_ptr) {
    const int sms = detail::multiprocessors();
    const LevelRows<T> m{row_ptr_.data(), ext_end_.data(), ref_.data(), values_.data(), diag_.data(), rows_.data()};
    // Shared memory beyond the 48 KB default needs an opt-in per kernel.
    for (const Launch& L : launches_)
      if (!L.wide)
        with_lanes(L.lanes, [&](auto lanes_c) {
          constexpr int LANES = decltype(lanes_c)::value;
          BALSA_CUDA_CHECK(cudaFuncSetAttribute(solve_thin_run_kernel<T, LANES>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                int(std::size_t(L.ring) * sizeof(T))));
        });
    // Replays go to the legacy default stream. The capture itself uses a
    // non-blocking stream so that it cannot collide with legacy-stream work.
    detail::Stream cap;
    BALSA_CUDA_CHECK(cudaStreamCreateWithFlags(cap.out(), cudaStreamNonBlocking));
    BALSA_CUDA_CHECK(cudaStreamBeginCapture(cap.get(), cudaStreamCaptureModeThreadLocal));
    cudaError_t status = cudaSuccess;
    for (const Launch& L : launches_) {
      with_lanes(L.lanes, [&](auto lanes_c) {
        constexpr int LANES = decltype(lanes_c)::value;
        if (L.wide) {
          const index_t first = level_ptr[L.first_level], last = level_ptr[L.last_level];
          const std::size_t blocks = (std::size_t(last - first) * LANES + kWideBlock - 1) / kWideBlock;
          const int grid = int(std::min<std::size_t>(blocks, std::size_t(sms) * 32));
          solve_wide_level_kernel<T, LANES><<<grid, kWideBlock, 0, cap.get()>>>(m, slot_.data(), first, last);
        } else {
          solve_thin_run_kernel<T, LANES><<<1, L.threads, std::size_t(L.ring) * sizeof(T), cap.get()>>>(
              m, slot_.data(), level_ptr_.data(), L.first_level, L.last_level, unsigned(L.ring - 1));
        }
      });
      status = cudaGetLastError();  // launch errors; no device sync while capturing
      if (status != cudaSuccess) break;
    }
    detail::Graph graph;
    const cudaError_t end = cudaStreamEndCapture(cap.get(), graph.out());
    BALSA_CUDA_CHECK(status);
    BALSA_CUDA_CHECK(end);
    BALSA_CUDA_CHECK(cudaGraphInstantiate(exec_.out(), graph.get(), 0));
  }

  index_t n_;
  index_t nnz_;
  detail::OffDiagonal pattern_;
  std::vector<index_t> ref_host_, ext_end_host_;  // analysis only
  cuda::DeviceBuffer<index_t> row_ptr_, ext_end_, ref_, rows_, level_ptr_;
  cuda::DeviceBuffer<T> values_, diag_;
  cuda::DeviceBuffer<Slot<T>> slot_;
  std::vector<Launch> launches_;
  // Destroyed before the buffers (declared after them).
  detail::GraphExec exec_;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                             const LevelSets& levels, const LevelSetTuning& tuning) {
  if (levels.rows.size() != std::size_t(A.rows))
    throw DimensionError("make_level_set: level sets of " + std::to_string(levels.rows.size()) + " rows for " +
                         std::to_string(A.rows));
  (void)tri;  // the levels carry the triangle's dependency order
  return std::make_unique<LevelSetSolver<T>>(A, diag, levels, tuning);
}

template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return make_level_set(A, tri, diag, level_sets(A, tri));
}

#define BALSA_INSTANTIATE(T)                                                                         \
  template std::unique_ptr<Algorithm<T>> make_level_set<T>(const Csr<T>&, Triangle, DiagonalKind); \
  template std::unique_ptr<Algorithm<T>> make_level_set<T>(const Csr<T>&, Triangle, DiagonalKind,  \
                                                           const LevelSets&, const LevelSetTuning&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
