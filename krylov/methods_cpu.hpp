// Internal: the CPU reference Krylov solvers (the oracle of the GPU ones) and
// what they share: OpenMP vector loops with fused reductions, the SpMV, the
// preconditioner call, per-phase clocks and the per-iteration bookkeeping
// (history, stopping test, progress callback).
//
// Every solver takes x as the initial guess and leaves the last iterate in
// it, and fills stats' solve fields: outcome, message, iterations, matvecs,
// residual, history and the phase times (not true_residual or solve_seconds:
// the front end's).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "balsa/krylov.hpp"
#include "krylov/common.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/termination.hpp"

namespace balsa::krylov::cpu {

// Vector loops run in parallel above this length.
inline constexpr std::int64_t kParallel = 16384;

// Runs f(i, acc) for i in [0, n) and returns acc combined over i: slot v by
// max (NaN kept) when bit v of max_mask is set, else by sum. f may update
// vectors at i. The GPU's reduce kernel does the same in another order.
template <int K, class F>
std::array<double, K> map_reduce(std::int64_t n, unsigned max_mask, F&& f) {
  std::array<double, K> total{};
#pragma omp parallel if (n > kParallel)
  {
    std::array<double, K> acc{};
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) f(i, acc);
#pragma omp critical(balsa_krylov_reduce)
    for (int v = 0; v < K; ++v) total[v] = combine(total[v], acc[v], (max_mask >> v) & 1u);
  }
  return total;
}

template <class F>
void map(std::int64_t n, F&& f) {
#pragma omp parallel for schedule(static) if (n > kParallel)
  for (std::int64_t i = 0; i < n; ++i) f(i);
}

// x^T y, products and sum in double.
template <class T>
double dot(const T* x, const T* y, std::int64_t n) {
  return map_reduce<1>(n, 0u, [&](std::int64_t i, std::array<double, 1>& a) { a[0] += double(x[i]) * double(y[i]); })[0];
}

// The state of one CPU solve: the problem, the stopping test, the clocks.
template <class T>
class Run {
 public:
  // A's products: op when given, else the CSR A (whose rows() n is in both cases).
  Run(const Csr<T>& A, Preconditioner<T>* M, const KrylovOptions& options, KrylovStats& stats,
      Operator<T>* op = nullptr)
      : A_(A),
        op_(op),
        M_(M),
        o_(options),
        st_(stats),
        n_(A.rows),
        infinity_(options.stopping.norm == StoppingNorm::Infinity),
        tolerance_(options.stopping.tolerance) {}

  std::int64_t n() const { return n_; }
  bool infinity() const { return infinity_; }
  unsigned norm_mask() const { return infinity_ ? 1u : 0u; }  // slot 0 holds the norm
  bool preconditioned() const { return M_ != nullptr; }
  int max_iterations() const { return o_.stopping.max_iterations; }
  KrylovStats& stats() { return st_; }
  // The relative tolerance of the stopping test: max(tolerance, absolute_tolerance / ||b||).
  double tolerance() const { return tolerance_; }
  double relative(double norm) const { return norm / normb_; }

  // y = A x: balsa::spmv's arithmetic (a row's sum in T, storage order)
  // without its per-call validation (the front end validated A once).
  void spmv(const T* x, T* y) {
    to(&st_.spmv_seconds);
    if (op_) {
      op_->apply(x, y);
      ++st_.matvecs;
      to(&st_.vector_seconds);
      return;
    }
#pragma omp parallel for schedule(static) if (A_.nnz() > 100000)
    for (index_t i = 0; i < A_.rows; ++i) {
      T sum = T(0);
      for (index_t k = A_.row_ptr[i]; k < A_.row_ptr[i + 1]; ++k) sum += A_.values[k] * x[A_.col_idx[k]];
      y[i] = sum;
    }
    ++st_.matvecs;
    to(&st_.vector_seconds);
  }
  // z = M^{-1} r (z = r without a preconditioner).
  void precondition(const T* r, T* z) {
    to(&st_.preconditioner_seconds);
    if (M_)
      M_->apply(std::span<const T>(r, std::size_t(n_)), std::span<T>(z, std::size_t(n_)));
    else
      std::copy(r, r + n_, z);
    to(&st_.vector_seconds);
  }

