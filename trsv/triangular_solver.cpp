// balsa::TriangularSolver: the front end of every triangular-solve algorithm
// (analyse once -> solve many times -> update values). Every public call
// runs on the solver's stream (TrsvOptions::stream) and threads
// (TrsvOptions::threads): it opens a CallScope (core/call_scope.hpp) with
// them, whose StreamScope the GPU algorithms read (cuda/stream.hpp).
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
#include "core/pimpl.hpp"
#include "core/setup_trace.hpp"
#include "sparse/transpose.hpp"
#include "trsv/auto_choice.hpp"
#include "trsv/backends.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/off_diagonal.hpp"
#include "trsv/pattern_update.hpp"

namespace balsa {

namespace {
Triangle other(Triangle t) { return t == Triangle::Lower ? Triangle::Upper : Triangle::Lower; }
}  // namespace

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

// The analysis (both constructors): the front end (checks, the matrix
// solved, level sets), the algorithm (trsv/auto_choice.hpp), its backend.
// `owned`, when given, is A itself, whose arrays M may take instead of
// copying them.
template <class T>
void TriangularSolver<T>::Impl::analyse(const Csr<T>& A, const TrsvOptions& given, Csr<T>* owned, bool checked) {
  const auto t0 = Clock::now();
  const CallScope on(given, "TrsvOptions");
  options = given;
  options.device = resolve_device(given.device);
  requested_device = given.device;
  check_options(A, checked);
  trace::Span level_span("trsv: matrix, level sets");
  take_matrix(A, owned);
  const LevelSets levels = level_sets(M, tri);
  level_span.end();
  describe_front_end(levels, t0);
  trace::Span choice_span("trsv: algorithm choice");
  const trsv_auto::Choice choice = trsv_auto::choose_algorithm(M, tri, levels, options, stats);
  stats.algorithm = choice.algorithm;
  const bool host_on_cpu =
      requested_device == Device::Auto && options.device == Device::Cuda && trsv_auto::host_solves_on_cpu(stats);
  stats.host_solves_on_cpu = host_on_cpu;
  choice_span.end();
  set_up(levels, choice);
  if (host_on_cpu) host = trsv::make_substitution(M, tri, options.diagonal);
  stats.analysis_seconds = seconds_since(t0);
  stats.updates.full_analysis_seconds = stats.analysis_seconds;
  levels_at_analysis = stats.tassl.subgraph_levels;
}

template <class T>
void TriangularSolver<T>::Impl::check_options(const Csr<T>& A, bool checked) {
  const TrsvOptions& o = options;
  if (!checked) {
    const trace::Span checks("trsv: checks");
    check_triangular_system(A, o.triangle, o.diagonal);
  }
  if (o.tassl_n_max < 0)
    throw DimensionError("triangular solve: tassl_n_max must be 0 (automatic) or positive, got " +
                         std::to_string(o.tassl_n_max));
  if (checked && A.values.empty() && A.nnz() > 0) {  // a prechecked pattern whose values come later
    if (o.operation == Operation::Transpose)
      throw Error("triangular solve: a pattern without values must be solved as it is (Operation::NonTranspose)");
    values_pending = true;
  }
}

// The fields of TrsvStats every algorithm shares (the backend describes its own).
template <class T>
void TriangularSolver<T>::Impl::describe_front_end(const LevelSets& levels, Clock::time_point t0) {
  TrsvStats& st = stats;
  st.rows = M.rows;
  st.nnz = M.nnz();
  st.levels = levels.count();
  for (index_t k = 0; k < levels.count(); ++k) st.widest_level = std::max(st.widest_level, levels.width(k));
  st.mean_level_width = st.levels ? double(st.rows) / st.levels : 0.0;
  st.device = options.device;
  st.front_end_seconds = seconds_since(t0);
}

// The chosen algorithm's backend (on the GPU: its analysis and uploads, then
// Auto's trial), which describes itself into the stats.
template <class T>
void TriangularSolver<T>::Impl::set_up(const LevelSets& levels, const trsv_auto::Choice& choice) {
  const bool gpu = options.device == Device::Cuda;
  // Only sync-free blocks and spike on the GPU set up without values; the
  // other algorithms read them at set-up and get placeholders (1).
  const bool without_values =
      gpu && (stats.algorithm == TrsvAlgorithm::SyncFreeBlocks || stats.algorithm == TrsvAlgorithm::Spike);
  if (values_pending && !without_values) M.values = parallel::fresh_vector<T>(nnz(), T(1));
  if (gpu && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? "triangular solve on Device::Cuda: no CUDA GPU found"
                                            : "triangular solve on Device::Cuda: balsa was built without CUDA");
  const trsv::Setup setup{options, levels, choice.spike};
  backend = trsv::make_backend(stats.algorithm, M, tri, setup);
  if (gpu) {
    cuda::detail::synchronize();  // the set-up's device work done (the solver's stream only)
    if (trsv_auto::runs_trial(options, stats, values_pending))
      trsv_auto::trial<T>(backend, stats, choice.spike_feasible,
                          [&](TrsvAlgorithm a) { return trsv::make_backend(a, M, tri, setup); });
    if (values_pending) prepare_device_updates();  // the pending values will come from the device
  }
  backend->describe(stats);
}

// M from A: A itself (moved when owned), or for A^T x = b the other
// triangle's solve with the transposed matrix: one transpose of the pattern
// gives A^T's pattern and the map from its entries back to A's; the values
// are then one gather.
template <class T>
void TriangularSolver<T>::Impl::take_matrix(const Csr<T>& A, Csr<T>* owned) {
  if (options.operation == Operation::Transpose) {
    TransposedPattern t = transpose_pattern(A.rows, A.cols, A.row_ptr, A.col_idx);
    source = std::move(t.source);
    M = Csr<T>{A.cols, A.rows, std::move(t.row_ptr), std::move(t.col_idx), {}};
    set_values(std::span<const T>(A.values));
    tri = other(options.triangle);
  } else {
    if (owned)
      M = std::move(*owned);
    else
      M = A;
    tri = options.triangle;
  }
}

namespace {
// A new Impl analysed by analyse(impl) (which opens the solver's stream).
template <class Impl, class Analyse>
std::unique_ptr<Impl> analysed(Analyse&& analyse) {
  auto impl = std::make_unique<Impl>();
  analyse(*impl);
  return impl;
}
}  // namespace

template <class T>
TriangularSolver<T>::TriangularSolver(const Csr<T>& A, const TrsvOptions& options) try
    : impl_(analysed<Impl>([&](Impl& s) { s.analyse(A, options, nullptr); })) {
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver");
}

template <class T>
TriangularSolver<T>::TriangularSolver(Csr<T>&& A, const TrsvOptions& options) try
    : impl_(analysed<Impl>([&](Impl& s) { s.analyse(A, options, &A); })) {
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver");
}

template <class T>
TriangularSolver<T>::TriangularSolver(Csr<T>&& A, const TrsvOptions& options, detail::PrecheckedMatrix) try
    : impl_(analysed<Impl>([&](Impl& s) { s.analyse(A, options, &A, /*checked=*/true); })) {
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver");
}

template <class T>
TriangularSolver<T>::~TriangularSolver() = default;
template <class T>
TriangularSolver<T>::TriangularSolver(TriangularSolver&&) noexcept = default;
template <class T>
TriangularSolver<T>& TriangularSolver<T>::operator=(TriangularSolver&&) noexcept = default;

template <class T>
void TriangularSolver<T>::solve(std::span<const T> b, std::span<T> x) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  s.check_length(b.size(), "b");
  s.check_length(x.size(), "x");
  require_finite(b, "right-hand side");
  s.require_values();
  const auto t0 = Clock::now();
  s.solve_host(b, x, 1);
  s.stats.last_solve_seconds = seconds_since(t0);
  ++s.stats.solves;
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::solve");
}

