// Synchronization-free triangular solve, CSC form (TrsvAlgorithm::SyncFreeCsc):
// the algorithm of Liu et al. 2016, Sect. 3 (their Algorithm 2).
//
// Preprocessing (Sect. 3): A's off-diagonal part in CSC (balsa's transpose on
// the CSR pattern, which also gives each CSC entry's position in A's CSR
// values for update_values) and in_degree[r] = off-diagonal entries of row r.
// Solve: a warp per column i. Lane 0 waits until every dependency of row i
// has been counted (lock-wait), computes x_i = (b_i - left_sum_i) / a_ii, then
// the lanes add a_ri * x_i into left_sum[r] for the column's off-diagonal rows
// r (critical section) and count one dependency of each r done (lock-update).
//
// Ticket order: Sect. 3 assumes warps are dispatched in ascending order, which
// CUDA does not promise. Each block takes a ticket from a global atomic
// counter and handles the kWarps columns at positions [ticket * kWarps,
// ticket * kWarps + kWarps) of the dependency order (Lower: column = position,
// Upper: column = n-1-position). A column waits only on lower positions, held
// by blocks with earlier tickets (already running) or by earlier warps of its
// own block (resident with it), so every wait ends.
//
// Scratchpad optimization (Sect. 3, s_left_sum / s_in_degree): a dependant
// row whose column lies in the same block receives its update in shared memory
// (s_left_sum, and s_done counting the in-block dependencies done) instead of
// global memory. The global counter starts at the full in-degree D and is
// decremented by the other blocks only, so row i is ready when
// counter[i] == s_done[i]: if the two loads saw D - o (o out-of-block done,
// o <= D_out) and s (s <= D_in) with D - o == s, then o + s == D forces
// o == D_out and s == D_in, whatever the order and timing of the two loads.
//
// Memory ordering: a producing lane makes all its left_sum additions (global or
// shared atomics), then a release fence (device scope), then its counter
// updates (relaxed atomics). The consumer polls the counters with relaxed
// loads and, once ready, re-reads both with acquire loads. The values read are
// the last of each counter's chain of read-modify-writes, which extends the
// release sequence of every producer, so all left_sum additions of its
// dependencies happen before its reads of left_sum and s_left_sum.
#include <algorithm>
#include <climits>
#include <memory>

#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"

namespace balsa::trsv_gpu {

namespace {

constexpr int kWarps = 8;  // columns (warps) per block: the reach of the shared-memory path (tunable)

template <class T>
struct Columns {
  index_t n;
  const index_t* col_ptr;  // off-diagonal entries of column i
  const index_t* row_idx;
  const T* values;
  const T* diag;  // a_ii (1 for Unit)
};

// counter[0..n): dependencies of each row not yet counted; counter[n]: the
// ticket counter. Both are reset per solve by copying in_degree (with a 0 for
// the ticket). left_sum is zeroed per solve.
template <class T>
__global__ void __launch_bounds__(kWarps * 32)
    solve_columns_sync_free_kernel(Columns<T> m, const T* b, T* x, T* left_sum, int* counter, int* error, int epoch,
                                   bool upper) {
  __shared__ T s_left_sum[kWarps];
  __shared__ int s_done[kWarps];
  __shared__ std::int64_t s_first;
  if (threadIdx.x < kWarps) {
    s_left_sum[threadIdx.x] = T(0);
    s_done[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) s_first = std::int64_t(atomicAdd(counter + m.n, 1)) * kWarps;
  __syncthreads();  // the block's only barrier: warps wait on each other below

  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t first = s_first, pos = first + w;
  if (pos >= m.n) return;
  const index_t i = upper ? index_t(m.n - 1 - pos) : index_t(pos);

  // Lock-wait (lane 0) and the component x_i.
  T xi = T(0);
  if (lane == 0) {
    const int& global_left = counter[i];
    const int& block_done = s_done[w];
    const bool ok = detail::spin_until(
        [&] {
          return detail::load_relaxed(global_left) ==
                 detail::load_relaxed<int, ::cuda::thread_scope_block>(block_done);
        },
        error, epoch);
    // Both words are final once equal; the acquire loads re-read those values.
    (void)detail::load_acquire(global_left);
    (void)detail::load_acquire<int, ::cuda::thread_scope_block>(block_done);
    const T left = detail::load_relaxed(left_sum[i]) + s_left_sum[w];
    xi = ok ? (b[i] - left) / m.diag[i] : detail::quiet_nan<T>();  // watchdog: NaN, dependants still proceed
    x[i] = xi;
  }
  xi = __shfl_sync(0xffffffffu, xi, 0);

  // Critical section: left_sum updates, shared when the dependant is in this block.
  const index_t begin = m.col_ptr[i], end = m.col_ptr[i + 1];
  for (std::int64_t p = begin + lane; p < end; p += 32) {
    const index_t r = m.row_idx[p];
    const std::int64_t local = (upper ? std::int64_t(m.n) - 1 - r : std::int64_t(r)) - first;
    const T v = m.values[p] * xi;
    if (local < kWarps)  // local > w >= 0: dependants come later in the order
      atomicAdd(&s_left_sum[local], v);
    else
      atomicAdd(&left_sum[r], v);
  }
  ::cuda::atomic_thread_fence(::cuda::memory_order_release, ::cuda::thread_scope_device);
  // Lock-update: one dependency of each row r done.
  for (std::int64_t p = begin + lane; p < end; p += 32) {
    const index_t r = m.row_idx[p];
    const std::int64_t local = (upper ? std::int64_t(m.n) - 1 - r : std::int64_t(r)) - first;
    if (local < kWarps)
      atomicAdd(&s_done[local], 1);
    else
      atomicSub(&counter[r], 1);
  }
}

template <class T>
class SyncFreeCscSolver final : public Algorithm<T> {
 public:
  SyncFreeCscSolver(const Csr<T>& A, Triangle tri, DiagonalKind diag, int watchdog_ms)
      : n_(A.rows), nnz_(A.nnz()), upper_(tri == Triangle::Upper) {
    if (n_ == 0) return;
    detail::set_watchdog(watchdog_ms);
    pattern_ = detail::split_diagonal(A, diag);
    // CSC of the off-diagonal part; its "values" are positions in A.values.
    Csr<index_t> by_row{n_, n_, pattern_.row_ptr, pattern_.col_idx, pattern_.value_pos};
    Csr<index_t> by_col = transpose(by_row);
    csc_pos_ = std::move(by_col.values);
    std::vector<int> in_degree(std::size_t(n_) + 1, 0);  // [n]: the ticket counter's start
    for (index_t r = 0; r < n_; ++r) in_degree[r] = pattern_.row_ptr[r + 1] - pattern_.row_ptr[r];
    col_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(by_col.row_ptr));
    row_idx_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(by_col.col_idx));
    values_ = cuda::DeviceBuffer<T>(csc_pos_.size());
    diag_ = cuda::DeviceBuffer<T>(std::size_t(n_));
    upload_values(A.values);
    in_degree_ = cuda::DeviceBuffer<int>(std::span<const int>(in_degree));
    counter_ = cuda::DeviceBuffer<int>(in_degree.size());
    left_sum_ = cuda::DeviceBuffer<T>(std::size_t(n_));
    error_ = cuda::DeviceBuffer<int>(1);
    error_.fill_bytes(0);
  }

