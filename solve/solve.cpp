// balsa::solve (include/balsa/solve.hpp): a chain of methods, each run until
// it answers with a measured true residual within the tolerance.
#include "balsa/solve.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <cmath>
#include <memory>
#include <optional>

#include "balsa/cuda.hpp"
#include "balsa/qr.hpp"
#include "balsa/reorder.hpp"
#include "balsa/sap.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/options.hpp"
#include "solve/umfpack.hpp"
#include "sparse/system_map.hpp"

namespace balsa {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The methods' own iteration on A's unknowns: solve(b, x) from x.
template <class T>
class Inner {
 public:
  virtual ~Inner() = default;
  virtual KrylovStats solve(std::span<const T> b, std::span<T> x) = 0;
};

template <class T>
class KrylovInner final : public Inner<T> {
 public:
  KrylovInner(const Csr<T>& A, const KrylovOptions& o) : krylov_(A, o) {}
  KrylovStats solve(std::span<const T> b, std::span<T> x) override { return krylov_.solve(b, x); }

 private:
  KrylovSolver<T> krylov_;
};

// DB first (the matching's permutation and scaling), then the Krylov
// method on D_r Q A D_c: ILU(0) exists for matrices with zero diagonals.
template <class T>
class BoostedInner final : public Inner<T> {
 public:
  BoostedInner(const Csr<T>& A, const KrylovOptions& o)
      : BoostedInner(A, diagonal_boosting(A, {.device = o.device, .stream = o.stream}), o) {}
  KrylovStats solve(std::span<const T> b, std::span<T> x) override {
    map_.rhs_in(b, std::span<T>(c_));
    map_.x_in(std::span<const T>(x), std::span<T>(y_));
    KrylovStats st = krylov_.solve(std::span<const T>(c_), std::span<T>(y_));
    map_.x_out(std::span<const T>(y_), x);
    return st;
  }

 private:
  BoostedInner(const Csr<T>& A, const DiagonalBoosting& db, const KrylovOptions& o)
      : map_(SystemMap::boosting(db)), krylov_(apply_boosting(A, db), o), c_(std::size_t(A.rows)), y_(std::size_t(A.rows)) {}
  SystemMap map_;
  KrylovSolver<T> krylov_;
  std::vector<T> c_, y_;
};

template <class T>
class SapInner final : public Inner<T> {
 public:
  SapInner(const Csr<T>& A, const SparseSapOptions& o) : sap_(A, o) {}
  KrylovStats solve(std::span<const T> b, std::span<T> x) override { return sap_.solve(b, x); }

 private:
  SparseSapSolver<T> sap_;
};

bool symmetric_positive_diagonal(const auto& A) {
  for (const auto d : diagonal(A))
    if (!(d > 0)) return false;
  return first_asymmetry(A).symmetric();
}

template <class T>
struct Chain {
  const Csr<T>& A;
  std::span<const T> b;
  const SolveOptions& o;
  std::vector<T> x0;  // the caller's initial guess
  std::vector<T> best;
  double best_residual = INFINITY;
  SolveReport report;

  double residual(std::span<const T> x) const {
    const double r = relative_residual(A, x, b);
    return std::isfinite(r) ? r : INFINITY;
  }

  std::unique_ptr<Inner<T>> make(SolveMethod m) const {
    const char* name = to_string(m);
    std::function<void(int, double)> progress;
    if (o.progress) progress = [f = o.progress, name](int it, double r) { f(name, it, r); };
    const auto krylov = [&](KrylovPreset preset) {
      KrylovOptions k = krylov_options(preset);
      k.device = o.device;
      k.tolerance = o.tolerance;
      k.norm = StoppingNorm::Two;
      k.max_iterations = o.max_iterations;
      k.divergence = o.divergence;
      k.stagnation_window = o.stagnation_window;
      k.progress = progress;
      k.stream = o.stream;
      return k;
    };
    switch (m) {
      case SolveMethod::PcgIc0: return std::make_unique<KrylovInner<T>>(A, krylov(KrylovPreset::PcgIc0));
      case SolveMethod::DbBiCgStab2Ilu0: return std::make_unique<BoostedInner<T>>(A, krylov(KrylovPreset::BiCgStab2Ilu0));
      case SolveMethod::SapD:
      case SolveMethod::SapC:
      case SolveMethod::SapLu: {
        SparseSapOptions s;
        s.variant = m == SolveMethod::SapC ? SapVariant::Coupled : SapVariant::Decoupled;
        if (m == SolveMethod::SapLu) {  // one block, no drop-off: the whole band
          s.partitions = 1;
          s.drop_tolerance = 0;
          s.third_stage = false;
        }
        s.device = o.device;
        s.tolerance = o.tolerance;
        s.max_iterations = o.max_iterations;
        s.divergence = o.divergence;
        s.stagnation_window = o.stagnation_window;
        s.progress = progress;
        s.stream = o.stream;
        return std::make_unique<SapInner<T>>(A, s);
      }
      default: throw Error("internal: not an iterative method");
    }
  }

