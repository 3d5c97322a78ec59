// Sync-free blocks (TrsvAlgorithm::SyncFreeBlocks): one thread block per
// chunk of consecutive rows, level steps with a block barrier inside the
// chunk, sync-free waits on the rows of earlier chunks (the plan:
// trsv/sync_free_blocks_plan.hpp).
//
// Why: on wide-level matrices (3D Laplacians and their IC(0)/ILU(0) factors)
// a level costs a kernel boundary (about 2-3 us, cuSPARSE's and level-set's
// floor) while a block barrier costs tens of ns. With chunks of consecutive
// rows the dependencies of a natural-ordered stencil matrix mostly stay
// inside a chunk; the rest point to the chunk before, which runs one step
// ahead. The critical path is then about levels x (one step) + chunks x (one
// cross-block hand-over) instead of levels x (one launch).
//
// Waiting without flags or fences: the solve keeps x by position in one of
// two internal arrays (xp), all of whose entries hold a NaN with a payload
// that arithmetic never produces (the sentinel) when the solve starts. A
// row's value is published by one relaxed 8-byte store (single-copy atomic),
// so a consumer in another block polls the value itself with relaxed loads
// until it is not the sentinel. The solve also writes the sentinel into the
// same position of the other array, which the next solve uses: no reset
// pass. A computed value that happens to have the sentinel's bits (only a
// NaN input could produce it) is replaced by the canonical NaN.
//
// Order and progress: each block takes a ticket (an atomic counter) and
// solves chunk `ticket`; blocks that took earlier tickets are running or
// done, so every wait ends (the argument of trsv/sync_free_csr.cu). The last
// block to finish resets the counters for the next solve. The watchdog of
// trsv/gpu_common.cuh bounds every wait.
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "balsa/graph.hpp"
#include "cuda/check.hpp"
#include "sparse/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"
#include "trsv/sync_free_blocks_plan.hpp"

