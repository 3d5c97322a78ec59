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
#include "krylov/methods_cpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::cpu {

// One solve's vectors and scalars; the driver below runs its steps.
template <class T>
class BiCgStabL {
 public:
  BiCgStabL(Run<T>& run, int l, T* x)
      : run_(run), l_(l), n_(run.n()), inf_(run.infinity()), mask_(run.norm_mask()), x_(x) {
    const std::size_t N = std::size_t(n_);
    Rv_.assign(std::size_t(l) + 1, std::vector<T>(N));
    Uv_.assign(std::size_t(l) + 1, std::vector<T>(N));
    r0_.resize(N), y_.assign(N, T(0)), w_.resize(N);
    for (int j = 0; j <= l; ++j) R_[j] = Rv_[j].data(), U_[j] = Uv_[j].data();
  }

  // r_0 = b - A x; shadow residual r0 = r_0; u_0 = 0. False: the solve is
  // already over (b == 0 or non-finite input).
  bool start(std::span<const T> b) {
    T** R = R_;
    T** U = U_;
    const bool inf = inf_;
    run_.spmv(x_, w_.data());
    const auto init = map_reduce<2>(n_, inf ? 3u : 0u, [&](std::int64_t i, std::array<double, 2>& a) {
      R[0][i] = b[i] - w_[i];
      r0_[i] = R[0][i];
      U[0][i] = T(0);
      a[0] = combine(a[0], norm_term(double(R[0][i]), inf), inf);
      a[1] = combine(a[1], norm_term(double(b[i]), inf), inf);
    });
    return run_.start(norm_from(init[1], inf), norm_from(init[0], inf));
  }

  // Outer iteration k's BiCG part (Sleijpen & Fokkema 1993, the BiCG part of
  // their algorithm): l steps. False: the solve stopped.
  bool bicg_part(int k) {
    rho0_ = -omega_ * rho0_;
    for (int j = 0; j < l_; ++j)
      if (!bicg_step(k, j)) return false;
    return true;
  }

  // Outer iteration k's MR part (Sleijpen & Fokkema 1993, the MR part):
  // modified Gram-Schmidt on r_1..r_l, the gammas, then the updates of x
  // (y), r_0 and u_0 and the stopping test. False: the solve stopped.
  bool mr_part(int k) {
    if (!gram_schmidt(k)) return false;
    mr_solve(l_, tau_, gp_, gamma_, gpp_);
    omega_ = gamma_[l_];
    if (run_.record(k + 1, norm_from(mr_update(), inf_)) != kRunning) return false;
    report_iterate();
    if (omega_ == 0) return run_.stop(kBreakdown, kOmega, omega_, k + 1), false;
    return true;
  }

  void finish() {  // x = x0 + M^{-1} y
    add_correction(x_);
    run_.iterate(std::span<const T>(x_, std::size_t(n_)));
  }

  // The iterate x0 + M^{-1} y of a running solve, formed apart for the
  // user's iterate callback (w_ is free between iterations).
  void report_iterate() {
    if (!run_.wants_iterates()) return;
    xk_.assign(x_, x_ + n_);
    add_correction(xk_.data());
    run_.iterate(std::span<const T>(xk_));
  }

  // x += M^{-1} y.
  void add_correction(T* x) {
    const T* dy = y_.data();
    if (run_.preconditioned()) run_.precondition(y_.data(), w_.data()), dy = w_.data();
    map(n_, [&](std::int64_t i) { x[i] = x[i] + dy[i]; });
  }

 private:
  // out = B in = A M^{-1} in.
  void apply_B(const T* in, T* out) {
    if (run_.preconditioned()) {
      run_.precondition(in, w_.data());
      in = w_.data();
    }
    run_.spmv(in, out);
  }

