// balsa::KrylovSolver: the front end of the Krylov methods (checks, setup of
// the preconditioner and of the GPU path, then any number of solves). Every
// public call runs on the solver's stream and threads (KrylovOptions::stream
// and threads, opened as a CallScope, core/call_scope.hpp), and so do the
// preconditioner and its triangular solvers, which take the same stream and
// the threads in effect (their options' threads = 0).
// The methods: krylov/*_cpu.cpp (CPU, the references) and krylov/gpu_*.cu.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "balsa/krylov.hpp"
#include "cuda/caller_context.hpp"
#include "krylov/chebyshev.hpp"
#include "krylov/device_checks.hpp"
#include "krylov/gpu.hpp"
#include "krylov/methods_cpu.hpp"
#include "krylov/operator.hpp"
#include "krylov/ordering.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/termination.hpp"
#include "core/call_scope.hpp"
#include "core/instantiate.hpp"
#include "core/options.hpp"
#include "core/pimpl.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

// The largest GMRES(m) basis (KrylovOptions::restart).
constexpr int kMaxRestart = 1000;

// GMRES's and MINRES's options: the restart length, the 2-norm (their
// recurrences give ||r||_2), MINRES's symmetric positive definite preconditioner.
void check_method_options(const KrylovOptions& o, const std::string& w) {
  const bool gmres = o.method == KrylovMethod::Gmres, minres = o.method == KrylovMethod::Minres;
  if (gmres && (o.restart < 1 || o.restart > kMaxRestart))
    throw Error(w + "GMRES(m) needs restart (m) in 1.." + std::to_string(kMaxRestart) + ", got " +
                std::to_string(o.restart));
  if ((gmres || minres) && o.stopping.norm != StoppingNorm::Two)
    throw Error(w + to_string(o.method) + " tests the residual's 2-norm (its recurrence gives that one): set " +
                "stopping.norm to the 2-norm (\"2\"), not \"" + to_string(o.stopping.norm) + "\"");
  if (minres && o.preconditioner == PreconditionerKind::Ilu0)
    throw Error(w + "MINRES needs a symmetric positive definite preconditioner (none, jacobi, ic0 or chebyshev); "
                    "ILU(0) is not symmetric (use GMRES or BiCGStab with ILU(0))");
}

// The methods that need a symmetric A (checked when KrylovOptions::check_symmetry).
bool needs_symmetry(const KrylovOptions& o) {
  return o.check_symmetry && (o.method == KrylovMethod::Cg || o.method == KrylovMethod::Minres);
}

// csr: A comes as CSR and the solver sets up its own preconditioner (the
// multicolour ordering needs both).
template <class T>
void check_options(const KrylovOptions& o, bool csr) {
  const std::string w = "Krylov solver: ";
  if (o.ordering != KrylovOrdering::Natural && !csr)
    throw Error(w + "the " + to_string(o.ordering) +
                " ordering needs A as a CSR matrix and the preconditioner that options name (use the natural one)");
  krylov::check_stopping(o.stopping, w);
  if (o.method == KrylovMethod::BiCgStabL && (o.l < 1 || o.l > krylov::kMaxL))
    throw Error(w + "BiCGStab(l) needs l in 1.." + std::to_string(krylov::kMaxL) + ", got " + std::to_string(o.l));
  check_method_options(o, w);
  if (o.float_preconditioner && !std::is_same_v<T, double>)
    throw Error(w + "float_preconditioner needs a double solver (this one is already float)");
  if (o.device == Device::Cuda && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? w + "Device::Cuda: no CUDA GPU found"
                                            : w + "Device::Cuda: balsa was built without CUDA");
}

