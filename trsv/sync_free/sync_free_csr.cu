// Synchronization-free triangular solve, CSR form (TrsvAlgorithm::SyncFree).
//
// Liu et al. 2016 (Sect. 3) let every component of x wait for exactly its own
// dependencies instead of a level barrier. This is the row-oriented variant:
// row i reads the x_j of its off-diagonal entries, waiting on a per-row
// readiness flag for each, and needs no atomics on values.
//
// Order: rows are taken level by level (the level sets of the analysis; a
// row's "position" is its index in that order). In natural row order the
// resident warps (about 8,000 on an H200) cover only a few consecutive rows
// of a long chain, so on a 2D Laplacian the solve crawled along a handful of
// chains; in level order they cover whole levels, which then finish about one
// dependency hop apart. Dependencies, flags and a position-indexed copy of x
// (xp) are addressed by position; x itself is written in A's row order.
//
// Scheduling (Sect. 3 requires the partial order to be respected to rule out
// deadlock; CUDA does not start blocks in index order): each warp takes a
// ticket from a global atomic counter and solves the rows at positions
// [ticket * R, ticket * R + R). A row depends only on lower positions (earlier
// levels), which belong to warps that took earlier tickets and are therefore
// already running, or to earlier lanes of its own warp; by induction on the
// position every wait ends.
//
// Granularity (from the mean off-diagonal row length, detail::lanes_for): G
// lanes per row, G = 1 (a thread per row, R = 32 rows per warp), 4, 8, 16
// (R = 32/G rows per warp), or 32 (a warp per row). The lanes of a row split
// its entries; each lane waits only on the flags of its own entries; the
// group then sums with shuffles.
//
// Waiting on a lane of the same warp (G < 32): dependencies point to lower
// positions only, so a producing lane never waits on a consumer, and between a
// lane's first wait and its release store the only warp-level operations are
// the group shuffles, whose mask names only the row's own group (every member
// of which waits only on lower positions). No __syncwarp or full-warp shuffle
// follows the ticket broadcast. On sm_70+ independent thread scheduling is
// starvation-free: a spinning lane cannot stop a diverged producing lane of its
// warp from progressing (the __nanosleep back-off in spin_until also yields).
//
// Memory ordering: the producer of position k stores xp_k (plain store), then stores
// flag[k] = epoch with release semantics (device scope). A consumer polls
// flag[i] with relaxed loads until it reads `epoch`, then loads it once more
// with acquire semantics (device scope; coherence makes it read `epoch`), so
// it synchronizes with that release and its later plain loads of x_i return
// the new value (not the last solve's). xp is never
// read through the non-coherent read-only path (no __ldg, no const __restrict__).
// The epoch (solve counter, 1-based) makes stale flags of the previous solve
// (epoch - 1, or 0) never match, so flags are reset only when the counter wraps.
#include <algorithm>
#include <climits>
#include <memory>

#include "balsa/graph.hpp"
#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"