  // The initial residual: ||b||, history[0]; false when the solve is over
  // (already converged, or non-finite).
  bool start(double normb, double norm_r0) {
    normb_ = normb;
    tolerance_ = effective_tolerance(o_.stopping.tolerance, o_.stopping.absolute_tolerance, normb);
    st_.history.clear();
    to(&st_.vector_seconds);
    return record(0, norm_r0) == kRunning;
  }
  // Iteration `iteration` (1-based) ended with ||r|| = norm_r: history,
  // progress, stopping test. Returns kRunning, kConverged or kNonFinite.
  int record(int iteration, double norm_r) {
    const double res = norm_r / normb_;
    st_.history.push_back(res);
    st_.iterations = iteration;
    st_.residual = res;
    if (o_.progress) call_user(o_.progress, iteration, res);
    if (!std::isfinite(res)) return stop(kNonFinite, kResidual, res, iteration);
    if (res <= tolerance_) return stop(kConverged, kNoQuantity, 0.0, iteration);
    const StoppingOptions& so = o_.stopping;
    if (const int early = progress_stop(progress_, iteration, res, so.divergence, so.stagnation_window)) {
      to(nullptr);
      if (o_.phase_timing) st_.phase_samples = st_.iterations;
      record_early_stop(st_, early, progress_, iteration, o_.stopping);
      return early;
    }
    return kRunning;
  }
  // The solve ends (stops the clocks, fills outcome and message); returns `code`.
  int stop(int code, int quantity, double value, int iteration) {
    to(nullptr);
    if (o_.phase_timing) st_.phase_samples = st_.iterations;
    record_stop(st_, code, quantity, value, iteration, tolerance_);
    return code;
  }
  // The iterate of iteration k1, whose residual was recorded, turned out to
  // solve the system exactly (a recomputed residual of 0): converged.
  int exact(int k1) {
    st_.history.back() = st_.residual = 0.0;
    return stop(kConverged, kNoQuantity, 0.0, k1);
  }
  int max_iterations_reached() { return stop(kMaxIterationsStop, kNoQuantity, 0.0, st_.iterations); }

  // The user's per-iterate callback (KrylovSolver::set_iterate_callback;
  // null: none), called by iterate.
  void set_iterate_callback(const IterateCallback<T>* f) { on_iterate_ = f && *f ? f : nullptr; }
  bool wants_iterates() const { return on_iterate_ != nullptr; }
  // x (n values) is the iterate of the iteration last recorded: the callback
  // sees it, once per iteration (a second call for the same one is skipped).
  void iterate(std::span<const T> x) {
    if (!on_iterate_ || st_.iterations <= iterated_) return;
    iterated_ = st_.iterations;
    call_user(*on_iterate_, st_.iterations, x);
  }

 private:
  using Clock = std::chrono::steady_clock;
  // Charges the time since the last switch to the running phase, then runs `next`.
  void to(double* next) {
    if (!o_.phase_timing) return;
    const auto now = Clock::now();
    if (phase_) *phase_ += std::chrono::duration<double>(now - since_).count();
    phase_ = next;
    since_ = now;
  }

  const Csr<T>& A_;
  Operator<T>* op_;
  Preconditioner<T>* M_;
  const KrylovOptions& o_;
  KrylovStats& st_;
  std::int64_t n_;
  bool infinity_;
  double normb_ = 1.0;
  double tolerance_;
  Progress progress_;
  const IterateCallback<T>* on_iterate_ = nullptr;
  int iterated_ = 0;  // the last iteration the iterate callback saw
  double* phase_ = nullptr;
  Clock::time_point since_{};
};

// The solvers (x: initial guess in, last iterate out; ||b|| > 0, b and x finite).
template <class T> void cg(Run<T>& run, std::span<const T> b, std::span<T> x);          // cg_cpu.cpp
template <class T> void bicgstab(Run<T>& run, std::span<const T> b, std::span<T> x);    // bicgstab_cpu.cpp
template <class T> void bicgstab_l(Run<T>& run, int l, std::span<const T> b, std::span<T> x);  // bicgstab_l_cpu.cpp
template <class T> void gmres(Run<T>& run, int restart, std::span<const T> b, std::span<T> x);  // gmres_cpu.cpp
template <class T> void minres(Run<T>& run, std::span<const T> b, std::span<T> x);      // minres_cpu.cpp

}  // namespace balsa::krylov::cpu
