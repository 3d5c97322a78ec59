// Internal: the state of a balsa::TriangularSolver (its Impl), shared by
// trsv/triangular_solver.cpp (analysis, solves, value updates) and
// trsv/triangular_solver_patterns.cpp (pattern updates).
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <string>

#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "core/call_scope.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "graph/levels_device.hpp"
#include "sparse/transpose.hpp"
#include "trsv/auto_choice.hpp"
#include "trsv/backends.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/off_diagonal.hpp"
#include "trsv/pattern_update.hpp"

namespace balsa {

template <class T>
struct TriangularSolver<T>::Impl {
  static constexpr const char* kOwner = "TriangularSolver";  // (live_impl's error)
  TrsvOptions options;
  Triangle tri = Triangle::Lower;  // triangle of the system solved (flips for A^T)
  Csr<T> M;                        // the matrix solved: A, or A^T for Operation::Transpose
  std::vector<index_t> source;     // M.values[p] = user values[source[p]] (transposed solves)
  // The algorithm (stats.algorithm) on options.device (trsv/backend.hpp).
  std::unique_ptr<trsv::Backend<T>> backend;
  // Device::Auto on a triangle too small for the GPU to win a host-vector
  // solve (trsv_auto::host_solves_on_cpu): those run by substitution on the
  // host copy; device-vector solves still run on the GPU.
  std::unique_ptr<trsv::Backend<T>> host;
  Device requested_device = Device::Auto;  // options.device as given (options.device is resolved)
  // Pattern updates (replace_columns): since the last full analysis, and
  // the measured cost of an incremental update per edge scheduled again
  // (0: none measured yet).
  int updates_since_analysis = 0;
  index_t levels_at_analysis = 0;
  double seconds_per_edge = 0.0;
  // Auto with many right-hand sides in one call (trsv_auto::kManyRhs or
  // more) on an algorithm that solves them column by column: cuSPARSE SpSM,
  // built at the first such call from the host values (not when the values
  // came from the device since).
  std::unique_ptr<trsv::Backend<T>> many;
  trsv::Backend<T>& solver_for(index_t columns) {
    const TrsvAlgorithm a = stats.algorithm;
    if (options.algorithm != TrsvAlgorithm::Auto || columns < trsv_auto::kManyRhs || host_values_stale ||
        a == TrsvAlgorithm::Cusparse || a == TrsvAlgorithm::Tassl || a == TrsvAlgorithm::Spike)
      return *backend;
    if (!many) many = trsv_gpu::make_cusparse(M, tri, options.diagonal);
    return *many;
  }
  cuda::DeviceBuffer<T> staging_b, staging_x;  // host solves on the GPU
  // Device value updates: M's diagonal positions and (transposed solves) the
  // gather from the caller's order, uploaded on first use; the gathered values.
  cuda::DeviceBuffer<index_t> device_diag_pos, device_source;
  cuda::DeviceBuffer<T> device_values;
  bool host_values_stale = false;  // M.values predate a device update
  // A prechecked pattern without values (balsa's preconditioners, whose
  // factors arrive by update_values before any solve): the GPU algorithm
  // skips its first value upload; solves are refused until values come.
  bool values_pending = false;
  TrsvStats stats;

