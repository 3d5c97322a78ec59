// Sync-free blocks (TrsvAlgorithm::SyncFreeBlocks): one thread block per
// chunk of consecutive rows, level steps with a block barrier inside the
// chunk, sync-free waits on the rows of earlier chunks (the plan:
// trsv/sync_free_blocks/sync_free_blocks_plan.hpp; the per-step ELL layout:
// trsv/sync_free_blocks/sync_free_blocks_layout.hpp; the kernel and its latency budget:
// trsv/sync_free_blocks/sync_free_blocks_kernel.cuh).
//
// Why: on wide-level matrices (3D Laplacians and their IC(0)/ILU(0) factors)
// a level costs a kernel boundary (about 2-3 us, cuSPARSE's and level-set's
// floor) while a block barrier costs tens of ns. With chunks of consecutive
// rows the dependencies of a natural-ordered stencil matrix mostly stay
// inside a chunk; the rest point to the chunk before, which runs one step
// ahead. The critical path is then about levels x (one step) + chunks x (one
// cross-block hand-over) instead of levels x (one launch).
//
// Waiting without flags or fences (Liu et al. 2016's sync-free wait, on the
// value itself): the solve keeps x by position in one of two internal arrays
// (xp), all of whose entries hold a NaN with a payload that arithmetic never
// produces (the sentinel) when the solve starts. A row's value is published
// by one relaxed store (single-copy atomic), so a consumer in another block
// polls the value itself with relaxed loads until it is not the sentinel.
// The solve also writes the sentinel into the same position of the other
// array, which the next solve uses: no reset pass. A computed value that
// happens to have the sentinel's bits (only a NaN input could produce it) is
// replaced by the canonical NaN.
//
// Order and progress: each block takes a ticket (an atomic counter) and
// solves chunk `ticket`; blocks that took earlier tickets are running or
// done, so every wait ends (the argument of trsv/sync_free/sync_free_csr.cu). The last
// block to finish resets the counters for the next solve. The watchdog of
// trsv/gpu_common.cuh bounds every wait.
//
// Per solve: one gather b -> bp (by position, ~10 us at n = 4M, bandwidth
// bound) so that a step reads b contiguously, then the solve kernel, which
// also scatters x (fire-and-forget stores, off the critical path).
//
// Tuning (SyncFreeBlocksTuning, trsv/gpu_algorithm.hpp): chunks, threads a
// block, lanes a row and ring entries; tests shrink them.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>

#include "balsa/graph.hpp"
#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "cuda/device.hpp"
#include "core/setup_trace.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"
#include "trsv/sync_free_blocks/sync_free_blocks_kernel.cuh"
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_plan.hpp"

