// balsa::KrylovSolver: the front end of the Krylov methods (checks, setup of
// the preconditioner and of the GPU path, then any number of solves). Every
// public call runs on the solver's stream (KrylovOptions::stream, opened as
// a StreamScope), and so do the preconditioner and its triangular solvers,
// which take the same stream.
// The methods: krylov/*_cpu.cpp (CPU, the references) and krylov/gpu_*.cu.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "balsa/krylov.hpp"
#include "krylov/cpu.hpp"
#include "cuda/caller_context.hpp"
#include "krylov/gpu.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/termination.hpp"
#include "core/instantiate.hpp"
#include "core/options.hpp"
#include "core/pimpl.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

template <class T>
void check_options(const KrylovOptions& o) {
  const std::string w = "Krylov solver: ";
  if (!(o.tolerance > 0) || !std::isfinite(o.tolerance))
    throw Error(w + "tolerance must be positive and finite, got " + std::to_string(o.tolerance));
  if (o.max_iterations < 0)
    throw Error(w + "max_iterations must be >= 0, got " + std::to_string(o.max_iterations));
  if (!(o.divergence == 0 || o.divergence > 1) || !std::isfinite(o.divergence))
    throw Error(w + "divergence must be 0 (off) or a finite factor > 1, got " + std::to_string(o.divergence));
  if (o.stagnation_window < 0)
    throw Error(w + "stagnation_window must be >= 0 (0: off), got " + std::to_string(o.stagnation_window));
  if (o.method == KrylovMethod::BiCgStabL && (o.l < 1 || o.l > krylov::kMaxL))
    throw Error(w + "BiCGStab(l) needs l in 1.." + std::to_string(krylov::kMaxL) + ", got " + std::to_string(o.l));
  if (o.float_preconditioner && !std::is_same_v<T, double>)
    throw Error(w + "float_preconditioner needs a double solver (this one is already float)");
  if (o.device == Device::Cuda && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? w + "Device::Cuda: no CUDA GPU found"
                                            : w + "Device::Cuda: balsa was built without CUDA");
}

// MatrixError naming the first (row-major) entry (i, j) with a_ij != a_ji.
template <class T>
void require_symmetric(const Csr<T>& A) {
  const Asymmetry a = first_asymmetry(A, 1e-12);
  if (a.symmetric()) return;
  const std::string at = "A(" + std::to_string(a.row) + ", " + std::to_string(a.col) + ")";
  const std::string mirror = "A(" + std::to_string(a.col) + ", " + std::to_string(a.row) + ")";
  const std::string other = a.mirror_stored ? mirror + " = " + std::to_string(a.mirror) : mirror + " is not stored";
  throw MatrixError("CG needs a symmetric matrix: " + at + " = " + std::to_string(a.value) + " but " + other +
                    " (relative tolerance 1e-12; use a BiCGStab method, or turn the symmetry check off)");
}

void check_length(std::size_t got, index_t rows, const char* what) {
  if (got != std::size_t(rows))
    throw DimensionError(std::string("Krylov solve: ") + what + " has " + std::to_string(got) +
                         " entries, the matrix " + std::to_string(rows) + " rows");
}

// Stats naming the method, preconditioner and device (the setup fields
// every solve's stats start from).
KrylovStats labelled_stats(const KrylovOptions& o) {
  KrylovStats st;
  st.method = o.method;
  st.preconditioner = o.preconditioner;
  st.device = o.device;
  return st;
}

// The stats of a solve that needs no iteration (b == 0 or an empty system).
void zero_solution(KrylovStats& st, double tolerance) {
  st.iterations = st.matvecs = 0;
  st.residual = st.true_residual = 0;
  st.history.assign(1, 0.0);
  krylov::record_stop(st, krylov::kConverged, krylov::kNoQuantity, 0.0, 0, tolerance);
}
}  // namespace

template <class T>
struct KrylovSolver<T>::Impl {
  static constexpr const char* kOwner = "KrylovSolver";  // (live_impl's error)
  KrylovOptions options;
  Csr<T> A;  // A's pattern, and on the CPU path its values (the GPU path keeps those on the device only)
  std::unique_ptr<krylov::Operator<T>> op;  // A as an operator instead (A then holds the sizes only)
  std::unique_ptr<krylov::Preconditioner<T>> M;
  std::unique_ptr<krylov::gpu::Solver<T>> gpu;
  cuda::DeviceBuffer<T> staging_b, staging_x;  // host-vector solves on the GPU
  KrylovStats setup;  // the setup fields every solve's stats start from
  KrylovStats stats;

  void set_up(const Csr<T>& A, const KrylovOptions& options, std::unique_ptr<krylov::Preconditioner<T>> given);