// CG's and MINRES's symmetry check's tolerance, and its MatrixError for the entries `what` names.
constexpr double kSymmetryTolerance = 1e-12;
[[noreturn]] void throw_asymmetric(KrylovMethod method, const std::string& what) {
  const std::string name = method == KrylovMethod::Minres ? "MINRES" : "CG";
  // (The words in parentheses are the command line's to translate: apps/cli_terms.cpp.)
  throw MatrixError(name + " needs a symmetric matrix: " + what +
                    " (relative tolerance 1e-12; use GMRES or a BiCGStab method, or set KrylovOptions::check_symmetry = false)");
}

// MatrixError naming the first (row-major) entry (i, j) with a_ij != a_ji;
// with `order`, A is P B P^T and the entry is named in B's numbering.
template <class T>
void require_symmetric(KrylovMethod method, const Csr<T>& A, const krylov::Reordering* order = nullptr) {
  const Asymmetry a = first_asymmetry(A, kSymmetryTolerance);
  if (a.symmetric()) return;
  const index_t i = order ? order->original(a.row) : a.row, j = order ? order->original(a.col) : a.col;
  const std::string at = "A(" + std::to_string(i) + ", " + std::to_string(j) + ")";
  const std::string mirror = "A(" + std::to_string(j) + ", " + std::to_string(i) + ")";
  const std::string other = a.mirror_stored ? mirror + " = " + std::to_string(a.mirror) : mirror + " is not stored";
  throw_asymmetric(method, at + " = " + std::to_string(a.value) + " but " + other);
}

// require_finite(A) for an A just validated: the values scanned in
// parallel; the message (the entry's row and column) from require_finite.
template <class T>
void require_finite_values(const Csr<T>& A) {
  const std::size_t n = A.values.size();
  if (parallel::first_where(n, [&](std::size_t k) { return !std::isfinite(A.values[k]); }) < n) require_finite(A);
}

// The same for new values of A (A's CSR order) of a solver on PA = P A P^T
// (PA's pattern): the first NaN or Inf named by its row and column in A.
template <class T>
void require_finite_reordered(std::span<const T> values, const Csr<T>& PA, const krylov::Reordering& order) {
  const std::size_t p = parallel::first_where(values.size(), [&](std::size_t k) { return !std::isfinite(values[k]); });
  if (p == values.size()) return;
  index_t q = 0;  // PA's entry that takes it (the error path: a linear search)
  while (order.source(q) != index_t(p)) ++q;
  const index_t i = index_t(std::upper_bound(PA.row_ptr.begin(), PA.row_ptr.end(), q) - PA.row_ptr.begin()) - 1;
  throw MatrixError(std::string(std::isnan(values[p]) ? "NaN" : "Inf") + " value at (row " +
                    std::to_string(order.original(i)) + ", column " +
                    std::to_string(order.original(PA.col_idx[std::size_t(q)])) + ")");
}

void check_length(std::size_t got, index_t rows, const char* what) {
  if (got != std::size_t(rows))
    throw DimensionError(std::string("Krylov solve: ") + what + " has " + std::to_string(got) +
                         " entries, the matrix " + std::to_string(rows) + " rows");
}

// A user's LinearOperator `name` (A or M): square, with a product.
template <class T>
void check_user_operator(const LinearOperator<T>& L, const char* name, const std::string& w) {
  if (L.rows < 0 || L.rows != L.cols)
    throw DimensionError(w + name + " is " + std::to_string(L.rows) + " x " + std::to_string(L.cols) + ", not square");
  if (!L.apply && !L.apply_device) throw Error(w + name + " has neither apply nor apply_device");
}

