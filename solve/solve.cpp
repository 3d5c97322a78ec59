// balsa::solve (include/balsa/solve.hpp): the plan's links attempted in
// turn, each answer judged by its backward error, one set-up for every
// right-hand side.
#include "balsa/solve.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "balsa/cuda.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "krylov/termination.hpp"
#include "solve/measures.hpp"
#include "solve/plan.hpp"
#include "core/number_text.hpp"

namespace balsa {

bool is_direct(SolveMethod m) noexcept {
  return m == SolveMethod::Umfpack || m == SolveMethod::Cholmod || m == SolveMethod::Klu ||
         m == SolveMethod::DirectQr;
}

namespace solve_detail {
namespace {

std::string number(double v) { return number_text(v, 3); }

// Thrown by the Monitor from an iterative method's progress callback: a
// balsa::Error, so every function-try-block lets it through unchanged.
class Interrupted : public Error {
 public:
  using Error::Error;
};

// The time budget's watch over one iterative attempt: stops it when its
// allowance is spent, or when its measured rate (the residual's fall per
// second so far, once a quarter of the allowance has passed) says it
// cannot reach the tolerance within the allowance.
class Monitor {
 public:
  void arm(double allowed, double tolerance) {
    start_ = Clock::now();
    allowed_ = allowed;
    tolerance_ = tolerance;
    first_ = NAN;
  }
  void disarm() { allowed_ = INFINITY; }
  void check(double residual) {
    if (!std::isfinite(allowed_) || !std::isfinite(residual)) return;
    if (std::isnan(first_)) first_ = residual;
    const double elapsed = seconds_since(start_);
    if (elapsed > allowed_)
      throw Interrupted("stopped by the time budget after " + number(elapsed) + " s (relative residual " +
                        number(residual) + ")");
    if (elapsed < 0.25 * allowed_ || residual <= tolerance_) return;
    const double needed = residual < first_ ? elapsed * std::log(residual / tolerance_) / std::log(first_ / residual)
                                            : INFINITY;
    if (elapsed + needed > allowed_)
      throw Interrupted("stopped early: at its measured rate (relative residual " + number(residual) + " after " +
                        number(elapsed) + " s) it needs about " + number(needed) + " s more, " +
                        number(allowed_ - elapsed) + " s are left in the time budget");
  }

 private:
  Clock::time_point start_ = Clock::now();
  double allowed_ = INFINITY, tolerance_ = 0, first_ = NAN;
};

// One call of balsa::solve: the features, the plan, the links made so far.
template <class T>
class Chain {
 public:
  Chain(const Csr<T>& A, const SolveOptions& o, int columns)
      : A_(A), o_(o), t0_(Clock::now()), f_(features(A)), shared_{A, o_, f_, {}, {}, {}} {
    machine_.gpu = o.device != Device::Cpu && cuda::available();
    machine_.threads = omp_get_max_threads();
    plan_ = make_plan(shared_, machine_, columns, seconds_since(t0_));
    report_.features = f_;
    report_.plan = plan_.predictions;
    report_.budget_seconds = std::isfinite(plan_.budget) ? plan_.budget : 0;
    report_.setup_seconds = seconds_since(t0_);
  }

  SolveReport& report() { return report_; }
  std::size_t plan_size() const { return plan_.steps.size(); }
  const std::string& why() const { return plan_.why; }

  // b's answer along the steps from `from`: the index of the answering
  // step, or steps.size(); `answer` is that attempt (or the last failure).
  std::size_t run(std::span<const T> b, std::span<T> x, std::size_t from, SolveAttempt& answer,
                  std::vector<SolveAttempt>* tried) {
    // The caller's initial guess, kept only when a later step may need it
    // again (an 8 MB copy of a 1e6-row x costs milliseconds of page faults).
    std::vector<T> x0, best;
    if (from + 1 < plan_.steps.size()) x0.assign(x.begin(), x.end());
    double best_residual = INFINITY;
    for (std::size_t i = from; i < plan_.steps.size(); ++i) {
      if (i > from) std::copy(x0.begin(), x0.end(), x.begin());
      SolveAttempt a = attempt(i, b, x, false);
      if (tried) tried->push_back(a);
      answer = a;
      if (a.solved) return i;
      if (a.true_residual >= 0 && a.true_residual < best_residual && i + 1 < plan_.steps.size()) {
        best_residual = a.true_residual;
        best.assign(x.begin(), x.end());
      } else if (a.true_residual >= 0 && a.true_residual < best_residual) {
        best_residual = a.true_residual;
        best.clear();  // the last attempt's x is in place
      }
    }
    if (!best.empty())
      std::copy(best.begin(), best.end(), x.begin());
    else if (!std::isfinite(best_residual) && !x0.empty())
      std::copy(x0.begin(), x0.end(), x.begin());  // no attempt gave an x
    return plan_.steps.size();
  }