template <class T>
void TriangularSolver<T>::solve(const DenseMatrix<T>& B, DenseMatrix<T>& X) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  s.check_length(std::size_t(B.rows), "B");
  if (B.values.size() != std::size_t(B.rows) * std::size_t(B.cols))
    throw DimensionError("triangular solve: B holds " + std::to_string(B.values.size()) + " values for " +
                         std::to_string(B.rows) + " x " + std::to_string(B.cols));
  require_finite(std::span<const T>(B.values), "right-hand side");
  s.require_values();
  if (X.rows != B.rows || X.cols != B.cols) X = DenseMatrix<T>(B.rows, B.cols);
  const auto t0 = Clock::now();
  s.solve_host(std::span<const T>(B.values), std::span<T>(X.values), B.cols);
  s.stats.last_solve_seconds = seconds_since(t0);
  s.stats.solves += B.cols;
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::solve");
}

template <class T>
void TriangularSolver<T>::solve(const cuda::DeviceBuffer<T>& B, cuda::DeviceBuffer<T>& X, index_t columns) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  s.check_device_solve(columns);
  const std::size_t size = std::size_t(s.M.rows) * std::size_t(columns);
  if (B.size() != size || X.size() != size)
    throw DimensionError("triangular solve: B and X must hold rows x columns = " + std::to_string(s.M.rows) + " x " +
                         std::to_string(columns) + " values, got " + std::to_string(B.size()) + " and " +
                         std::to_string(X.size()));
  s.solve_on_device(B.data(), X.data(), columns, "device buffers");
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::solve");
}

