// BiCGStab(l) on the CPU: the reference (oracle) of krylov/gpu_bicgstab_l.cu.
//
// Sleijpen & Fokkema, "BiCGstab(l) for linear equations involving
// unsymmetric matrices with complex spectrum", ETNA 1 (1993), their
// algorithm with the minimal-residual (MR) part by modified Gram-Schmidt;
// the Krylov method of the SaP report (with l = 2).
//
// Right preconditioning by a correction: with r_init = b - A x0 the method
// runs on B = A M^{-1} from y = 0, so r_0 = r_init - B y is the residual of
// A x = b for x = x0 + M^{-1} y, and x is formed once at the end (one more
// preconditioner application per solve, none per iteration).
//
// One outer iteration: l BiCG steps (2 products with B each), then the MR
// polynomial of degree l. The stopping test runs after the MR part and, as a
// cheap extra, after each BiCG step's update of r_0 (a solve that converges
// there stops mid-cycle; the outer iteration counts as done). Gram-Schmidt is
// applied right-looking (step i's updates of r_j, j > i, fused into step
// i+1's loop): per vector the same operations, in the same order, as the
// paper's left-looking loop, so the same rounding, and the GPU does the same.
#include "krylov/cpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::cpu {

template <class T>
void bicgstab_l(Run<T>& run, int l, std::span<const T> b, std::span<T> xs) {
  const std::int64_t n = run.n();
  const bool inf = run.infinity();
  const unsigned mask = run.norm_mask();
  const std::size_t N = std::size_t(n);
  T* x = xs.data();
  std::vector<std::vector<T>> Rv(std::size_t(l) + 1, std::vector<T>(N)), Uv(std::size_t(l) + 1, std::vector<T>(N));
  std::vector<T> r0(N), y(N, T(0)), w(N);
  T* R[kMaxL + 1];
  T* U[kMaxL + 1];
  for (int j = 0; j <= l; ++j) R[j] = Rv[j].data(), U[j] = Uv[j].data();
  // out = B in = A M^{-1} in.
  auto apply_B = [&](const T* in, T* out) {
    if (run.preconditioned()) {
      run.precondition(in, w.data());
      in = w.data();
    }
    run.spmv(in, out);
  };
  auto finish = [&] {  // x = x0 + M^{-1} y
    const T* dy = y.data();
    if (run.preconditioned()) run.precondition(y.data(), w.data()), dy = w.data();
    map(n, [&](std::int64_t i) { x[i] = x[i] + dy[i]; });
  };

  // r_0 = b - A x; shadow residual r0 = r_0; u_0 = 0.
  run.spmv(x, w.data());
  const auto init = map_reduce<2>(n, inf ? 3u : 0u, [&](std::int64_t i, std::array<double, 2>& a) {
    R[0][i] = b[i] - w[i];
    r0[i] = R[0][i];
    U[0][i] = T(0);
    a[0] = combine(a[0], norm_term(double(R[0][i]), inf), inf);
    a[1] = combine(a[1], norm_term(double(b[i]), inf), inf);
  });
  if (!run.start(norm_from(init[1], inf), norm_from(init[0], inf))) return;

  double rho0 = 1, alpha = 0, omega = 1;
  double tau[kMaxL + 1][kMaxL + 1] = {}, sigma[kMaxL + 1] = {}, gp[kMaxL + 1] = {}, gamma[kMaxL + 1] = {},
         gpp[kMaxL + 1] = {};
  for (int k = 0; k < run.max_iterations(); ++k) {
    rho0 = -omega * rho0;
    // ---- BiCG part: l steps --------------------------------------------------
    for (int j = 0; j < l; ++j) {
      const double rho1 = dot(r0.data(), R[j], n);
      if (!std::isfinite(rho1)) return (void)(run.stop(kNonFinite, kRho, rho1, k + 1), finish());
      if (rho0 == 0) return (void)(run.stop(kBreakdown, kRho, rho0, k + 1), finish());
      const double beta = alpha * rho1 / rho0;
      rho0 = rho1;
      if (!std::isfinite(beta)) return (void)(run.stop(kNonFinite, kBeta, beta, k + 1), finish());
      const T bt = T(beta);
      map(n, [&](std::int64_t e) {
        for (int i = 0; i <= j; ++i) U[i][e] = R[i][e] - bt * U[i][e];
      });
      apply_B(U[j], U[j + 1]);
      const double g = dot(r0.data(), U[j + 1], n);
      if (!std::isfinite(g)) return (void)(run.stop(kNonFinite, kGamma, g, k + 1), finish());
      if (g == 0) return (void)(run.stop(kBreakdown, kGamma, g, k + 1), finish());
      alpha = rho0 / g;
      const T a = T(alpha);
      const double nr = map_reduce<1>(n, mask, [&](std::int64_t e, std::array<double, 1>& acc) {
        for (int i = 0; i <= j; ++i) R[i][e] = R[i][e] - a * U[i + 1][e];
        y[e] = y[e] + a * U[0][e];
        acc[0] = combine(acc[0], norm_term(double(R[0][e]), inf), inf);
      })[0];
      const double res = run.relative(norm_from(nr, inf));
      if (!std::isfinite(res)) return (void)(run.stop(kNonFinite, kResidual, res, k + 1), finish());
      if (res <= run.tolerance()) return (void)(run.record(k + 1, norm_from(nr, inf)), finish());
      apply_B(R[j], R[j + 1]);
    }
    // ---- MR part: modified Gram-Schmidt on r_1..r_l, then the gammas ----------
    for (int i = 1; i <= l; ++i) {
      // Step i-1's updates r_j -= tau[i-1][j] r_{i-1} (j >= i), then r_i's
      // products: sigma_i (slot 0), r_0^T r_i (slot 1), r_j^T r_i (slot j > i).
      T t[kMaxL + 1] = {};
      if (i > 1)
        for (int j = i; j <= l; ++j) t[j] = T(tau[i - 1][j]);
      const auto d = map_reduce<kMaxValues>(n, 0u, [&](std::int64_t e, std::array<double, kMaxValues>& acc) {
        if (i > 1)
          for (int j = i; j <= l; ++j) R[j][e] = R[j][e] - t[j] * R[i - 1][e];
        const double ri = double(R[i][e]);
        acc[0] += ri * ri;
        acc[1] += double(R[0][e]) * ri;
        for (int j = i + 1; j <= l; ++j) acc[j] += double(R[j][e]) * ri;
      });
      if (!std::isfinite(d[0])) return (void)(run.stop(kNonFinite, kSigma, d[0], k + 1), finish());
      if (d[0] == 0) return (void)(run.stop(kBreakdown, kSigma, d[0], k + 1), finish());
      sigma[i] = d[0];
      gp[i] = d[1] / sigma[i];
      for (int j = i + 1; j <= l; ++j) tau[i][j] = d[j] / sigma[i];
    }
    mr_solve(l, tau, gp, gamma, gpp);
    omega = gamma[l];
    // x (y) += gamma_1 r_0 + sum gpp_j r_j; r_0 -= sum gp_j r_j; u_0 -= sum gamma_j u_j.
    T g[kMaxL + 1], gq[kMaxL + 1], gs[kMaxL + 1];
    for (int j = 1; j <= l; ++j) g[j] = T(gamma[j]), gq[j] = T(gpp[j]), gs[j] = T(gp[j]);
    const double nr = map_reduce<1>(n, mask, [&](std::int64_t e, std::array<double, 1>& acc) {
      T ye = y[e] + g[1] * R[0][e];
      for (int j = 1; j < l; ++j) ye = ye + gq[j] * R[j][e];
      y[e] = ye;
      T re = R[0][e] - gs[l] * R[l][e];
      for (int j = 1; j < l; ++j) re = re - gs[j] * R[j][e];
      R[0][e] = re;
      T ue = U[0][e] - g[l] * U[l][e];
      for (int j = 1; j < l; ++j) ue = ue - g[j] * U[j][e];
      U[0][e] = ue;
      acc[0] = combine(acc[0], norm_term(double(re), inf), inf);
    })[0];
    if (run.record(k + 1, norm_from(nr, inf)) != kRunning) return finish();
    if (omega == 0) return (void)(run.stop(kBreakdown, kOmega, omega, k + 1), finish());
  }
  run.max_iterations_reached();
  finish();
}

#define BALSA_INSTANTIATE(T) template void bicgstab_l(Run<T>&, int, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::cpu
