// The words of the Krylov solvers: enum names and why a solve stopped.
#include "krylov/termination.hpp"
#include "core/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace balsa {

namespace krylov {

namespace {
std::string number(double v) { return number_text(v); }

// "p^T A p = -3.2 <= 0: A is not positive definite" and the like.
std::string quantity_words(int quantity, double value) {
  const std::string v = number(value);
  switch (quantity) {
    case kPAp: return "p^T A p = " + v + ": A is not positive definite";
    case kRz: return "r^T M^{-1} r = " + v + ": the preconditioner is not positive definite";
    case kRho: return "rho = r0^T r = " + v + ": the shadow residual r0 became orthogonal to r";
    case kRv: return "r0^T v = " + v + " (the denominator of alpha)";
    case kTt: return "t^T t = " + v + " (the denominator of omega)";
    case kOmega: return "omega = " + v + ": the minimal-residual step stagnated";
    case kGamma: return "r0^T u = " + v + " (the denominator of alpha)";
    case kSigma: return "||r_j||^2 = " + v + " in the minimal-residual part: the residuals are dependent";
    case kResidual: return "residual norm = " + v;
    case kBeta: return "beta = " + v;
    case kInput: return "the right-hand side or the initial guess holds NaN or Inf";
    case kProjected:
      return "the projected matrix's rotation has norm " + v + ": A (times M^{-1}) is singular on the Krylov subspace";
    case kLanczos:
      return "beta = " + v + ": the Lanczos vectors ended (an invariant subspace) before the tolerance was met";
    default: return "value " + v;
  }
}

std::string at(int iteration) {
  return iteration > 0 ? " at iteration " + std::to_string(iteration) : " before the first iteration";
}
}  // namespace

void record_stop(KrylovStats& st, int stop, int quantity, double value, int iteration, double tolerance) {
  switch (stop) {
    case kConverged:
      st.outcome = KrylovOutcome::Converged;
      st.message = "converged: relative residual " + number(st.residual) + " <= tolerance " + number(tolerance) +
                   " after " + std::to_string(st.iterations) + " iterations";
      break;
    case kBreakdown:
      st.outcome = KrylovOutcome::Breakdown;
      st.message = std::string(to_string(st.method)) + " broke down" + at(iteration) + ": " +
                   quantity_words(quantity, value);
      break;
    case kNonFinite:
      st.outcome = KrylovOutcome::NonFinite;
      st.message = std::string(to_string(st.method)) + ": NaN or Inf appeared" + at(iteration) + " (" +
                   quantity_words(quantity, value) + ")";
      break;
    default:
      st.outcome = KrylovOutcome::MaxIterations;
      st.message = "not converged after " + std::to_string(st.iterations) + " iterations (max_iterations): " +
                   "relative residual " + number(st.residual) + " > tolerance " + number(tolerance);
      break;
  }
}

void record_early_stop(KrylovStats& st, int stop, const Progress& p, int iteration, const StoppingOptions& o) {
  if (stop == kDiverged) {
    st.outcome = KrylovOutcome::Diverged;
    st.message = std::string(to_string(st.method)) + " diverged" + at(iteration) + ": relative residual " +
                 number(st.residual) + " > " + number(o.divergence) + " x its best, " + number(p.best) +
                 " at iteration " + std::to_string(p.best_at);
  } else {
    st.outcome = KrylovOutcome::Stagnation;
    st.message = std::string(to_string(st.method)) + " made no progress: the relative residual has not fallen " +
                 "below 0.9 x " + number(p.anchor) + " (iteration " + std::to_string(p.anchor_at) + ") in " +
                 std::to_string(o.stagnation_window) + " iterations (stagnation_window); best " + number(p.best) +
                 ", stopped" + at(iteration);
  }
}

void check_attainable_accuracy(KrylovStats& st, const StoppingOptions& o, index_t n) {
  // A 2-norm whose squares underflowed (r ~ 1e-160) reads 0 <= any tolerance:
  // not convergence when the true residual misses the (relative) tolerance.
  const bool underflow = st.outcome == KrylovOutcome::Converged && st.residual == 0 && o.absolute_tolerance == 0 &&
                         st.true_residual > o.tolerance;
  if (st.outcome != KrylovOutcome::Breakdown && st.outcome != KrylovOutcome::MaxIterations && !underflow) return;
  const double norms = o.norm == StoppingNorm::Infinity ? std::sqrt(double(std::max<index_t>(n, 1))) : 1.0;
  if (!(st.residual * norms < kDetached * st.true_residual)) return;  // NaN: not this case
  st.message = "the recursive residual fell to " + number(st.residual) + ", far below the true residual " +
               number(st.true_residual) + " (||b - A x|| / ||b||, recomputed): the attainable accuracy is reached, " +
               "and the tolerance " + number(o.tolerance) + " asks for more than the arithmetic can give " +
               "for this system; ask for a tolerance above the true residual (stopped after " +
               std::to_string(st.iterations) + " iterations)";
  st.outcome = KrylovOutcome::Stagnation;
}

void check_stopping(const StoppingOptions& o, const std::string& who) {
  if (!(o.tolerance > 0) || !std::isfinite(o.tolerance))
    throw Error(who + "tolerance must be positive and finite, got " + std::to_string(o.tolerance));
  if (!(o.absolute_tolerance >= 0) || !std::isfinite(o.absolute_tolerance))
    throw Error(who + "absolute_tolerance must be >= 0 and finite, got " + std::to_string(o.absolute_tolerance));
  if (o.max_iterations < 0) throw Error(who + "max_iterations must be >= 0, got " + std::to_string(o.max_iterations));
  if (!(o.divergence == 0 || o.divergence > 1) || !std::isfinite(o.divergence))
    throw Error(who + "divergence must be 0 (off) or a finite factor > 1, got " + std::to_string(o.divergence));
  if (o.stagnation_window < 0)
    throw Error(who + "stagnation_window must be >= 0 (0: off), got " + std::to_string(o.stagnation_window));
}

}  // namespace krylov
}  // namespace balsa
