// balsa::DirectSolver (include/balsa/direct.hpp): the front end of the
// SuiteSparse factorisations in direct/*_backend.cpp: input checks, Auto's
// choice (direct/direct_choice.cpp) and its CHOLMOD -> UMFPACK fallback,
// the memory check before a numeric factorisation, threads, stats, and the
// float <-> double conversions (everything is factorised in double).
#include <cblas.h>  // OpenBLAS: openblas_set_num_threads

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "balsa/reorder.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "core/pimpl.hpp"
#include "direct/backend.hpp"
#include "direct/direct_choice.hpp"

namespace balsa {

namespace direct {

void throw_structurally_singular(const char* method, std::int64_t rank, std::int64_t n) {
  const std::string r = std::to_string(rank), s = std::to_string(n);
  throw StructurallySingular(rank, n,
                             std::string(method) + ": A (" + s + " x " + s + ") is structurally singular: structural rank " +
                                 r + " < " + s + ": no row permutation puts stored entries on the whole diagonal, " +
                                 "so every matrix of its pattern is singular");
}

void throw_singular(const char* method, std::int64_t row, const std::string& where) {
  throw SingularMatrix(std::string(method) + ": A is numerically singular (a zero pivot" +
                       (row >= 0 ? " at " + where + " " + std::to_string(row) + " of A" : std::string()) + ")");
}

void throw_out_of_memory(const char* method, const char* doing, const Matrix& A) {
  throw HostOutOfMemory(std::string(method) + ": out of host memory " + doing + " (n = " + std::to_string(A.n) +
                        ", " + std::to_string(A.idx.size()) + " entries)");
}

}  // namespace direct

namespace {

// options.threads OpenMP and OpenBLAS threads while it lives (0: as they are).
class ThreadScope {
 public:
  explicit ThreadScope(int threads) {
    if (threads <= 0) return;
    omp_.emplace(threads);
    blas_saved_ = openblas_get_num_threads();
    openblas_set_num_threads(threads);
  }
  ~ThreadScope() {
    if (blas_saved_ > 0) openblas_set_num_threads(blas_saved_);
  }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  std::optional<parallel::OpenMpThreads> omp_;
  int blas_saved_ = 0;
};

void check_options(const DirectOptions& o) {
  if (o.device == Device::Cuda)
    throw Error("DirectSolver: Device::Cuda: the direct solvers (CHOLMOD, UMFPACK, KLU) run on the CPU "
                "(use Device::Auto or Device::Cpu)");
  if (o.threads < 0) throw Error("DirectSolver: threads must be >= 0 (0: the current setting), got " +
                                 std::to_string(o.threads));
}

template <class T>
direct::Matrix to_matrix(const Csr<T>& A) {
  return {A.rows, {A.row_ptr.begin(), A.row_ptr.end()}, {A.col_idx.begin(), A.col_idx.end()},
          {A.values.begin(), A.values.end()}};
}

template <class T>
bool same_pattern(const Csr<T>& A, const direct::Matrix& M) {
  return A.rows == M.n && A.cols == M.n && std::equal(A.row_ptr.begin(), A.row_ptr.end(), M.ptr.begin(), M.ptr.end()) &&
         std::equal(A.col_idx.begin(), A.col_idx.end(), M.idx.begin(), M.idx.end());
}

// CHOLMOD reads one triangle: an unsymmetric A would be another matrix.
template <class T>
void require_symmetric(const Csr<T>& A) {
  const Asymmetry a = first_asymmetry(A);
  if (!a.symmetric())
    throw MatrixError("DirectSolver: CHOLMOD needs a symmetric A, but a(" + std::to_string(a.row) + ", " +
                      std::to_string(a.col) + ") = " + std::to_string(a.value) + " and a(" + std::to_string(a.col) +
                      ", " + std::to_string(a.row) + ") = " + std::to_string(a.mirror) +
                      (a.mirror_stored ? "" : " (not stored)"));
}

std::unique_ptr<direct::Backend> make_backend(DirectMethod m, const direct::Matrix& A) {
  switch (m) {
    case DirectMethod::Cholmod: return direct::make_cholmod(A);
    case DirectMethod::Klu: return direct::make_klu(A);
    default: return direct::make_umfpack(A);
  }
}

const char* library_name(DirectMethod m) {
  switch (m) {
    case DirectMethod::Cholmod: return "CHOLMOD";
    case DirectMethod::Klu: return "KLU";
    default: return "UMFPACK";
  }
}

void set_counts(DirectStats& st, const direct::FactorCounts& c) {
  st.factor_entries = c.factor_entries;
  st.flops = c.flops;
  st.peak_bytes = c.peak_bytes;
  st.rcond = c.rcond;
}

}  // namespace

template <class T>
struct DirectSolver<T>::Impl {
  static constexpr const char* kOwner = "DirectSolver";  // (live_impl's error)
  DirectOptions options;
  direct::Matrix A;
  std::unique_ptr<direct::Backend> backend;
  DirectStats stats;

