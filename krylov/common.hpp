// Internal: arithmetic that the CPU solvers and the GPU kernels share, written
// once (host and device) so both paths compute the same numbers: the terms
// of the stopping norms, a max that keeps NaN, and BiCGStab(l)'s small
// minimal-residual solve.
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

}  // namespace balsa::krylov