namespace balsa::trsv_gpu {

namespace {

// The sentinel's bits: a quiet NaN with a payload that no IEEE operation on
// non-NaN inputs produces (they give the canonical NaN).
template <class T> struct Sentinel;
template <> struct Sentinel<double> {
  using Bits = unsigned long long;
  static constexpr Bits bits = 0x7ff8'5eed'b10c'5eedull;
};
template <> struct Sentinel<float> {
  using Bits = unsigned int;
  static constexpr Bits bits = 0x7fc5'eedbu;
};

template <class T>
__device__ __forceinline__ typename Sentinel<T>::Bits bits_of(T v) {
  typename Sentinel<T>::Bits b;
  memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
__device__ __forceinline__ T sentinel_value() {
  T v;
  const typename Sentinel<T>::Bits b = Sentinel<T>::bits;
  memcpy(&v, &b, sizeof v);
  return v;
}

template <class T>
struct Plan {
  index_t chunks;
  const index_t* chunk_ptr;   // positions of chunk c
  const index_t* chunk_step;  // steps of chunk c
  const index_t* step_ptr;    // positions of step s
  const index_t* row_ptr;     // off-diagonal entries of position k
  const index_t* dep;         // the position each entry depends on
  const T* values;
  const T* diag;              // the diagonal of position k (1 for Unit)
  const index_t* rows;        // position k is row rows[k]
};

// counters[0]: tickets taken; counters[1]: blocks finished; counters[2]: the
// watchdog's error word.
template <class T, int B>
__global__ void __launch_bounds__(B) sync_free_blocks_kernel(Plan<T> p, const T* b, T* x, T* xp, T* xp_next,
                                                             int* counters, int epoch) {
  __shared__ int ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(&counters[0], 1);
  __syncthreads();
  const index_t c = ticket;
  const index_t first = p.chunk_ptr[c];  // positions below belong to earlier chunks
  for (index_t s = p.chunk_step[c]; s < p.chunk_step[c + 1]; ++s) {
    const index_t end = p.step_ptr[s + 1];
    for (index_t k = p.step_ptr[s] + index_t(threadIdx.x); k < end; k += B) {
      const index_t i = p.rows[k];
      const T bi = b[i];
      T sum = T(0);
      bool ok = true;
      for (index_t e = p.row_ptr[k]; e < p.row_ptr[k + 1]; ++e) {
        const index_t d = p.dep[e];
        T v;
        if (d >= first) {
          v = xp[d];  // same chunk, an earlier step: visible after the barrier
        } else {
          const T& slot = xp[d];
          ok = detail::spin_until([&] { return bits_of(v = detail::load_relaxed(slot)) != Sentinel<T>::bits; },
                                  &counters[2], epoch) && ok;
        }
        sum += p.values[e] * v;
      }
      T xi = (bi - sum) / p.diag[k];
      if (!ok || bits_of(xi) == Sentinel<T>::bits) xi = detail::quiet_nan<T>();
      ::cuda::atomic_ref<T, ::cuda::thread_scope_device>(xp[k]).store(xi, ::cuda::memory_order_relaxed);
      xp_next[k] = sentinel_value<T>();
      x[i] = xi;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0 && atomicAdd(&counters[1], 1) == p.chunks - 1) {  // the last block: reset for the next solve
    counters[0] = 0;
    counters[1] = 0;
  }
}

template <class T>
__global__ void fill_sentinel_kernel(T* xp, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) xp[i] = sentinel_value<T>();
}

constexpr int kThreads = 256;

template <class T>
class SyncFreeBlocksSolver final : public Algorithm<T> {
 public:
  SyncFreeBlocksSolver(const Csr<T>& A, Triangle tri, DiagonalKind diag, const LevelSets& levels,
                       const SyncFreeBlocksTuning& tuning)
      : n_(A.rows), nnz_(A.nnz()) {
    if (n_ == 0) return;
    detail::set_watchdog_from_environment();
    std::vector<index_t> level(static_cast<std::size_t>(n_)), work(static_cast<std::size_t>(n_));
    for (index_t l = 0; l < levels.count(); ++l)
      for (index_t q = levels.level_ptr[l]; q < levels.level_ptr[l + 1]; ++q) level[std::size_t(levels.rows[q])] = l;
    for (index_t i = 0; i < n_; ++i) work[std::size_t(i)] = A.row_ptr[i + 1] - A.row_ptr[i] + 1;
    index_t chunks = tuning.chunks > 0 ? tuning.chunks : default_chunks(tuning);
    if (const char* e = std::getenv("BALSA_TRSV_BLOCKS_CHUNKS"); e && std::atoi(e) > 0) chunks = std::atoi(e);
    plan_ = detail::plan_sync_free_blocks(level, work, tri, chunks);
    pattern_ = detail::split_diagonal(A, diag, plan_.order);
    const std::vector<index_t> pos_of = inverse_permutation(plan_.order);
    std::vector<index_t> dep(pattern_.col_idx.size());
    for (std::size_t e = 0; e < dep.size(); ++e) dep[e] = pos_of[std::size_t(pattern_.col_idx[e])];
    std::vector<T> off, d;
    detail::gather_values(pattern_, std::span<const T>(A.values), off, d);
    using IndexSpan = std::span<const index_t>;
    chunk_ptr_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.chunk_ptr));
    chunk_step_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.chunk_step));
    step_ptr_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.step_ptr));
    row_ptr_ = cuda::DeviceBuffer<index_t>(IndexSpan(pattern_.row_ptr));
    dep_ = cuda::DeviceBuffer<index_t>(IndexSpan(dep));
    rows_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.order));
    value_pos_ = cuda::DeviceBuffer<index_t>(IndexSpan(pattern_.value_pos));
    diag_pos_ = cuda::DeviceBuffer<index_t>(IndexSpan(pattern_.diag_pos));
    values_ = cuda::DeviceBuffer<T>(std::span<const T>(off));
    diag_ = cuda::DeviceBuffer<T>(std::span<const T>(d));
    for (auto& xp : xp_) {
      xp = cuda::DeviceBuffer<T>(std::size_t(n_));
      fill_sentinel_kernel<T><<<unsigned((n_ + 255) / 256), 256>>>(xp.data(), xp.size());
      BALSA_CHECK_LAUNCH();
    }
    counters_ = cuda::DeviceBuffer<int>(3);
    counters_.fill_bytes(0);
  }

  void solve(const T* b, T* x) override {
    if (n_ == 0) return;
    if (epoch_ == INT_MAX) {  // the error word back to 0, epochs restart at 1
      BALSA_CUDA_CHECK(cudaMemsetAsync(counters_.data() + 2, 0, sizeof(int), 0));
      epoch_ = 0;
    }
    ++epoch_;
    const Plan<T> p{plan_.chunks,   chunk_ptr_.data(), chunk_step_.data(), step_ptr_.data(), row_ptr_.data(),
                    dep_.data(),    values_.data(),    diag_.data(),       rows_.data()};
    T* cur = xp_[current_].data();
    current_ ^= 1;
    sync_free_blocks_kernel<T, kThreads><<<unsigned(plan_.chunks), kThreads>>>(p, b, x, cur, xp_[current_].data(),
                                                                                counters_.data(), epoch_);
    BALSA_CHECK_LAUNCH();
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "SyncFreeBlocks");
    if (n_ == 0) return;
    std::vector<T> off, d;
    detail::gather_values(pattern_, values, off, d);
    values_.upload(off);
    diag_.upload(d);
  }

  void update_values_device(const T* values, std::size_t count) override {
    detail::require_values(count, std::size_t(nnz_), "SyncFreeBlocks");
    if (n_ == 0) return;
    gather_device(value_pos_.data(), values, values_.data(), values_.size());
    gather_device(diag_pos_.data(), values, diag_.data(), diag_.size(), T(1));
  }

  bool watchdog_fired() override { return n_ > 0 && detail::watchdog_fired_in(counters_.data() + 2, epoch_); }

  void describe(TrsvStats& st) const override {
    st.blocks.chunks = plan_.chunks;
    st.blocks.steps = plan_.steps();
    st.blocks.most_steps = plan_.most_steps;
    st.blocks.widest_step = plan_.widest_step;
  }

 private:
  index_t default_chunks(const SyncFreeBlocksTuning& tuning) const {
    // chunks_per_sm per multiprocessor (the hand-overs between chunks are on
    // the critical path, so not more), but at least min_chunk_rows rows each.
    const index_t by_sm = index_t(detail::multiprocessors()) * tuning.chunks_per_sm;
    return std::max<index_t>(1, std::min<index_t>(by_sm, n_ / std::max<index_t>(1, tuning.min_chunk_rows)));
  }
  index_t n_;
  index_t nnz_;
  detail::SyncFreeBlocksPlan plan_;
  detail::OffDiagonal pattern_;
  cuda::DeviceBuffer<index_t> chunk_ptr_, chunk_step_, step_ptr_, row_ptr_, dep_, rows_, value_pos_, diag_pos_;
  cuda::DeviceBuffer<T> values_, diag_;
  cuda::DeviceBuffer<T> xp_[2];
  int current_ = 0;
  cuda::DeviceBuffer<int> counters_;
  int epoch_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_blocks(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                                    const LevelSets& levels, const SyncFreeBlocksTuning& tuning) {
  detail::require_level_sets(levels, A.rows, "make_sync_free_blocks");
  return std::make_unique<SyncFreeBlocksSolver<T>>(A, tri, diag, levels, tuning);
}

#define BALSA_INSTANTIATE(T)                                                                                \
  template std::unique_ptr<Algorithm<T>> make_sync_free_blocks<T>(const Csr<T>&, Triangle, DiagonalKind, \
                                                                  const LevelSets&, const SyncFreeBlocksTuning&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