  // An iterative method, then up to three rounds of iterative refinement
  // (x += M(b - A x)) while its true residual misses the tolerance: the
  // methods stop on their own (scaled) residual.
  void iterative(SolveMethod m, SolveAttempt& a, std::span<T> x) {
    auto t = Clock::now();
    std::unique_ptr<Inner<T>> inner = make(m);
    a.setup_seconds = seconds_since(t);
    t = Clock::now();
    KrylovStats st = inner->solve(b, x);
    a.iterations = st.iterations;
    double rho = residual(x);
    std::vector<T> r(x.size()), dx(x.size());
    for (int round = 0; round < 3 && st.outcome == KrylovOutcome::Converged && rho > o.tolerance; ++round) {
      const std::vector<T> ax = multiply(A, std::span<const T>(x));
      for (std::size_t i = 0; i < r.size(); ++i) r[i] = T(double(b[i]) - double(ax[i]));
      std::fill(dx.begin(), dx.end(), T(0));
      const KrylovStats more = inner->solve(std::span<const T>(r), std::span<T>(dx));
      a.iterations += more.iterations;
      std::vector<T> next(x.begin(), x.end());
      for (std::size_t i = 0; i < next.size(); ++i) next[i] += dx[i];
      const double rho_next = residual(next);
      if (!(rho_next < rho)) break;
      std::copy(next.begin(), next.end(), x.begin());
      rho = rho_next;
      st.outcome = more.outcome;
      st.message = more.message;
    }
    a.solve_seconds = seconds_since(t);
    a.true_residual = rho;
    a.solved = rho <= o.tolerance;
    if (!a.solved)
      a.reason = st.outcome != KrylovOutcome::Converged
                     ? st.message
                     : "converged on its own residual, but ||b - A x|| / ||b|| = " + number(rho) + " > tolerance " +
                           number(o.tolerance) + " after refinement";
    if (a.solved) report.krylov = st;
  }

  void direct(SolveMethod m, SolveAttempt& a, std::span<T> x) {
    const auto t = Clock::now();
    if (m == SolveMethod::Umfpack) {
      const direct::UmfpackResult u = direct::umfpack_solve(A, b, x);
      a.setup_seconds = u.factor_seconds;
      a.solve_seconds = u.solve_seconds;
      if (!u.ok) {
        a.reason = u.message;
        return;
      }
    } else {
      const Csr<double> Ad = convert_values<double>(A);
      SparseQR qr(Ad, {.stream = o.stream});
      if (qr.stats().rank < A.rows) {
        a.reason = "QR: A is numerically rank deficient (rank " + std::to_string(qr.stats().rank) + " of " +
                   std::to_string(A.rows) + ")";
        a.setup_seconds = seconds_since(t);
        return;
      }
      const std::vector<double> bd(b.begin(), b.end());
      const std::vector<double> xd = qr.solve(std::span<const double>(bd));
      std::transform(xd.begin(), xd.end(), x.begin(), [](double v) { return T(v); });
      a.setup_seconds = seconds_since(t);
    }
    a.true_residual = residual(x);
    // A direct answer is checked like any other: a backward-stable solve
    // of a nonsingular system meets any sensible tolerance.
    a.solved = a.true_residual <= o.tolerance;
    if (!a.solved)
      a.reason = "its answer has ||b - A x|| / ||b|| = " + number(a.true_residual) + " > tolerance " +
                 number(o.tolerance) + " (A is numerically singular or too ill-conditioned)";
  }