template <class T>
void TriangularSolver<T>::solve(const cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& x) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  s.check_device_solve(1);
  s.check_length(b.size(), "b");
  s.check_length(x.size(), "x");
  s.solve_on_device(b.data(), x.data(), 1, "device buffers");
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::solve");
}

template <class T>
void TriangularSolver<T>::solve_device(const T* b, T* x) try {
  solve_device(b, x, 1);
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::solve_device");
}

template <class T>
void TriangularSolver<T>::solve_device(const T* B, T* X, index_t columns) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  s.check_device_solve(columns);
  s.solve_on_device(B, X, columns, "device arrays");
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::solve_device");
}

template <class T>
void TriangularSolver<T>::update_values(std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  if (values.size() != s.nnz())
    throw DimensionError("update_values: " + std::to_string(values.size()) + " values for a pattern of " +
                         std::to_string(s.nnz()) + " entries");
  std::vector<T> old = std::move(s.M.values);  // kept (not copied) until the new values pass the checks
  try {
    s.set_values(values);
    // The pattern is the analysed one (canonical, triangular); only the values
    // can be wrong: a zero diagonal or NaN/Inf.
    if (s.options.diagonal == DiagonalKind::NonUnit) require_nonzero_diagonal(s.M);
    require_finite(s.M);
    s.backend->update_values(s.M.values);
    if (s.many) s.many->update_values(s.M.values);
  } catch (...) {
    s.M.values = std::move(old);  // keep the old, valid values
    // and the backend in step with them (unless a device update made the
    // host copy stale: the device then still holds its valid values; or the
    // GPU's values are still pending, M's then placeholders or none)
    if (!s.host_values_stale && (!s.values_pending || !s.on_gpu())) s.backend->update_values(s.M.values);
    if (s.many && !s.host_values_stale) s.many->update_values(s.M.values);
    throw;
  }
  s.host_values_stale = false;
  s.values_pending = false;
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::update_values");
}

template <class T>
void TriangularSolver<T>::update_values(const cuda::DeviceBuffer<T>& values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  if (!s.on_gpu())
    throw Error("update_values: device values need a solver on Device::Cuda (this one runs on the CPU)");
  const std::size_t count = s.nnz();
  if (values.size() != count)
    throw DimensionError("update_values: " + std::to_string(values.size()) + " values for a pattern of " +
                         std::to_string(count) + " entries");
  if (count == 0) return;
  s.prepare_device_updates();
  // In M's CSR order (a gather for transposed solves), then checked there.
  const T* in_order = values.data();
  if (!s.source.empty()) {
    trsv_gpu::gather_device(s.device_source.data(), values.data(), s.device_values.data(), count);
    in_order = s.device_values.data();
  }
  const trsv_gpu::BadValue bad = trsv_gpu::find_bad_value(in_order, count, s.device_diag_pos.data(), s.M.rows);
  if (bad.position >= 0) {
    const auto p = index_t(bad.position);
    const auto it = std::upper_bound(s.M.row_ptr.begin(), s.M.row_ptr.end(), p);
    const index_t row = index_t(it - s.M.row_ptr.begin()) - 1;
    const index_t col = s.M.col_idx[std::size_t(p)];
    const bool transposed = !s.source.empty();
    throw MatrixError(std::string("update_values: ") + (bad.zero_diagonal ? "zero diagonal" : "NaN or Inf") +
                      " at row " + std::to_string(transposed ? col : row) + ", column " +
                      std::to_string(transposed ? row : col) + " (device values)");
  }
  s.backend->update_values_device(in_order, count);
  s.many.reset();  // built again from host values only
  s.host_values_stale = true;
  s.values_pending = false;
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::update_values");
}

