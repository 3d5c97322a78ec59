// Restarted, right-preconditioned GMRES(m) on the GPU, step for step the CPU
// reference krylov/gmres_cpu.cpp (Saad, "Iterative Methods for Sparse Linear
// Systems", 2nd ed., Alg. 6.9 and 9.5; CGS2 orthogonalisation).
//
// Kernels of Arnoldi step j (iteration k; each a no-op once the solve has stopped):
//   [M^{-1}]      z = M^{-1} v_j;   SpMV w = A z, into q (the SpMV is not
//                 masked: the iterations enqueued after a stop must not write
//                 the basis that finish() forms x from)
//   multi-dot     per (block of rows, basis vector l <= j): partial sums of v_l^T w
//   sum partials  one block per l: coef_l = v_l^T w in block order; column h = coef
//   Subtract      v_{j+1} = w - V coef (the first Gram-Schmidt pass)
//   multi-dot, sum partials: the second pass' coef; h += coef
//   SubtractGivens  w -= V coef and ||w||^2; finish: h_{j+1,j} = ||w||, the
//                 rotations (gmres_rotate), history, stopping test
//   Normalise     v_{j+1} = w / h_{j+1,j}
// 7 kernels, one SpMV and M^{-1} per step, whatever j is. A restart (step 0
// of every cycle after the first) first forms x (one thread solves R y = g,
// then x += M^{-1} V y), recomputes r = b - A x into v_0 and normalises it;
// finish() forms x from the steps of the last cycle.
#include <algorithm>
#include <utility>

#include "krylov/gpu_method.cuh"
#include "core/instantiate.hpp"