  std::size_t nnz() const { return M.col_idx.size(); }
  bool on_gpu() const { return backend->device() == Device::Cuda; }
  // The options as the caller gave them (a re-analysis resolves the device again).
  TrsvOptions given_options() const {
    TrsvOptions o = options;
    o.device = requested_device;
    return o;
  }
  void require_values() const {
    if (values_pending) throw Error("triangular solve: the solver has no values yet (update_values first)");
  }
  // The device maps of update_values(DeviceBuffer): M's diagonal positions
  // and, for transposed solves, the gather from the caller's order.
  void prepare_device_updates() {
    if (!device_diag_pos.empty() || nnz() == 0) return;
    const std::vector<index_t> pos = trsv_gpu::detail::diagonal_positions(M, options.diagonal);
    device_diag_pos = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pos));
    if (!source.empty()) device_source = cuda::DeviceBuffer<index_t>(std::span<const index_t>(source));
    device_values = cuda::DeviceBuffer<T>(nnz());
  }

  void analyse(const Csr<T>& A, const TrsvOptions& o, Csr<T>* owned, bool checked = false);
  // M's level sets, on the device where the rule says so (a GPU solver; graph/levels_device.hpp), into the stats.
  LevelSets placed_level_sets() {
    levels_gpu::PlacedLevels p =
        levels_gpu::device_or_host_level_sets(M.rows, M.row_ptr, M.col_idx, tri, options.device == Device::Cuda);
    stats.level_sets_device = p.where;
    stats.level_sets_seconds = p.seconds;
    stats.level_sets_reason = std::move(p.reason);
    return std::move(p.sets);
  }
  void check_options(const Csr<T>& A, bool checked);
  void describe_front_end(const LevelSets& levels, Clock::time_point t0);
  void set_up(const LevelSets& levels, const trsv_auto::Choice& choice);
  // Pattern updates (replace_columns, update_pattern): the new matrix
  // solved and what changed; incrementally (TASSL) or by a full analysis of
  // a new Impl that replaces `self`.
  static void change_pattern(std::unique_ptr<Impl>& self, Csr<T>&& M_new, const tassl::PatternChange& change,
                             Clock::time_point t0);
  bool update_in_place(const Csr<T>& M_new, const tassl::PatternChange& change, TrsvUpdateStats& u,
                       std::string& reason);
  void took_pattern(Csr<T>&& M_new);
  static void reanalyse(std::unique_ptr<Impl>& self, Csr<T>&& M_new, bool attempted, TrsvUpdateStats u,
                        const std::string& reason, Clock::time_point t0);
  void require_host_values(const char* who) const {
    if (values_pending) throw Error(std::string(who) + ": the solver has no values yet (update_values first)");
    if (host_values_stale)
      throw Error(std::string(who) +
                  ": the solver's values came from device memory (update_values(DeviceBuffer)); give them from the host "
                  "(update_values(span)) before changing the pattern");
  }
  void take_matrix(const Csr<T>& A, Csr<T>* owned);
  // User values (A's order) into M's order: a copy, or for transposed
  // solves a gather through `source`.
  void set_values(std::span<const T> values) {
    if (source.empty()) {
      M.values.assign(values.begin(), values.end());
    } else {
      M.values.resize(source.size());
      parallel::gather(std::span<const index_t>(source), values, std::span<T>(M.values));
    }
  }
  void check_watchdog() {
    if (backend->watchdog_fired())
      throw Error(std::string("GPU triangular solve (") + to_string(stats.algorithm) +
                  "): a dependency wait exceeded the watchdog (TrsvOptions::watchdog_ms, default 2000 ms); x is invalid");
  }
  // The device solves (device buffers or pointers): `columns` right-hand
  // sides of M.rows values, column-major; `kind` names the arrays in errors.
  void check_device_solve(index_t columns) const {
    if (!on_gpu())
      throw Error("triangular solve: device vectors need a solver on Device::Cuda (this one runs on the CPU)");
    if (columns < 0) throw DimensionError("triangular solve: " + std::to_string(columns) + " right-hand sides");
  }
  void solve_on_device(const T* B, T* X, index_t columns, const char* kind) {
    if (M.rows > 0 && columns > 0) {
      if (!B || !X) throw Error(std::string("triangular solve: null ") + kind);
      if (B == X)
        throw Error(std::string("triangular solve: the right-hand sides and the solutions must be different ") + kind);
    }
    require_values();
    const auto t0 = Clock::now();
    solver_for(columns).solve_many(B, X, M.rows, columns);
    stats.last_solve_seconds = seconds_since(t0);  // launch time only: the solve is asynchronous
    stats.solves += int(columns);
  }
  // Host columns (column-major, M.rows values each): by substitution on the
  // host (`host`), on the GPU in one call through the staging buffers, or
  // by the CPU backend (the columns in parallel).
  void solve_host(std::span<const T> B, std::span<T> X, index_t columns) {
    const std::size_t n = std::size_t(M.rows);
    if (host && !host_values_stale) {
      for (index_t j = 0; j < columns; ++j) host->solve(B.data() + std::size_t(j) * n, X.data() + std::size_t(j) * n);
    } else if (on_gpu()) {
      if (staging_b.size() != B.size()) {
        staging_b = cuda::DeviceBuffer<T>(B.size());
        staging_x = cuda::DeviceBuffer<T>(B.size());
      }
      staging_b.upload(B);
      solver_for(columns).solve_many(staging_b.data(), staging_x.data(), M.rows, columns);
      staging_x.download(X);  // synchronous copy: the solve has finished
      check_watchdog();
    } else {
      backend->solve_many(B.data(), X.data(), M.rows, columns);
    }
  }
  void check_length(std::size_t got, const char* what) const {
    if (got != std::size_t(M.rows))
      throw DimensionError(std::string("triangular solve: ") + what + " has " + std::to_string(got) +
                           " entries, the matrix " + std::to_string(M.rows) + " rows");
  }
};

namespace trsv {
// A new Impl analysed by analyse(impl) (which opens the solver's stream).
template <class Impl, class Analyse>
std::unique_ptr<Impl> analysed(Analyse&& analyse) {
  auto impl = std::make_unique<Impl>();
  analyse(*impl);
  return impl;
}
}  // namespace trsv

}  // namespace balsa