  // Step i on b from x (x already holding the link's answer when `presolved`).
  SolveAttempt attempt(std::size_t i, std::span<const T> b, std::span<T> x, bool presolved) {
    const Step& step = plan_.steps[i];
    SolveAttempt a;
    a.method = step.method;
    a.device = step.device;
    a.predicted_seconds = step.predicted;
    if (!presolved && skipped(step, a)) return a;  // (a presolved column's work is done)
    try {
      Link<T>& link = get(i, a);
      a.device = link.device();
      if (const DirectStats* d = link.direct_stats()) a.method = solve_method_of(d->method);
      const auto t = Clock::now();
      monitor_.arm(allowance(i), o_.stopping.tolerance);
      KrylovStats st = presolved ? direct_answer() : link.solve(b, x);
      a.iterations = st.iterations;
      refine(link, b, x, st, a);
      monitor_.disarm();
      a.solve_seconds = seconds_since(t);
      judge(st, a);
      if (a.solved && !link.direct_stats()) report_.krylov = st;
      if (a.solved && link.direct_stats()) report_.direct_stats = *link.direct_stats();
    } catch (const Interrupted& e) {
      monitor_.disarm();
      a.stopped_early = true;
      a.reason = e.what();
      links_.erase(i);  // its state is that of an interrupted solve
    } catch (const StructurallySingular&) {
      throw;  // no method can solve it: the caller's error
    } catch (const Error& e) {
      monitor_.disarm();
      a.reason = e.what();
    }
    return a;
  }

  // Columns 1.. of B after column 0 was answered by step `w` (none: w is
  // the plan's size): that step's link first (a direct one solves them all
  // in one call), then the steps after it.
  void other_columns(std::size_t w, std::span<const T> B, std::span<T> X, index_t cols) {
    const bool answered = w < plan_.steps.size();
    const bool batch = answered && links_.count(w) && links_[w]->direct_stats() && cols > 1;
    const std::size_t n = std::size_t(A_.rows);
    double per_column = 0;
    if (batch) {
      const auto t = Clock::now();
      links_[w]->solve_columns(B, X, A_.rows, 1);
      per_column = seconds_since(t) / double(cols - 1);
    }
    for (std::size_t c = 1; c < std::size_t(cols); ++c) {
      const std::span<const T> b = B.subspan(c * n, n);
      const std::span<T> x = X.subspan(c * n, n);
      SolveAttempt a;
      if (answered) {
        a = attempt(w, b, x, batch);
        a.solve_seconds += per_column;
      }
      if (!a.solved) run(b, x, answered ? w + 1 : 0, a, nullptr);
      report_.columns.push_back(a);
    }
  }

 private:
  // A step the budget leaves no room for: a says why.
  bool skipped(const Step& step, SolveAttempt& a) {
    const double left = plan_.budget - seconds_since(t0_);
    const bool direct = step.method == SolveMethod::Auto || is_direct(step.method);
    if (plan_.user_budget && left <= 0) {
      a.reason = "skipped: the time budget (" + number(plan_.budget) + " s) is spent";
    } else if (plan_.user_budget && step.predicted > left) {
      a.reason = "skipped: predicted " + number(step.predicted) + " s, " + number(left) + " s left in the time budget";
    } else if (!direct && allowance_left(step) <= 0) {
      a.reason = "skipped: no time left in the budget before the direct method must start";
    } else {
      return false;
    }
    a.stopped_early = true;
    return true;
  }

  // Seconds an iterative step may run: what is left of the budget less the
  // time the direct step after it is predicted to need.
  double allowance_left(const Step&) const {
    const double reserve = plan_.user_budget || plan_.direct_predicted < 0 ? 0 : plan_.direct_reserve;
    return plan_.budget - seconds_since(t0_) - reserve;
  }
  double allowance(std::size_t i) const { return allowance_left(plan_.steps[i]); }

  Link<T>& get(std::size_t i, SolveAttempt& a) {
    if (auto it = links_.find(i); it != links_.end()) return *it->second;
    const Step& step = plan_.steps[i];
    const auto t = Clock::now();
    std::function<void(int, double)> progress = [this, name = to_string(step.method)](int it, double res) {
      if (o_.progress) o_.progress(name, it, res);
      monitor_.check(res);
    };
    auto link = make_link(step.method, step.device, shared_, progress);
    a.setup_seconds = seconds_since(t);
    report_.setup_seconds += a.setup_seconds;
    return *(links_[i] = std::move(link));
  }