// The options of a solver with a user's operator A and/or preconditioner M
// (n: A's rows), checked against them; Device::Auto resolved: the GPU only
// when every one of them has apply_device.
template <class T>
KrylovOptions user_options(const LinearOperator<T>* A, index_t n, const LinearOperator<T>* M, const KrylovOptions& given) {
  const std::string w = A ? "Krylov solver on an operator A: " : "Krylov solver with a user preconditioner M: ";
  if (A) check_user_operator(*A, "A", w);
  if (M) check_user_operator(*M, "M", w);
  if (M && M->rows != n)
    throw DimensionError(w + "M is " + std::to_string(M->rows) + " x " + std::to_string(M->cols) + ", A has " +
                         std::to_string(n) + " rows");
  if (given.preconditioner != PreconditionerKind::None)
    throw Error(w + "options.preconditioner must be none " +
                (M ? "with a user M" : "(the built-in preconditioners need A's entries; give M instead)") + ", not " +
                to_string(given.preconditioner));
  const bool on_device = (!A || A->apply_device) && (!M || M->apply_device);
  KrylovOptions o = given;
  if (o.device == Device::Auto && !on_device) o.device = Device::Cpu;
  if (o.device == Device::Cuda && !on_device) throw Error(w + "Device::Cuda needs apply_device on A and M");
  o = with_device_resolved(o);
  if (o.device == Device::Cpu && ((A && !A->apply) || (M && !M->apply)))
    throw Error(w + "the CPU path needs apply (the host product) on A and M");
  return o;
}

// The handler of KrylovSolver's solves: a user's callback's exception
// leaves as it was thrown, the rest as rethrow_as_balsa_error makes it.
[[noreturn]] void rethrow_user_or_balsa_error(const char* where) {
  try {
    throw;
  } catch (const krylov::UserCallbackError& e) {
    std::rethrow_exception(e.cause);
  } catch (...) {
    rethrow_as_balsa_error(where);
  }
}

