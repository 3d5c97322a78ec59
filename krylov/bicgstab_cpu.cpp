// BiCGStab on the CPU: the reference (oracle) of krylov/gpu_bicgstab.cu.
//
// Van der Vorst, "Bi-CGSTAB: a fast and smoothly converging variant of Bi-CG
// for the solution of nonsymmetric linear systems", SIAM J. Sci. Stat.
// Comput. 13 (1992); Saad, "Iterative Methods for Sparse Linear Systems",
// 2nd ed., Alg. 7.7, here with right preconditioning (Saad sec. 9.3.2; the
// form of Barrett et al., "Templates for the Solution of Linear Systems",
// 1994, sec. 2.3.8): the iteration runs on A M^{-1}, so r stays the residual
// of A x = b, and x is updated with p^ = M^{-1} p and s^ = M^{-1} s.
//
// One iteration: two products with A, two preconditioner applications. When
// the half-step residual s already meets the tolerance the iteration stops
// there (x += alpha p^), counted as a whole iteration.
//
// Order of the x update: x += alpha p^ is applied with s (before omega is
// known), then x += omega s^; the GPU does the same, so both round alike.
#include "krylov/methods_cpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::cpu {

template <class T>
void bicgstab(Run<T>& run, std::span<const T> b, std::span<T> xs) {
  const std::int64_t n = run.n();
  const bool inf = run.infinity();
  const unsigned mask = run.norm_mask();
  T* x = xs.data();
  const std::size_t N = std::size_t(n);
  // r holds s after the half step (s = r - alpha v overwrites r).
  std::vector<T> r(N), r0(N), p(N), v(N), t(N);
  std::vector<T> ph_s(run.preconditioned() ? N : 0), sh_s(run.preconditioned() ? N : 0);
  T* ph = run.preconditioned() ? ph_s.data() : p.data();  // p^ = M^{-1} p
  T* sh = run.preconditioned() ? sh_s.data() : r.data();  // s^ = M^{-1} s

  // r = b - A x; the shadow residual r0 = r; p = r; rho = r0^T r.
  run.spmv(x, v.data());
  const auto init = map_reduce<3>(n, inf ? 5u : 0u, [&](std::int64_t i, std::array<double, 3>& a) {
    r[i] = b[i] - v[i];
    r0[i] = r[i];
    p[i] = r[i];
    a[0] = combine(a[0], norm_term(double(r[i]), inf), inf);
    a[1] += double(r[i]) * double(r[i]);
    a[2] = combine(a[2], norm_term(double(b[i]), inf), inf);
  });
  if (!run.start(norm_from(init[2], inf), norm_from(init[0], inf))) return;
  double rho = init[1];

  for (int k = 0; k < run.max_iterations(); ++k) {
    // v = A M^{-1} p; alpha = rho / r0^T v.
    if (run.preconditioned()) run.precondition(p.data(), ph);
    run.spmv(ph, v.data());
    const double rv = dot(r0.data(), v.data(), n);
    if (!std::isfinite(rv)) return (void)run.stop(kNonFinite, kRv, rv, k + 1);
    if (rv == 0) return (void)run.stop(kBreakdown, kRv, rv, k + 1);
    const double alpha = rho / rv;
    // Half step: s = r - alpha v (in r); x += alpha p^; ||s||.
    const T a = T(alpha);
    const double ns = map_reduce<1>(n, mask, [&](std::int64_t i, std::array<double, 1>& acc) {
      r[i] = r[i] - a * v[i];
      x[i] = x[i] + a * ph[i];
      acc[0] = combine(acc[0], norm_term(double(r[i]), inf), inf);
    })[0];
    const double sres = run.relative(norm_from(ns, inf));
    if (!std::isfinite(sres)) return (void)run.stop(kNonFinite, kResidual, sres, k + 1);
    if (sres <= run.tolerance()) return run.record(k + 1, norm_from(ns, inf)), run.iterate(xs);
    // t = A M^{-1} s; omega = t^T s / t^T t.
    if (run.preconditioned()) run.precondition(r.data(), sh);
    run.spmv(sh, t.data());
    const auto ts_tt = map_reduce<2>(n, 0u, [&](std::int64_t i, std::array<double, 2>& acc) {
      acc[0] += double(t[i]) * double(r[i]);
      acc[1] += double(t[i]) * double(t[i]);
    });
    if (!std::isfinite(ts_tt[0]) || !std::isfinite(ts_tt[1]))
      return (void)run.stop(kNonFinite, kOmega, ts_tt[0] / ts_tt[1], k + 1);
    if (ts_tt[1] == 0) return (void)run.stop(kBreakdown, kTt, 0.0, k + 1);
    const double omega = ts_tt[0] / ts_tt[1];
    if (omega == 0) return (void)run.stop(kBreakdown, kOmega, omega, k + 1);
    // x += omega s^; r = s - omega t; ||r|| and rho_new = r0^T r.
    const T w = T(omega);
    const auto upd = map_reduce<2>(n, mask, [&](std::int64_t i, std::array<double, 2>& acc) {
      x[i] = x[i] + w * sh[i];
      r[i] = r[i] - w * t[i];
      acc[0] = combine(acc[0], norm_term(double(r[i]), inf), inf);
      acc[1] += double(r0[i]) * double(r[i]);
    });
    const int state = run.record(k + 1, norm_from(upd[0], inf));
    run.iterate(xs);
    if (state != kRunning) return;
    const double rho_new = upd[1];
    if (!std::isfinite(rho_new)) return (void)run.stop(kNonFinite, kRho, rho_new, k + 1);
    if (rho_new == 0) return (void)run.stop(kBreakdown, kRho, rho_new, k + 1);
    // p = r + beta (p - omega v).
    const T beta = T((rho_new / rho) * (alpha / omega));
    rho = rho_new;
    map(n, [&](std::int64_t i) { p[i] = r[i] + beta * (p[i] - w * v[i]); });
  }
  run.max_iterations_reached();
}

#define BALSA_INSTANTIATE(T) template void bicgstab(Run<T>&, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::cpu
