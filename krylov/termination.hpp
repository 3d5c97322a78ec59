// Internal: why a Krylov solve stopped, in codes that the CPU solvers and the
// GPU status word (krylov/gpu_common.cuh) share, and the words the user sees
// in KrylovStats::message. Both paths call record_stop, so a CPU and a GPU
// solve that stop for the same reason say the same thing.
#pragma once

#include <string>

#include "balsa/krylov.hpp"
#include "krylov/common.hpp"

namespace balsa::krylov {

// Stop codes (0: still running; the GPU kernels are no-ops once it is not 0).
enum Stop : int {
  kRunning = 0,
  kConverged = 1,
  kMaxIterationsStop = 2,
  kBreakdown = 3,
  kNonFinite = 4,
  kDiverged = 5,    // value: the residual; quantity: the iteration of the best (as an int)
  kNoProgress = 6,  // value: the best residual; quantity: the iteration of the last 10% fall
};

// The early stops' state (StoppingOptions::divergence, stagnation_window):
// both paths keep one and call progress_stop after each residual.
struct Progress {
  double best = 0;    // smallest residual so far
  double anchor = 0;  // residual at the last fall below 0.9 x the anchor before it
  int best_at = 0, anchor_at = 0;
};
// Iteration k1 (0: the initial residual) gave `res` (finite): kRunning, or
// kDiverged / kNoProgress with `p` holding what the message needs.
BALSA_KRYLOV_HD inline int progress_stop(Progress& p, int k1, double res, double divergence, int window) {
  if (k1 == 0 || res < p.best) {
    if (k1 == 0) p.best = p.anchor = res;
    p.best = res;
    p.best_at = k1;
  }
  if (res < 0.9 * p.anchor) {
    p.anchor = res;
    p.anchor_at = k1;
  }
  if (divergence > 0 && res > divergence * p.best) return kDiverged;
  if (window > 0 && k1 - p.anchor_at >= window) return kNoProgress;
  return kRunning;
}

// The quantity whose value stopped a solve (Breakdown and NonFinite).
enum Quantity : int {
  kNoQuantity = 0,
  kPAp,       // CG: p^T A p <= 0 (A not positive definite)
  kRz,        // CG: r^T M^{-1} r <= 0 (M not positive definite)
  kRho,       // BiCGStab(l): rho = r0^T r = 0 (the shadow residual is orthogonal to r)
  kRv,        // BiCGStab: r0^T v = 0 (denominator of alpha)
  kTt,        // BiCGStab: t^T t = 0 (denominator of omega)
  kOmega,     // BiCGStab(l): omega = 0 (stagnation of the minimal-residual step)
  kGamma,     // BiCGStab(l): r0^T u_{j+1} = 0 (denominator of alpha)
  kSigma,     // BiCGStab(l): ||r_j||^2 = 0 after Gram-Schmidt (dependent residuals)
  kResidual,  // the residual norm itself (NaN or Inf)
  kBeta,      // BiCGStab(l): beta (NaN or Inf)
  kInput,     // b or x0 (NaN or Inf; the GPU's device-vector check)
  kProjected,  // GMRES/MINRES: the projected (Hessenberg/tridiagonal) matrix is singular
  kLanczos,    // MINRES: beta = 0, the Lanczos vectors ended before the tolerance was met
};

// Fills stats.outcome and stats.message for a stop (not kRunning), with
// `value` the offending quantity's value and `iteration` the iteration
// (1-based; 0: before the first) in which it was found. Converged and
// MaxIterations read stats.iterations and stats.residual; `tolerance` is the
// relative one the test applied (effective_tolerance below).
void record_stop(KrylovStats& stats, int stop, int quantity, double value, int iteration, double tolerance);
// The same for kDiverged and kNoProgress, from the Progress state.
void record_early_stop(KrylovStats& stats, int stop, const Progress& p, int iteration, const StoppingOptions& o);

// After the true residual is known: a solve that broke down or ran out of
// iterations while its recursive residual had fallen far below the true
// one (kDetached times), or that "converged" on a recursive residual of 0
// (its 2-norm's squares underflowed) with a true residual above the
// tolerance, lost attainable accuracy; the tolerance asks for
// more than the arithmetic gives. Its outcome becomes Stagnation and the
// message says so (a quantity that underflowed to 0 is not a breakdown of
// the method or a sign of an indefinite matrix). Both paths call it.
// The recursive residual is in the stopping norm, the true one in the
// 2-norm; with the infinity norm (n unknowns) the two relative residuals
// can differ by sqrt(n) either way, so the test then asks for sqrt(n)
// times more.
inline constexpr double kDetached = 1e-3;
void check_attainable_accuracy(KrylovStats& stats, const StoppingOptions& o, index_t n);

// The relative tolerance the stopping test applies for ||b|| = normb (in the
// stopping norm, > 0): ||r|| <= max(tolerance ||b||, absolute_tolerance)
// divided by ||b||. Both paths take it once, from the initial residual's pass.
BALSA_KRYLOV_HD inline double effective_tolerance(double tolerance, double absolute_tolerance, double normb) {
  const double a = absolute_tolerance / normb;
  return a > tolerance ? a : tolerance;
}

// Throws Error, its message starting with `who` ("Krylov solver: "), when a
// stopping option is out of its range (include/balsa/stopping.hpp). Every
// solver that takes StoppingOptions checks them here.
void check_stopping(const StoppingOptions& o, const std::string& who);

}  // namespace balsa::krylov