  void solve(const T* b, T* x) override {
    if (n_ == 0) return;
    if (epoch_ == INT_MAX) {  // error word back to 0, epochs restart at 1
      BALSA_CUDA_CHECK(cudaMemsetAsync(error_.data(), 0, sizeof(int), cuda::stream()));
      epoch_ = 0;
    }
    ++epoch_;
    cuda::detail::copy_on_device(counter_.data(), in_degree_.data(), in_degree_.bytes());
    BALSA_CUDA_CHECK(cudaMemsetAsync(left_sum_.data(), 0, left_sum_.bytes(), cuda::stream()));
    const Columns<T> m{n_, col_ptr_.data(), row_idx_.data(), values_.data(), diag_.data()};
    const std::size_t blocks = (std::size_t(n_) + kWarps - 1) / kWarps;
    solve_columns_sync_free_kernel<T><<<unsigned(blocks), kWarps * 32, 0, cuda::stream()>>>(
        m, b, x, left_sum_.data(), counter_.data(), error_.data(), epoch_, upper_);
    BALSA_CHECK_LAUNCH();
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "SyncFreeCsc");
    if (n_ == 0) return;
    upload_values(values);  // on the solver's stream: ordered after the solves queued there
  }

 private:
  void upload_values(std::span<const T> values) {
    std::vector<T> off(csc_pos_.size()), d;  // off-diagonals in CSC order
    for (std::size_t k = 0; k < csc_pos_.size(); ++k) off[k] = values[csc_pos_[k]];
    detail::gather_diagonal(pattern_, values, d);
    values_.upload(off);
    diag_.upload(d);
  }

  index_t n_;
  index_t nnz_;
  bool upper_;
  detail::OffDiagonal pattern_;
  std::vector<index_t> csc_pos_;  // CSC entry k is A.values[csc_pos_[k]]
  cuda::DeviceBuffer<index_t> col_ptr_, row_idx_;
  cuda::DeviceBuffer<T> values_, diag_, left_sum_;
  cuda::DeviceBuffer<int> in_degree_, counter_, error_;

 public:
  bool watchdog_fired() override { return n_ > 0 && detail::watchdog_fired_in(error_.data(), epoch_); }

 private:
  int epoch_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>& A, Triangle tri, DiagonalKind diag, int watchdog_ms) {
  return std::make_unique<SyncFreeCscSolver<T>>(A, tri, diag, watchdog_ms);
}

template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return make_sync_free_csc(A, tri, diag, kDefaultWatchdogMs);
}

#define BALSA_INSTANTIATE(T)                                                                           \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csc<T>(const Csr<T>&, Triangle, DiagonalKind); \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csc<T>(const Csr<T>&, Triangle, DiagonalKind, int);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
