// Internal: arithmetic that the CPU solvers and the GPU kernels share, written
// once (host and device) so both paths compute the same numbers: the terms
// of the stopping norms, a max that keeps NaN, BiCGStab(l)'s small
// minimal-residual solve, GMRES's Givens rotations and triangular solve, and
// MINRES's rotation.
//
// Precision (both paths): vectors are stored and updated in T, with the
// scalar cast to T first (x[i] = x[i] + T(alpha) * p[i]); every reduction
// (dot products, norms) multiplies and sums in double, and the scalars
// (alpha, beta, omega, rho, ...) are double. For T = float this keeps the
// scalars as accurate as the vectors allow; for T = double it changes nothing.
#pragma once

#include <math.h>  // ::fabs, ::sqrt: the same names on the host and the device

#if defined(__CUDACC__)
#define BALSA_KRYLOV_HD __host__ __device__
#else
#define BALSA_KRYLOV_HD
#endif

namespace balsa::krylov {

// BiCGStab(l): the largest l (KrylovOptions::l is checked against it).
inline constexpr int kMaxL = 8;
// Most values one fused reduction combines (BiCGStab(l)'s Gram-Schmidt step
// i: sigma_i, r_0^T r_i and r_j^T r_i in slot j, l + 1 slots).
inline constexpr int kMaxValues = kMaxL + 2;

// max(a, b) that returns NaN when either is NaN (std::max and fmax drop it,
// and a NaN hidden in ||r||_inf would look like convergence).
BALSA_KRYLOV_HD inline double nan_max(double a, double b) { return (a != a || a > b) ? a : b; }

// One entry's term of the stopping norm: |v| (combined by max) or v^2 (summed).
BALSA_KRYLOV_HD inline double norm_term(double v, bool infinity) { return infinity ? ::fabs(v) : v * v; }
BALSA_KRYLOV_HD inline double combine(double acc, double term, bool is_max) {
  return is_max ? nan_max(acc, term) : acc + term;
}
// The norm from its combined terms.
BALSA_KRYLOV_HD inline double norm_from(double total, bool infinity) { return infinity ? total : ::sqrt(total); }

// BiCGStab(l)'s minimal-residual coefficients (Sleijpen & Fokkema 1993, the
// MR part of their algorithm): after modified Gram-Schmidt has made r_1..r_l
// orthogonal (r_j = r~_j + sum_{i<j} tau[i][j] r~_i, sigma_j = ||r~_j||^2,
// gp[j] = r_0^T r~_j / sigma_j), the gamma minimising ||r_0 - sum_j gamma_j r_j||
// solve the triangular system gamma_j + sum_{i>j} tau[j][i] gamma_i = gp[j];
// gpp[j] (the paper's gamma'') are the coefficients of r~_j in
// sum_j gamma_j r_{j-1}, the update of the iterate. Indices 1..l are used.
template <class Tau>
BALSA_KRYLOV_HD inline void mr_solve(int l, const Tau& tau, const double* gp, double* gamma, double* gpp) {
  gamma[l] = gp[l];
  for (int j = l - 1; j >= 1; --j) {
    double s = gp[j];
    for (int i = j + 1; i <= l; ++i) s -= tau[j][i] * gamma[i];
    gamma[j] = s;
  }
  for (int j = 1; j <= l - 1; ++j) {
    double s = gamma[j + 1];
    for (int i = j + 1; i <= l - 1; ++i) s += tau[j][i] * gamma[i + 1];
    gpp[j] = s;
  }
}

// GMRES (Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., Alg.
// 6.9, and sec. 6.5.3 for the rotations): column j of the Hessenberg matrix,
// h[0..j+1], gets the j rotations of the earlier columns, then the one that
// zeroes h[j+1] (cs[j], sn[j]), which also turns g = (g_0, .., g_j, 0): |g[j+1]|
// is then the residual norm of the least-squares solution over j + 1 columns.
// Returns the new diagonal entry sqrt(h_j^2 + h_{j+1}^2) (0: the projected
// matrix is singular; NaN: a NaN appeared), leaving cs, sn and g alone when
// it is not positive and finite.
BALSA_KRYLOV_HD inline double gmres_rotate(int j, double* h, double* cs, double* sn, double* g) {
  for (int i = 0; i < j; ++i) {
    const double t = cs[i] * h[i] + sn[i] * h[i + 1];
    h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
    h[i] = t;
  }
  const double d = ::hypot(h[j], h[j + 1]);
  if (!(d > 0) || d - d != 0) return d;  // 0, NaN or Inf
  cs[j] = h[j] / d;
  sn[j] = h[j + 1] / d;
  h[j] = d;
  h[j + 1] = 0.0;
  g[j + 1] = -sn[j] * g[j];
  g[j] = cs[j] * g[j];
  return d;
}

// GMRES: y = R^{-1} g for the upper triangular R of `steps` columns (column j
// at R + j * ld), by back substitution: the least-squares solution of the cycle.
BALSA_KRYLOV_HD inline void gmres_solve(int steps, const double* R, int ld, const double* g, double* y) {
  for (int i = steps - 1; i >= 0; --i) {
    double s = g[i];
    for (int l = i + 1; l < steps; ++l) s -= R[l * ld + i] * y[l];
    y[i] = s / R[i * ld + i];
  }
}

// MINRES (Paige & Saunders, "Solution of sparse indefinite systems of linear
// equations", SIAM J. Numer. Anal. 12 (1975); the preconditioned Lanczos
// form): the scalars of the QR factorisation of the Lanczos tridiagonal
// matrix by rotations, carried from one iteration to the next.
struct MinresScalars {
  double beta, oldb;      // the last two Lanczos beta (beta_{k+1}, beta_k)
  double alfa;            // the last Lanczos alpha
  double dbar, epsln;     // the rotated entries carried to the next column
  double oldeps, delta;   // the current column's entries above the diagonal
  double gamma;           // its diagonal entry after the rotation
  double cs, sn;          // the last rotation
  double phi, phibar;     // the step along w and the residual's (M^{-1}-) norm
};

// The state before the first iteration, beta1 = sqrt(r0^T M^{-1} r0).
BALSA_KRYLOV_HD inline void minres_begin(MinresScalars& s, double beta1) {
  s = MinresScalars{};
  s.beta = beta1;
  s.phibar = beta1;
  s.cs = -1.0;
}

// Lanczos step k gave alpha_k = alfa and beta_{k+1} = beta_new: the new
// column of the tridiagonal matrix gets the last rotation, then the one that
// annihilates beta_new. Returns false (nothing useful computed) when the new
// diagonal entry is 0: T_k is singular.
BALSA_KRYLOV_HD inline bool minres_rotate(MinresScalars& s, double alfa, double beta_new) {
  s.alfa = alfa;
  s.oldeps = s.epsln;
  s.delta = s.cs * s.dbar + s.sn * alfa;
  const double gbar = s.sn * s.dbar - s.cs * alfa;
  s.epsln = s.sn * beta_new;
  s.dbar = -s.cs * beta_new;
  s.oldb = s.beta;
  s.beta = beta_new;
  const double gamma = ::hypot(gbar, beta_new);
  if (!(gamma > 0)) return false;
  s.gamma = gamma;
  s.cs = gbar / gamma;
  s.sn = beta_new / gamma;
  s.phi = s.cs * s.phibar;
  s.phibar = s.sn * s.phibar;
  return true;
}

}  // namespace balsa::krylov