  // BiCG step j: u_i = r_i - beta u_i (i <= j), u_{j+1} = B u_j, alpha,
  // r_i -= alpha u_{i+1}, y += alpha u_0, the stopping test on r_0, then
  // r_{j+1} = B r_j.
  bool bicg_step(int k, int j) {
    T** R = R_;
    T** U = U_;
    const bool inf = inf_;
    const double rho1 = dot(r0_.data(), R[j], n_);
    if (!std::isfinite(rho1)) return run_.stop(kNonFinite, kRho, rho1, k + 1), false;
    if (rho0_ == 0) return run_.stop(kBreakdown, kRho, rho0_, k + 1), false;
    const double beta = alpha_ * rho1 / rho0_;
    rho0_ = rho1;
    if (!std::isfinite(beta)) return run_.stop(kNonFinite, kBeta, beta, k + 1), false;
    const T bt = T(beta);
    map(n_, [&](std::int64_t e) {
      for (int i = 0; i <= j; ++i) U[i][e] = R[i][e] - bt * U[i][e];
    });
    apply_B(U[j], U[j + 1]);
    const double g = dot(r0_.data(), U[j + 1], n_);
    if (!std::isfinite(g)) return run_.stop(kNonFinite, kGamma, g, k + 1), false;
    if (g == 0) return run_.stop(kBreakdown, kGamma, g, k + 1), false;
    alpha_ = rho0_ / g;
    const T a = T(alpha_);
    T* y = y_.data();
    const double nr = map_reduce<1>(n_, mask_, [&](std::int64_t e, std::array<double, 1>& acc) {
      for (int i = 0; i <= j; ++i) R[i][e] = R[i][e] - a * U[i + 1][e];
      y[e] = y[e] + a * U[0][e];
      acc[0] = combine(acc[0], norm_term(double(R[0][e]), inf), inf);
    })[0];
    const double res = run_.relative(norm_from(nr, inf));
    if (!std::isfinite(res)) return run_.stop(kNonFinite, kResidual, res, k + 1), false;
    if (res <= run_.tolerance()) return run_.record(k + 1, norm_from(nr, inf)), false;
    apply_B(R[j], R[j + 1]);
    return true;
  }

  // Step i of modified Gram-Schmidt, for i = 1..l: step i-1's updates
  // r_j -= tau[i-1][j] r_{i-1} (j >= i), then r_i's products: sigma_i
  // (slot 0), r_0^T r_i (slot 1), r_j^T r_i (slot j > i).
  bool gram_schmidt(int k) {
    T** R = R_;
    const int l = l_;
    for (int i = 1; i <= l; ++i) {
      T t[kMaxL + 1] = {};
      if (i > 1)
        for (int j = i; j <= l; ++j) t[j] = T(tau_[i - 1][j]);
      const auto d = map_reduce<kMaxValues>(n_, 0u, [&](std::int64_t e, std::array<double, kMaxValues>& acc) {
        if (i > 1)
          for (int j = i; j <= l; ++j) R[j][e] = R[j][e] - t[j] * R[i - 1][e];
        const double ri = double(R[i][e]);
        acc[0] += ri * ri;
        acc[1] += double(R[0][e]) * ri;
        for (int j = i + 1; j <= l; ++j) acc[j] += double(R[j][e]) * ri;
      });
      if (!std::isfinite(d[0])) return run_.stop(kNonFinite, kSigma, d[0], k + 1), false;
      if (d[0] == 0) return run_.stop(kBreakdown, kSigma, d[0], k + 1), false;
      sigma_[i] = d[0];
      gp_[i] = d[1] / sigma_[i];
      for (int j = i + 1; j <= l; ++j) tau_[i][j] = d[j] / sigma_[i];
    }
    return true;
  }

  // x (y) += gamma_1 r_0 + sum gpp_j r_j; r_0 -= sum gp_j r_j;
  // u_0 -= sum gamma_j u_j. Returns the new r_0's norm accumulator.
  double mr_update() {
    T** R = R_;
    T** U = U_;
    T* y = y_.data();
    const int l = l_;
    const bool inf = inf_;
    T g[kMaxL + 1], gq[kMaxL + 1], gs[kMaxL + 1];
    for (int j = 1; j <= l; ++j) g[j] = T(gamma_[j]), gq[j] = T(gpp_[j]), gs[j] = T(gp_[j]);
    return map_reduce<1>(n_, mask_, [&](std::int64_t e, std::array<double, 1>& acc) {
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
  }

  Run<T>& run_;
  const int l_;
  const std::int64_t n_;
  const bool inf_;
  const unsigned mask_;
  T* x_;
  std::vector<std::vector<T>> Rv_, Uv_;
  std::vector<T> r0_, y_, w_, xk_;
  T* R_[kMaxL + 1] = {};
  T* U_[kMaxL + 1] = {};
  double rho0_ = 1, alpha_ = 0, omega_ = 1;
  double tau_[kMaxL + 1][kMaxL + 1] = {}, sigma_[kMaxL + 1] = {}, gp_[kMaxL + 1] = {}, gamma_[kMaxL + 1] = {},
         gpp_[kMaxL + 1] = {};
};

template <class T>
void bicgstab_l(Run<T>& run, int l, std::span<const T> b, std::span<T> xs) {
  BiCgStabL<T> m(run, l, xs.data());
  if (!m.start(b)) return;
  for (int k = 0; k < run.max_iterations(); ++k)
    if (!m.bicg_part(k) || !m.mr_part(k)) return m.finish();
  run.max_iterations_reached();
  m.finish();
}

#define BALSA_INSTANTIATE(T) template void bicgstab_l(Run<T>&, int, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::cpu
