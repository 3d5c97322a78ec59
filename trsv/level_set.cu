// Level-set triangular solve on the GPU (TrsvAlgorithm::LevelSet).
//
// Analysis (CPU): the dependency levels of A (balsa::level_sets); the rows are
// reordered level by level into an off-diagonal CSR copy plus the diagonal.
// Schedule: walking the levels, a level that needs more than one pass of the
// single block (rows x LANES > kThinBlock threads) gets a launch of its own
// over the whole GPU (LANES threads per row): in a graph a launch costs about
// as much as one block pass (measured on an H200, bench/results). A run of
// consecutive thinner levels becomes ONE launch of a single 1024-thread block
// that walks those levels with a block barrier between them. The launch
// sequence is captured once into a CUDA graph and replayed by every solve; b
// and x reach the kernels through a device "pointer slot" that solve()
// rewrites (stream-ordered) before each replay, so the graph never changes.
#include <algorithm>
#include <memory>

#include "balsa/graph.hpp"
#include "cuda/check.hpp"
#include "sparse/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"

namespace balsa::trsv_gpu {

namespace {

using detail::with_lanes;

constexpr int kThinBlock = 1024;  // threads of the block that runs merged thin levels
constexpr int kWideBlock = 256;

template <class T>
struct Slot {  // the right-hand side and solution of the current solve
  const T* b;
  T* x;
};

// The level-ordered system: permuted row k is row rows[k] of A.
template <class T>
struct LevelRows {
  const index_t* row_ptr;  // off-diagonal entries of permuted row k
  const index_t* col_idx;  // original column numbers
  const T* values;
  const T* diag;   // a_ii of permuted row k (1 for Unit)
  const index_t* rows;
};

// x_i = (b_i - sum_{j != i} a_ij x_j) / a_ii for permuted row k by a group of
// LANES consecutive lanes; every lane of the warp must call it (shuffles over
// the full warp), inactive groups with active == false.
template <class T, int LANES>
__device__ __forceinline__ void solve_row(const LevelRows<T>& m, index_t k, bool active, const T* b, T* x) {
  const int lane = threadIdx.x % LANES;
  T sum = T(0);
  if (active)
    // 64-bit p: row_ptr[k + 1] may lie within LANES of INT32_MAX.
    for (std::int64_t p = m.row_ptr[k] + lane; p < m.row_ptr[k + 1]; p += LANES) sum += m.values[p] * x[m.col_idx[p]];
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
  if (active && lane == 0) {
    const index_t i = m.rows[k];
    x[i] = (b[i] - sum) / m.diag[k];
  }
}

// One wide level: permuted rows [first, last), all independent of each other.
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

// Levels [first_level, last_level) by one block: the rows of a level spread
// over the block's threads, __syncthreads() between levels (it also makes the
// x values of one level visible to every thread of the block for the next).
template <class T, int LANES>
__global__ void __launch_bounds__(kThinBlock)
    solve_thin_levels_kernel(LevelRows<T> m, const Slot<T>* slot, const index_t* level_ptr, index_t first_level,
                             index_t last_level) {
  const T* b = slot->b;
  T* x = slot->x;
  constexpr index_t kRowsPerPass = kThinBlock / LANES;
  for (index_t level = first_level; level < last_level; ++level) {
    const index_t begin = level_ptr[level], end = level_ptr[level + 1];
    for (index_t k0 = begin; k0 < end; k0 += kRowsPerPass) {  // block-uniform
      const index_t k = k0 + index_t(threadIdx.x / LANES);
      solve_row<T, LANES>(m, k < end ? k : begin, k < end, b, x);
    }
    __syncthreads();
  }
}

struct Launch {
  bool wide;
  index_t first_level, last_level;
  int lanes;
};

template <class T>
class LevelSetSolver final : public Algorithm<T> {
 public:
  LevelSetSolver(const Csr<T>& A, DiagonalKind diag, const LevelSets& levels) : n_(A.rows), nnz_(A.nnz()) {
    if (n_ == 0) return;
    pattern_ = detail::split_diagonal(A, diag, levels.rows);
    std::vector<T> off, d;
    detail::gather_values(pattern_, std::span<const T>(A.values), off, d);
    row_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern_.row_ptr));
    col_idx_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern_.col_idx));
    values_ = cuda::DeviceBuffer<T>(std::span<const T>(off));
    diag_ = cuda::DeviceBuffer<T>(std::span<const T>(d));
    rows_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.rows));
    level_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.level_ptr));
    slot_ = cuda::DeviceBuffer<Slot<T>>(1);
    plan(levels);
    capture(levels.level_ptr);
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
  void plan(const LevelSets& levels) {
    auto lanes = [&](index_t first, index_t last) {
      const index_t r0 = levels.level_ptr[first], r1 = levels.level_ptr[last];
      return detail::lanes_for(double(pattern_.row_ptr[r1] - pattern_.row_ptr[r0]) / double(r1 - r0));
    };
    // Wide: one pass of the single block cannot cover the level.
    auto wide = [&](index_t l) { return std::int64_t(levels.width(l)) * lanes(l, l + 1) > kThinBlock; };
    for (index_t l = 0; l < levels.count();) {
      if (wide(l)) {
        launches_.push_back({true, l, l + 1, lanes(l, l + 1)});
        ++l;
        continue;
      }
      index_t e = l;
      while (e < levels.count() && !wide(e)) ++e;
      launches_.push_back({false, l, e, lanes(l, e)});
      l = e;
    }
  }

  void capture(const std::vector<index_t>& level_ptr) {
    const int sms = detail::multiprocessors();
    const LevelRows<T> m{row_ptr_.data(), col_idx_.data(), values_.data(), diag_.data(), rows_.data()};
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
          solve_thin_levels_kernel<T, LANES>
              <<<1, kThinBlock, 0, cap.get()>>>(m, slot_.data(), level_ptr_.data(), L.first_level, L.last_level);
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
  cuda::DeviceBuffer<index_t> row_ptr_, col_idx_, rows_, level_ptr_;
  cuda::DeviceBuffer<T> values_, diag_;
  cuda::DeviceBuffer<Slot<T>> slot_;
  std::vector<Launch> launches_;
  // Destroyed before the buffers (declared after them).
  detail::GraphExec exec_;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                             const LevelSets& levels) {
  if (levels.rows.size() != std::size_t(A.rows))
    throw DimensionError("make_level_set: level sets of " + std::to_string(levels.rows.size()) + " rows for " +
                         std::to_string(A.rows));
  (void)tri;  // the levels carry the triangle's dependency order
  return std::make_unique<LevelSetSolver<T>>(A, diag, levels);
}

template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return make_level_set(A, tri, diag, level_sets(A, tri));
}

#define BALSA_INSTANTIATE(T) \
  template std::unique_ptr<Algorithm<T>> make_level_set<T>(const Csr<T>&, Triangle, DiagonalKind); \
  template std::unique_ptr<Algorithm<T>> make_level_set<T>(const Csr<T>&, Triangle, DiagonalKind, const LevelSets&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