  void require_device() const {
    if (options.device != Device::Cuda)
      throw Error("Krylov solve: device vectors need a solver on Device::Cuda (this one runs on the CPU)");
  }
  // The device-vector solves (b and x: device arrays of A.rows values, on
  // the solver's stream).
  KrylovStats solve_on_device(const T* b, T* x) {
    const auto t0 = Clock::now();
    KrylovStats st = setup;
    if (A.rows == 0)
      zero_solution(st, options.tolerance);
    else
      gpu->solve(b, x, st);  // checks b and x, handles b == 0
    st.solve_seconds = seconds_since(t0);
    stats = st;
    return st;
  }

  void solve_cpu(std::span<const T> b, std::span<T> x, KrylovStats& st) {
    krylov::cpu::Run<T> run(A, M.get(), options, st, op.get());
    switch (options.method) {
      case KrylovMethod::Cg: krylov::cpu::cg(run, b, x); break;
      case KrylovMethod::BiCgStab: krylov::cpu::bicgstab(run, b, x); break;
      case KrylovMethod::BiCgStabL: krylov::cpu::bicgstab_l(run, options.l, b, x); break;
    }
    if (op) {
      std::vector<T> ax(x.size());
      op->apply(x.data(), ax.data());
      st.true_residual = relative_residual_of(std::span<const T>(ax), b);
    } else {
      st.true_residual = relative_residual(A, std::span<const T>(x), b);
    }
    krylov::check_attainable_accuracy(st, options.norm, A.rows, options.tolerance);
  }
};