namespace balsa::trsv_gpu {

namespace {

constexpr int kBlock = 256;

template <class T>
struct Rows {
  index_t n;
  const index_t* row_ptr;  // off-diagonal entries of position k
  const index_t* dep;      // the position each entry depends on
  const T* values;
  const T* diag;  // a_ii of position k (1 for Unit)
  const index_t* rows;  // position k is row rows[k] of A
};

// sync: flags[0..n) per position, then the error word (sync[n]) and the
// ticket counter (sync[n + 1]).
template <class T, int G>
__global__ void __launch_bounds__(kBlock)
    solve_rows_sync_free_kernel(Rows<T> m, const T* b, T* x, T* xp, int* sync, int epoch) {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two up to a warp");
  constexpr int R = 32 / G;  // rows per warp
  int* flags = sync;
  int* error = sync + m.n;
  const int lane = threadIdx.x % 32;
  int ticket = 0;
  if (lane == 0) ticket = atomicAdd(sync + m.n + 1, 1);
  ticket = __shfl_sync(0xffffffffu, ticket, 0);  // the warp's only full-warp operation
  const std::int64_t pos = std::int64_t(ticket) * R + lane / G;
  if (pos >= m.n) return;  // whole groups leave together
  const index_t k = index_t(pos);
  const int g = lane % G;

  // Wait for every dependency of this lane's entries, then read the xp_j.
  const index_t begin = m.row_ptr[k], end = m.row_ptr[k + 1];
  bool ok = true;
  for (std::int64_t p = begin + g; p < end; p += G) {
    const int& flag = flags[m.dep[p]];
    ok = detail::spin_until([&] { return detail::load_relaxed(flag) == epoch; }, error, epoch) && ok;
    (void)detail::load_acquire(flag);  // reads `epoch` again: synchronizes with the producer's release
  }
  T sum = T(0);
  for (std::int64_t p = begin + g; p < end; p += G) sum += m.values[p] * xp[m.dep[p]];
  if (!ok) sum = detail::quiet_nan<T>();  // watchdog: x_i becomes NaN, dependants still proceed
  if constexpr (G > 1) {
    const unsigned group = (G == 32 ? 0xffffffffu : ((1u << G) - 1u)) << (lane & ~(G - 1) & 31);
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(group, sum, offset, G);
  }
  if (g == 0) {
    const index_t i = m.rows[k];
    const T xi = (b[i] - sum) / m.diag[k];
    xp[k] = xi;
    x[i] = xi;
    detail::store_release(flags[k], epoch);  // publishes xp_k (after it is written)
  }
}

template <class T>
class SyncFreeCsrSolver final : public Algorithm<T> {
 public:
  SyncFreeCsrSolver(const Csr<T>& A, DiagonalKind diag, const LevelSets& levels, int watchdog_ms)
      : n_(A.rows), nnz_(A.nnz()) {
    if (n_ == 0) return;
    detail::set_watchdog(watchdog_ms);
    pattern_ = detail::split_diagonal(A, diag, levels.rows);
    const std::vector<index_t> pos_of = inverse_permutation(levels.rows);
    std::vector<index_t> dep(pattern_.col_idx.size());
    for (std::size_t p = 0; p < dep.size(); ++p) dep[p] = pos_of[static_cast<std::size_t>(pattern_.col_idx[p])];
    std::vector<T> off, d;
    detail::gather_values(pattern_, std::span<const T>(A.values), off, d);
    row_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern_.row_ptr));
    dep_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(dep));
    rows_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.rows));
    xp_ = cuda::DeviceBuffer<T>(std::size_t(n_));
    values_ = cuda::DeviceBuffer<T>(std::span<const T>(off));
    diag_ = cuda::DeviceBuffer<T>(std::span<const T>(d));
    sync_ = cuda::DeviceBuffer<int>(std::size_t(n_) + 2);
    sync_.fill_bytes(0);
    lanes_ = detail::lanes_for(double(pattern_.nnz()) / double(n_));
  }

  void solve(const T* b, T* x) override {
    if (n_ == 0) return;
    if (epoch_ == INT_MAX) {  // flags and error word back to 0, epochs restart at 1
      BALSA_CUDA_CHECK(cudaMemsetAsync(sync_.data(), 0, (std::size_t(n_) + 1) * sizeof(int), cuda::stream()));
      epoch_ = 0;
    }
    ++epoch_;
    BALSA_CUDA_CHECK(cudaMemsetAsync(sync_.data() + n_ + 1, 0, sizeof(int), cuda::stream()));  // ticket counter
    const Rows<T> m{n_, row_ptr_.data(), dep_.data(), values_.data(), diag_.data(), rows_.data()};
    detail::with_lanes(lanes_, [&](auto lanes_c) {
      constexpr int G = decltype(lanes_c)::value;
      const std::size_t warps = (std::size_t(n_) + 32 / G - 1) / (32 / G);
      const std::size_t blocks = (warps * 32 + kBlock - 1) / kBlock;
      solve_rows_sync_free_kernel<T, G>
          <<<unsigned(blocks), kBlock, 0, cuda::stream()>>>(m, b, x, xp_.data(), sync_.data(), epoch_);
    });
    BALSA_CHECK_LAUNCH();
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "SyncFree");
    if (n_ == 0) return;
    std::vector<T> off, d;
    detail::gather_values(pattern_, values, off, d);
    values_.upload(off);  // on the solver's stream: ordered after the solves queued there
    diag_.upload(d);
  }

 private:
  index_t n_;
  index_t nnz_;
  detail::OffDiagonal pattern_;
  cuda::DeviceBuffer<index_t> row_ptr_, dep_, rows_;
  cuda::DeviceBuffer<T> values_, diag_, xp_;
  cuda::DeviceBuffer<int> sync_;
  int lanes_ = 1;

 public:
  bool watchdog_fired() override { return n_ > 0 && detail::watchdog_fired_in(sync_.data() + n_, epoch_); }

 private:
  int epoch_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                                 const LevelSets& levels, int watchdog_ms) {
  detail::require_level_sets(levels, A.rows, "make_sync_free_csr");
  (void)tri;  // the levels carry the triangle's dependency order
  return std::make_unique<SyncFreeCsrSolver<T>>(A, diag, levels, watchdog_ms);
}

template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return make_sync_free_csr(A, tri, diag, level_sets(A, tri));
}

#define BALSA_INSTANTIATE(T)                                                                             \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csr<T>(const Csr<T>&, Triangle, DiagonalKind); \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csr<T>(const Csr<T>&, Triangle, DiagonalKind,  \
                                                               const LevelSets&, int);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
