// The words of the Krylov solvers: enum names and why a solve stopped.
#include "krylov/termination.hpp"

#include <cstdio>
#include <string>

namespace balsa {

const char* to_string(KrylovMethod m) {
  switch (m) {
    case KrylovMethod::Cg: return "cg";
    case KrylovMethod::BiCgStab: return "bicgstab";
    case KrylovMethod::BiCgStabL: return "bicgstab(l)";
  }
  return "?";
}

const char* to_string(PreconditionerKind p) {
  switch (p) {
    case PreconditionerKind::None: return "none";
    case PreconditionerKind::Jacobi: return "jacobi";
    case PreconditionerKind::Ilu0: return "ilu0";
    case PreconditionerKind::Ic0: return "ic0";
    case PreconditionerKind::SapD: return "sap-d";
    case PreconditionerKind::SapC: return "sap-c";
  }
  return "?";
}

const char* to_string(KrylovOutcome o) {
  switch (o) {
    case KrylovOutcome::Converged: return "converged";
    case KrylovOutcome::MaxIterations: return "max-iterations";
    case KrylovOutcome::Breakdown: return "breakdown";
    case KrylovOutcome::NonFinite: return "non-finite";
  }
  return "?";
}

namespace krylov {

namespace {
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

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

}  // namespace krylov
}  // namespace balsa
