// Restarted GMRES(m) on the CPU: the reference (oracle) of krylov/gpu_gmres.cu.
//
// Saad & Schultz, "GMRES: a generalized minimal residual algorithm for
// solving nonsymmetric linear systems", SIAM J. Sci. Stat. Comput. 7 (1986);
// Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., Alg. 6.9
// (GMRES with Givens rotations, the residual norm |g_{j+1}| known at every
// step) and Alg. 9.5 (right preconditioning: the Arnoldi process runs on
// A M^{-1}, so the residual tested is that of A x = b, and x = x0 + M^{-1} V y).
//
// The Arnoldi step orthogonalises A M^{-1} v_j against v_0..v_j by classical
// Gram-Schmidt run twice (CGS2: Giraud, Langou & Rozloznik 2005 show two
// passes give vectors orthogonal to working precision), which on the GPU is a
// few kernels per step whatever j is. m is capped at n. One iteration is one
// inner step (one product with A); each restart forms x, recomputes
// r = b - A x (one more product) and starts a new basis from it. Every solve
// ends with x formed from the steps of its last cycle.
#include "krylov/methods_cpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::cpu {

namespace {

// One cycle's basis V (m + 1 vectors of n) and projected problem: the
// Hessenberg matrix reduced to R by the rotations (column j at R + j (m + 1)),
// the rotations, g = Q^T (beta e_1), and `steps`, the columns accepted.
template <class T>
struct Cycle {
  Cycle(std::int64_t rows, int size)
      : n(rows), m(size), V(std::size_t(rows) * std::size_t(size + 1)), R(std::size_t(size) * std::size_t(size + 1)),
        cs(size), sn(size), g(size + 1), coef(size + 1), y(size) {}
  T* v(int j) { return V.data() + std::size_t(j) * std::size_t(n); }
  double* column(int j) { return R.data() + std::size_t(j) * std::size_t(m + 1); }

  std::int64_t n;
  int m;
  std::vector<T> V;
  std::vector<double> R, cs, sn, g, coef, y;
  int steps = 0;
};

// r = b - A x into r (q = A x). Returns {||r||_2^2, ||b||_2^2}.
template <class T>
std::array<double, 2> residual(Run<T>& run, std::span<const T> b, const T* x, T* q, T* r) {
  run.spmv(x, q);
  return map_reduce<2>(run.n(), 0u, [&](std::int64_t i, std::array<double, 2>& a) {
    r[i] = b[i] - q[i];
    a[0] += double(r[i]) * double(r[i]);
    a[1] += double(b[i]) * double(b[i]);
  });
}

// v *= 1 / d, the division in double.
template <class T>
void scale(std::int64_t n, T* v, double d) {
  map(n, [&](std::int64_t i) { v[i] = T(double(v[i]) / d); });
}

// One classical Gram-Schmidt pass against v_0..v_{count-1}: coef = V^T w,
// then w -= V coef (the sum in double). Returns ||w||_2^2 after it.
template <class T>
double project(Cycle<T>& c, int count, T* w) {
  for (int l = 0; l < count; ++l) c.coef[l] = dot(c.v(l), w, c.n);
  return map_reduce<1>(c.n, 0u, [&](std::int64_t i, std::array<double, 1>& a) {
    double s = 0.0;
    for (int l = 0; l < count; ++l) s += c.coef[l] * double(c.v(l)[i]);
    w[i] = T(double(w[i]) - s);
    a[0] += double(w[i]) * double(w[i]);
  })[0];
}

// Arnoldi step j, iteration k1: v_{j+1} = A M^{-1} v_j orthogonalised
// (CGS2) into column j, the rotations, the residual norm |g_{j+1}|
// recorded. Returns the run's code.
template <class T>
int arnoldi_step(Run<T>& run, Cycle<T>& c, int j, int k1, T* z) {
  T* w = c.v(j + 1);
  const T* p = c.v(j);
  if (run.preconditioned()) {
    run.precondition(c.v(j), z);
    p = z;
  }
  run.spmv(p, w);
  double* h = c.column(j);
  project(c, j + 1, w);
  for (int l = 0; l <= j; ++l) h[l] = c.coef[l];
  const double ww = project(c, j + 1, w);
  for (int l = 0; l <= j; ++l) h[l] += c.coef[l];
  const double hnext = std::sqrt(ww);
  h[j + 1] = hnext;
  const double d = gmres_rotate(j, h, c.cs.data(), c.sn.data(), c.g.data());
  if (!std::isfinite(d)) return run.stop(kNonFinite, kResidual, d, k1);
  if (d == 0) return run.stop(kBreakdown, kProjected, d, k1);
  c.steps = j + 1;
  const int code = run.record(k1, std::fabs(c.g[j + 1]));
  if (code == kRunning) scale(c.n, w, hnext);
  return code;
}

// x += M^{-1} V y, y the least-squares solution of the cycle's steps (u: work).
template <class T>
void update_x(Run<T>& run, Cycle<T>& c, T* x, T* u, T* z) {
  const int steps = c.steps;
  if (steps == 0) return;
  gmres_solve(steps, c.R.data(), c.m + 1, c.g.data(), c.y.data());
  T* into = run.preconditioned() ? u : x;
  map(c.n, [&](std::int64_t i) {
    double s = 0.0;
    for (int l = 0; l < steps; ++l) s += c.y[l] * double(c.v(l)[i]);
    into[i] = run.preconditioned() ? T(s) : x[i] + T(s);
  });
  if (!run.preconditioned()) return;
  run.precondition(u, z);
  map(c.n, [&](std::int64_t i) { x[i] = x[i] + z[i]; });
}

// The cycle starts from r = v_0 with ||r|| = beta: v_0 = r / beta, g = beta e_1.
template <class T>
void begin_cycle(Cycle<T>& c, double beta) {
  scale(c.n, c.v(0), beta);
  std::fill(c.g.begin(), c.g.end(), 0.0);
  c.g[0] = beta;
  c.steps = 0;
}

}  // namespace

template <class T>
void gmres(Run<T>& run, int restart, std::span<const T> b, std::span<T> xs) {
  const std::int64_t n = run.n();
  Cycle<T> c(n, int(std::min<std::int64_t>(restart, n)));
  T* x = xs.data();
  const std::size_t N = std::size_t(n);
  std::vector<T> q(N), z(run.preconditioned() ? N : 0);
  const auto first = residual(run, b, x, q.data(), c.v(0));
  if (!run.start(std::sqrt(first[1]), std::sqrt(first[0]))) return;
  double beta = std::sqrt(first[0]);
  for (int k = 0;;) {
    begin_cycle(c, beta);
    int code = kRunning;
    for (int j = 0; j < c.m && k < run.max_iterations() && code == kRunning; ++j) code = arnoldi_step(run, c, j, ++k, z.data());
    update_x(run, c, x, q.data(), z.data());
    run.iterate(std::span<const T>(xs));
    if (code != kRunning) return;
    if (k >= run.max_iterations()) return (void)run.max_iterations_reached();
    // Restart: the residual of the new x, recomputed.
    beta = std::sqrt(residual(run, b, x, q.data(), c.v(0))[0]);
    if (!std::isfinite(beta)) return (void)run.stop(kNonFinite, kResidual, run.relative(beta), k);
    if (beta == 0) return (void)run.exact(k);
  }
}

#define BALSA_INSTANTIATE(T) template void gmres(Run<T>&, int, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::cpu
