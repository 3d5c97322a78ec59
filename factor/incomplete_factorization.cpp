// balsa::IncompleteFactorization: the front end of ILU(0) and IC(0)
// (checks -> pattern analysis -> numeric factorisation with the shift policy
// -> refactor for new values). The numeric work is the CPU reference
// (factor/incomplete_cpu.cpp) or the GPU backend (factor/incomplete.cu).
//
// Shift policy (Manteuffel 1980; Saad sec. 10.3.4 on breakdowns): attempt 1
// factors A itself; after a breakdown attempt 2 factors A + alpha diag(A)
// with alpha = first_shift, and each further attempt doubles alpha. The shift
// scales the diagonal, a_ii <- a_ii + alpha * a_ii = (1 + alpha) a_ii,
// computed as one rounded product and one rounded sum on both devices (so
// they factor the same numbers). It strengthens the diagonal whatever its
// sign (ILU); for IC(0) it helps where a_ii > 0, as for any SPD matrix.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "balsa/factor.hpp"
#include "balsa/graph.hpp"
#include "factor/incomplete_gpu.hpp"
#include "graph/levels_device.hpp"
#include "core/call_scope.hpp"
#include "core/instantiate.hpp"
#include "core/pimpl.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "sparse/triangle_pattern.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/number_text.hpp"

namespace balsa {

namespace {

// The cost model of the GPU path's choice: the level-scheduled GPU
// factorisation costs about kGpuLevelSeconds a dependency level (measured on
// an H200: 6.5 s for the 1e6 levels of the thesis' banded IC(0), 4 ms for the
// 298 of the 100^3 Laplacian's), the host's about kHostEntrySeconds an entry
// of the factor pattern (with the transfers of the values both ways).
constexpr double kGpuLevelSeconds = 4e-6;
constexpr double kHostEntrySeconds = 3e-8;
bool host_numeric_pays(const IncompleteStats& st) {
  return double(st.levels) * kGpuLevelSeconds > double(st.nnz) * kHostEntrySeconds;
}

std::string number(double v) { return number_text(v); }

void check_options(const IncompleteOptions& o) {
  const std::string who = std::string(factor_name(o.kind)) + ": ";
  if (!(o.pivot_tolerance >= 0.0) || !std::isfinite(o.pivot_tolerance))
    throw Error(who + "pivot_tolerance must be finite and >= 0, got " + number(o.pivot_tolerance));
  if (!(o.first_shift > 0.0) || !std::isfinite(o.first_shift))
    throw Error(who + "first_shift must be finite and > 0, got " + number(o.first_shift));
  if (o.max_shifts < 0) throw Error(who + "max_shifts must be >= 0, got " + std::to_string(o.max_shifts));
}

// Position of (i, i) in every row of a canonical square matrix (rows in
// parallel); MatrixError naming the first row without one.
template <class T>
std::vector<index_t> diagonal_positions(const Csr<T>& A, IncompleteKind kind) {
  std::vector<index_t> diag = parallel::fresh_vector<index_t>(std::size_t(A.rows));
  index_t missing = A.rows;
#pragma omp parallel for reduction(min : missing) schedule(static) if (A.rows > parallel::kParallelMin)
  for (index_t i = 0; i < A.rows; ++i) {
    const auto first = A.col_idx.begin() + A.row_ptr[i], last = A.col_idx.begin() + A.row_ptr[i + 1];
    const auto it = std::lower_bound(first, last, i);
    if (it == last || *it != i)
      missing = std::min(missing, i);
    else
      diag[std::size_t(i)] = index_t(it - A.col_idx.begin());
  }
  if (missing < A.rows)
    throw MatrixError(std::string(factor_name(kind)) + ": missing diagonal entry at (row " + std::to_string(missing) +
                      ", column " + std::to_string(missing) + "): an incomplete factorisation needs every a_ii stored");
  return diag;
}

// IC(0)'s pattern, the lower triangle L of A: A's rows are sorted, so row i
// of L is the first L.row_ptr[i+1] - L.row_ptr[i] entries of A's row i, its
// diagonal last. diag[i]: the position of l_ii (rows in parallel).
inline std::vector<index_t> lower_diagonal_positions(std::span<const index_t> L_row_ptr) {
  const index_t n = index_t(L_row_ptr.size()) - 1;
  std::vector<index_t> diag = parallel::fresh_vector<index_t>(std::size_t(n));
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i) diag[std::size_t(i)] = L_row_ptr[std::size_t(i) + 1] - 1;
  return diag;
}

// a + alpha * a in T: the shifted diagonal (the GPU rounds the same way).
template <class T>
T shifted(T a, double alpha) {
  const T s = T(alpha) * a;
  return a + s;
}

}  // namespace