  Impl(const Csr<T>& csr, const DirectOptions& o) : options(o), A(to_matrix(csr)) {
    stats.n = csr.rows;
    stats.nnz = csr.nnz();
  }

  // The symbolic analysis of `m` (a new backend): the prediction in stats.
  void analyse(DirectMethod m) {
    const auto t0 = Clock::now();
    backend = A.n > 0 ? make_backend(m, A) : nullptr;
    stats.method = m;
    stats.factorized = false;
    if (backend) set_counts(stats, backend->predicted());
    stats.analyse_seconds += seconds_since(t0);
  }

  // The numeric factorisation of A.values; Auto leaves a CHOLMOD that finds
  // A not positive definite for UMFPACK (a new analysis), and says so.
  void factorize() {
    try {
      factorize_with_backend();
    } catch (const direct::NotPositiveDefinite& e) {
      if (options.method != DirectMethod::Auto) throw;
      stats.note = std::string(e.what()) + "; Auto factorised with UMFPACK's LU instead";
      analyse(DirectMethod::Umfpack);
      factorize_with_backend();
    }
  }

  // Refused with HostOutOfMemory before it starts when the analysis'
  // predicted peak exceeds options.memory_limit (0: the memory available).
  void factorize_with_backend() {
    stats.factorized = false;
    if (backend) {
      require_host_memory(std::size_t(backend->predicted().peak_bytes),
                          std::string("DirectSolver (") + library_name(stats.method) + ", n = " + std::to_string(A.n) +
                              ", " + std::to_string(stats.nnz) + " entries)",
                          options.memory_limit, "its numeric factorisation (the analysis' predicted peak)");
      const auto t0 = Clock::now();
      set_counts(stats, backend->factorize());
      stats.factor_seconds = seconds_since(t0);
    }
    stats.factorized = true;
    ++stats.factorizations;
  }

  void require_factorized(const char* where) const {
    if (!stats.factorized)
      throw Error(std::string(where) + ": A is not factorised (options.factorize was false, or the last " +
                  "factorisation failed): call factorize() first");
  }

