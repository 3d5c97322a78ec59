// Preconditioned conjugate gradients on the GPU, step for step the CPU
// reference krylov/cg_cpu.cpp (Saad Alg. 9.1; Picciau's thesis Alg. 5.1).
//
// Kernels of iteration k (each a no-op once the solve has stopped):
//   SpMV            q = A p
//   CgAlpha         p^T q; finish: alpha = rho / p^T q (breakdown if <= 0)
//   CgUpdate        x += alpha p, r -= alpha q, ||r||, r^T r; finish: history,
//                   stopping test; without M also beta = r^T r / rho
//   [M^{-1}         z = M^{-1} r
//    CgRho          r^T z; finish: beta = r^T z / rho (breakdown if <= 0)]
//   CgDirection     p = z + beta p
// 3 kernels and one SpMV without a preconditioner; 4, one SpMV and M^{-1} with one.
#include "krylov/gpu_method.cuh"
#include "core/instantiate.hpp"

namespace balsa::krylov::gpu {

namespace {

// rho_new = r^T z found in iteration k1 (0: the initial one): the checks of
// cg_cpu.cpp, then beta = rho_new / rho (not for the initial rho).
__device__ inline void take_rho(State& st, double rho_new, int k1) {
  if (!isfinite(rho_new)) return stop(st, kNonFinite, kRz, rho_new, k1);
  if (rho_new <= 0) return stop(st, kBreakdown, kRz, rho_new, k1);
  if (k1 > 0) st.s.beta = rho_new / st.s.rho;
  st.s.rho = rho_new;
}

template <class T>
struct CgAlpha {
  const T *p, *q;
  int k1;
  static constexpr int kValues = 1;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const { acc[0] += double(p[i]) * double(q[i]); }
  __device__ void finish(const double* t, State& st) const {
    ++st.status.matvecs;
    const double pq = t[0];
    if (!isfinite(pq)) return stop(st, kNonFinite, kPAp, pq, k1);
    if (pq <= 0) return stop(st, kBreakdown, kPAp, pq, k1);
    st.s.alpha = st.s.rho / pq;
  }
};

template <class T>
struct CgUpdate {
  T *x, *r;
  const T *p, *q;
  Stopping c;
  int k1;
  bool rho_from_r;  // no preconditioner: z = r, rho_new = r^T r
  T a;
  static constexpr int kValues = 2;
  __device__ void begin(const State& st) { a = T(st.s.alpha); }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return c.infinity ? 1u : 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    x[i] = x[i] + a * p[i];
    const T ri = r[i] - a * q[i];
    r[i] = ri;
    acc[0] = combine(acc[0], norm_term(double(ri), c.infinity), c.infinity);
    acc[1] += double(ri) * double(ri);
  }
  __device__ void finish(const double* t, State& st) const {
    record(st, k1, norm_from(t[0], c.infinity), c);
    if (rho_from_r && running(st)) take_rho(st, t[1], k1);
  }
};

template <class T>
struct CgRho {
  const T *r, *z;
  int k1;
  static constexpr int kValues = 1;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const { acc[0] += double(r[i]) * double(z[i]); }
  __device__ void finish(const double* t, State& st) const { take_rho(st, t[0], k1); }
};

template <class T>
struct CgDirection {
  T* p;
  const T* z;
  T beta;
  __device__ void begin(const State& st) { beta = T(st.s.beta); }
  __device__ void element(std::int64_t i) const { p[i] = z[i] + beta * p[i]; }
};

template <class T>
class Cg final : public Method<T> {
 public:
  explicit Cg(Context<T>& c)
      : c_(c), r_(std::size_t(c.n)), p_(std::size_t(c.n)), q_(std::size_t(c.n)), z_(c.M ? std::size_t(c.n) : 0) {}

  void start(const T* b, T* x) override {
    x_ = x;
    c_.spmv(x, q_.data());
    // Without M, p = z = r straight away; rho = r^T r from the same pass.
    c_.launch.reduce(InitialResidual<T>{b, x, q_.data(), r_.data(), c_.M ? nullptr : p_.data(),
                                        nullptr, nullptr, nullptr, c_.stopping});
    if (c_.M) {
      c_.precondition(r_.data(), z_.data());
      c_.launch.reduce(CgRho<T>{r_.data(), z_.data(), 0});
      c_.launch.map(Copy<T>{z_.data(), p_.data()});
    }
  }

  void iterate(int k) override {
    const int k1 = k + 1;
    c_.spmv(p_, q_);
    c_.launch.reduce(CgAlpha<T>{p_.data(), q_.data(), k1});
    c_.launch.reduce(CgUpdate<T>{x_, r_.data(), p_.data(), q_.data(), c_.stopping, k1, c_.M == nullptr, T(0)});
    const T* z = r_.data();
    if (c_.M) {
      c_.precondition(r_.data(), z_.data());
      c_.launch.reduce(CgRho<T>{r_.data(), z_.data(), k1});
      z = z_.data();
    }
    c_.launch.map(CgDirection<T>{p_.data(), z, T(0)});
  }

 private:
  Context<T>& c_;
  T* x_ = nullptr;
  cuda::DeviceBuffer<T> r_, p_, q_, z_;
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_cg(Context<T>& c) {
  return std::make_unique<Cg<T>>(c);
}

#define BALSA_INSTANTIATE(T) template std::unique_ptr<Method<T>> make_cg(Context<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::gpu
