// Internal: the GPU triangular-solve algorithms behind
// balsa::TriangularSolver (trsv/triangular_solver.cpp), each a trsv::Backend
// (trsv/backend.hpp), and their factories.
//
// The front end has already run check_triangular_system on A (canonical CSR,
// square, every entry in `tri`, nonzero diagonal unless Unit, finite). It
// hands the algorithm the matrix actually solved (for a transposed solve,
// A^T with the other triangle). The constructor analyses and uploads; solve()
// then runs on device pointers, asynchronously. Everything runs on the
// current stream (cuda/stream.hpp), which the front end sets to the solver's
// stream (TrsvOptions::stream) in each of its calls.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "trsv/backend.hpp"
#include "trsv/spike/spike_plan.hpp"

namespace balsa::trsv_gpu {

struct Analysis {
  index_t levels = 0;
  index_t widest_level = 0;
};

using PatternUpdate = trsv::PatternUpdate;

// The GPU backends (trsv/backend.hpp): solve() on device arrays. The
// constructor analyses and uploads.
template <class T>
class Algorithm : public trsv::Backend<T> {
 public:
  Device device() const final { return Device::Cuda; }
  // The default copies the values to the host (a round trip) and calls
  // update_values.
  void update_values_device(const T* values, std::size_t count) override;
};

template <class T>
void Algorithm<T>::update_values_device(const T* values, std::size_t count) {
  std::vector<T> host(count);
  cuda::detail::copy_to_host(host.data(), values, count * sizeof(T));
  this->update_values(host);
}

// Tuning of the GPU level-set solver (trsv/level_set/level_set.cu); the defaults are
// what the benchmark chose. Tests shrink them to reach every code path with
// small matrices.
struct LevelSetTuning {
  // Most threads of the one block that runs a run of thin levels (a power of
  // two, 32..1024); a staged run uses at least 128 (its copy phase).
  int thin_block = 1024;
  // A level runs in that block (not as a launch over the whole GPU) when it
  // needs at most this many passes of it.
  int thin_passes = 4;
  // Capacity of the shared-memory ring of x values (entries, a power of two);
  // 0: as many as 128 KB hold (64 KB beside a staging area).
  index_t ring_entries = 0;
  // Shared memory for staging chunks of levels (trsv/level_set/thin_run_staged.cuh);
  // 0: never stage.
  std::size_t staging_bytes = 96 * 1024;
};

// Factories, one per algorithm (trsv/*.cu and *_cuda.cpp; *_no_cuda.cpp throw).
template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag);
// The same with A's level sets already computed (the front end has them).
template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                             const LevelSets& levels, const LevelSetTuning& tuning = {});
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>& A, Triangle tri, DiagonalKind diag);
// The sync-free solvers' waits give up after watchdog_ms (TrsvOptions::watchdog_ms;
// <= 0: kDefaultWatchdogMs).
inline constexpr int kDefaultWatchdogMs = 2000;
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                                 const LevelSets& levels, int watchdog_ms = kDefaultWatchdogMs);
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>& A, Triangle tri, DiagonalKind diag);
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>& A, Triangle tri, DiagonalKind diag, int watchdog_ms);
// TASSL (trsv/tassl/tassl.cu): n_max 0 means as many values as a block's opt-in
// shared memory holds beside 32 KB of staging; max_width caps the round lanes
// of a block (tests shrink it); stage: narrow blocks (<= 64 lanes) copy their
// rounds' entries to shared memory with cp.async (where it fits).
struct TasslTuning {
  index_t n_max = 0;
  int max_width = 1024;
  bool stage = true;
};
template <class T>
std::unique_ptr<Algorithm<T>> make_tassl(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                         const TasslTuning& tuning = {});
// The n_max the GPU uses for T when none is given.
index_t tassl_default_n_max(std::size_t value_bytes);
// Sync-free blocks (trsv/sync_free_blocks/sync_free_blocks.cu): chunks 0
// means chunks_per_sm per multiprocessor, at least min_chunk_rows rows each.
// threads a block (64, 256, 512 or 1024; others: 256), lanes a row (1, 4, 8,
// 16 or 32; others: from the mean row length, detail::lanes_for) and ring
// entries (a power of two below the default 32 KB; others: the default):
// tests shrink them to reach every code path with small matrices.
// A.values may be empty: the values then come by an update before any solve.
struct SyncFreeBlocksTuning {
  index_t chunks = 0;
  index_t chunks_per_sm = 1;
  index_t min_chunk_rows = 256;
  int threads = 0;
  int lanes = 0;
  index_t ring = 0;
  int watchdog_ms = kDefaultWatchdogMs;
};
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_blocks(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                                    const LevelSets& levels, const SyncFreeBlocksTuning& tuning = {});
// Device-side checks and gathers of new values (trsv/device_values.cu).
// The first position (in `values`) holding NaN/Inf, or of a zero diagonal
// (diag_pos: a device array of `rows` positions, -1 for none), else -1.
struct BadValue {
  std::int64_t position = -1;
  bool zero_diagonal = false;
};
template <class T>
BadValue find_bad_value(const T* values, std::size_t count, const index_t* diag_pos, index_t rows);
// to[e] = from[pos[e]] (or `missing` where pos[e] < 0) for e < count
// (device arrays, asynchronous).
template <class T>
void gather_device(const index_t* pos, const T* from, T* to, std::size_t count, T missing = T(0));
// to[e] = 1 / from[pos[e]] (or 1 where pos[e] < 0), or 0 where that is not
// finite (a diagonal below 1 / max: the solve then divides): reciprocal
// diagonals, as the level-set solver's inv_diag.
template <class T>
void gather_reciprocal_device(const index_t* pos, const T* from, T* to, std::size_t count);

template <class T>
std::unique_ptr<Algorithm<T>> make_cusparse(const Csr<T>& A, Triangle tri, DiagonalKind diag);
// Spike (trsv/spike/spike.cu) with the partition chosen by the front end.
// A.values may be empty: the values then come by an update before any solve.
template <class T>
std::unique_ptr<Algorithm<T>> make_spike(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                         const trsv_spike::Partition& part);

}  // namespace balsa::trsv_gpu