namespace balsa::trsv_gpu {

namespace {

namespace blocks = detail::blocks;

template <class T>
using SolveKernel = void (*)(blocks::View<T>, T*, T*, T*, int*, int);

template <class T, int G>
SolveKernel<T> kernel_for_threads(int threads) {
  switch (threads) {
    case 64: return &blocks::solve_kernel<T, 64, G>;
    case 512: return &blocks::solve_kernel<T, 512, G>;
    case 1024: return &blocks::solve_kernel<T, 1024, G>;
    default: return &blocks::solve_kernel<T, 256, G>;
  }
}

// Stored off-diagonal entries of a canonical triangular matrix (its
// diagonal, when stored, ends a Lower row and starts an Upper one).
template <class T>
index_t off_diagonal_entries(const Csr<T>& A, Triangle tri) {
  index_t diagonals = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    const index_t b = A.row_ptr[i], e = A.row_ptr[i + 1];
    diagonals += b < e && A.col_idx[tri == Triangle::Lower ? e - 1 : b] == i;
  }
  return A.nnz() - diagonals;
}

// The plan's inputs: each row's level and work (its entries + 1).
template <class T>
void levels_and_work(const Csr<T>& A, const LevelSets& levels, std::vector<index_t>& level,
                     std::vector<index_t>& work) {
  const index_t n = A.rows;
  level = parallel::fresh_vector<index_t>(std::size_t(n));
  work = parallel::fresh_vector<index_t>(std::size_t(n));
#pragma omp parallel for schedule(dynamic, 16) if (n > 100000)
  for (index_t l = 0; l < levels.count(); ++l)
    for (index_t q = levels.level_ptr[l]; q < levels.level_ptr[l + 1]; ++q) level[std::size_t(levels.rows[q])] = l;
#pragma omp parallel for schedule(static) if (n > 100000)
  for (index_t i = 0; i < n; ++i) work[std::size_t(i)] = A.row_ptr[i + 1] - A.row_ptr[i] + 1;
}

template <class T>
class SyncFreeBlocksSolver final : public Algorithm<T> {
 public:
  SyncFreeBlocksSolver(const Csr<T>& A, Triangle tri, DiagonalKind diag, const LevelSets& levels,
                       const SyncFreeBlocksTuning& tuning)
      : n_(A.rows), nnz_(A.nnz()) {
    if (n_ == 0) return;
    detail::set_watchdog(tuning.watchdog_ms);
    trace::Span plan_span("sync-free blocks: plan");
    std::vector<index_t> level, work;
    levels_and_work(A, levels, level, work);
    // Lanes a row: from the mean off-diagonal entries, or the tuning's.
    int lanes = detail::lanes_for(double(off_diagonal_entries(A, tri)) / double(n_));
    if (const int g = tuning.lanes; g == 1 || g == 4 || g == 8 || g == 16 || g == 32) lanes = g;
    plan_ = detail::plan_sync_free_blocks(level, work, tri, tuning.chunks > 0 ? tuning.chunks : default_chunks(tuning));
    plan_span.end();
    trace::Span layout_span("sync-free blocks: split, layout");
    const detail::OffDiagonal pattern = detail::split_diagonal(A, diag, plan_.order);
    ring_ = blocks::kRing<T>;
    if (const index_t r = tuning.ring; r > 0 && r < ring_ && (r & (r - 1)) == 0) ring_ = r;
    if (const int t = tuning.threads; t == 64 || t == 256 || t == 512 || t == 1024) threads_ = t;
    layout_ = detail::layout_sync_free_blocks(plan_, pattern, lanes, blocks::kCap);
    layout_span.end();
    const trace::Span device_span("sync-free blocks: uploads, values");
    detail::with_lanes(lanes, [&](auto g) { kernel_ = kernel_for_threads<T, decltype(g)::value>(threads_); });
    upload();
    // The values: A's, gathered into the layout on the device (no host
    // gathers); none for a pattern without values (A.nnz() > 0, no values:
    // TriangularSolver's values_pending), whose values come before any solve.
    if (A.nnz() == 0 || !A.values.empty()) {
      const cuda::DeviceBuffer<T> values{std::span<const T>(A.values)};
      update_values_device(values.data(), values.size());
    }
    for (auto& xp : xp_) {
      xp = cuda::DeviceBuffer<T>(std::size_t(n_));
      blocks::fill_sentinel_kernel<T><<<unsigned((n_ + 255) / 256), 256, 0, cuda::stream()>>>(xp.data(), xp.size());
      BALSA_CHECK_LAUNCH();
    }
    counters_ = cuda::DeviceBuffer<int>(3);
    counters_.fill_bytes(0);
  }

  void solve(const T* b, T* x) override {
    if (n_ == 0) return;
    if (epoch_ == INT_MAX) {  // the error word back to 0, epochs restart at 1
      BALSA_CUDA_CHECK(cudaMemsetAsync(counters_.data() + 2, 0, sizeof(int), cuda::stream()));
      epoch_ = 0;
    }
    ++epoch_;
    gather_device(rows_.data(), b, bp_.data(), std::size_t(n_));  // bp[k] = b[rows[k]]
    const blocks::View<T> v{plan_.chunks,     plan_.steps(),     chunk_ptr_.data(), chunk_step_.data(),
                            reinterpret_cast<const int4*>(steps_.data()),
                            ell_dep_.data(),  ell_val_.data(),   ell_dep_.size(),
                            ovf_ptr_.data(),  ovf_dep_.data(),   ovf_val_.data(),
                            inv_diag_.data(), diag_.data(),     bp_.data(),
                            rows_.data(),     n_,                ring_};
    T* cur = xp_[current_].data();
    current_ ^= 1;
    kernel_<<<unsigned(plan_.chunks), unsigned(threads_), 0, cuda::stream()>>>(v, x, cur, xp_[current_].data(),
                                                                               counters_.data(), epoch_);
    BALSA_CHECK_LAUNCH();
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "SyncFreeBlocks");
    if (n_ == 0) return;
    std::vector<T> ell, ovf, d;
    detail::gather_positions(std::span<const index_t>(layout_.ell_value_pos), values, ell);
    detail::gather_positions(std::span<const index_t>(layout_.ovf_value_pos), values, ovf);
    d.resize(std::size_t(n_));
    parallel::gather(std::span<const index_t>(layout_.diag_pos), values, std::span<T>(d), T(1));
    if (!ell.empty()) ell_val_.upload(ell);
    if (!ovf.empty()) ovf_val_.upload(ovf);
    diag_.upload(d);
    inv_diag_.upload(detail::reciprocals(std::span<const T>(d)));
  }

