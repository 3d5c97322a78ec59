// MINRES on the CPU: the reference (oracle) of krylov/gpu_minres.cu.
//
// Paige & Saunders, "Solution of sparse indefinite systems of linear
// equations", SIAM J. Numer. Anal. 12 (1975), in its preconditioned form
// (the Lanczos process on M^{-1} A in the M-inner product, M symmetric
// positive definite): for symmetric A, definite or not, x_k minimises
// ||b - A x||_{M^{-1}} over x0 + K_k(M^{-1} A, M^{-1} r0). The Lanczos
// tridiagonal matrix is reduced by rotations as it grows (minres_rotate,
// krylov/common.hpp) and x moves along w_k = (v_k - eps_k w_{k-2} -
// delta_k w_{k-1}) / gamma_k, so only the last few vectors are kept.
//
// The residual tested is that of A x = b in the 2-norm (SciPy's test, and the
// other methods'): r is updated with A w_k, formed by the same recurrence
// from A v_k (the product the iteration makes anyway), so it costs vector
// work and no product. Without a preconditioner ||r||_2 equals phibar, and it
// never grows. One iteration: one product with A, one application of M.
// Breakdowns: r^T M^{-1} r < 0 (M is not positive definite), a singular
// tridiagonal matrix, beta = 0 before convergence (an invariant subspace).
#include "krylov/methods_cpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::cpu {

namespace {

// The vectors: r (A x = b's residual), the Lanczos vectors r1, r2 (unscaled:
// M v_k beta_k) and y, z = M^{-1} r2 (r2 itself without M), v, q = A v, and
// the last three search directions w and their products A w (oldest first:
// w[0] = w_{k-2}, w[1] = w_{k-1}, w[2] = w_k; rotated each iteration).
template <class T>
struct Vectors {
  explicit Vectors(std::size_t n, bool preconditioned)
      : r(n), r1(n), r2(n), y(n), v(n), q(n), zs(preconditioned ? n : 0) {
    for (int i = 0; i < 3; ++i) {
      w[i].assign(n, T(0));
      aw[i].assign(n, T(0));
    }
  }
  T* z() { return zs.empty() ? r2.data() : zs.data(); }
  std::vector<T> r, r1, r2, y, v, q, zs;
  std::vector<T> w[3], aw[3];
};

// r2^T M^{-1} r2 into beta, checked (iteration k1). Returns the run's code.
template <class T>
int lanczos_beta(Run<T>& run, Vectors<T>& s, double& beta, int k1) {
  if (run.preconditioned()) run.precondition(s.r2.data(), s.z());
  const double bb = dot(s.r2.data(), s.z(), run.n());
  if (!std::isfinite(bb)) return run.stop(kNonFinite, kRz, bb, k1);
  if (bb < 0) return run.stop(kBreakdown, kRz, bb, k1);
  beta = std::sqrt(bb);
  return kRunning;
}

// w_k = (v - oldeps w_{k-2} - delta w_{k-1}) / gamma and A w_k likewise from
// q = A v (into the oldest slots, then rotated to the newest); x += phi w_k,
// r -= phi A w_k. Returns ||r||_2.
template <class T>
double update(Run<T>& run, Vectors<T>& s, const MinresScalars& m, T* x) {
  T *w = s.w[0].data(), *aw = s.aw[0].data(), *r = s.r.data();
  const T *w1 = s.w[1].data(), *w2 = s.w[2].data(), *a1 = s.aw[1].data(), *a2 = s.aw[2].data();
  const T *v = s.v.data(), *q = s.q.data();
  const double e = m.oldeps, d = m.delta, g = m.gamma;
  const T phi = T(m.phi);
  const double rr = map_reduce<1>(run.n(), 0u, [&](std::int64_t i, std::array<double, 1>& a) {
    w[i] = T((double(v[i]) - e * double(w1[i]) - d * double(w2[i])) / g);
    aw[i] = T((double(q[i]) - e * double(a1[i]) - d * double(a2[i])) / g);
    x[i] = x[i] + phi * w[i];
    r[i] = r[i] - phi * aw[i];
    a[0] += double(r[i]) * double(r[i]);
  })[0];
  std::rotate(std::begin(s.w), std::begin(s.w) + 1, std::end(s.w));
  std::rotate(std::begin(s.aw), std::begin(s.aw) + 1, std::end(s.aw));
  return std::sqrt(rr);
}

}  // namespace

template <class T>
void minres(Run<T>& run, std::span<const T> b, std::span<T> xs) {
  const std::int64_t n = run.n();
  T* x = xs.data();
  Vectors<T> s(std::size_t(n), run.preconditioned());
  // r = b - A x; r2 = r; ||b||_2, ||r||_2.
  run.spmv(x, s.q.data());
  const auto init = map_reduce<2>(n, 0u, [&](std::int64_t i, std::array<double, 2>& a) {
    s.r[i] = b[i] - s.q[i];
    s.r2[i] = s.r[i];
    a[0] += double(s.r[i]) * double(s.r[i]);
    a[1] += double(b[i]) * double(b[i]);
  });
  if (!run.start(std::sqrt(init[1]), std::sqrt(init[0]))) return;
  MinresScalars m{};
  double beta1 = 0;
  if (lanczos_beta(run, s, beta1, 0) != kRunning) return;
  if (beta1 == 0) return (void)run.stop(kBreakdown, kRz, 0.0, 0);  // r != 0 with r^T M^{-1} r = 0
  minres_begin(m, beta1);
  for (int k = 0; k < run.max_iterations(); ++k) {
    // v = z / beta; q = A v; y = q - (beta / oldb) r1; alpha = v^T y.
    const double inv = 1.0 / m.beta, c1 = m.oldb != 0 ? m.beta / m.oldb : 0.0;
    map(n, [&](std::int64_t i) { s.v[i] = T(double(s.z()[i]) * inv); });
    run.spmv(s.v.data(), s.q.data());
    const double alfa = map_reduce<1>(n, 0u, [&](std::int64_t i, std::array<double, 1>& a) {
      s.y[i] = T(double(s.q[i]) - c1 * double(s.r1[i]));
      a[0] += double(s.v[i]) * double(s.y[i]);
    })[0];
    // y -= (alpha / beta) r2; (r1, r2) = (r2, y); beta_{k+1} = sqrt(r2^T M^{-1} r2).
    const double c2 = alfa / m.beta;
    map(n, [&](std::int64_t i) { s.y[i] = T(double(s.y[i]) - c2 * double(s.r2[i])); });
    std::swap(s.r1, s.r2);
    std::swap(s.r2, s.y);
    double beta = 0;
    if (lanczos_beta(run, s, beta, k + 1) != kRunning) return;
    if (!std::isfinite(alfa)) return (void)run.stop(kNonFinite, kResidual, alfa, k + 1);
    if (!minres_rotate(m, alfa, beta)) return (void)run.stop(kBreakdown, kProjected, 0.0, k + 1);
    const double nr = update(run, s, m, x);
    run.iterate(std::span<const T>(xs));
    if (run.record(k + 1, nr) != kRunning) return;
    if (beta == 0) return (void)run.stop(kBreakdown, kLanczos, beta, k + 1);
  }
  run.max_iterations_reached();
}

#define BALSA_INSTANTIATE(T) template void minres(Run<T>&, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::cpu
