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
// consecutive thinner levels becomes one block that walks those levels with a
// block barrier between them, keeping the x it computes in a shared-memory
// ring, after a grid-wide prepass over the run's external entries
// (trsv/level_set/thin_run.cuh, thin_run_layout.hpp). The launch sequence is captured
// once into a CUDA graph and replayed by every solve on the solver's stream;
// b and x reach the kernels through a device "pointer slot" that solve()
// rewrites (stream-ordered) before each replay, so the graph never changes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>
#include <memory>

#include "balsa/graph.hpp"
#include "cuda/check.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"
#include "trsv/level_set/thin_run.cuh"
#include "trsv/level_set/thin_run_staged.cuh"

namespace balsa::trsv_gpu {

namespace {

using detail::CsrRows;
using detail::RhsAndX;
using detail::with_lanes;

constexpr int kWideBlock = 256;
constexpr std::size_t kRingBytes = 128 * 1024;        // default ring: 128 KB of the ~227 KB a block may use
constexpr std::size_t kStagedRingBytes = 64 * 1024;   // beside a staging area
constexpr double kLevelsPerChunk = 4;  // staging (a ~1-2 us cp.async phase) pays from about this many levels a chunk

// One wide level: positions [first, last), all independent of each other.
template <class T, int LANES>
__global__ void __launch_bounds__(kWideBlock)
    solve_wide_level_kernel(CsrRows<T> m, const T* diag, const RhsAndX<T>* slot, index_t first, index_t last) {
  const T* b = slot->b;
  T* x = slot->x;
  const std::size_t count = std::size_t(last - first);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  // `base` is the first thread of this warp: the loop is warp-uniform.
  for (std::size_t base = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) & ~std::size_t(31); base / LANES < count;
       base += stride) {
    const std::size_t r = (base + threadIdx.x % 32) / LANES;
    const index_t k = first + index_t(r < count ? r : 0);
    const T sum = detail::group_row_sum<T, LANES>(m, r < count ? m.row_ptr[k] : 0, r < count ? m.row_ptr[k + 1] : 0, x);
    if (r < count && threadIdx.x % LANES == 0) {
      const index_t i = m.rows[k];
      x[i] = (b[i] - sum) / diag[k];
    }
  }
}

struct Launch {
  bool wide;
  index_t first_level, last_level;
  int lanes;
  int threads = 0;  // thin runs: block size
  int run = -1;     // thin runs: index into runs_
  // staged thin runs: chunks [chunk_offset, chunk_offset + chunks] of chunk_levels_, `capacity` positions each
  bool staged = false;
  std::size_t chunk_offset = 0;
  index_t chunks = 0, capacity = 0;
};

// Staging bytes per position of a run with `lanes` lanes (StagedLayout::per_position).
template <class T>
std::size_t staged_bytes_per_position(int lanes) {
  std::size_t bytes = 0;
  with_lanes(lanes, [&](auto lanes_c) { bytes = detail::StagedLayout<T, decltype(lanes_c)::value>::per_position; });
  return bytes;
}

index_t floor_pow2(std::size_t v) { return index_t(std::bit_floor(std::max<std::size_t>(v, 1))); }
index_t ceil_pow2(std::size_t v) { return index_t(std::bit_ceil(std::max<std::size_t>(v, 1))); }

template <class T>
class LevelSetSolver final : public Algorithm<T> {
 public:
  LevelSetSolver(const Csr<T>& A, DiagonalKind diag, const LevelSets& levels, LevelSetTuning tuning)
      : n_(A.rows), nnz_(A.nnz()) {
    if (n_ == 0) return;
    if (tuning.thin_block < 32 || tuning.thin_block > detail::kMaxThinBlock ||
        !std::has_single_bit(unsigned(tuning.thin_block)))
      throw Error("LevelSetTuning: thin_block must be a power of two in [32, 1024]");
    if (tuning.ring_entries < 0 || (tuning.ring_entries > 0 && !std::has_single_bit(unsigned(tuning.ring_entries))))
      throw Error("LevelSetTuning: ring_entries must be 0 or a power of two");
    if (tuning.thin_passes < 1) throw Error("LevelSetTuning: thin_passes must be at least 1");
    pattern_ = detail::split_diagonal(A, diag, levels.rows);
    plan(levels, tuning);
    detail::ThinRunLayout layout = detail::lay_out_thin_runs(pattern_, levels, runs_);
    ell_offset_ = layout.ell_offset;
    ell_pos_ = std::move(layout.ell_pos);
    ovf_pos_ = std::move(layout.ovf_pos);
    row_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern_.row_ptr));
    ext_end_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(layout.ext_end));
    ref_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern_.col_idx));  // reordered by the layout
    ell_ref_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(layout.ell_ref));
    ovf_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(layout.ovf_ptr));
    ovf_ref_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(layout.ovf_ref));
    rows_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.rows));
    level_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.level_ptr));
    rhs_ = cuda::DeviceBuffer<T>(std::size_t(n_));
    slot_ = cuda::DeviceBuffer<RhsAndX<T>>(1);
    upload_values(std::span<const T>(A.values));
    capture(levels.level_ptr);
  }

  void solve(const T* b, T* x) override {
    if (n_ == 0) return;
    const RhsAndX<T> s{b, x};  // pageable source: staged before cudaMemcpyAsync returns
    // On the solver's stream: ordered with the caller's work there.
    BALSA_CUDA_CHECK(cudaMemcpyAsync(slot_.data(), &s, sizeof s, cudaMemcpyHostToDevice, cuda::stream()));
    BALSA_CUDA_CHECK(cudaGraphLaunch(exec_.get(), cuda::stream()));
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "LevelSet");
    if (n_ == 0) return;
    upload_values(values);
  }

  // The same gathers as upload_values, on the device (asynchronous on the
  // solver's stream, no host round trip). The position maps go to the device
  // at the first such update.
  void update_values_device(const T* values, std::size_t count) override {
    detail::require_values(count, std::size_t(nnz_), "LevelSet");
    if (n_ == 0) return;
    if (!maps_on_device_) {
      using IndexSpan = std::span<const index_t>;
      value_pos_dev_ = cuda::DeviceBuffer<index_t>(IndexSpan(pattern_.value_pos));
      diag_pos_dev_ = cuda::DeviceBuffer<index_t>(IndexSpan(pattern_.diag_pos));
      ell_pos_dev_ = cuda::DeviceBuffer<index_t>(IndexSpan(ell_pos_));
      ovf_pos_dev_ = cuda::DeviceBuffer<index_t>(IndexSpan(ovf_pos_));
      maps_on_device_ = true;
    }
    gather_device(value_pos_dev_.data(), values, values_.data(), values_.size());
    gather_device(diag_pos_dev_.data(), values, diag_.data(), diag_.size(), T(1));
    gather_reciprocal_device(diag_pos_dev_.data(), values, inv_diag_.data(), inv_diag_.size());
    gather_device(ell_pos_dev_.data(), values, ell_val_.data(), ell_val_.size());
    gather_device(ovf_pos_dev_.data(), values, ovf_val_.data(), ovf_val_.size());
  }

 private:
  // Values in A's CSR order -> the CSR copy, the diagonal, the ELL and
  // overflow slots. Copies on the solver's stream: after the replays queued
  // there, before later ones.
  void upload_values(std::span<const T> values) {
    std::vector<T> off, d, ell, ovf;
    detail::gather_values(pattern_, values, off, d);
    detail::gather_positions(std::span<const index_t>(ell_pos_), values, ell);
    detail::gather_positions(std::span<const index_t>(ovf_pos_), values, ovf);
    auto put = [](cuda::DeviceBuffer<T>& buffer, const std::vector<T>& host) {
      if (buffer.size() != host.size()) buffer = cuda::DeviceBuffer<T>(host.size());
      buffer.upload(host);
    };
    put(values_, off);
    put(diag_, d);
    put(inv_diag_, detail::reciprocals(std::span<const T>(d)));
    put(ell_val_, ell);
    put(ovf_val_, ovf);
  }

  // The launch sequence: wide levels alone, runs of thin levels merged.
  void plan(const LevelSets& levels, const LevelSetTuning& tuning) {
    auto lanes = [&](index_t first, index_t last) {
      const index_t r0 = levels.level_ptr[first], r1 = levels.level_ptr[last];
      return detail::lanes_for(double(pattern_.row_ptr[r1] - pattern_.row_ptr[r0]) / double(r1 - r0));
    };
    auto threads_for = [&](index_t l, int lanes_l) { return std::int64_t(levels.width(l)) * lanes_l; };
    const std::int64_t thin_limit = std::int64_t(tuning.thin_passes) * tuning.thin_block;
    auto wide = [&](index_t l) { return threads_for(l, lanes(l, l + 1)) > thin_limit; };
    optin_ = cuda::optin_shared_bytes();
    // Ring entries: `bytes` worth (the zero slot is extra), within what a block may use.
    auto ring_cap = [&](std::size_t bytes) {
      return tuning.ring_entries > 0 ? tuning.ring_entries
                                     : floor_pow2(std::min(bytes, optin_ - sizeof(T)) / sizeof(T));
    };
    if (tuning.ring_entries > 0 && (std::size_t(tuning.ring_entries) + 1) * sizeof(T) > optin_)
      throw Error("LevelSetTuning: a ring of " + std::to_string(tuning.ring_entries) +
                  " entries exceeds the shared memory a block may use (" + std::to_string(optin_) + " bytes)");
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
      run.run = int(runs_.size());
      const std::size_t positions = std::size_t(levels.level_ptr[e] - levels.level_ptr[l]);
      // Staged when every level fits a chunk of the staging area.
      run.capacity = index_t(std::min<std::size_t>(tuning.staging_bytes / staged_bytes_per_position<T>(run.lanes),
                                                   std::size_t(INT32_MAX / 64)));
      index_t widest = 0;
      for (index_t k = l; k < e; ++k) widest = std::max(widest, levels.width(k));
      // Staged when every level fits a chunk and a chunk holds many levels on
      // average (each chunk's copy phase costs a few us).
      run.staged = run.capacity > 0 && widest <= run.capacity &&
                   double(run.capacity) * double(e - l) >= kLevelsPerChunk * double(positions);
      const index_t ring = std::min(ring_cap(run.staged ? kStagedRingBytes : kRingBytes), ceil_pow2(positions));
      runs_.push_back({l, e, run.lanes, ring});
      if (run.staged) {  // chunks: as many whole levels as fit `capacity` positions
        run.threads = std::max(run.threads, 128);
        run.chunk_offset = chunk_levels_host_.size();
        chunk_levels_host_.push_back(l);
        for (index_t k = l; k < e; ++k)
          if (levels.level_ptr[k + 1] - levels.level_ptr[chunk_levels_host_.back()] > run.capacity)
            chunk_levels_host_.push_back(k);
        chunk_levels_host_.push_back(e);
        run.chunks = index_t(chunk_levels_host_.size() - run.chunk_offset - 1);
        for (index_t c = 0; c < run.chunks; ++c) {  // narrow: every level fits warp 0
          bool narrow = true;
          for (index_t k = chunk_levels_host_[run.chunk_offset + c]; k < chunk_levels_host_[run.chunk_offset + c + 1]; ++k)
            narrow = narrow && std::int64_t(levels.width(k)) * run.lanes <= 32;
          chunk_narrow_host_.push_back(narrow ? 1 : 0);
        }
        chunk_narrow_host_.push_back(0);  // keeps chunk_narrow_host_ aligned with chunk_levels_host_
        const std::size_t bytes = staged_smem(run);
        if (bytes > optin_) run.staged = false;  // a tuning that does not fit: the unstaged kernel
      }
      launches_.push_back(run);
      l = e;
    }
  }

  static std::size_t ring_bytes(const detail::ThinRunPlan& run) {  // the ring and its zero slot
    return (std::size_t(run.ring) + 1) * sizeof(T);
  }
  std::size_t staged_smem(const Launch& L) const {
    std::size_t bytes = 0;
    with_lanes(L.lanes, [&](auto lanes_c) {
      bytes = detail::StagedLayout<T, decltype(lanes_c)::value>(runs_[std::size_t(L.run)].ring, L.capacity).total;
    });
    return bytes;
  }
  std::size_t launch_smem(const Launch& L) const {
    return L.staged ? staged_smem(L) : ring_bytes(runs_[std::size_t(L.run)]);
  }

  void capture(const std::vector<index_t>& level_ptr) {
    const int sms = cuda::multiprocessors();
    const CsrRows<T> m{row_ptr_.data(), ext_end_.data(), ref_.data(), values_.data(), rows_.data()};
    auto grid_for = [&](index_t first, index_t last, int lanes) {
      const std::size_t blocks = (std::size_t(last - first) * lanes + kWideBlock - 1) / kWideBlock;
      return int(std::clamp<std::size_t>(blocks, 1, std::size_t(sms) * 32));
    };
    chunk_levels_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(chunk_levels_host_));
    chunk_narrow_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(chunk_narrow_host_));
    // Shared memory beyond the 48 KB default needs an opt-in per kernel: the
    // most any launch of that kernel uses.
    std::map<std::pair<bool, int>, std::size_t> most;
    for (const Launch& L : launches_)
      if (!L.wide) most[{L.staged, L.lanes}] = std::max(most[{L.staged, L.lanes}], launch_smem(L));
    for (const auto& [kernel, bytes] : most)
      with_lanes(kernel.second, [&, staged = kernel.first, bytes = int(bytes)](auto lanes_c) {
        constexpr int LANES = decltype(lanes_c)::value;
        if (staged)
          cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(detail::thin_run_staged_kernel<T, LANES>),
                                              bytes);
        else
          cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(detail::thin_run_kernel<T, LANES>), bytes);
      });
    // Replays go to the solver's stream; the capture uses its own stream.
    exec_ = cuda::capture_graph([&](cudaStream_t stream) {
      for (const Launch& L : launches_) {
        const index_t first = level_ptr[L.first_level], last = level_ptr[L.last_level];
        with_lanes(L.lanes, [&](auto lanes_c) {
          constexpr int LANES = decltype(lanes_c)::value;
          if (L.wide) {
            solve_wide_level_kernel<T, LANES>
                <<<grid_for(first, last, LANES), kWideBlock, 0, stream>>>(m, diag_.data(), slot_.data(), first, last);
            return;
          }
          const detail::ThinRunPlan& run = runs_[std::size_t(L.run)];
          const std::size_t ell = ell_offset_[std::size_t(L.run)];
          detail::thin_run_rhs_kernel<T, LANES>
              <<<grid_for(first, last, LANES), kWideBlock, 0, stream>>>(m, slot_.data(), rhs_.data(), first, last);
          const detail::ThinRun<T> v{rhs_.data(),     inv_diag_.data(),      diag_.data(),          rows_.data(),
                                     ovf_ptr_.data(), ovf_ref_.data(),       ovf_val_.data(),       ell_ref_.data() + ell,
                                     ell_val_.data() + ell, level_ptr_.data(), first,               unsigned(run.ring - 1)};
          if (L.staged)
            detail::thin_run_staged_kernel<T, LANES><<<1, L.threads, launch_smem(L), stream>>>(
                v, slot_.data(), chunk_levels_.data() + L.chunk_offset, chunk_narrow_.data() + L.chunk_offset, L.chunks,
                L.capacity);
          else
            detail::thin_run_kernel<T, LANES><<<1, L.threads, launch_smem(L), stream>>>(v, slot_.data(), L.first_level,
                                                                                            L.last_level);
        });
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      }
      return cudaSuccess;
    });
  }

  index_t n_;
  index_t nnz_;
  detail::OffDiagonal pattern_;
  std::vector<detail::ThinRunPlan> runs_;
  std::vector<Launch> launches_;
  std::vector<std::size_t> ell_offset_;
  std::vector<index_t> ell_pos_, ovf_pos_;  // value maps of the ELL and overflow slots
  // update_values_device: pattern_'s value and diagonal maps and the two above, on the device.
  cuda::DeviceBuffer<index_t> value_pos_dev_, diag_pos_dev_, ell_pos_dev_, ovf_pos_dev_;
  bool maps_on_device_ = false;
  std::vector<index_t> chunk_levels_host_, chunk_narrow_host_;
  std::size_t optin_ = 0;  // shared memory a block may opt in to
  cuda::DeviceBuffer<index_t> row_ptr_, ext_end_, ref_, ell_ref_, ovf_ptr_, ovf_ref_, rows_, level_ptr_, chunk_levels_,
      chunk_narrow_;
  cuda::DeviceBuffer<T> values_, diag_, inv_diag_, ell_val_, ovf_val_, rhs_;
  cuda::DeviceBuffer<RhsAndX<T>> slot_;
  // Destroyed before the buffers (declared after them); a replay in flight
  // keeps the graph until it ends, and the buffers' frees are ordered after
  // it on the solver's stream.
  cuda::GraphExec exec_;
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                             const LevelSets& levels, const LevelSetTuning& tuning) {
  detail::require_level_sets(levels, A.rows, "make_level_set");
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
