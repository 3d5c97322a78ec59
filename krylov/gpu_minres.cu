// MINRES on the GPU, step for step the CPU reference krylov/minres_cpu.cpp
// (Paige & Saunders 1975, preconditioned Lanczos form; the residual of
// A x = b updated with A w, tested in the 2-norm).
//
// Kernels of iteration k (each a no-op once the solve has stopped):
//   ScaleV        v = z / beta_k
//   SpMV          q = A v
//   Alfa          y = q - (beta_k / beta_{k-1}) r1, alpha = v^T y
//   without M:    LanczosBeta  y -= (alpha / beta_k) r2 and y^T y
//   with M:       LanczosStep  y -= (alpha / beta_k) r2;  M^{-1}: z = M^{-1} y;
//                 LanczosBeta  y^T z
//                 finish: beta_{k+1} (breakdown if < 0), the rotations (minres_rotate)
//   Update        w, A w, x += phi w, r -= phi A w, ||r||^2; finish: history,
//                 stopping test, the end of the Lanczos vectors (beta = 0)
// (y then becomes r2 and r2 r1: the host rotates the three buffers, and the
// three w and A w buffers, as the CPU reference does.)
#include <tuple>

#include "krylov/gpu_method.cuh"
#include "core/instantiate.hpp"

namespace balsa::krylov::gpu {

namespace {

template <class T>
struct ScaleV {
  T* v;
  const T* z;
  double inv;
  __device__ void begin(const State& st) { inv = 1.0 / st.s.minres.beta; }
  __device__ void element(std::int64_t i) const { v[i] = T(double(z[i]) * inv); }
};

// y = q - c1 r1 (c1 = beta_k / beta_{k-1}, 0 in the first iteration), v^T y;
// finish: alpha (kept in s.alpha until the rotation takes it).
template <class T>
struct Alfa {
  T* y;
  const T *q, *r1, *v;
  double c1;
  static constexpr int kValues = 1;
  __device__ void begin(const State& st) {
    const MinresScalars& m = st.s.minres;
    c1 = m.oldb != 0 ? m.beta / m.oldb : 0.0;
  }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    const T yi = T(double(q[i]) - c1 * double(r1[i]));
    y[i] = yi;
    acc[0] += double(v[i]) * double(yi);
  }
  __device__ void finish(const double* t, State& st) const {
    ++st.status.matvecs;
    st.s.alpha = t[0];
  }
};

// y -= (alpha / beta_k) r2.
template <class T>
struct LanczosStep {
  T* y;
  const T* r2;
  double c2;
  __device__ void begin(const State& st) { c2 = st.s.alpha / st.s.minres.beta; }
  __device__ void element(std::int64_t i) const { y[i] = T(double(y[i]) - c2 * double(r2[i])); }
};

// y^T z (z null: y^T y), after y -= (alpha / beta_k) r2 when r2 is set.
// finish: first: beta_1 and MINRES' start (minres_begin); else beta_{k+1}
// and the rotations. The checks of minres_cpu.cpp, in its order.
template <class T>
struct LanczosBeta {
  T* y;
  const T *r2, *z;
  int k1;
  double c2;
  static constexpr int kValues = 1;
  __device__ void begin(const State& st) { c2 = r2 ? st.s.alpha / st.s.minres.beta : 0.0; }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    if (r2) y[i] = T(double(y[i]) - c2 * double(r2[i]));
    acc[0] += double(y[i]) * double(z ? z[i] : y[i]);
  }
  __device__ void finish(const double* t, State& st) const {
    const double bb = t[0];
    if (!isfinite(bb)) return stop(st, kNonFinite, kRz, bb, k1);
    if (bb < 0) return stop(st, kBreakdown, kRz, bb, k1);
    MinresScalars& m = st.s.minres;
    if (k1 == 0) {
      if (bb == 0) return stop(st, kBreakdown, kRz, 0.0, 0);
      return minres_begin(m, sqrt(bb));
    }
    const double alfa = st.s.alpha;
    if (!isfinite(alfa)) return stop(st, kNonFinite, kResidual, alfa, k1);
    if (!minres_rotate(m, alfa, sqrt(bb))) return stop(st, kBreakdown, kProjected, 0.0, k1);
  }
};