namespace balsa::krylov::gpu {

namespace {

// The projected problem in device memory: R (column j at R + j ld, ld = m + 1),
// the rotations, g, a Gram-Schmidt pass' coefficients, the column being
// built, and y = R^{-1} g.
struct Projected {
  double *R, *cs, *sn, *g, *coef, *hcol, *y;
  int ld;
};

// partials[l * gridDim.x + bx] = v_l^T w over block bx's rows, l = blockIdx.y.
template <class T>
__global__ void __launch_bounds__(kBlock)
    multi_dot_kernel(std::int64_t n, const State* state, const T* V, const T* w, double* partials) {
  if (!running(*state)) return;
  const T* v = V + std::int64_t(blockIdx.y) * n;
  double acc = 0.0;
  for (std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kBlock)
    acc += double(v[i]) * double(w[i]);
  const double total = block_reduce(acc, false);
  if (threadIdx.x == 0) partials[std::size_t(blockIdx.y) * gridDim.x + blockIdx.x] = total;
}

// Block l: coef_l = the sum of its `blocks` partials (a fixed order), and
// the column's entry: hcol_l = coef_l (first pass) or hcol_l + coef_l.
__global__ void __launch_bounds__(kBlock)
    sum_partials_kernel(const State* state, const double* partials, int blocks, Projected p, bool second) {
  if (!running(*state)) return;
  double a = 0.0;
  for (int b = threadIdx.x; b < blocks; b += kBlock) a += partials[std::size_t(blockIdx.x) * blocks + b];
  const double total = block_reduce(a, false);
  if (threadIdx.x != 0) return;
  p.coef[blockIdx.x] = total;
  p.hcol[blockIdx.x] = second ? p.hcol[blockIdx.x] + total : total;
}

// y = R^{-1} g over the cycle's accepted steps (one thread; m is small).
template <bool kMasked>
__global__ void solve_kernel(const State* state, Projected p) {
  if (kMasked && !running(*state)) return;
  gmres_solve(state->s.steps, p.R, p.ld, p.g, p.y);
}

// sum_l c_l v_l[i] over `count` basis vectors, in double.
template <class T>
__device__ inline double combination(const double* c, const T* V, std::int64_t n, int count, std::int64_t i) {
  double s = 0.0;
  for (int l = 0; l < count; ++l) s += c[l] * double(V[std::int64_t(l) * n + i]);
  return s;
}

// w = q - V coef (count vectors).
template <class T>
struct Subtract {
  T* w;
  const T *q, *V;
  const double* coef;
  std::int64_t n;
  int count;
  __device__ void begin(const State&) {}
  __device__ void element(std::int64_t i) const { w[i] = T(double(q[i]) - combination(coef, V, n, count, i)); }
};

// The second pass' w -= V coef with ||w||^2; finish: column j of the
// Hessenberg matrix, its rotations, history and stopping test (as
// arnoldi_step in gmres_cpu.cpp).
template <class T>
struct SubtractGivens {
  T* w;
  const T* V;
  Projected p;
  std::int64_t n;
  int j, k1;
  Stopping c;
  static constexpr int kValues = 1;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    const T wi = T(double(w[i]) - combination(p.coef, V, n, j + 1, i));
    w[i] = wi;
    acc[0] += double(wi) * double(wi);
  }
  __device__ void finish(const double* t, State& st) const {
    ++st.status.matvecs;
    double* h = p.R + std::size_t(j) * p.ld;
    for (int l = 0; l <= j; ++l) h[l] = p.hcol[l];
    const double hnext = sqrt(t[0]);
    h[j + 1] = hnext;
    if (j == 0) p.g[0] = sqrt(st.s.rho);  // beta = ||r|| of the cycle's start
    const double d = gmres_rotate(j, h, p.cs, p.sn, p.g);
    if (!isfinite(d)) return stop(st, kNonFinite, kResidual, d, k1);
    if (d == 0) return stop(st, kBreakdown, kProjected, d, k1);
    st.s.steps = j + 1;
    st.s.hnext = hnext;
    record(st, k1, fabs(p.g[j + 1]), c);
  }
};

// v /= sqrt(rho) (v_0: rho = ||r||^2) or h_{j+1,j} (v_{j+1}).
template <class T>
struct Normalise {
  T* v;
  bool from_rho;
  double d;
  __device__ void begin(const State& st) { d = from_rho ? sqrt(st.s.rho) : st.s.hnext; }
  __device__ void element(std::int64_t i) const { v[i] = T(double(v[i]) / d); }
};

// into = V y (+ x when x is set), over the cycle's steps.
template <class T>
struct Combine {
  T* into;
  const T* x;
  const T* V;
  const double* y;
  std::int64_t n;
  int steps;
  __device__ void begin(const State& st) { steps = st.s.steps; }
  __device__ void element(std::int64_t i) const {
    const T s = T(combination(y, V, n, steps, i));
    into[i] = x ? x[i] + s : s;
  }
};

// A restart's r = b - q into v_0 and ||r||^2; finish: rho, or the stop when
// it is not finite or 0 (x then solves the system exactly).
template <class T>
struct RestartResidual {
  const T *b, *q;
  T* r;
  static constexpr int kValues = 1;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    const T ri = b[i] - q[i];
    r[i] = ri;
    acc[0] += double(ri) * double(ri);
  }
  __device__ void finish(const double* t, State& st) const {
    Status& s = st.status;
    ++s.matvecs;
    st.s.steps = 0;
    const double beta = sqrt(t[0]);
    if (!isfinite(beta)) return stop(st, kNonFinite, kResidual, beta / s.normb, s.iterations);
    if (beta == 0) {
      s.history[s.iterations % kRing] = s.residual = 0.0;
      return stop(st, kConverged, kNoQuantity, 0.0, s.iterations);
    }
    st.s.rho = t[0];
  }
};

template <class T>
class Gmres final : public Method<T> {
 public:
  explicit Gmres(Context<T>& c)
      : c_(c),
        m_(int(std::min<std::int64_t>(c.restart, c.n))),
        V_(std::size_t(c.n) * std::size_t(m_ + 1)),
        q_(std::size_t(c.n)),
        z_(c.M ? std::size_t(c.n) : 0),
        work_(std::size_t(m_ + 1) * std::size_t(m_) + 2 * std::size_t(m_) + 3 * std::size_t(m_ + 1) + std::size_t(m_)),
        partials_(std::size_t(m_ + 1) * std::size_t(c.launch.grid)) {
    double* at = work_.data();
    auto take = [&](std::size_t count) { return std::exchange(at, at + count); };
    const std::size_t m = std::size_t(m_);
    p_ = Projected{take((m + 1) * m), take(m), take(m), take(m + 1), take(m + 1), take(m + 1), take(m), m_ + 1};
  }

