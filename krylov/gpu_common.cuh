// Internal: the building blocks of the GPU Krylov solvers (krylov/gpu_*.cu).
//
// State. One State per solver lives in device memory: the Status the host
// reads (stop code, iteration counter, products with A, the residual history
// in a ring) and the method's scalars (rho, alpha, ...). Every kernel of a
// solve first reads status.stop and returns at once when it is not
// kRunning, so the kernels of iterations the host enqueued after the solve
// stopped leave every vector alone.
//
// Kernels. A method is a sequence of two kernel kinds over the n entries:
//  * map_kernel<Op>: o.element(i) for every i (vector updates);
//  * reduce_kernel<Op>: o.element(i, acc) for every i, accumulating up to
//    kMaxValues doubles (sums, or NaN-keeping maxima for ||.||_inf), then
//    per block (cub::BlockReduce) into partials; the last block to finish
//    (a ticket counter, "last block done") combines the partials in block
//    order, so the result does not depend on which block ran when, and one
//    thread calls o.finish(total, state): the scalar work of the method
//    (alpha = rho / p^T q, the stopping test, breakdown checks) on the device,
//    with no host round trip.
// Ops are small structs of device pointers, copied to the kernel; begin()
// loads the scalars they need from the State once per thread.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"
#include "krylov/common.hpp"
#include "krylov/termination.hpp"

