// Internal: the interface every triangular-solve algorithm implements behind
// balsa::TriangularSolver (trsv/triangular_solver.cpp), on the CPU and on the
// GPU alike: generate (the constructor analyses M, the matrix actually
// solved) -> solve many times -> new values -> (TASSL) new patterns.
//
//   algorithm        CPU (adapters in trsv/backends.cpp)    GPU
//   Reference        trsv/substitution.hpp                  --
//   LevelSet         trsv/level_set/level_set_cpu.cpp       trsv/level_set/level_set.cu
//   Tassl            trsv/tassl/tassl_cpu.cpp               trsv/tassl/tassl.cu
//   Spike            trsv/spike/spike_cpu.cpp               trsv/spike/spike.cu
//   SyncFree, -Csc   --                                     trsv/sync_free/sync_free_csr.cu, sync_free_csc.cu
//   SyncFreeBlocks   --                                     trsv/sync_free_blocks/sync_free_blocks.cu
//   Cusparse         --                                     trsv/cusparse/spsv_cusparse_cuda.cpp
//
// Which calls each supports:
//  - solve / solve_many: all, on arrays in the backend's memory (device() ==
//    Device::Cpu: host arrays; Device::Cuda: device arrays, asynchronous on
//    the current stream, cuda/stream.hpp);
//  - update_values (host values): all;
//  - update_values_device: the GPU backends (the front end refuses device
//    values on a CPU backend: "device values need a solver on Device::Cuda");
//  - update_pattern (an incremental analysis): TASSL only, CPU and GPU; the
//    others answer false and the front end analyses the new matrix afresh;
//  - watchdog_fired: the GPU sync-free solvers only (the others never wait);
//  - describe: the algorithm's own TrsvStats fields (tassl, blocks, spike's
//    partition); the front end fills the common ones (rows, levels, times).
//
// The front end has already run check_triangular_system on A and hands the
// backend M (for a transposed solve, A^T with the other triangle).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "trsv/tassl/tassl_update.hpp"

namespace balsa::trsv {

// A pattern update (TriangularSolver::replace_columns): what changed, the
// limits of an incremental update, and what it did.
struct PatternUpdate {
  const tassl::PatternChange* change = nullptr;
  std::int64_t edge_budget = 0;  // give up when more edges must be scheduled again
  index_t max_levels = 0;        // give up when the sub-graph levels grow past this
  std::string reason;            // why it gave up
  std::int64_t scheduled_edges = 0, uploaded_bytes = 0;
  index_t blocks = 0, relocated = 0;
  bool recaptured = false;
};

template <class T>
class Backend {
 public:
  virtual ~Backend() = default;
  // Where solve's arrays live: Device::Cpu (host) or Device::Cuda (device).
  virtual Device device() const = 0;
  // x = M^{-1} b; b and x hold the matrix's rows and must not alias. Every
  // entry of x is written.
  virtual void solve(const T* b, T* x) = 0;
  // X = M^{-1} B for `columns` right-hand sides of `rows` values each
  // (column-major, leading dimension rows). The default solves column by column.
  virtual void solve_many(const T* B, T* X, index_t rows, index_t columns) {
    for (index_t c = 0; c < columns; ++c)
      solve(B + std::size_t(c) * std::size_t(rows), X + std::size_t(c) * std::size_t(rows));
  }
  // New values in the CSR order of M (the front end has checked them).
  virtual void update_values(std::span<const T> values) = 0;
  // The same from device memory (checked on the device), asynchronous.
  virtual void update_values_device(const T* values, std::size_t count) = 0;
  // M became M_new (same size; `u.change` says how): true when the backend
  // updated its analysis in place, false (u.reason) when it cannot, the front
  // end then analysing M_new afresh (this backend is then discarded, whatever
  // state it was left in).
  virtual bool update_pattern(const Csr<T>& M_new, PatternUpdate& u) {
    (void)M_new;
    u.reason = "this algorithm has no incremental analysis";
    return false;
  }
  // Waits for the last solve; true if a dependency wait of it exceeded the
  // watchdog (its x holds NaN where it gave up).
  virtual bool watchdog_fired() { return false; }
  // What the analysis found, for TrsvStats (algorithm-specific fields).
  virtual void describe(TrsvStats&) const {}
};

}  // namespace balsa::trsv