// w = (v - oldeps w1 - delta w2) / gamma, A w likewise from q, x += phi w,
// r -= phi A w, ||r||^2; finish: record, then beta = 0 ends the Lanczos vectors.
template <class T>
struct Update {
  T *w, *aw, *x, *r;
  const T *w1, *w2, *a1, *a2, *v, *q;
  Stopping c;
  int k1;
  double e, d, g;
  T phi;
  static constexpr int kValues = 1;
  __device__ void begin(const State& st) {
    const MinresScalars& m = st.s.minres;
    e = m.oldeps;
    d = m.delta;
    g = m.gamma;
    phi = T(m.phi);
  }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    const T wi = T((double(v[i]) - e * double(w1[i]) - d * double(w2[i])) / g);
    const T ai = T((double(q[i]) - e * double(a1[i]) - d * double(a2[i])) / g);
    w[i] = wi;
    aw[i] = ai;
    x[i] = x[i] + phi * wi;
    const T ri = r[i] - phi * ai;
    r[i] = ri;
    acc[0] += double(ri) * double(ri);
  }
  __device__ void finish(const double* t, State& st) const {
    record(st, k1, sqrt(t[0]), c);
    if (running(st) && st.s.minres.beta == 0) stop(st, kBreakdown, kLanczos, 0.0, k1);
  }
};

// a = b = c = 0 (device memory starts undefined, and 0 times NaN is NaN).
template <class T>
struct Zero {
  T *a, *b, *c;
  __device__ void begin(const State&) {}
  __device__ void element(std::int64_t i) const { a[i] = b[i] = c[i] = T(0); }
};

template <class T>
class Minres final : public Method<T> {
 public:
  explicit Minres(Context<T>& c) : c_(c) {
    const std::size_t n = std::size_t(c.n);
    for (auto* b : {&r_, &v_, &q_}) *b = cuda::DeviceBuffer<T>(n);
    for (auto& b : lanczos_) b = cuda::DeviceBuffer<T>(n);
    for (auto& b : w_) b = cuda::DeviceBuffer<T>(n);
    for (auto& b : aw_) b = cuda::DeviceBuffer<T>(n);
    z_ = cuda::DeviceBuffer<T>(c.M ? n : 0);
  }

  void start(const T* b, T* x) override {
    x_ = x;
    r1_ = 0, r2_ = 1, y_ = 2, w0_ = 0;
    c_.spmv(x, q_.data());
    // r = b - A x, r2 = r; r1 (read times 0 in the first iteration) and the
    // older directions w and A w start at 0, as on the CPU.
    c_.launch.reduce(InitialResidual<T>{b, x, q_.data(), r_.data(), r2(), nullptr, w(1), w(2), c_.stopping});
    c_.launch.map(Zero<T>{aw(1), aw(2), r1()});
    if (c_.M) c_.precondition(r2(), z_.data());
    c_.launch.reduce(LanczosBeta<T>{r2(), nullptr, c_.M ? z_.data() : nullptr, 0, 0.0});
  }

  void iterate(int k) override {
    const int k1 = k + 1;
    c_.launch.map(ScaleV<T>{v_.data(), c_.M ? z_.data() : r2(), 0.0});
    c_.spmv(v_, q_);
    c_.launch.reduce(Alfa<T>{y(), q_.data(), r1(), v_.data(), 0.0});
    if (c_.M) {
      c_.launch.map(LanczosStep<T>{y(), r2(), 0.0});
      c_.precondition(y(), z_.data());
      c_.launch.reduce(LanczosBeta<T>{y(), nullptr, z_.data(), k1, 0.0});
    } else {
      c_.launch.reduce(LanczosBeta<T>{y(), r2(), nullptr, k1, 0.0});
    }
    // (r1, r2, y) = (r2, y, r1).
    std::tie(r1_, r2_, y_) = std::tuple(r2_, y_, r1_);
    c_.launch.reduce(Update<T>{w(0), aw(0), x_, r_.data(), w(1), w(2), aw(1), aw(2), v_.data(), q_.data(),
                               c_.stopping, k1, 0.0, 0.0, 0.0, T(0)});
    w0_ = (w0_ + 1) % 3;  // the new w becomes the newest
  }

 private:
  T* r1() { return lanczos_[r1_].data(); }
  T* r2() { return lanczos_[r2_].data(); }
  T* y() { return lanczos_[y_].data(); }
  // w(0): the oldest (overwritten by the new one), w(1), w(2): w_{k-1}, w_k.
  T* w(int i) { return w_[(w0_ + i) % 3].data(); }
  T* aw(int i) { return aw_[(w0_ + i) % 3].data(); }

  Context<T>& c_;
  T* x_ = nullptr;
  int r1_ = 0, r2_ = 1, y_ = 2, w0_ = 0;
  cuda::DeviceBuffer<T> r_, v_, q_, z_;
  cuda::DeviceBuffer<T> lanczos_[3], w_[3], aw_[3];
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_minres(Context<T>& c) {
  return std::make_unique<Minres<T>>(c);
}

#define BALSA_INSTANTIATE(T) template std::unique_ptr<Method<T>> make_minres(Context<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::gpu