// Stats naming the method, preconditioner and device (the setup fields
// every solve's stats start from).
KrylovStats labelled_stats(const KrylovOptions& o) {
  KrylovStats st;
  st.method = o.method;
  st.preconditioner = o.preconditioner;
  st.ordering = o.ordering;
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
  // KrylovOrdering::Multicolour: A above, the preconditioner and the GPU
  // iteration are P A P^T; b and x go through P (host vectors on the host,
  // device vectors on the device, into ordered_b and ordered_x).
  std::optional<krylov::Reordering> order;
  cuda::DeviceBuffer<T> ordered_b, ordered_x;
  KrylovStats setup;  // the setup fields every solve's stats start from
  IterateCallback<T> on_iterate;  // set_iterate_callback's (empty: none)
  KrylovStats stats;
  // The device constructor's A (A above holds its sizes only): its entries
  // and arrays on the device (the GPU iteration's copy), for update_values.
  bool device_only = false;
  std::int64_t device_nnz = 0;
  const index_t *device_row_ptr = nullptr, *device_col_idx = nullptr;
  T* device_values = nullptr;

  void set_up_device(const cuda::DeviceCsr<T>& A, const KrylovOptions& options);
  void check_device_values(const T* values) const;
  void update_device_only(std::span<const T> values);

  void set_up(const Csr<T>& A, const KrylovOptions& options, std::unique_ptr<krylov::Preconditioner<T>> given);
  // set_up's steps.
  std::future<void> start_own_checks(const Csr<T>& in, bool reorder, int threads);
  std::future<cuda::DeviceCsr<T>> start_upload(const Csr<T>& system, int threads);
  void set_up_preconditioner(const Csr<T>& system, std::unique_ptr<krylov::Preconditioner<T>> given,
                             std::future<void>& own, std::future<cuda::DeviceCsr<T>>& device_A);

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
      zero_solution(st, options.stopping.tolerance);
    else if (!order)
      gpu->solve(b, x, st);  // checks b and x, handles b == 0
    else
      solve_ordered_on_device(b, x, st);
    st.solve_seconds = seconds_since(t0);
    st.preconditioner_matvecs = std::int64_t(st.chebyshev_degree) * st.matvecs;
    stats = st;
    return st;
  }

  // The same through P: b and x gathered into P's order, the solve, x
  // scattered back (on the solver's stream). A NaN or Inf in b or x is
  // named at its index in the caller's order.
  void solve_ordered_on_device(const T* b, T* x, KrylovStats& st) {
    if (ordered_b.size() != std::size_t(A.rows)) {
      ordered_b = cuda::DeviceBuffer<T>(std::size_t(A.rows));
      ordered_x = cuda::DeviceBuffer<T>(std::size_t(A.rows));
    }
    order->in_device(b, ordered_b.data());
    order->in_device(static_cast<const T*>(x), ordered_x.data());
    try {
      gpu->solve(ordered_b.data(), ordered_x.data(), st);
    } catch (const Error&) {
      for (const auto& [v, what] : {std::pair{b, "right-hand side b"}, std::pair{static_cast<const T*>(x), "initial guess x"}}) {
        std::vector<T> host(std::size_t(A.rows));
        cuda::detail::copy_to_host(host.data(), v, host.size() * sizeof(T));
        require_finite(std::span<const T>(host), what);
      }
      throw;
    }
    order->out_device(static_cast<const T*>(ordered_x.data()), x);
  }

  // Host vectors on either path, through P with the multicolour ordering.
  void solve_host(std::span<const T> b, std::span<T> x, KrylovStats& st) {
    if (!order) return solve_unordered(b, x, st);
    std::vector<T> pb(b.size()), px(x.size());
    order->in(b, std::span<T>(pb));
    order->in(std::span<const T>(x), std::span<T>(px));
    solve_unordered(std::span<const T>(pb), std::span<T>(px), st);
    order->out(std::span<const T>(px), x);
  }
  void solve_unordered(std::span<const T> b, std::span<T> x, KrylovStats& st) {
    if (!gpu) return solve_cpu(b, x, st);
    if (staging_b.size() != b.size()) {
      staging_b = cuda::DeviceBuffer<T>(b.size());
      staging_x = cuda::DeviceBuffer<T>(b.size());
    }
    staging_b.upload(b);
    staging_x.upload(std::span<const T>(x));
    gpu->solve(staging_b.data(), staging_x.data(), st);
    staging_x.download(x);
  }

  void solve_cpu(std::span<const T> b, std::span<T> x, KrylovStats& st) {
    krylov::cpu::Run<T> run(A, M.get(), options, st, op.get());
    run.set_iterate_callback(&on_iterate);
    switch (options.method) {
      case KrylovMethod::Cg: krylov::cpu::cg(run, b, x); break;
      case KrylovMethod::BiCgStab: krylov::cpu::bicgstab(run, b, x); break;
      case KrylovMethod::BiCgStabL: krylov::cpu::bicgstab_l(run, options.l, b, x); break;
      case KrylovMethod::Gmres: krylov::cpu::gmres(run, options.restart, b, x); break;
      case KrylovMethod::Minres: krylov::cpu::minres(run, b, x); break;
    }
    if (op) {
      std::vector<T> ax(x.size());
      op->apply(x.data(), ax.data());
      st.true_residual = relative_residual_of(std::span<const T>(ax), b);
    } else {
      st.true_residual = relative_residual(A, std::span<const T>(x), b);
    }
    krylov::check_attainable_accuracy(st, options.stopping, A.rows);
  }
};

