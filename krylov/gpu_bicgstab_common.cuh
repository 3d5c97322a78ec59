// Internal: what the two GPU BiCGStab methods share, BiCGStab
// (krylov/gpu_bicgstab.cu; van der Vorst 1992, Saad Alg. 7.7) and
// BiCGStab(l) (krylov/gpu_bicgstab_l.cu; Sleijpen & Fokkema 1993): the BiCG
// step size alpha = rho / r0^T v, and the update r -= alpha v with its
// stopping test within an iteration (as krylov/bicgstab_cpu.cpp and
// krylov/bicgstab_l_cpu.cpp).
#pragma once

#include "krylov/gpu_common.cuh"

namespace balsa::krylov::gpu {

// r0^T v after the product v = B w (one more matvec); finish: alpha =
// rho / r0^T v. kQuantity names r0^T v in a stop (BiCGStab: kRv, v = A p^;
// BiCGStab(l): kGamma, v = u_{j+1}).
template <class T, Quantity kQuantity>
struct ShadowAlpha {
  const T *r0, *v;
  int k1;
  static constexpr int kValues = 1;
  __device__ void begin(const State&) {}
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return 0u; }
  __device__ void element(std::int64_t i, double* acc) const { acc[0] += double(r0[i]) * double(v[i]); }
  __device__ void finish(const double* t, State& st) const {
    ++st.status.matvecs;
    const double rv = t[0];
    if (!isfinite(rv)) return stop(st, kNonFinite, kQuantity, rv, k1);
    if (rv == 0) return stop(st, kBreakdown, kQuantity, rv, k1);
    st.s.alpha = st.s.rho / rv;
  }
};

// The base of the ops of the update r -= alpha v (BiCGStab's Half,
// BiCGStab(l)'s UpdateR): alpha as T, and the one value, ||r||, that the
// op's element reduces. finish: stop when ||r|| is not finite; when it meets
// the tolerance the iteration ends there (BiCGStab: at the half step;
// BiCGStab(l): mid-cycle).
template <class T>
struct AlphaUpdate {
  Stopping c;
  int k1;
  T a;
  static constexpr int kValues = 1;
  __device__ void begin(const State& st) { a = T(st.s.alpha); }
  __device__ int values() const { return kValues; }
  __device__ unsigned max_mask() const { return c.infinity ? 1u : 0u; }
  __device__ void finish(const double* t, State& st) const {
    const double norm = norm_from(t[0], c.infinity);
    const double res = norm / st.status.normb;
    if (!isfinite(res)) return stop(st, kNonFinite, kResidual, res, k1);
    if (res <= st.status.tolerance) record(st, k1, norm, c);
  }
};

}  // namespace balsa::krylov::gpu