template <class T>
KrylovSolver<T>::KrylovSolver(const Csr<T>& A, const KrylovOptions& given) try : impl_(std::make_unique<Impl>()) {
  const cuda::StreamScope on(given.stream);
  impl_->set_up(A, with_device_resolved(given), nullptr);
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

template <class T>
KrylovSolver<T>::KrylovSolver(const Csr<T>& A, std::unique_ptr<krylov::Preconditioner<T>> M,
                              const KrylovOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  if (!M) throw Error("Krylov solver: no preconditioner given");
  const cuda::StreamScope on(given.stream);
  impl_->set_up(A, with_device_resolved(given), std::move(M));
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

// The CSR constructors' set-up: checks, A's copy (and upload), the
// preconditioner (`given`, or the one options name), the GPU iteration.
template <class T>
void KrylovSolver<T>::Impl::set_up(const Csr<T>& in, const KrylovOptions& opt,
                                   std::unique_ptr<krylov::Preconditioner<T>> given) {
  const auto t0 = Clock::now();
  Impl& s = *this;
  trace::Span checks("krylov: checks");
  validate(in, /*require_sorted=*/true);  // canonical: sorted, no duplicates
  require_square(in, "Krylov solver");
  require_finite(in);
  check_options<T>(opt);
  checks.end();
  s.options = opt;
  // What only this solver needs runs on a thread of its own beside the
  // preconditioner's set-up (which reads A alone, checked above): CG's
  // symmetry check, whose error still comes first, and the copy of A that
  // update_values checks against.
  auto own = parallel::async_with_threads(2, [&in, &s, &opt] {
    const trace::Span span("krylov: symmetry check, copy of A's pattern");
    if (opt.method == KrylovMethod::Cg && opt.check_symmetry) require_symmetric(in);
    s.A = Csr<T>{in.rows, in.cols, parallel::fresh_copy(in.row_ptr), parallel::fresh_copy(in.col_idx), {}};
    if (opt.device == Device::Cpu) s.A.values = parallel::fresh_copy(in.values);
  });
  KrylovStats& st = s.setup = labelled_stats(opt);
  if (in.rows > 0) try {
    // On the GPU path A's upload runs on a thread of its own beside the
    // preconditioner's analysis (whose errors still come first; an
    // ILU(0)/IC(0) breakdown shows when the factors are computed from
    // the upload, after it).
    std::future<cuda::DeviceCsr<T>> device_A;
    if (opt.device == Device::Cuda)
      device_A = parallel::async_with_threads(1, [&in, caller = cuda::CallerContext(true)] {
        const cuda::StreamScope on = caller.enter();  // cuda/caller_context.hpp
        const trace::Span span("krylov: upload A");
        cuda::DeviceCsr<T> uploaded = cuda::to_device(in);
        caller.finish();
        return uploaded;
      });
    trace::Span preconditioner("krylov: preconditioner");
    s.M = given ? std::move(given) : krylov::make_preconditioner(in, opt);
    preconditioner.end();
    own.get();
    std::optional<cuda::DeviceCsr<T>> dA;
    if (device_A.valid()) dA = device_A.get();
    // A preconditioner analysed from A's pattern (the GPU's ILU(0)/IC(0))
    // is factored from the copy of A just uploaded.
    if (s.M && s.M->awaits_values()) {
      if (!dA) throw Error("internal: the preconditioner awaits A's device values, but A was not uploaded");
      s.M->update_values_device(dA->values);
    }
    if (s.M) s.M->describe(st);
    if (dA) {
      const trace::Span span("krylov: GPU iteration set-up");
      s.gpu = krylov::gpu::make_solver(std::move(*dA), s.M.get(), opt, st);
    }
  } catch (...) {
    if (own.valid()) own.get();  // its error (an asymmetric A) wins over the set-up's
    throw;
  }
  if (own.valid()) own.get();
  st.setup_seconds = seconds_since(t0);
  s.stats = st;
}

template <class T>
KrylovSolver<T>::KrylovSolver(std::unique_ptr<krylov::Operator<T>> A, std::unique_ptr<krylov::Preconditioner<T>> M,
                              const KrylovOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  const KrylovOptions options = with_device_resolved(given);
  const auto t0 = Clock::now();
  const cuda::StreamScope on(options.stream);
  Impl& s = *impl_;
  if (!A) throw Error("Krylov solver: no operator");
  check_options<T>(options);
  s.options = options;
  s.A.rows = s.A.cols = A->rows();
  s.op = std::move(A);
  s.M = std::move(M);
  KrylovStats& st = s.setup = labelled_stats(options);
  if (s.M) s.M->describe(st);
  if (options.device == Device::Cuda && s.A.rows > 0) s.gpu = krylov::gpu::make_solver(s.op.get(), s.M.get(), options, st);
  if (options.device == Device::Cpu) st.spmv = s.op->name();
  st.setup_seconds = seconds_since(t0);
  s.stats = st;
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

template <class T>
KrylovSolver<T>::~KrylovSolver() = default;
template <class T>
KrylovSolver<T>::KrylovSolver(KrylovSolver&&) noexcept = default;
template <class T>
KrylovSolver<T>& KrylovSolver<T>::operator=(KrylovSolver&&) noexcept = default;

template <class T>
KrylovStats KrylovSolver<T>::solve(std::span<const T> b, std::span<T> x) try {
  Impl& s = live_impl(impl_);
  const cuda::StreamScope on(s.options.stream);
  check_length(b.size(), s.A.rows, "b");
  check_length(x.size(), s.A.rows, "x");
  require_finite(b, "right-hand side b");
  require_finite(std::span<const T>(x), "initial guess x");
  const auto t0 = Clock::now();
  KrylovStats st = s.setup;
  if (std::all_of(b.begin(), b.end(), [](T v) { return v == T(0); })) {  // x = 0 solves it
    std::fill(x.begin(), x.end(), T(0));
    zero_solution(st, s.options.tolerance);
  } else if (s.gpu) {
    if (s.staging_b.size() != b.size()) {
      s.staging_b = cuda::DeviceBuffer<T>(b.size());
      s.staging_x = cuda::DeviceBuffer<T>(b.size());
    }
    s.staging_b.upload(b);
    s.staging_x.upload(std::span<const T>(x));
    s.gpu->solve(s.staging_b.data(), s.staging_x.data(), st);
    s.staging_x.download(x);
  } else {
    s.solve_cpu(b, x, st);
  }
  st.solve_seconds = seconds_since(t0);
  s.stats = st;
  return st;
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::solve");
}

template <class T>
KrylovStats KrylovSolver<T>::solve(const cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& x) try {
  Impl& s = live_impl(impl_);
  const cuda::StreamScope on(s.options.stream);
  s.require_device();
  check_length(b.size(), s.A.rows, "b");
  check_length(x.size(), s.A.rows, "x");
  return s.solve_on_device(b.data(), x.data());
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::solve");
}

template <class T>
KrylovStats KrylovSolver<T>::solve_device(const T* b, T* x) try {
  Impl& s = live_impl(impl_);
  const cuda::StreamScope on(s.options.stream);
  s.require_device();
  if (s.A.rows > 0 && (!b || !x)) throw Error("Krylov solve: null device array");
  if (s.A.rows > 0 && b == x) throw Error("Krylov solve: b and x must be different device arrays");
  return s.solve_on_device(b, x);
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::solve_device");
}

template <class T>
void KrylovSolver<T>::update_values(std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const cuda::StreamScope on(s.options.stream);
  if (s.op) throw Error("Krylov solver update_values: this solver's A is an operator (update its owner instead)");
  if (values.size() != std::size_t(s.A.nnz()))
    throw DimensionError("Krylov solver update_values: " + std::to_string(values.size()) + " values for a matrix of " +
                         std::to_string(s.A.nnz()) + " entries");
  Csr<T> B{s.A.rows, s.A.cols, s.A.row_ptr, s.A.col_idx, std::vector<T>(values.begin(), values.end())};
  require_finite(B);
  if (s.options.method == KrylovMethod::Cg && s.options.check_symmetry) require_symmetric(B);
  if (s.M) {  // refactors (the preconditioner keeps its old factors if it throws)
    s.M->update_values(values);
    s.M->describe(s.setup);
  }
  if (s.gpu)
    s.gpu->update_values(values);
  else
    s.A.values = std::move(B.values);
  s.stats = s.setup;
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::update_values");
}

template <class T>
const KrylovStats& KrylovSolver<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::stats");
}

template <class T>
index_t KrylovSolver<T>::rows() const try {
  return live_impl(impl_).A.rows;
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::rows");
}

template class KrylovSolver<float>;
template class KrylovSolver<double>;

}  // namespace balsa