  // Up to three rounds of iterative refinement (x += M (b - A x), M the
  // link's solve) while x's backward error misses the tolerance: the
  // iterative methods stop on their own residual, and a direct solve of an
  // ill-conditioned A gains from one round.
  void refine(Link<T>& link, std::span<const T> b, std::span<T> x, KrylovStats& st, SolveAttempt& a) {
    errors_ = backward_errors(A_, f_.norm_inf, b, std::span<const T>(x));
    double bb = 0.0;
    for (const T v : b) bb += double(v) * double(v);
    normb_ = std::sqrt(bb);
    std::vector<T> r, dx, next;  // made only when a round runs
    for (int round = 0; round < 3 && st.outcome == KrylovOutcome::Converged &&
                        !meets_tolerance();
         ++round) {
      r.resize(x.size());
      dx.resize(x.size());
      next.resize(x.size());
      const std::vector<T> ax = multiply(A_, std::span<const T>(x));
      for (std::size_t i = 0; i < r.size(); ++i) r[i] = T(double(b[i]) - double(ax[i]));
      std::fill(dx.begin(), dx.end(), T(0));
      const KrylovStats more = link.solve(std::span<const T>(r), std::span<T>(dx));
      a.iterations += more.iterations;
      for (std::size_t i = 0; i < next.size(); ++i) next[i] = x[i] + dx[i];
      const BackwardErrors e = backward_errors(A_, f_.norm_inf, b, std::span<const T>(next));
      if (!(std::min(e.normwise, e.componentwise) < std::min(errors_.normwise, errors_.componentwise))) break;
      std::copy(next.begin(), next.end(), x.begin());
      errors_ = e;
      st.outcome = more.outcome;
      st.message = more.message;
    }
  }

  // errors_ meet the tolerance by the acceptance asked, or ||b - A x||_2 meets
  // stopping.absolute_tolerance (SciPy's atol, the Krylov test's other half).
  bool meets_tolerance() const {
    const double atol = o_.stopping.absolute_tolerance;
    return accepted(errors_, o_.stopping.tolerance, o_.acceptance) ||
           (atol > 0 && errors_.relative_residual * normb_ <= atol);
  }

  // Accepted or not, and why (errors_ from refine).
  void judge(const KrylovStats& st, SolveAttempt& a) const {
    a.true_residual = std::isfinite(errors_.relative_residual) ? errors_.relative_residual : -1;
    a.backward_error = std::isfinite(errors_.normwise) ? errors_.normwise : -1;
    a.componentwise_backward_error = std::isfinite(errors_.componentwise) ? errors_.componentwise : -1;
    a.solved = st.outcome == KrylovOutcome::Converged && meets_tolerance();
    if (a.solved) return;
    a.reason = st.outcome != KrylovOutcome::Converged
                   ? st.message
                   : "its answer's backward error is " + number(errors_.normwise) + " normwise, " +
                         number(errors_.componentwise) + " componentwise (||b - A x|| / ||b|| = " +
                         number(errors_.relative_residual) + ") > tolerance " + number(o_.stopping.tolerance) +
                         " after refinement (A is numerically singular or too ill-conditioned)";
  }