  // One method from the caller's x0; keeps the best x seen.
  bool attempt(SolveMethod m) {
    SolveAttempt a;
    a.method = m;
    std::vector<T> x(x0);
    try {
      if (m == SolveMethod::Umfpack || m == SolveMethod::DirectQr)
        direct(m, a, std::span<T>(x));
      else
        iterative(m, a, std::span<T>(x));
    } catch (const StructurallySingular&) {
      throw;  // no method can solve it: the caller's error
    } catch (const Error& e) {
      a.solved = false;
      a.reason = e.what();
      a.true_residual = -1;
    }
    if (a.true_residual >= 0 && a.true_residual < best_residual) {
      best_residual = a.true_residual;
      best = x;
    }
    report.chain.push_back(a);
    if (a.solved) {
      report.solved = true;
      report.method = m;
      report.direct = m == SolveMethod::Umfpack || m == SolveMethod::DirectQr;
      report.true_residual = a.true_residual;
      best = std::move(x);
    }
    return a.solved;
  }
};

template <class T>
std::vector<SolveMethod> chain_of(const Csr<T>& A, const SolveOptions& o) {
  std::vector<SolveMethod> c;
  if (o.method != SolveMethod::Auto)
    c = {o.method};
  else if (symmetric_positive_diagonal(A))
    c = {SolveMethod::PcgIc0, SolveMethod::SapD, SolveMethod::DbBiCgStab2Ilu0, SolveMethod::SapLu};
  else
    c = {SolveMethod::DbBiCgStab2Ilu0, SolveMethod::SapD, SolveMethod::SapC, SolveMethod::SapLu};
  const bool ends_direct = c.back() == SolveMethod::Umfpack || c.back() == SolveMethod::DirectQr;
  if (o.direct_fallback && !ends_direct) c.push_back(SolveMethod::Umfpack);
  return c;
}

void check_options(const SolveOptions& o) {
  if (!(o.divergence == 0 || o.divergence > 1) || !std::isfinite(o.divergence))
    throw Error("solve: divergence must be 0 (off) or a finite factor > 1, got " + std::to_string(o.divergence));
  if (o.device == Device::Cuda && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? "solve: Device::Cuda: no CUDA GPU found"
                                            : "solve: Device::Cuda: balsa was built without CUDA");
  if (!(o.tolerance > 0) || !std::isfinite(o.tolerance))
    throw Error("solve: tolerance must be positive and finite, got " + std::to_string(o.tolerance));
  if (o.max_iterations < 0) throw Error("solve: max_iterations must be >= 0, got " + std::to_string(o.max_iterations));
  if (o.stagnation_window < 0)
    throw Error("solve: stagnation_window must be >= 0, got " + std::to_string(o.stagnation_window));
}

}  // namespace

template <class T>
SolveReport solve(const Csr<T>& A, std::span<const T> b, std::span<T> x, const SolveOptions& given) try {
  const SolveOptions o = with_device_resolved(given);
  const auto t0 = Clock::now();
  check_options(o);
  validate(A, /*require_sorted=*/true);
  require_square(A, "solve");
  if (b.size() != std::size_t(A.rows) || x.size() != std::size_t(A.rows))
    throw DimensionError("solve: b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                         " entries, A " + std::to_string(A.rows) + " rows");
  require_finite(A);
  require_finite(b, "right-hand side b");
  require_finite(std::span<const T>(x), "initial guess x");
  Chain<T> c{A, b, o, std::vector<T>(x.begin(), x.end()), {}, INFINITY, {}};
  c.report.device = o.device;
  if (std::all_of(b.begin(), b.end(), [](T v) { return v == T(0); })) {
    std::fill(x.begin(), x.end(), T(0));
    c.report.solved = true;
    c.report.true_residual = 0;
    c.report.message = "b = 0: x = 0";
    c.report.seconds = seconds_since(t0);
    return c.report;
  }
  for (const SolveMethod m : chain_of(A, o))
    if (c.attempt(m)) break;
  SolveReport& r = c.report;
  if (!c.best.empty()) std::copy(c.best.begin(), c.best.end(), x.begin());
  if (r.solved) {
    r.message = std::string(to_string(r.method)) + (r.direct ? " (direct fallback)" : "") +
                " solved it: ||b - A x|| / ||b|| = " + number(r.true_residual);
  } else {
    r.true_residual = std::isfinite(c.best_residual) ? c.best_residual : -1;
    r.message = "no method solved it:";
    for (const SolveAttempt& a : r.chain) r.message += std::string(" ") + to_string(a.method) + ": " + a.reason + ";";
    r.message.pop_back();
  }
  r.seconds = seconds_since(t0);
  return r;
} catch (...) {
  rethrow_as_balsa_error("solve");
}

#define BALSA_INSTANTIATE(T) \
  template SolveReport solve(const Csr<T>&, std::span<const T>, std::span<T>, const SolveOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