  void start(const T* b, T* x) override {
    b_ = b;
    x_ = x;
    c_.spmv(x, q_.data());
    c_.launch.reduce(InitialResidual<T>{b, x, q_.data(), v(0), nullptr, nullptr, nullptr, nullptr, c_.stopping});
    c_.launch.map(Normalise<T>{v(0), true, 0.0});
  }

  void iterate(int k) override {
    const int j = k % m_;
    if (j == 0 && k > 0) restart();
    arnoldi(j, k + 1);
  }

  void finish(T*) override { form_x<false>(); }

 private:
  T* v(int j) { return V_.data() + std::size_t(j) * std::size_t(c_.n); }

  template <bool kMasked, class Op>
  void map(const Op& op) {
    if constexpr (kMasked)
      c_.launch.map(op);
    else
      c_.launch.map_unmasked(op);
  }

  // x += M^{-1} V y, y = R^{-1} g of the current cycle.
  template <bool kMasked>
  void form_x() {
    solve_kernel<kMasked><<<1, 1, 0, cuda::stream()>>>(c_.state.data(), p_);
    BALSA_CHECK_LAUNCH();
    if (!c_.M) return map<kMasked>(Combine<T>{x_, x_, V_.data(), p_.y, c_.n, 0});
    map<kMasked>(Combine<T>{q_.data(), nullptr, V_.data(), p_.y, c_.n, 0});
    c_.precondition(q_.data(), z_.data());
    map<kMasked>(AddTo<T>{z_.data(), x_});
  }

  // x formed, r = b - A x into v_0, v_0 normalised.
  void restart() {
    form_x<true>();
    c_.spmv(x_, q_.data());
    c_.launch.reduce(RestartResidual<T>{b_, q_.data(), v(0)});
    c_.launch.map(Normalise<T>{v(0), true, 0.0});
  }

  // One Gram-Schmidt pass' coefficients against v_0..v_{count-1} (coef, and
  // into the column hcol).
  void dots(int count, const T* w, bool second) {
    const int blocks = std::max(1, std::min(c_.launch.grid, 4096 / count));
    multi_dot_kernel<T><<<dim3(unsigned(blocks), unsigned(count)), kBlock, 0, cuda::stream()>>>(
        c_.n, c_.state.data(), V_.data(), w, partials_.data());
    BALSA_CHECK_LAUNCH();
    sum_partials_kernel<<<unsigned(count), kBlock, 0, cuda::stream()>>>(c_.state.data(), partials_.data(), blocks, p_,
                                                                        second);
    BALSA_CHECK_LAUNCH();
  }

  void arnoldi(int j, int k1) {
    const T* p = v(j);
    if (c_.M) {
      c_.precondition(v(j), z_.data());
      p = z_.data();
    }
    T* w = v(j + 1);
    c_.spmv(p, q_.data());
    dots(j + 1, q_.data(), false);
    c_.launch.map(Subtract<T>{w, q_.data(), V_.data(), p_.coef, c_.n, j + 1});
    dots(j + 1, w, true);
    c_.launch.reduce(SubtractGivens<T>{w, V_.data(), p_, c_.n, j, k1, c_.stopping});
    c_.launch.map(Normalise<T>{w, false, 0.0});
  }

  Context<T>& c_;
  int m_;
  const T* b_ = nullptr;
  T* x_ = nullptr;
  cuda::DeviceBuffer<T> V_, q_, z_;
  cuda::DeviceBuffer<double> work_, partials_;
  Projected p_{};
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_gmres(Context<T>& c) {
  return std::make_unique<Gmres<T>>(c);
}

#define BALSA_INSTANTIATE(T) template std::unique_ptr<Method<T>> make_gmres(Context<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov::gpu