  const Csr<T>& A_;
  const SolveOptions& o_;
  double normb_ = 0.0;  // ||b||_2 of the attempt refine last measured
  Clock::time_point t0_;
  SolveFeatures f_;
  Shared<T> shared_;
  Machine machine_;
  Plan plan_;
  std::map<std::size_t, std::unique_ptr<Link<T>>> links_;
  Monitor monitor_;
  BackwardErrors errors_;
  double batch_seconds_ = 0;
  SolveReport report_;
};

void check_options(const SolveOptions& o) {
  if (o.device == Device::Cuda && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? "solve: Device::Cuda: no CUDA GPU found"
                                            : "solve: Device::Cuda: balsa was built without CUDA");
  krylov::check_stopping(o.stopping, "solve: ");
  if (o.time_budget && !(*o.time_budget > 0 && std::isfinite(*o.time_budget)))
    throw Error("solve: time_budget must be a positive, finite number of seconds, got " + number(*o.time_budget));
  parallel::check_threads(o.threads, "SolveOptions");
}

template <class T>
void check_system(const Csr<T>& A, index_t rows, index_t cols, const char* what) {
  validate(A, /*require_sorted=*/true);
  require_square(A, "solve");
  if (rows != A.rows)
    throw DimensionError("solve: " + std::string(what) + " has " + std::to_string(rows) + " rows, A " +
                         std::to_string(A.rows));
  if (cols < 1) throw DimensionError("solve: " + std::string(what) + " has no columns");
  require_finite(A);
}

// The report's summary fields from its columns.
void summarize(SolveReport& r, const std::string& why) {
  r.solved = !r.columns.empty();
  for (const SolveAttempt& c : r.columns) {
    r.solved = r.solved && c.solved;
    r.true_residual = std::max(r.true_residual, c.true_residual);
    r.backward_error = std::max(r.backward_error, c.backward_error);
    r.componentwise_backward_error = std::max(r.componentwise_backward_error, c.componentwise_backward_error);
  }
  const SolveAttempt& first = r.columns.front();
  if (first.solved) {
    r.method = first.method;
    r.direct = is_direct(first.method);
    r.device = first.device;
  }
  if (r.solved) {
    const bool fallback = r.direct && r.chain.size() > 1;
    r.message = std::string(to_string(r.method)) + " on " + to_string(r.device) + " solved it" +
                (fallback ? " (direct fallback)" : "") + ": backward error " + number(r.backward_error) +
                " normwise, " + number(r.componentwise_backward_error) + " componentwise, ||b - A x|| / ||b|| = " +
                number(r.true_residual) + (why.empty() ? "" : "; plan: " + why);
    return;
  }
  r.message = "no method solved it:";
  for (const SolveAttempt& a : r.chain) r.message += std::string(" ") + to_string(a.method) + ": " + a.reason + ";";
  if (r.chain.empty()) r.message += " " + first.reason + ";";
  r.message.pop_back();
}

template <class T>
bool all_zero(std::span<const T> b) {
  return std::all_of(b.begin(), b.end(), [](T v) { return v == T(0); });
}

// B and X column-major, A.rows x cols (X: the initial guesses in, the answers out).
template <class T>
SolveReport solve_matrix(const Csr<T>& A, std::span<const T> B, std::span<T> X, index_t cols, const SolveOptions& o) {
  const auto t0 = Clock::now();
  const parallel::CallThreads threads(o.threads, "SolveOptions");
  Chain<T> chain(A, o, cols);
  SolveReport& r = chain.report();
  r.device = o.device == Device::Cuda ? Device::Cuda : Device::Cpu;
  const std::size_t n = std::size_t(A.rows);
  const std::span<const T> b0 = B.first(n);
  const std::span<T> x0 = X.first(n);
  SolveAttempt first;
  std::size_t w = chain.plan_size();
  if (all_zero(b0)) {
    std::fill(x0.begin(), x0.end(), T(0));
    first.solved = true;
    first.true_residual = first.backward_error = first.componentwise_backward_error = 0;
    first.reason = "b = 0: x = 0";
  } else {
    w = chain.run(b0, x0, 0, first, &r.chain);
  }
  r.columns.push_back(first);
  chain.other_columns(w, B, X, cols);
  summarize(r, chain.why());
  if (all_zero(b0) && cols == 1) r.message = "b = 0: x = 0";
  r.seconds = seconds_since(t0);
  return r;
}

}  // namespace
}  // namespace solve_detail

template <class T>
SolveReport solve(const Csr<T>& A, const DenseMatrix<T>& B, DenseMatrix<T>& X, const SolveOptions& given) try {
  const SolveOptions& o = given;  // Device::Auto stays Auto: the plan chooses per method
  solve_detail::check_options(o);
  solve_detail::check_system(A, B.rows, B.cols, "B");
  require_finite(std::span<const T>(B.values), "right-hand sides B");
  if (X.rows != B.rows || X.cols != B.cols) X = DenseMatrix<T>(B.rows, B.cols);
  require_finite(std::span<const T>(X.values), "initial guess X");
  return solve_detail::solve_matrix(A, std::span<const T>(B.values), std::span<T>(X.values), B.cols, o);
} catch (...) {
  rethrow_as_balsa_error("solve");
}

template <class T>
SolveReport solve(const Csr<T>& A, std::span<const T> b, std::span<T> x, const SolveOptions& given) try {
  const SolveOptions& o = given;
  solve_detail::check_options(o);
  solve_detail::check_system(A, index_t(b.size()), 1, "b");
  if (x.size() != b.size())
    throw DimensionError("solve: b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) + " entries");
  require_finite(b, "right-hand side b");
  require_finite(std::span<const T>(x), "initial guess x");
  return solve_detail::solve_matrix(A, b, x, 1, o);
} catch (...) {
  rethrow_as_balsa_error("solve");
}

template <class T>
SolveReport plan_solve(const Csr<T>& A, const SolveOptions& given) try {
  const SolveOptions& o = given;
  solve_detail::check_options(o);
  solve_detail::check_system(A, A.rows, 1, "A");
  const parallel::CallThreads threads(o.threads, "SolveOptions");
  solve_detail::Chain<T> chain(A, o, 1);
  SolveReport r = chain.report();
  r.message = chain.why();
  return r;
} catch (...) {
  rethrow_as_balsa_error("plan_solve");
}

#define BALSA_INSTANTIATE(T)                                                                              \
  template SolveReport solve(const Csr<T>&, std::span<const T>, std::span<T>, const SolveOptions&);       \
  template SolveReport solve(const Csr<T>&, const DenseMatrix<T>&, DenseMatrix<T>&, const SolveOptions&); \
  template SolveReport plan_solve(const Csr<T>&, const SolveOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