namespace balsa::krylov::gpu {

inline constexpr int kBlock = 256;
// Residual-history ring: entry k at history[k % kRing]. Must exceed the
// iterations between two status reads (krylov/gpu_solver.cu's lookahead).
inline constexpr int kRing = 64;

struct Status {
  int stop;        // Stop
  int quantity;    // Quantity (Breakdown, NonFinite)
  int at;          // iteration (1-based) where it stopped
  int iterations;  // iterations done
  int matvecs;     // products with A
  int bad_b, bad_x;  // NaN/Inf entries found by the input check
  double value;     // the offending quantity
  double residual;  // last relative residual
  double normb;     // ||b|| in the stopping norm
  double tolerance;  // the relative tolerance applied (effective_tolerance, from normb)
  double true_residual;
  Progress progress;  // the early stops' state (StoppingOptions::divergence, stagnation_window)
  double history[kRing];
};

struct Scalars {
  double rho, alpha, beta, omega;
  double tau[kMaxL + 1][kMaxL + 1];  // BiCGStab(l): Gram-Schmidt coefficients
  double gp[kMaxL + 1], gamma[kMaxL + 1], gpp[kMaxL + 1];
  MinresScalars minres;  // MINRES (krylov/common.hpp)
  int steps;             // GMRES: the current cycle's accepted columns
  double hnext;          // GMRES: h_{j+1,j}, the norm v_{j+1} is divided by
};

struct State {
  Status status;  // first: the host copies this part
  Scalars s;
  unsigned int ticket;  // blocks of the running reduce kernel that are done
};

// The stopping-test constants every finish needs (KrylovOptions::stopping,
// include/balsa/stopping.hpp, in device memory).
struct Stopping {
  double tolerance;
  double absolute_tolerance;  // SciPy's atol (status.tolerance combines the two)
  bool infinity;
  double divergence;  // StoppingOptions::divergence (0: off)
  int window;         // StoppingOptions::stagnation_window (0: off)
};

__device__ inline bool running(const State& st) { return st.status.stop == kRunning; }

// A stop from a finish (one thread): the first stop wins.
__device__ inline void stop(State& st, int code, int quantity, double value, int at) {
  if (st.status.stop != kRunning) return;
  st.status.stop = code;
  st.status.quantity = quantity;
  st.status.value = value;
  st.status.at = at;
}

// Iteration `k1` (1-based) ended with ||r|| = norm: history, residual,
// iteration counter, stopping test (as cpu::Run::record).
__device__ inline void record(State& st, int k1, double norm, const Stopping& c) {
  const double res = norm / st.status.normb;
  st.status.history[k1 % kRing] = res;
  st.status.residual = res;
  st.status.iterations = k1;
  if (!isfinite(res))
    stop(st, kNonFinite, kResidual, res, k1);
  else if (res <= st.status.tolerance)
    stop(st, kConverged, kNoQuantity, 0.0, k1);
  else if (const int early = progress_stop(st.status.progress, k1, res, c.divergence, c.window))
    stop(st, early, kNoQuantity, res, k1);
}

template <class Op, bool kMasked = true>
__global__ void __launch_bounds__(kBlock) map_kernel(std::int64_t n, const State* state, Op op) {
  if (kMasked && !running(*state)) return;
  Op o = op;
  o.begin(*state);
  for (std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kBlock)
    o.element(i);
}

struct NanMax {
  __device__ double operator()(double a, double b) const { return nan_max(a, b); }
};

// Block-reduces v (sum, or NaN-keeping max) into thread 0's return value.
__device__ inline double block_reduce(double v, bool is_max) {
  using BlockReduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  const double r = is_max ? BlockReduce(temp).Reduce(v, NanMax{}) : BlockReduce(temp).Sum(v);
  __syncthreads();  // temp is reused by the next call
  return r;
}

// partials: kMaxValues * gridDim.x doubles. Op::kValues (<= kMaxValues) is
// the most values the op reduces, op.values() (<= kValues, the same in every
// thread) how many it does; bit v of op.max_mask() makes value v a max.
// The loops over values are unrolled with guards, so acc stays in registers.
// kMasked: a no-op once the solve has stopped (every kernel of the
// iteration; not the true-residual check that runs after it).
template <class Op, bool kMasked = true>
__global__ void __launch_bounds__(kBlock) reduce_kernel(std::int64_t n, State* state, double* partials, Op op) {
  constexpr int K = Op::kValues;
  static_assert(K >= 1 && K <= kMaxValues, "an op reduces 1..kMaxValues values");
  if (kMasked && !running(*state)) return;
  Op o = op;
  o.begin(*state);
  const int values = o.values();
  const unsigned max_mask = o.max_mask();
  double acc[K];
#pragma unroll
  for (int v = 0; v < K; ++v) acc[v] = 0.0;  // 0 is the identity of the sums and of max |.|
  for (std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kBlock)
    o.element(i, acc);
  const unsigned grid = gridDim.x;
#pragma unroll
  for (int v = 0; v < K; ++v)
    if (v < values) {
      const double b = block_reduce(acc[v], (max_mask >> v) & 1u);
      if (threadIdx.x == 0) partials[std::size_t(v) * grid + blockIdx.x] = b;
    }
  // Last block done: the partials are published before the ticket is taken.
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&state->ticket, 1u) == grid - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  double total[K];
#pragma unroll
  for (int v = 0; v < K; ++v) {
    total[v] = 0.0;
    if (v < values) {
      const bool is_max = (max_mask >> v) & 1u;
      double a = 0.0;
      for (unsigned blk = threadIdx.x; blk < grid; blk += kBlock)
        a = combine(a, __ldcg(&partials[std::size_t(v) * grid + blk]), is_max);
      total[v] = block_reduce(a, is_max);
    }
  }
  if (threadIdx.x == 0) {
    state->ticket = 0;
    o.finish(total, *state);
  }
}

// Launches over the n entries of one solver's vectors (the current stream:
// the Krylov solver's).
struct Launcher {
  std::int64_t n = 0;
  int grid = 1;
  State* state = nullptr;
  double* partials = nullptr;  // kMaxValues * grid