template <class T>
KrylovSolver<T>::KrylovSolver(const Csr<T>& A, const KrylovOptions& given) try : impl_(std::make_unique<Impl>()) {
  const CallScope on(given, "KrylovOptions");
  impl_->set_up(A, with_device_resolved(given), nullptr);
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

template <class T>
KrylovSolver<T>::KrylovSolver(const LinearOperator<T>& A, const KrylovOptions& given, const LinearOperator<T>* M) try
    : KrylovSolver(std::make_unique<krylov::UserOperator<T>>(A),
                   M ? std::make_unique<krylov::UserPreconditioner<T>>(*M) : nullptr,
                   user_options(&A, A.rows, M, given)) {
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

template <class T>
KrylovSolver<T>::KrylovSolver(const Csr<T>& A, const KrylovOptions& given, const LinearOperator<T>& M) try
    : KrylovSolver(A, std::make_unique<krylov::UserPreconditioner<T>>(M), user_options<T>(nullptr, A.rows, &M, given)) {
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

template <class T>
KrylovSolver<T>::KrylovSolver(const Csr<T>& A, std::unique_ptr<krylov::Preconditioner<T>> M,
                              const KrylovOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  if (!M) throw Error("Krylov solver: no preconditioner given");
  const CallScope on(given, "KrylovOptions");
  impl_->set_up(A, with_device_resolved(given), std::move(M));
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

// The CSR constructors' set-up: checks, the ordering, A's copy (and
// upload), the preconditioner (`given`, or the one options name), the GPU
// iteration.
template <class T>
void KrylovSolver<T>::Impl::set_up(const Csr<T>& in, const KrylovOptions& opt,
                                   std::unique_ptr<krylov::Preconditioner<T>> given) {
  const auto t0 = Clock::now();
  trace::Span checks("krylov: checks");
  validate(in, /*require_sorted=*/true);  // canonical: sorted, no duplicates
  require_square(in, "Krylov solver");
  require_finite_values(in);
  check_options<T>(opt, /*csr=*/!given);
  checks.end();
  options = opt;
  const bool reorder = opt.ordering == KrylovOrdering::Multicolour && in.rows > 0;
  // Without a triangular preconditioner to set up (none, Jacobi) the calling
  // thread mostly waits: the task below and the upload take half the cores each.
  const bool light = !given && (opt.preconditioner == PreconditionerKind::None ||
                                opt.preconditioner == PreconditionerKind::Jacobi ||
                                opt.preconditioner == PreconditionerKind::Chebyshev);
  const int half = std::max(1, omp_get_max_threads() / 2);
  std::future<void> own = start_own_checks(in, reorder, light ? std::max(2, half) : 2);
  KrylovStats& st = setup = labelled_stats(opt);
  Csr<T> PA;  // the multicolour ordering's P A P^T
  if (in.rows > 0) try {
    if (reorder) {
      const auto t = Clock::now();
      order.emplace(in, PA);  // krylov/ordering.hpp
      st.colours = order->colours();
      st.ordering_seconds = seconds_since(t);
    }
    const Csr<T>& system = reorder ? PA : in;  // what the solver iterates on
    std::future<cuda::DeviceCsr<T>> device_A;
    if (opt.device == Device::Cuda) device_A = start_upload(system, light ? half : 1);
    set_up_preconditioner(system, std::move(given), own, device_A);
  } catch (...) {
    if (own.valid()) own.get();  // its error (an asymmetric A) wins over the set-up's
    throw;
  }
  if (own.valid()) own.get();
  if (reorder) {
    A = std::move(PA);
    if (opt.device != Device::Cpu) std::vector<T>().swap(A.values);  // the GPU path keeps them on the device
  }
  st.setup_seconds = seconds_since(t0);
  stats = st;
}

// What only this solver needs runs on a thread of its own beside the
// ordering and the preconditioner's set-up (which read A alone, checked
// before): CG's symmetry check (on A as given, so that its message names A's
// entries), whose error still comes first, and the copy of A that
// update_values checks against (reordered: P A P^T itself, kept by set_up).
template <class T>
std::future<void> KrylovSolver<T>::Impl::start_own_checks(const Csr<T>& in, bool reorder, int threads) {
  return parallel::async_with_threads(threads, [&in, this, reorder] {
    const trace::Span span("krylov: symmetry check, copy of A's pattern");
    if (needs_symmetry(options)) require_symmetric(options.method, in);
    if (reorder) return;
    A = Csr<T>{in.rows, in.cols, parallel::fresh_copy(in.row_ptr), parallel::fresh_copy(in.col_idx), {}};
    if (options.device == Device::Cpu) A.values = parallel::fresh_copy(in.values);
  });
}

// On the GPU path A's upload runs on a thread of its own beside the
// preconditioner's analysis (whose errors still come first; an ILU(0)/IC(0)
// breakdown shows when the factors are computed from the upload, after it).
// A is checked: no second validation.
template <class T>
std::future<cuda::DeviceCsr<T>> KrylovSolver<T>::Impl::start_upload(const Csr<T>& system, int threads) {
  return parallel::async_with_threads(threads, [&system, this, caller = cuda::CallerContext(true)] {
    const cuda::StreamScope on = caller.enter();  // cuda/caller_context.hpp
    const trace::Span span("krylov: upload A");
    cuda::DeviceCsr<T> uploaded{system.rows, system.cols, system.nnz(),
                                cuda::DeviceBuffer<index_t>(std::span(system.row_ptr)),
                                cuda::DeviceBuffer<index_t>(std::span(system.col_idx)),
                                cuda::DeviceBuffer<T>(std::span(system.values))};
    if (order) order->upload();
    caller.finish();
    return uploaded;
  });
}

// The preconditioner (`given`, or the one the options name) set up from
// `system`, then, once the own task is done and A is on the device, its
// values and the GPU iteration.
template <class T>
void KrylovSolver<T>::Impl::set_up_preconditioner(const Csr<T>& system,
                                                  std::unique_ptr<krylov::Preconditioner<T>> given,
                                                  std::future<void>& own, std::future<cuda::DeviceCsr<T>>& device_A) {
  trace::Span preconditioner("krylov: preconditioner");
  M = given ? std::move(given) : krylov::make_preconditioner(system, options);
  preconditioner.end();
  own.get();
  std::optional<cuda::DeviceCsr<T>> dA;
  if (device_A.valid()) dA = device_A.get();
  // A preconditioner analysed from A's pattern (the GPU's ILU(0)/IC(0))
  // is factored from the copy of A just uploaded.
  if (M && M->awaits_values()) {
    if (!dA) throw Error("internal: the preconditioner awaits A's device values, but A was not uploaded");
    M->use_device_matrix(*dA);  // the buffers keep their addresses when make_solver takes them
    M->update_values_device(dA->values);
  }
  if (M) M->describe(setup);
  if (dA) {
    const trace::Span span("krylov: GPU iteration set-up");
    gpu = krylov::gpu::make_solver(std::move(*dA), M.get(), options, setup);
  }
}

template <class T>
KrylovSolver<T>::KrylovSolver(const cuda::DeviceCsr<T>& A, const KrylovOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  const KrylovOptions options = with_device_resolved(given);
  const CallScope on(options, "KrylovOptions");
  impl_->set_up_device(A, options);
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::KrylovSolver");
}

// The device constructor's set-up: sizes, the kernels' checks, A's device
// copy, the preconditioner from it, the GPU iteration.
template <class T>
void KrylovSolver<T>::Impl::set_up_device(const cuda::DeviceCsr<T>& in, const KrylovOptions& opt) {
  const auto t0 = Clock::now();
  const std::string w = "Krylov solver on a device matrix: ";
  if (opt.device != Device::Cuda) throw Error(w + "it needs the GPU (device auto or cuda)");
  if (opt.ordering != KrylovOrdering::Natural) throw Error(w + "only the natural ordering is offered");
  check_options<T>(opt, /*csr=*/true);
  if (in.rows != in.cols)
    throw DimensionError(w + "A is " + std::to_string(in.rows) + " x " + std::to_string(in.cols) + ", not square");
  if (in.rows < 0 || in.nnz < 0 || in.row_ptr.size() != std::size_t(in.rows) + 1 ||
      in.col_idx.size() < std::size_t(in.nnz) || in.values.size() < std::size_t(in.nnz))
    throw DimensionError(w + "its arrays do not hold " + std::to_string(in.rows) + " rows and " +
                         std::to_string(in.nnz) + " entries");
  options = opt;
  device_only = true;
  device_nnz = in.nnz;
  A.rows = A.cols = in.rows;
  cuda::DeviceCsr<T> own{in.rows, in.cols, in.nnz, cuda::DeviceBuffer<index_t>(in.row_ptr.size()),
                         cuda::DeviceBuffer<index_t>(std::size_t(in.nnz)), cuda::DeviceBuffer<T>(std::size_t(in.nnz))};
  cuda::detail::copy_on_device(own.row_ptr.data(), in.row_ptr.data(), in.row_ptr.bytes());
  cuda::detail::copy_on_device(own.col_idx.data(), in.col_idx.data(), std::size_t(in.nnz) * sizeof(index_t));
  cuda::detail::copy_on_device(own.values.data(), in.values.data(), std::size_t(in.nnz) * sizeof(T));
  device_row_ptr = own.row_ptr.data();
  device_col_idx = own.col_idx.data();
  device_values = own.values.data();
  KrylovStats& st = setup = labelled_stats(opt);
  if (in.rows > 0) {
    check_device_values(own.values.data());
    M = krylov::make_device_preconditioner(own, opt);
    if (M) M->describe(st);
    gpu = krylov::gpu::make_solver(std::move(own), M.get(), options, st);
  }
  st.setup_seconds = seconds_since(t0);
  stats = st;
}

// The kernels' checks of the device pattern with these device values:
// canonical, finite, and symmetric for CG with check_symmetry.
template <class T>
void KrylovSolver<T>::Impl::check_device_values(const T* values) const {
  const krylov::device::CsrProblem p =
      krylov::device::check_csr(A.rows, A.cols, device_nnz, device_row_ptr, device_col_idx, values);
  if (p.row >= 0) {
    static constexpr const char* what[] = {"", "its row pointers are not increasing from 0 to the entries' count",
                                           "a column index is out of range",
                                           "its columns are not strictly increasing (unsorted or duplicate)",
                                           "a value is NaN or Inf"};
    throw MatrixError("Krylov solver on a device matrix: row " + std::to_string(p.row) + ": " + what[int(p.fault)]);
  }
  if (!needs_symmetry(options)) return;
  const krylov::device::AsymmetricEntry e =
      krylov::device::first_asymmetry(A.rows, device_row_ptr, device_col_idx, values, kSymmetryTolerance);
  if (e.row >= 0)
    throw_asymmetric(options.method, "A(" + std::to_string(e.row) + ", " + std::to_string(e.col) + ") differs from A(" +
                     std::to_string(e.col) + ", " + std::to_string(e.row) + ")");
}

// update_values of a device-constructed solver: the new values up once,
// checked there, then the preconditioner and the iteration's copy (device
// to device: the values cross the bus once).
template <class T>
void KrylovSolver<T>::Impl::update_device_only(std::span<const T> values) {
  if (values.size() != std::size_t(device_nnz))
    throw DimensionError("Krylov solver update_values: " + std::to_string(values.size()) + " values for a matrix of " +
                         std::to_string(device_nnz) + " entries");
  if (A.rows == 0) return;
  const cuda::DeviceBuffer<T> v(values);
  check_device_values(v.data());
  if (M) {
    M->update_values_device(v);
    M->describe(setup);
  }
  cuda::detail::copy_on_device(device_values, v.data(), v.bytes());
  stats = setup;
}

template <class T>
KrylovSolver<T>::KrylovSolver(std::unique_ptr<krylov::Operator<T>> A, std::unique_ptr<krylov::Preconditioner<T>> M,
                              const KrylovOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  const KrylovOptions options = with_device_resolved(given);
  const auto t0 = Clock::now();
  const CallScope on(options, "KrylovOptions");
  Impl& s = *impl_;
  if (!A) throw Error("Krylov solver: no operator");
  check_options<T>(options, /*csr=*/false);
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
  const CallScope on(s.options, "KrylovOptions");
  check_length(b.size(), s.A.rows, "b");
  check_length(x.size(), s.A.rows, "x");
  require_finite(b, "right-hand side b");
  require_finite(std::span<const T>(x), "initial guess x");
  const auto t0 = Clock::now();
  KrylovStats st = s.setup;
  if (std::all_of(b.begin(), b.end(), [](T v) { return v == T(0); })) {  // x = 0 solves it
    std::fill(x.begin(), x.end(), T(0));
    zero_solution(st, s.options.stopping.tolerance);
  } else {
    s.solve_host(b, x, st);
  }
  st.solve_seconds = seconds_since(t0);
  st.preconditioner_matvecs = std::int64_t(st.chebyshev_degree) * st.matvecs;
  s.stats = st;
  return st;
} catch (...) {
  rethrow_user_or_balsa_error("KrylovSolver::solve");
}

template <class T>
KrylovStats KrylovSolver<T>::solve(const cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& x) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "KrylovOptions");
  s.require_device();
  check_length(b.size(), s.A.rows, "b");
  check_length(x.size(), s.A.rows, "x");
  return s.solve_on_device(b.data(), x.data());
} catch (...) {
  rethrow_user_or_balsa_error("KrylovSolver::solve");
}

template <class T>
KrylovStats KrylovSolver<T>::solve_device(const T* b, T* x) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "KrylovOptions");
  s.require_device();
  if (s.A.rows > 0 && (!b || !x)) throw Error("Krylov solve: null device array");
  if (s.A.rows > 0 && b == x) throw Error("Krylov solve: b and x must be different device arrays");
  return s.solve_on_device(b, x);
} catch (...) {
  rethrow_user_or_balsa_error("KrylovSolver::solve_device");
}