template <class T>
struct IncompleteFactorization<T>::Impl {
  static constexpr const char* kOwner = "IncompleteFactorization";  // (live_impl's error)
  IncompleteOptions options;
  IncompleteStats stats;
  Csr<T> pattern;                  // the factors (CPU); GPU: their download, when host_current
  bool host_current = true;        // GPU: pattern.values are the device's factors
  bool has_factors = false;        // false until the first success (ValuesLater: the first refactor)
  std::vector<index_t> diag;       // diagonal position of each row in `pattern`
  std::vector<index_t> A_row_ptr;  // Ic0: A's rows (row i of L starts row i of A)
  std::vector<index_t> A_col_idx;  // Ic0: A's columns, to name entries in errors (not kept for a
                                   // prechecked A: its owner checks new values first)
  std::unique_ptr<factor_gpu::Backend<T>> gpu;
  // GPU factorisations whose dependency levels are too many for the level
  // schedule to beat the host (host_numeric_pays): the numeric work runs on
  // the host and the factors go up to the backend's values().
  bool host_numeric = false;

  bool ic0() const { return options.kind == IncompleteKind::Ic0; }
  std::span<const index_t> a_row_ptr() const { return ic0() ? A_row_ptr : pattern.row_ptr; }
  std::span<const index_t> a_col_idx() const { return ic0() ? A_col_idx : pattern.col_idx; }

  // "(row i, column j)" of position p of A's values. Without A's columns
  // (Ic0, prechecked A) an entry of the lower triangle is named through L's.
  std::string where(std::size_t p) const {
    const std::span<const index_t> rp = a_row_ptr();
    const index_t i = index_t(std::upper_bound(rp.begin(), rp.end(), index_t(p)) - rp.begin()) - 1;
    const std::string row = "(row " + std::to_string(i) + ", ";
    if (!ic0() || !A_col_idx.empty()) return row + "column " + std::to_string(a_col_idx()[p]) + ")";
    const index_t k = index_t(p) - rp[std::size_t(i)], lower = pattern.row_ptr[i + 1] - pattern.row_ptr[i];
    if (k < lower) return row + "column " + std::to_string(pattern.col_idx[std::size_t(pattern.row_ptr[i] + k)]) + ")";
    return row + "entry " + std::to_string(k - lower) + " above the diagonal)";
  }
  std::size_t A_nnz() const { return std::size_t(a_row_ptr().back()); }
  void check_length(std::size_t got) const {
    if (got != A_nnz())
      throw DimensionError(std::string(factor_name(options.kind)) + " refactor: " + std::to_string(got) +
                           " values for a matrix of " + std::to_string(A_nnz()) + " entries");
  }
  void check_values(std::span<const T> values) const {
    check_length(values.size());
    for (std::size_t p = 0; p < values.size(); ++p)
      if (!std::isfinite(values[p]))
        throw MatrixError(std::string(factor_name(options.kind)) + " refactor: " +
                          (std::isnan(values[p]) ? "NaN" : "Inf") + " value at " + where(p));
  }
  // A's values (A's order) -> the pattern's order (Ic0: the start of each
  // of A's rows).
  std::vector<T> gather(std::span<const T> values) const {
    if (!ic0()) return {values.begin(), values.end()};
    std::vector<T> a = parallel::fresh_vector<T>(pattern.col_idx.size());
#pragma omp parallel for schedule(static) if (pattern.rows > parallel::kParallelMin)
    for (index_t i = 0; i < pattern.rows; ++i)
      std::copy(values.begin() + A_row_ptr[std::size_t(i)],
                values.begin() + A_row_ptr[std::size_t(i)] + (pattern.row_ptr[i + 1] - pattern.row_ptr[i]),
                a.begin() + pattern.row_ptr[i]);
    return a;
  }

  std::string breakdown_text(const factor_gpu::Breakdown& b) const {
    if (ic0())
      return "row " + std::to_string(b.row) + " (d_i = a_ii - sum_k l_ik^2 = " + number(b.pivot) +
             ", needs > 0 and > pivot_tolerance * a_ii, or an entry of the row is not finite)";
    return "row " + std::to_string(b.row) + " (pivot u_ii = " + number(b.pivot) +
           ", needs |u_ii| > pivot_tolerance * |a_ii|, or an entry of the row is not finite)";
  }