  template <class Op>
  void map(const Op& op) const {
    map_kernel<Op><<<grid, kBlock, 0, cuda::stream()>>>(n, state, op);
    BALSA_CHECK_LAUNCH();
  }
  template <class Op>
  void map_unmasked(const Op& op) const {
    map_kernel<Op, false><<<grid, kBlock, 0, cuda::stream()>>>(n, state, op);
    BALSA_CHECK_LAUNCH();
  }
  template <class Op>
  void reduce(const Op& op) const {
    reduce_kernel<Op><<<grid, kBlock, 0, cuda::stream()>>>(n, state, partials, op);
    BALSA_CHECK_LAUNCH();
  }
  template <class Op>
  void reduce_unmasked(const Op& op) const {
    reduce_kernel<Op, false><<<grid, kBlock, 0, cuda::stream()>>>(n, state, partials, op);
    BALSA_CHECK_LAUNCH();
  }
};

// ---- ops every method uses ---------------------------------------------------

// Input check and r = b - q (q = A x): ||b||, NaN/Inf in b and x, ||r||,
// r^T r; copies of r into up to two vectors (shadow residual, first
// direction), zeroes of up to one (BiCGStab(l)'s u_0 and y start at 0).
// finish: status.normb, history[0], the stop for b == 0, bad input, or an
// initial residual that already meets the tolerance; s.rho = r^T r.
template <class T>
struct InitialResidual {
  const T *b, *x, *q;
  T *r, *copy1, *copy2, *zero1, *zero2;
  Stopping c;
  static constexpr int kValues = 5;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return c.infinity ? 0b00101u : 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    const T ri = b[i] - q[i];
    r[i] = ri;
    if (copy1) copy1[i] = ri;
    if (copy2) copy2[i] = ri;
    if (zero1) zero1[i] = T(0);
    if (zero2) zero2[i] = T(0);
    acc[0] = combine(acc[0], norm_term(double(ri), c.infinity), c.infinity);
    acc[1] += double(ri) * double(ri);
    acc[2] = combine(acc[2], norm_term(double(b[i]), c.infinity), c.infinity);
    acc[3] += isfinite(b[i]) ? 0.0 : 1.0;
    acc[4] += isfinite(x[i]) ? 0.0 : 1.0;
  }
  __device__ void finish(const double* t, State& st) const {
    Status& s = st.status;
    s.bad_b = int(t[3] > 0);
    s.bad_x = int(t[4] > 0);
    s.normb = norm_from(t[2], c.infinity);
    s.tolerance = effective_tolerance(c.tolerance, c.absolute_tolerance, s.normb);
    s.matvecs = 1;
    if (s.bad_b || s.bad_x) return stop(st, kNonFinite, kInput, 0.0, 0);
    if (s.normb == 0) {  // x = 0 is the solution (the host zeroes x)
      s.history[0] = 0.0;
      s.residual = 0.0;
      return stop(st, kConverged, kNoQuantity, 0.0, 0);
    }
    st.s.rho = t[1];
    record(st, 0, norm_from(t[0], c.infinity), c);
  }
};

// dst = src (no reduction).
template <class T>
struct Copy {
  const T* src;
  T* dst;
  __device__ void begin(const State&) {}
  __device__ void element(std::int64_t i) const { dst[i] = src[i]; }
};

// x = x + d.
template <class T>
struct AddTo {
  const T* d;
  T* x;
  __device__ void begin(const State&) {}
  __device__ void element(std::int64_t i) const { x[i] = x[i] + d[i]; }
};

// status.true_residual = ||b - q||_2 / ||b||_2 (q = A x, computed in T; the
// difference and the sums in double). Launched unmasked, after the solve.
template <class T>
struct TrueResidual {
  const T *b, *q;
  static constexpr int kValues = 2;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const {
    const double d = double(b[i]) - double(q[i]);
    acc[0] += d * d;
    acc[1] += double(b[i]) * double(b[i]);
  }
  __device__ void finish(const double* t, State& st) const {
    st.status.true_residual = t[1] > 0 ? sqrt(t[0]) / sqrt(t[1]) : 0.0;
  }
};

}  // namespace balsa::krylov::gpu
