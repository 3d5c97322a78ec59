// Right-preconditioned BiCGStab(l) on the GPU, step for step the CPU
// reference krylov/bicgstab_l_cpu.cpp (Sleijpen & Fokkema 1993, MR part by
// modified Gram-Schmidt; x = x0 + M^{-1} y formed once, in finish()).
//
// Kernels of outer iteration k (each a no-op once the solve has stopped);
// B = A M^{-1} is M^{-1} then an SpMV:
//   BiCG step j = 0..l-1:
//     Rho      r0^T r_j; finish: (j = 0: rho0 = -omega rho0) beta = alpha rho1 / rho0
//     UpdateU  u_i = r_i - beta u_i, i <= j
//     B        u_{j+1} = B u_j
//     Gamma    r0^T u_{j+1}; finish: alpha = rho0 / r0^T u_{j+1}
//     UpdateR  r_i -= alpha u_{i+1}, i <= j; y += alpha u_0; ||r_0||; finish:
//              stop if it meets the tolerance
//     B        r_{j+1} = B r_j
//   MR part:
//     Mgs i = 1..l  step i-1's r_j -= tau_{i-1,j} r_{i-1} (j >= i), then
//              ||r_i||^2, r_0^T r_i, r_j^T r_i (j > i); finish: sigma_i,
//              gamma'_i, tau_ij; at i = l the small MR solve for gamma,
//              gamma'' (one thread: O(l^2) flops)
//     MrUpdate y, r_0, u_0 updates, ||r_0||; finish: history, stopping test
// 4l + l + 1 kernels, 2l SpMVs and 2l M^{-1} per outer iteration.
#include <vector>

#include "krylov/gpu_bicgstab_common.cuh"
#include "krylov/gpu_method.cuh"
#include "core/instantiate.hpp"