  // X = A^-1 B for k columns of length n (leading dimension n), through double.
  void solve(const T* B, T* X, std::int64_t k) {
    std::vector<double> work(B, B + std::size_t(A.n) * std::size_t(k));
    const auto t0 = Clock::now();
    if (backend && k > 0) backend->solve(work.data(), k);
    stats.solve_seconds = seconds_since(t0);
    stats.columns_solved += k;
    for (std::size_t i = 0; i < work.size(); ++i) X[i] = T(work[i]);
  }
};

template <class T>
DirectSolver<T>::DirectSolver(const Csr<T>& A, const DirectOptions& options) try {
  check_options(options);
  validate(A, /*require_sorted=*/true);
  require_square(A, "DirectSolver");
  require_finite(A);
  const ThreadScope threads(options.threads);
  impl_ = std::make_unique<Impl>(A, options);
  const DirectMethod m = options.method == DirectMethod::Auto ? direct::choose_direct_method(A) : options.method;
  // KLU's BTF finds a structurally singular A itself; Auto's CHOLMOD has a
  // positive diagonal, hence a full structural rank.
  if (options.method == DirectMethod::Cholmod) require_symmetric(A);
  if (m == DirectMethod::Umfpack || options.method == DirectMethod::Cholmod) {
    const index_t rank = structural_rank(A);
    if (rank < A.rows) direct::throw_structurally_singular(library_name(m), rank, A.rows);
  }
  impl_->analyse(m);
  if (options.factorize) impl_->factorize();
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::DirectSolver");
}

template <class T>
DirectSolver<T>::~DirectSolver() = default;
template <class T>
DirectSolver<T>::DirectSolver(DirectSolver&&) noexcept = default;
template <class T>
DirectSolver<T>& DirectSolver<T>::operator=(DirectSolver&&) noexcept = default;

template <class T>
void DirectSolver<T>::factorize() try {
  Impl& s = live_impl(impl_);
  const ThreadScope threads(s.options.threads);
  s.factorize();
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::factorize");
}

template <class T>
void DirectSolver<T>::update_values(const Csr<T>& A) try {
  Impl& s = live_impl(impl_);
  validate(A, /*require_sorted=*/true);
  if (!same_pattern(A, s.A))
    throw MatrixError("DirectSolver::update_values: A's pattern differs from the analysed one (a new pattern needs a "
                      "new DirectSolver)");
  update_values(std::span<const T>(A.values));
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::update_values");
}

template <class T>
void DirectSolver<T>::update_values(std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  if (values.size() != s.A.values.size())
    throw DimensionError("DirectSolver::update_values: " + std::to_string(values.size()) + " values for " +
                         std::to_string(s.A.values.size()) + " stored entries");
  require_finite(values, "A's values");
  std::copy(values.begin(), values.end(), s.A.values.begin());
  const ThreadScope threads(s.options.threads);
  s.factorize();
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::update_values");
}

template <class T>
void DirectSolver<T>::solve(std::span<const T> b, std::span<T> x) try {
  Impl& s = live_impl(impl_);
  if (std::int64_t(b.size()) != s.A.n || std::int64_t(x.size()) != s.A.n)
    throw DimensionError("DirectSolver::solve: A is " + std::to_string(s.A.n) + " x " + std::to_string(s.A.n) +
                         " but b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) + " entries");
  s.require_factorized("DirectSolver::solve");
  require_finite(b, "right-hand side b");
  const ThreadScope threads(s.options.threads);
  s.solve(b.data(), x.data(), 1);
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::solve");
}

template <class T>
void DirectSolver<T>::solve(const DenseMatrix<T>& B, DenseMatrix<T>& X) try {
  Impl& s = live_impl(impl_);
  if (B.rows != s.A.n || X.rows != s.A.n || X.cols != B.cols ||
      B.values.size() != std::size_t(B.rows) * std::size_t(B.cols) || X.values.size() != B.values.size())
    throw DimensionError("DirectSolver::solve: A is " + std::to_string(s.A.n) + " x " + std::to_string(s.A.n) +
                         " but B is " + std::to_string(B.rows) + " x " + std::to_string(B.cols) + " and X " +
                         std::to_string(X.rows) + " x " + std::to_string(X.cols) + " (both must be n x k)");
  s.require_factorized("DirectSolver::solve");
  require_finite(std::span<const T>(B.values), "right-hand sides B");
  const ThreadScope threads(s.options.threads);
  s.solve(B.values.data(), X.values.data(), B.cols);
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::solve");
}

template <class T>
const DirectStats& DirectSolver<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("DirectSolver::stats");
}

#define BALSA_INSTANTIATE(T) template class DirectSolver<T>;
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