template <class T>
const TrsvStats& TriangularSolver<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::stats");
}

template <class T>
void TriangularSolver<T>::check_last_solve() try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  s.check_watchdog();
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::check_last_solve");
}

template <class T>
index_t TriangularSolver<T>::rows() const try {
  return live_impl(impl_).M.rows;
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::rows");
}

// An incremental update of the backend's analysis (TASSL, thesis ch. 6, on
// the CPU or the GPU), within the limits that make it worth it: the edges to
// schedule again below what a full analysis costs at the measured rate, the
// sub-graph levels below (1 + tassl_level_growth) x those of the last full
// analysis + 2.
template <class T>
bool TriangularSolver<T>::Impl::update_in_place(const Csr<T>& M_new, const tassl::PatternChange& change,
                                                TrsvUpdateStats& u, std::string& reason) {
  // Before any update is measured, an edge is taken to cost what it costs in
  // a full analysis (so only an update touching everything falls back).
  const double full = std::max(stats.updates.full_analysis_seconds, 1e-9);
  const double per_edge = seconds_per_edge > 0 ? seconds_per_edge : full / double(M_new.nnz() + M_new.rows + 1);
  trsv::PatternUpdate pu;
  pu.change = &change;
  pu.edge_budget = std::int64_t(std::min(full / per_edge, 9.0e18));
  pu.max_levels = index_t(double(levels_at_analysis) * (1.0 + std::max(options.tassl_level_growth, 0.0)) + 2.0);
  if (!backend->update_pattern(M_new, pu)) {
    reason = pu.reason;
    return false;
  }
  u.last_scheduled_edges = pu.scheduled_edges;
  u.last_blocks = pu.blocks;
  u.last_relocated = pu.relocated;
  u.last_uploaded_bytes = pu.uploaded_bytes;
  u.recaptures += pu.recaptured ? 1 : 0;
  backend->describe(stats);
  return true;
}

// After an incremental update: M_new is the matrix solved.
template <class T>
void TriangularSolver<T>::Impl::took_pattern(Csr<T>&& M_new) {
  M = std::move(M_new);
  if (!source.empty()) {  // the gather from the caller's (A's) order: the inverse of A's transpose map
    const TransposedPattern t = transpose_pattern(M.rows, M.cols, M.row_ptr, M.col_idx);
    source.assign(t.source.size(), 0);
    for (std::size_t q = 0; q < t.source.size(); ++q) source[std::size_t(t.source[q])] = index_t(q);
  }
  stats.nnz = M.nnz();
  device_diag_pos = {};  // the device value-update maps are of the old pattern
  device_source = {};
  device_values = {};
  ++updates_since_analysis;
}

template <class T>
void TriangularSolver<T>::Impl::change_pattern(std::unique_ptr<Impl>& self, Csr<T>&& M_new,
                                               const tassl::PatternChange& change, Clock::time_point t0) {
  Impl& s = *self;
  TrsvUpdateStats u = s.stats.updates;
  ++u.updates;
  std::string reason;
  bool done = false, attempted = false;
  if (s.stats.algorithm != TrsvAlgorithm::Tassl)
    reason = std::string("algorithm '") + to_string(s.stats.algorithm) + "' has no incremental analysis";
  else if (s.options.tassl_repartition_every > 0 && s.updates_since_analysis + 1 >= s.options.tassl_repartition_every)
    reason = "tassl_repartition_every = " + std::to_string(s.options.tassl_repartition_every);
  else {
    attempted = true;
    try {
      done = s.update_in_place(M_new, change, u, reason);
    } catch (const std::exception& e) {  // internal (out of memory, a value the scaling rejects): analyse afresh
      reason = std::string("the incremental update failed (") + e.what() + ")";
    }
  }
  if (!done) return reanalyse(self, std::move(M_new), attempted, u, reason, t0);
  s.took_pattern(std::move(M_new));
  const double dt = seconds_since(t0);
  ++u.incremental;
  u.incremental_seconds += dt;
  u.last_seconds = dt;
  u.last_reason.clear();
  // The rate of the rule above; not from the first update after an
  // analysis, which also builds the update's own state (DAG, slots per entry).
  const double rate = dt / double(std::max<std::int64_t>(u.last_scheduled_edges, 1));
  if (s.updates_since_analysis > 1) s.seconds_per_edge = s.seconds_per_edge > 0 ? 0.5 * (s.seconds_per_edge + rate) : rate;
  s.stats.updates = u;
}