namespace balsa::krylov::gpu {

namespace {

// The ops are templated on L >= l, the capacity their loops unroll to (l is
// a runtime value): with every vector index a compile-time constant the
// pointer and coefficient arrays stay in registers and parameter space
// instead of local memory. iterate() picks L in {1, 2, 4, 8}.
template <class T>
struct Vectors {
  T* v[kMaxL + 1];
};

template <class T>
struct Rho {
  const T *r0, *rj;
  int j, k1;
  static constexpr int kValues = 1;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const { acc[0] += double(r0[i]) * double(rj[i]); }
  __device__ void finish(const double* t, State& st) const {
    Scalars& s = st.s;  // s.rho holds rho0
    if (j > 0) ++st.status.matvecs;  // r_j = B r_{j-1}
    if (j == 0) s.rho = -s.omega * s.rho;
    const double rho1 = t[0];
    if (!isfinite(rho1)) return stop(st, kNonFinite, kRho, rho1, k1);
    if (s.rho == 0) return stop(st, kBreakdown, kRho, s.rho, k1);
    const double beta = s.alpha * rho1 / s.rho;
    s.rho = rho1;
    if (!isfinite(beta)) return stop(st, kNonFinite, kBeta, beta, k1);
    s.beta = beta;
  }
};

template <class T, int L>
struct UpdateU {
  Vectors<T> R, U;
  int j;
  T beta;
  __device__ void begin(const State& st) { beta = T(st.s.beta); }
  __device__ void element(std::int64_t e) const {
#pragma unroll
    for (int i = 0; i < L; ++i)
      if (i <= j) U.v[i][e] = R.v[i][e] - beta * U.v[i][e];
  }
};

// r0^T u_{j+1} (u_{j+1} = B u_j); finish: alpha = rho0 / r0^T u_{j+1}.
template <class T>
using Gamma = ShadowAlpha<T, kGamma>;

// r_i -= alpha u_{i+1} (i <= j), y += alpha u_0, ||r_0||.
template <class T, int L>
struct UpdateR : AlphaUpdate<T> {
  using AlphaUpdate<T>::a, AlphaUpdate<T>::c;
  Vectors<T> R, U;
  T* y;
  int j;
  __device__ void element(std::int64_t e, double* acc) const {
#pragma unroll
    for (int i = 0; i < L; ++i)
      if (i <= j) R.v[i][e] = R.v[i][e] - a * U.v[i + 1][e];
    y[e] = y[e] + a * U.v[0][e];
    acc[0] = combine(acc[0], norm_term(double(R.v[0][e]), c.infinity), c.infinity);
  }
};

// Gram-Schmidt step i: slot 0 sigma_i, slot 1 r_0^T r_i, slot j (> i) r_j^T r_i.
template <class T, int L>
struct Mgs {
  Vectors<T> R;
  const T *prev, *ri;  // r_{i-1} (used when i > 1), r_i
  int i, l, k1;
  T tau[L + 1];  // step i-1's coefficients tau_{i-1,j}, as T
  static constexpr int kValues = L + 1;
  __device__ void begin(const State& st) {
#pragma unroll
    for (int j = 0; j <= L; ++j) tau[j] = (i > 1 && j >= i && j <= l) ? T(st.s.tau[i - 1][j]) : T(0);
  }
  __device__ int values() const { return l + 1; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t e, double* acc) const {
    if (i > 1) {
      const T p = prev[e];
#pragma unroll
      for (int j = 2; j <= L; ++j)
        if (j >= i && j <= l) R.v[j][e] = R.v[j][e] - tau[j] * p;
    }
    const double r = double(ri[e]);
    acc[0] += r * r;
    acc[1] += double(R.v[0][e]) * r;
#pragma unroll
    for (int j = 2; j <= L; ++j)
      if (j > i && j <= l) acc[j] += double(R.v[j][e]) * r;
  }
  __device__ void finish(const double* d, State& st) const {
    Scalars& s = st.s;
    if (i == 1) ++st.status.matvecs;  // r_l = B r_{l-1}
    if (!isfinite(d[0])) return stop(st, kNonFinite, kSigma, d[0], k1);
    if (d[0] == 0) return stop(st, kBreakdown, kSigma, d[0], k1);
    s.gp[i] = d[1] / d[0];
#pragma unroll
    for (int j = 2; j <= L; ++j)  // static indices into d: no local memory
      if (j > i && j <= l) s.tau[i][j] = d[j] / d[0];
    if (i == l) {  // the small MR solve, on this one thread
      mr_solve(l, s.tau, s.gp, s.gamma, s.gpp);
      s.omega = s.gamma[l];
    }
  }
};

template <class T, int L>
struct MrUpdate {
  Vectors<T> R, U;
  const T *rl, *ul;  // r_l, u_l
  T* y;
  int l;
  Stopping c;
  int k1;
  T g[L + 1], gq[L + 1], gs[L + 1];  // gamma, gamma'', gamma' as T (1..l-1; g[1] for any l)
  T gl, gsl;                         // gamma_l, gamma'_l
  static constexpr int kValues = 1;
  __device__ void begin(const State& st) {
#pragma unroll
    for (int j = 0; j <= L; ++j) {
      const bool used = j >= 1 && j <= l;
      g[j] = used ? T(st.s.gamma[j]) : T(0);
      gq[j] = used ? T(st.s.gpp[j]) : T(0);
      gs[j] = used ? T(st.s.gp[j]) : T(0);
    }
    gl = T(st.s.gamma[l]);
    gsl = T(st.s.gp[l]);
  }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return c.infinity ? 1u : 0u; }
  // The order of krylov/bicgstab_l_cpu.cpp, entry by entry.
  __device__ void element(std::int64_t e, double* acc) const {
    T ye = y[e] + g[1] * R.v[0][e];
#pragma unroll
    for (int j = 1; j < L; ++j)
      if (j < l) ye = ye + gq[j] * R.v[j][e];
    y[e] = ye;
    T re = R.v[0][e] - gsl * rl[e];
#pragma unroll
    for (int j = 1; j < L; ++j)
      if (j < l) re = re - gs[j] * R.v[j][e];
    R.v[0][e] = re;
    T ue = U.v[0][e] - gl * ul[e];
#pragma unroll
    for (int j = 1; j < L; ++j)
      if (j < l) ue = ue - g[j] * U.v[j][e];
    U.v[0][e] = ue;
    acc[0] = combine(acc[0], norm_term(double(re), c.infinity), c.infinity);
  }
  __device__ void finish(const double* t, State& st) const {
    record(st, k1, norm_from(t[0], c.infinity), c);
    if (running(st) && st.s.omega == 0) stop(st, kBreakdown, kOmega, 0.0, k1);
  }
};

template <class T>
class BiCgStabL final : public Method<T> {
 public:
  explicit BiCgStabL(Context<T>& c) : c_(c), l_(c.l) {
    const std::size_t n = std::size_t(c.n);
    for (int j = 0; j <= l_; ++j) {
      R_.emplace_back(n);
      U_.emplace_back(n);
      Rp_.v[j] = R_.back().data();
      Up_.v[j] = U_.back().data();
    }
    for (auto* v : {&r0_, &y_, &w_}) *v = cuda::DeviceBuffer<T>(n);
  }

