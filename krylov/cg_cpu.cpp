// Preconditioned conjugate gradients on the CPU: the reference (oracle) of
// krylov/gpu_cg.cu.
//
// The method is the standard PCG (Saad, "Iterative Methods for Sparse Linear
// Systems", 2nd ed., Alg. 9.1; Hestenes & Stiefel 1952) with rho = r^T z and
// beta = rho_new / rho. Picciau's thesis Alg. 5.1 writes the same iteration
// with alpha = p^T r / p^T A p and beta = (A p)^T z / p^T A p (p = z - beta p);
// in exact arithmetic the two agree, and this form needs one dot product
// fewer per iteration. The stopping test is the thesis' (line 5) or the
// 2-norm one, per KrylovOptions::stopping.norm.
#include "krylov/methods_cpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::cpu {

template <class T>
void cg(Run<T>& run, std::span<const T> b, std::span<T> xs) {
  const std::int64_t n = run.n();
  const bool inf = run.infinity();
  const unsigned mask = run.norm_mask();
  T* x = xs.data();
  const std::size_t N = std::size_t(n);
  std::vector<T> r(N), p(N), q(N), zs(run.preconditioned() ? N : 0);
  T* z = run.preconditioned() ? zs.data() : r.data();  // z = r without a preconditioner

  // r = b - A x; ||b||, ||r||, and r^T r (= rho when z = r).
  run.spmv(x, q.data());
  const auto init = map_reduce<3>(n, inf ? 5u : 0u, [&](std::int64_t i, std::array<double, 3>& a) {
    r[i] = b[i] - q[i];
    a[0] = combine(a[0], norm_term(double(r[i]), inf), inf);
    a[1] += double(r[i]) * double(r[i]);
    a[2] = combine(a[2], norm_term(double(b[i]), inf), inf);
  });
  if (!run.start(norm_from(init[2], inf), norm_from(init[0], inf))) return;
  double rho = init[1];
  if (run.preconditioned()) {
    run.precondition(r.data(), z);
    rho = dot(r.data(), z, n);
  }
  if (!std::isfinite(rho)) {
    run.stop(kNonFinite, kRz, rho, 0);
    return;
  }
  if (rho <= 0) {
    run.stop(kBreakdown, kRz, rho, 0);
    return;
  }
  std::copy(z, z + n, p.begin());

  for (int k = 0; k < run.max_iterations(); ++k) {
    // q = A p; alpha = rho / p^T q (p^T A p > 0 for SPD A).
    run.spmv(p.data(), q.data());
    const double pq = dot(p.data(), q.data(), n);
    if (!std::isfinite(pq)) {
      run.stop(kNonFinite, kPAp, pq, k + 1);
      return;
    }
    if (pq <= 0) {
      run.stop(kBreakdown, kPAp, pq, k + 1);
      return;
    }
    const double alpha = rho / pq;
    // x += alpha p; r -= alpha q; ||r|| and r^T r.
    const T a = T(alpha);
    const auto upd = map_reduce<2>(n, mask, [&](std::int64_t i, std::array<double, 2>& acc) {
      x[i] = x[i] + a * p[i];
      r[i] = r[i] - a * q[i];
      acc[0] = combine(acc[0], norm_term(double(r[i]), inf), inf);
      acc[1] += double(r[i]) * double(r[i]);
    });
    const int state = run.record(k + 1, norm_from(upd[0], inf));
    run.iterate(xs);
    if (state != kRunning) return;
    // z = M^{-1} r; beta = r^T z / rho; p = z + beta p.
    double rho_new = upd[1];
    if (run.preconditioned()) {
      run.precondition(r.data(), z);
      rho_new = dot(r.data(), z, n);
    }
    if (!std::isfinite(rho_new)) {
      run.stop(kNonFinite, kRz, rho_new, k + 1);
      return;
    }
    if (rho_new <= 0) {
      run.stop(kBreakdown, kRz, rho_new, k + 1);
      return;
    }
    const T beta = T(rho_new / rho);
    rho = rho_new;
    map(n, [&](std::int64_t i) { p[i] = z[i] + beta * p[i]; });
  }
  run.max_iterations_reached();
}

#define BALSA_INSTANTIATE(T) template void cg(Run<T>&, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::cpu