  // The shift loop shared by both devices: attempt(alpha) factors A + alpha
  // diag(A); commit() keeps a successful attempt. Stats change only on success.
  template <class Attempt, class Commit>
  void run(Attempt&& attempt, Commit&& commit, Clock::time_point t0) {
    const std::string who = factor_name(options.kind);
    double alpha = 0.0;
    factor_gpu::Breakdown first;
    for (int attempts = 1;; ++attempts) {
      const factor_gpu::Breakdown b = attempt(alpha);
      if (b.row < 0) {
        commit();
        stats.shift = alpha;
        stats.attempts = attempts;
        stats.breakdown_row = first.row;
        stats.factor_seconds = seconds_since(t0);
        ++stats.factorizations;
        has_factors = true;
        return;
      }
      if (attempts == 1) first = b;
      if (options.on_breakdown == PivotBreakdown::Fail)
        throw MatrixError(who + ": pivot breakdown at " + breakdown_text(b) +
                          "; PivotBreakdown::Shift would retry on A + alpha diag(A)");
      if (attempts - 1 >= options.max_shifts)
        throw MatrixError(who + ": every shift broke down: " + std::to_string(attempts - 1) +
                          " restart(s) on A + alpha diag(A) up to alpha = " + number(alpha) + ", the last at " +
                          breakdown_text(b) + "; unshifted, the first breakdown was at " + breakdown_text(first));
      alpha = attempts == 1 ? options.first_shift : 2.0 * alpha;
    }
  }

  // Factors the pattern-ordered values `a` on the CPU, or on the GPU after
  // an upload.
  void factor_host(std::vector<T> a) {
    const auto t0 = Clock::now();
    if (gpu && !host_numeric) {
      gpu->set_values(a);
      factor_device(t0);
      return;
    }
    std::vector<T> work;
    run(
        [&](double alpha) {
          work = a;
          if (alpha != 0.0)
            for (const index_t d : diag) work[std::size_t(d)] = shifted(work[std::size_t(d)], alpha);
          const index_t r = incomplete_factor_reference<T>(options.kind, pattern, diag, work, options.pivot_tolerance);
          return factor_gpu::Breakdown{r, r >= 0 ? double(work[std::size_t(diag[std::size_t(r)])]) : 0.0};
        },
        [&] {
          pattern.values = std::move(work);
          if (gpu) gpu->set_factors(pattern.values);
        },
        t0);
    host_current = true;
  }
  // The GPU backend's `a` is set: factor it there.
  void factor_device(Clock::time_point t0) {
    if (host_numeric) {  // `a` is on the device (set_values_from_device): the host factors it
      factor_host(gpu->a_to_host());
      stats.factor_seconds = seconds_since(t0);
      return;
    }
    run([&](double alpha) { return gpu->attempt(alpha); }, [&] { gpu->commit(); }, t0);
    host_current = false;
  }
  void require_factors() const {
    if (!has_factors)
      throw Error(std::string(factor_name(options.kind)) +
                  ": no factors yet (analysed without values: refactor gives the first ones)");
  }
  // The pattern with the current factors (GPU: downloaded when stale).
  const Csr<T>& host_factors() {
    require_factors();
    if (gpu && !host_current) {
      pattern.values = gpu->values().to_host();
      host_current = true;
    }
    return pattern;
  }
};

template <class T>
IncompleteFactorization<T>::IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options)
    : IncompleteFactorization(A, options, /*checked=*/false, /*values_later=*/false) {}

template <class T>
IncompleteFactorization<T>::IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options,
                                                    detail::PrecheckedMatrix)
    : IncompleteFactorization(A, options, /*checked=*/true, /*values_later=*/false) {}

template <class T>
IncompleteFactorization<T>::IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options,
                                                    detail::PrecheckedMatrix, detail::ValuesLater)
    : IncompleteFactorization(A, options, /*checked=*/true, /*values_later=*/true) {}

