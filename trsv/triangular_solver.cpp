// balsa::TriangularSolver: the front end of every triangular-solve algorithm
// (analyse once -> solve many times -> update values). Every public call
// runs on the solver's stream (TrsvOptions::stream) and threads
// (TrsvOptions::threads): it opens a CallScope (core/call_scope.hpp) with
// them, whose StreamScope the GPU algorithms read (cuda/stream.hpp).
#include "trsv/triangular_solver_impl.hpp"

#include "core/pimpl.hpp"

namespace balsa {

namespace {
Triangle other(Triangle t) { return t == Triangle::Lower ? Triangle::Upper : Triangle::Lower; }
}  // namespace

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
  const LevelSets levels = placed_level_sets();
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

template <class T>
TriangularSolver<T>::TriangularSolver(const Csr<T>& A, const TrsvOptions& options) try
    : impl_(trsv::analysed<Impl>([&](Impl& s) { s.analyse(A, options, nullptr); })) {
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver");
}

template <class T>
TriangularSolver<T>::TriangularSolver(Csr<T>&& A, const TrsvOptions& options) try
    : impl_(trsv::analysed<Impl>([&](Impl& s) { s.analyse(A, options, &A); })) {
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver");
}

template <class T>
TriangularSolver<T>::TriangularSolver(Csr<T>&& A, const TrsvOptions& options, detail::PrecheckedMatrix) try
    : impl_(trsv::analysed<Impl>([&](Impl& s) { s.analyse(A, options, &A, /*checked=*/true); })) {
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

template class TriangularSolver<float>;
template class TriangularSolver<double>;

}  // namespace balsa