  void update_values_device(const T* values, std::size_t count) override {
    detail::require_values(count, std::size_t(nnz_), "SyncFreeBlocks");
    if (n_ == 0) return;
    gather_device(ell_pos_.data(), values, ell_val_.data(), ell_val_.size());
    gather_device(ovf_pos_.data(), values, ovf_val_.data(), ovf_val_.size());
    gather_device(diag_pos_.data(), values, diag_.data(), diag_.size(), T(1));
    gather_reciprocal_device(diag_pos_.data(), values, inv_diag_.data(), inv_diag_.size());
  }

  bool watchdog_fired() override { return n_ > 0 && detail::watchdog_fired_in(counters_.data() + 2, epoch_); }

  void describe(TrsvStats& st) const override {
    st.blocks.chunks = plan_.chunks;
    st.blocks.steps = plan_.steps();
    st.blocks.most_steps = plan_.most_steps;
    st.blocks.widest_step = plan_.widest_step;
  }

 private:
  // The plan and layout to the device.
  void upload() {
    using IndexSpan = std::span<const index_t>;
    chunk_ptr_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.chunk_ptr));
    chunk_step_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.chunk_step));
    steps_ = cuda::DeviceBuffer<index_t>(
        IndexSpan(reinterpret_cast<const index_t*>(layout_.steps.data()), layout_.steps.size() * 4));
    rows_ = cuda::DeviceBuffer<index_t>(IndexSpan(plan_.order));
    ell_dep_ = cuda::DeviceBuffer<index_t>(IndexSpan(layout_.ell_dep));
    ell_pos_ = cuda::DeviceBuffer<index_t>(IndexSpan(layout_.ell_value_pos));
    ovf_ptr_ = cuda::DeviceBuffer<index_t>(IndexSpan(layout_.ovf_ptr));
    ovf_dep_ = cuda::DeviceBuffer<index_t>(IndexSpan(layout_.ovf_dep));
    ovf_pos_ = cuda::DeviceBuffer<index_t>(IndexSpan(layout_.ovf_value_pos));
    diag_pos_ = cuda::DeviceBuffer<index_t>(IndexSpan(layout_.diag_pos));
    ell_val_ = cuda::DeviceBuffer<T>(layout_.ell_dep.size());
    ovf_val_ = cuda::DeviceBuffer<T>(layout_.ovf_dep.size());
    diag_ = cuda::DeviceBuffer<T>(std::size_t(n_));
    inv_diag_ = cuda::DeviceBuffer<T>(std::size_t(n_));
    bp_ = cuda::DeviceBuffer<T>(std::size_t(n_));
  }
  index_t default_chunks(const SyncFreeBlocksTuning& tuning) const {
    // chunks_per_sm per multiprocessor (the hand-overs between chunks are on
    // the critical path, so not more), but at least min_chunk_rows rows each.
    const index_t by_sm = index_t(cuda::multiprocessors()) * tuning.chunks_per_sm;
    return std::max<index_t>(1, std::min<index_t>(by_sm, n_ / std::max<index_t>(1, tuning.min_chunk_rows)));
  }
  index_t n_;
  index_t nnz_;
  detail::SyncFreeBlocksPlan plan_;
  detail::SyncFreeBlocksLayout layout_;
  int threads_ = 256;
  index_t ring_ = 0;  // entries of the shared-memory ring used (a power of two)
  SolveKernel<T> kernel_ = nullptr;
  cuda::DeviceBuffer<index_t> chunk_ptr_, chunk_step_, steps_, rows_, ell_dep_, ell_pos_, ovf_ptr_, ovf_dep_, ovf_pos_,
      diag_pos_;
  cuda::DeviceBuffer<T> ell_val_, ovf_val_, bp_;
  // By position: 1 / a_kk (1 for Unit; 0 where not finite), a multiply per
  // row instead of a divide; and a_kk for the rows where it is 0.
  cuda::DeviceBuffer<T> inv_diag_, diag_;
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