template <class T>
IncompleteFactorization<T>::IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options, bool checked,
                                                    bool values_later) try
    : impl_(std::make_unique<Impl>()) {
  const CallScope on(options, "IncompleteOptions");
  try {
    const auto t0 = Clock::now();
    Impl& s = *impl_;
    s.options = options;
    s.options.device = resolve_device(options.device);
    const IncompleteKind kind = options.kind;
    check_options(options);
    trace::Span checks("factor: checks");
    if (!checked) {
      validate(A, /*require_sorted=*/true);  // canonical: one entry per position
      require_square(A, factor_name(kind));
    }
    std::vector<index_t> A_diag = diagonal_positions(A, kind);
    if (!checked) require_finite(A);
    checks.end();
    trace::Span pattern("factor: pattern");
    // The factor pattern (header: A's for Ilu0, its lower triangle for Ic0),
    // with A's values unless they come later.
    if (kind == IncompleteKind::Ilu0) {
      if (values_later)
        s.pattern = Csr<T>{A.rows, A.cols, parallel::fresh_copy(A.row_ptr), parallel::fresh_copy(A.col_idx), {}};
      else
        s.pattern = A;
      s.diag = std::move(A_diag);
    } else {
      s.pattern = triangle_pattern<T>(A, Triangle::Lower);
      s.A_row_ptr = parallel::fresh_copy(A.row_ptr);
      if (!values_later) s.pattern.values = s.gather(A.values);
      if (!checked) s.A_col_idx = parallel::fresh_copy(A.col_idx);
      s.diag = lower_diagonal_positions(s.pattern.row_ptr);
    }
    // Row i waits for every row k < i of its lower part (Saad sec. 11.6.2's
    // level scheduling applied to the factorisation).
    pattern.end();
    trace::Span level_span("factor: level sets");
    levels_gpu::PlacedLevels placed = levels_gpu::device_or_host_level_sets(
        s.pattern.rows, s.pattern.row_ptr, s.pattern.col_idx, Triangle::Lower, s.options.device == Device::Cuda);
    const LevelSets levels = std::move(placed.sets);
    level_span.end();
    IncompleteStats& st = s.stats;
    st.level_sets_device = placed.where;
    st.level_sets_seconds = placed.seconds;
    st.level_sets_reason = std::move(placed.reason);
    st.kind = kind;
    st.device = s.options.device;
    st.rows = A.rows;
    st.nnz = s.pattern.nnz();
    st.levels = levels.count();
    if (s.options.device == Device::Cuda) {
      if (!cuda::available())
        throw CudaError(std::string(factor_name(kind)) +
                        (cuda::built_with_cuda() ? " on Device::Cuda: no CUDA GPU found"
                                                 : " on Device::Cuda: balsa was built without CUDA"));
      trace::Span backend(values_later ? "factor: GPU backend set-up" : "factor: GPU backend set-up, values up");
      s.gpu = factor_gpu::make_backend<T>(kind, s.pattern, s.diag, levels, s.A_row_ptr, A.nnz(), options.pivot_tolerance);
      s.host_numeric = host_numeric_pays(st);
      st.host_numeric = s.host_numeric;
      if (!values_later) s.gpu->set_values(s.pattern.values);
      backend.end();
      st.analysis_seconds = seconds_since(t0);
      if (values_later) return;
      const trace::Span numeric(s.host_numeric ? "factor: numeric factorisation (host, values up)"
                                               : "factor: numeric factorisation (GPU)");
      s.factor_device(Clock::now());  // the factors stay on the device until pattern() or factors()
    } else {
      st.analysis_seconds = seconds_since(t0);
      if (!values_later) s.factor_host(s.pattern.values);
    }
  } catch (...) {
    impl_.reset();  // the device memory first (freed on the stream), then the error
    throw;
  }
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::IncompleteFactorization");
}

template <class T>
IncompleteFactorization<T>::~IncompleteFactorization() = default;
template <class T>
IncompleteFactorization<T>::IncompleteFactorization(IncompleteFactorization&&) noexcept = default;
template <class T>
IncompleteFactorization<T>& IncompleteFactorization<T>::operator=(IncompleteFactorization&&) noexcept = default;

template <class T>
void IncompleteFactorization<T>::refactor(std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "IncompleteOptions");
  s.check_values(values);
  s.factor_host(s.gather(values));
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::refactor");
}

template <class T>
void IncompleteFactorization<T>::refactor(const cuda::DeviceBuffer<T>& values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "IncompleteOptions");
  if (!s.gpu)
    throw Error(std::string(factor_name(s.options.kind)) +
                " refactor: device values need Device::Cuda (this factorisation runs on the CPU)");
  s.check_length(values.size());
  const auto t0 = Clock::now();
  const std::int64_t bad = s.gpu->set_values_from_device(values.data(), values.size());
  if (bad >= 0) {
    T v{};
    cuda::detail::copy_to_host(&v, values.data() + bad, sizeof(T));
    throw MatrixError(std::string(factor_name(s.options.kind)) + " refactor: " + (std::isnan(v) ? "NaN" : "Inf") +
                      " value at " + s.where(std::size_t(bad)));
  }
  s.factor_device(t0);
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::refactor");
}

template <class T>
const Csr<T>& IncompleteFactorization<T>::pattern() const try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "IncompleteOptions");
  return s.host_factors();
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::pattern");
}

template <class T>
Csr<T> IncompleteFactorization<T>::factors() const try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "IncompleteOptions");
  return s.host_factors();
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::factors");
}

template <class T>
const cuda::DeviceBuffer<T>& IncompleteFactorization<T>::device_values() const try {
  const Impl& s = live_impl(impl_);
  if (!s.gpu)
    throw Error(std::string(factor_name(s.options.kind)) +
                ": device_values() needs Device::Cuda (this factorisation runs on the CPU)");
  s.require_factors();
  return s.gpu->values();
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::device_values");
}

template <class T>
const IncompleteStats& IncompleteFactorization<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::stats");
}

template <class T>
index_t IncompleteFactorization<T>::rows() const try {
  return live_impl(impl_).pattern.rows;
} catch (...) {
  rethrow_as_balsa_error("IncompleteFactorization::rows");
}

#define BALSA_INSTANTIATE(T) template class IncompleteFactorization<T>;
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