  void initial_scalars(Scalars& s) const override {
    s.rho = 1;  // rho0
    s.alpha = 0;
    s.omega = 1;
  }

  void start(const T* b, T* x) override {
    c_.spmv(x, w_.data());
    // r_0 = b - A x, r0 = r_0, u_0 = 0, y = 0.
    c_.launch.reduce(InitialResidual<T>{b, x, w_.data(), R_[0].data(), r0_.data(), nullptr,
                                        U_[0].data(), y_.data(), c_.stopping});
  }

  void iterate(int k) override {
    if (l_ <= 1)
      iterate_with<1>(k);
    else if (l_ <= 2)
      iterate_with<2>(k);
    else if (l_ <= 4)
      iterate_with<4>(k);
    else
      iterate_with<kMaxL>(k);
  }

  // x = x0 + M^{-1} y, after the stop (unmasked).
  void finish(T* x) override {
    const T* dy = y_.data();
    if (c_.M) {
      c_.precondition(y_.data(), w_.data());
      dy = w_.data();
    }
    c_.launch.map_unmasked(AddTo<T>{dy, x});
  }

 private:
  template <int L>
  void iterate_with(int k) {
    const int k1 = k + 1;
    for (int j = 0; j < l_; ++j) {
      c_.launch.reduce(Rho<T>{r0_.data(), R_[j].data(), j, k1});
      c_.launch.map(UpdateU<T, L>{Rp_, Up_, j, T(0)});
      apply_B(U_[j], U_[j + 1]);
      c_.launch.reduce(Gamma<T>{r0_.data(), U_[j + 1].data(), k1});
      c_.launch.reduce(UpdateR<T, L>{{c_.stopping, k1, T(0)}, Rp_, Up_, y_.data(), j});
      apply_B(R_[j], R_[j + 1]);
    }
    for (int i = 1; i <= l_; ++i) c_.launch.reduce(Mgs<T, L>{Rp_, R_[i - 1].data(), R_[i].data(), i, l_, k1, {}});
    c_.launch.reduce(MrUpdate<T, L>{Rp_, Up_, R_[l_].data(), U_[l_].data(), y_.data(), l_, c_.stopping, k1, {}, {},
                                    {}, T(0), T(0)});
  }

  void apply_B(const cuda::DeviceBuffer<T>& in, cuda::DeviceBuffer<T>& out) {
    if (c_.M) {
      c_.precondition(in.data(), w_.data());
      c_.spmv(w_, out);
    } else {
      c_.spmv(in, out);
    }
  }

  Context<T>& c_;
  int l_;
  std::vector<cuda::DeviceBuffer<T>> R_, U_;
  Vectors<T> Rp_{}, Up_{};
  cuda::DeviceBuffer<T> r0_, y_, w_;
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_bicgstab_l(Context<T>& c) {
  return std::make_unique<BiCgStabL<T>>(c);
}

#define BALSA_INSTANTIATE(T) template std::unique_ptr<Method<T>> make_bicgstab_l(Context<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::gpu
