// Right-preconditioned BiCGStab on the GPU, step for step the CPU reference
// krylov/bicgstab_cpu.cpp (van der Vorst 1992; Saad Alg. 7.7 and sec. 9.3.2).
//
// Kernels of iteration k (each a no-op once the solve has stopped):
//   [M^{-1}]  p^ = M^{-1} p;   SpMV v = A p^
//   Alpha     r0^T v; finish: alpha = rho / r0^T v
//   Half      s = r - alpha v (in r), x += alpha p^, ||s||; finish: stop if
//             ||s|| meets the tolerance
//   [M^{-1}]  s^ = M^{-1} s;   SpMV t = A s^
//   Omega     t^T s, t^T t; finish: omega = t^T s / t^T t
//   Full      x += omega s^, r = s - omega t, ||r||, r0^T r; finish: history,
//             stopping test, beta = (rho_new / rho) (alpha / omega)
//   Direction p = r + beta (p - omega v)
// 5 kernels, 2 SpMVs and 2 M^{-1} per iteration.
#include "krylov/gpu_bicgstab_common.cuh"
#include "krylov/gpu_method.cuh"
#include "core/instantiate.hpp"

namespace balsa::krylov::gpu {

namespace {

// r0^T v (v = A p^); finish: alpha = rho / r0^T v.
template <class T>
using Alpha = ShadowAlpha<T, kRv>;

// s = r - alpha v (in r), x += alpha p^, ||s||.
template <class T>
struct Half : AlphaUpdate<T> {
  using AlphaUpdate<T>::a, AlphaUpdate<T>::c;
  T *r, *x;
  const T *v, *ph;
  __device__ void element(std::int64_t i, double* acc) const {
    const T si = r[i] - a * v[i];
    r[i] = si;
    x[i] = x[i] + a * ph[i];
    acc[0] = combine(acc[0], norm_term(double(si), c.infinity), c.infinity);
  }
};

template <class T>
struct Omega {
  const T *t, *s;
  int k1;
  static constexpr int kValues = 2;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    acc[0] += double(t[i]) * double(s[i]);
    acc[1] += double(t[i]) * double(t[i]);
  }
  __device__ void finish(const double* d, State& st) const {
    ++st.status.matvecs;
    if (!isfinite(d[0]) || !isfinite(d[1])) return stop(st, kNonFinite, kOmega, d[0] / d[1], k1);
    if (d[1] == 0) return stop(st, kBreakdown, kTt, 0.0, k1);
    const double omega = d[0] / d[1];
    if (omega == 0) return stop(st, kBreakdown, kOmega, omega, k1);
    st.s.omega = omega;
  }
};

template <class T>
struct Full {
  T *x, *r;
  const T *sh, *t, *r0;
  Stopping c;
  int k1;
  T w;
  static constexpr int kValues = 2;
  __device__ void begin(const State& st) { w = T(st.s.omega); }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return c.infinity ? 1u : 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    x[i] = x[i] + w * sh[i];  // before r: without M, sh is r (= s)
    const T ri = r[i] - w * t[i];
    r[i] = ri;
    acc[0] = combine(acc[0], norm_term(double(ri), c.infinity), c.infinity);
    acc[1] += double(r0[i]) * double(ri);
  }
  __device__ void finish(const double* d, State& st) const {
    record(st, k1, norm_from(d[0], c.infinity), c);
    if (!running(st)) return;
    const double rho_new = d[1];
    if (!isfinite(rho_new)) return stop(st, kNonFinite, kRho, rho_new, k1);
    if (rho_new == 0) return stop(st, kBreakdown, kRho, rho_new, k1);
    st.s.beta = (rho_new / st.s.rho) * (st.s.alpha / st.s.omega);
    st.s.rho = rho_new;
  }
};

template <class T>
struct Direction {
  T* p;
  const T *r, *v;
  T beta, w;
  __device__ void begin(const State& st) {
    beta = T(st.s.beta);
    w = T(st.s.omega);
  }
  __device__ void element(std::int64_t i) const { p[i] = r[i] + beta * (p[i] - w * v[i]); }
};

template <class T>
class BiCgStab final : public Method<T> {
 public:
  explicit BiCgStab(Context<T>& c) : c_(c) {
    const std::size_t n = std::size_t(c.n), m = c.M ? n : 0;
    for (auto* v : {&r_, &r0_, &p_, &v_, &t_}) *v = cuda::DeviceBuffer<T>(n);
    ph_ = cuda::DeviceBuffer<T>(m);
    sh_ = cuda::DeviceBuffer<T>(m);
  }

  void start(const T* b, T* x) override {
    x_ = x;
    c_.spmv(x, v_.data());
    // r = b - A x, r0 = p = r, rho = r0^T r = r^T r.
    c_.launch.reduce(InitialResidual<T>{b, x, v_.data(), r_.data(), r0_.data(), p_.data(), nullptr,
                                        nullptr, c_.stopping});
  }

  void iterate(int k) override {
    const int k1 = k + 1;
    cuda::DeviceBuffer<T>& ph = c_.M ? ph_ : p_;  // p^ = M^{-1} p
    cuda::DeviceBuffer<T>& sh = c_.M ? sh_ : r_;  // s^ = M^{-1} s (s lives in r)
    if (c_.M) c_.precondition(p_.data(), ph_.data());
    c_.spmv(ph, v_);
    c_.launch.reduce(Alpha<T>{r0_.data(), v_.data(), k1});
    c_.launch.reduce(Half<T>{{c_.stopping, k1, T(0)}, r_.data(), x_, v_.data(), ph.data()});
    if (c_.M) c_.precondition(r_.data(), sh_.data());
    c_.spmv(sh, t_);
    c_.launch.reduce(Omega<T>{t_.data(), r_.data(), k1});
    c_.launch.reduce(Full<T>{x_, r_.data(), sh.data(), t_.data(), r0_.data(), c_.stopping, k1, T(0)});
    c_.launch.map(Direction<T>{p_.data(), r_.data(), v_.data(), T(0), T(0)});
  }

 private:
  Context<T>& c_;
  T* x_ = nullptr;
  cuda::DeviceBuffer<T> r_, r0_, p_, v_, t_, ph_, sh_;
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_bicgstab(Context<T>& c) {
  return std::make_unique<BiCgStab<T>>(c);
}

#define BALSA_INSTANTIATE(T) template std::unique_ptr<Method<T>> make_bicgstab(Context<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::gpu