template <class T>
void KrylovSolver<T>::update_values(std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "KrylovOptions");
  if (s.op) throw Error("Krylov solver update_values: this solver's A is an operator (update its owner instead)");
  if (s.device_only) return s.update_device_only(values);
  if (values.size() != std::size_t(s.A.nnz()))
    throw DimensionError("Krylov solver update_values: " + std::to_string(values.size()) + " values for a matrix of " +
                         std::to_string(s.A.nnz()) + " entries");
  // B: the new values on the stored pattern (lent by s.A for the checks, and
  // given back whatever happens), in P A P^T's order when reordered.
  Csr<T> B{s.A.rows, s.A.cols, std::move(s.A.row_ptr), std::move(s.A.col_idx), parallel::fresh_vector<T>(values.size())};
  struct GiveBack {
    Csr<T>& from;
    Csr<T>& to;
    ~GiveBack() {
      to.row_ptr = std::move(from.row_ptr);
      to.col_idx = std::move(from.col_idx);
    }
  } give_back{B, s.A};
  if (s.order) {
    require_finite_reordered(values, B, *s.order);
    s.order->values(values, std::span<T>(B.values));
  } else {
    std::copy(values.begin(), values.end(), B.values.begin());
    require_finite_values(B);
  }
  if (needs_symmetry(s.options)) require_symmetric(s.options.method, B, s.order ? &*s.order : nullptr);
  const std::span<const T> ordered(B.values);
  if (s.M) {  // refactors (the preconditioner keeps its old factors if it throws)
    s.M->update_values(ordered);
    s.M->describe(s.setup);
  }
  if (s.gpu)
    s.gpu->update_values(ordered);
  else
    s.A.values = std::move(B.values);
  s.stats = s.setup;
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::update_values");
}

template <class T>
void KrylovSolver<T>::set_iterate_callback(IterateCallback<T> f) try {
  Impl& s = live_impl(impl_);
  s.on_iterate = std::move(f);
  if (s.gpu) s.gpu->set_iterate_callback(s.on_iterate ? &s.on_iterate : nullptr);
} catch (...) {
  rethrow_as_balsa_error("KrylovSolver::set_iterate_callback");
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