// A full analysis of the new matrix (A's orientation: transposed back) in a
// new Impl that replaces `self`.
template <class T>
void TriangularSolver<T>::Impl::reanalyse(std::unique_ptr<Impl>& self, Csr<T>&& M_new, bool attempted,
                                          TrsvUpdateStats u, const std::string& reason, Clock::time_point t0) {
  Impl& s = *self;
  const bool transposed = !s.source.empty();
  Csr<T> A_new = transposed ? transpose(M_new) : std::move(M_new);
  const double per_edge = s.seconds_per_edge;
  std::unique_ptr<Impl> fresh;
  try {
    fresh = analysed<Impl>([&](Impl& x) { x.analyse(A_new, s.given_options(), &A_new, /*checked=*/true); });
  } catch (...) {
    // A failed incremental attempt may have changed the solver's analysis:
    // the old matrix analysed again, so that the error leaves it as it was.
    if (attempted) {
      const TrsvUpdateStats before = s.stats.updates;
      Csr<T> A_old = transposed ? transpose(s.M) : s.M;
      try {
        auto old = analysed<Impl>([&](Impl& x) { x.analyse(A_old, s.given_options(), &A_old, /*checked=*/true); });
        old->stats.updates = before;
        old->seconds_per_edge = s.seconds_per_edge;
        self = std::move(old);
      } catch (...) {
        self.reset();  // nothing valid is left: later calls say so
      }
    }
    throw;
  }
  const double dt = seconds_since(t0);
  ++u.reanalyses;
  u.reanalysis_seconds += dt;
  u.last_seconds = dt;
  u.last_reason = reason;
  u.last_scheduled_edges = 0;
  u.last_blocks = u.last_relocated = 0;
  u.full_analysis_seconds = fresh->stats.updates.full_analysis_seconds;
  fresh->stats.updates = u;
  fresh->seconds_per_edge = per_edge;
  self = std::move(fresh);
}

template <class T>
void TriangularSolver<T>::replace_columns(std::span<const index_t> columns, std::span<const index_t> col_ptr,
                                          std::span<const index_t> row_idx, std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  const auto t0 = Clock::now();
  s.require_host_values("replace_columns");
  const trsv_update::NewColumns<T> c{columns, col_ptr, row_idx, values};
  trsv_update::check_new_columns(s.M.rows, s.options.triangle, s.options.diagonal, c);
  tassl::PatternChange change;
  Csr<T> M_new = s.options.operation == Operation::Transpose ? trsv_update::with_rows_replaced(s.M, s.tri, c, change)
                                                              : trsv_update::with_columns_replaced(s.M, s.tri, c, change);
  Impl::change_pattern(impl_, std::move(M_new), change, t0);
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::replace_columns");
}

template <class T>
void TriangularSolver<T>::update_pattern(const Csr<T>& A) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  const auto t0 = Clock::now();
  s.require_host_values("update_pattern");
  if (A.rows != s.M.rows || A.cols != s.M.cols)
    throw DimensionError("update_pattern: the new matrix is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                         ", the solver's " + std::to_string(s.M.rows) + " x " + std::to_string(s.M.cols));
  check_triangular_system(A, s.options.triangle, s.options.diagonal);
  Csr<T> M_new = s.options.operation == Operation::Transpose ? transpose(A) : A;
  const tassl::PatternChange change = trsv_update::pattern_difference(s.M, M_new, s.tri);
  if (change.rows.empty()) {  // the same pattern: new values only
    update_values(std::span<const T>(A.values));
    return;
  }
  Impl::change_pattern(impl_, std::move(M_new), change, t0);
  Impl& now = live_impl(impl_);
  if (now.stats.updates.last_reason.empty()) {  // incremental: the other rows' values too
    update_values(std::span<const T>(A.values));
    now.stats.updates.last_seconds = seconds_since(t0);
  }
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::update_pattern");
}

template class TriangularSolver<float>;
template class TriangularSolver<double>;

}  // namespace balsa
