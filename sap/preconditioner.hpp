// Internal: the SaP preconditioners (SaP-D and SaP-C) as the Krylov
// solvers see them (krylov::Preconditioner), with what BandedSolver reads
// back: the report's set-up phase times and the boosted pivots. CPU
// (sap/steps_cpu.cpp and sap/preconditioner_cpu.cpp, the reference) and GPU (sap/gpu_*.cu) implementations.
#pragma once

#include <algorithm>
#include <memory>

#include "balsa/sap.hpp"
#include "krylov/preconditioner.hpp"
#include "sap/partition.hpp"

namespace balsa::sap {

// Pivot boosting (report sec. 3.1): a pivot with |u| < threshold * amax is
// replaced by sign(u) * epsilon * amax (sign + for 0) when enabled; else it
// is a MatrixError naming the row.
struct BoostRule {
  bool enabled = true;
  double threshold = 1e-10;
  double epsilon = 1e-8;
  double amax = 1;  // max |a_ij| of A
  double small() const { return threshold * amax; }
  double boosted() const { return epsilon * amax; }
};

// The set-up's phase times (seconds; the report's sec. 3.4 names) and counts.
struct SetupReport {
  double t_lu = 0, t_bc = 0, t_spk = 0, t_lu_rdcd = 0;
  int boosted_pivots = 0;
  index_t min_bandwidth = 0, max_bandwidth = 0;  // of the blocks factored (Blocks::bandwidths)
};

// Everything the factorisation needs besides A's values.
struct Plan {
  SapVariant variant = SapVariant::Coupled;
  index_t n = 0, k = 0;
  Blocks blocks;
  BoostRule boost;
};

// BandedStats from the plan (variant, n, k, P, block sizes) and from a
// set-up's report (phase times, boosted pivots, k_i range): BandedSolver and
// SparseSapSolver fill them the same way.
inline void record_plan(const Plan& plan, BandedStats& st) {
  st.variant = plan.variant;
  st.n = plan.n;
  st.k = plan.k;
  st.partitions = plan.blocks.count();
  st.min_block = st.max_block = plan.n > 0 ? plan.blocks.size(0) : 0;
  for (index_t i = 0; i < plan.blocks.count(); ++i) {
    st.min_block = std::min(st.min_block, plan.blocks.size(i));
    st.max_block = std::max(st.max_block, plan.blocks.size(i));
  }
}
inline void record_report(const SetupReport& r, BandedStats& st) {
  st.t_lu = r.t_lu;
  st.t_bc = r.t_bc;
  st.t_spk = r.t_spk;
  st.t_lu_rdcd = r.t_lu_rdcd;
  st.boosted_pivots = r.boosted_pivots;
  st.min_block_bandwidth = r.min_bandwidth;
  st.max_block_bandwidth = r.max_bandwidth;
}

template <class T>
class SapPreconditioner : public krylov::Preconditioner<T> {
 public:
  explicit SapPreconditioner(const Plan& plan) : plan_(plan) {}
  const SetupReport& report() const { return report_; }
  void describe(KrylovStats&) const override {}
  // max |a_ij| of the values the next update_values brings (the boost scale).
  void set_amax(double amax) { plan_.boost.amax = amax; }

 protected:
  Plan plan_;
  SetupReport report_;
};

// CPU: factored in precision P (T, or float for a double T), from A on the host.
template <class T, class P>
std::unique_ptr<SapPreconditioner<T>> make_host_preconditioner(const Banded<T>& A, const Plan& plan);

// GPU: factored on the current device from A's band already there (n (2k+1)
// values of the Banded layout from A; not kept). Throws CudaError without CUDA.
template <class T, class P>
std::unique_ptr<SapPreconditioner<T>> make_device_preconditioner(const T* A, const Plan& plan);
// Its explicit instantiations (T, P): (float, float), (double, double) and
// (double, float), one list for gpu_preconditioner.cu and its stand-in.
#define BALSA_SAP_DEVICE_PRECONDITIONERS                                                                          \
  template std::unique_ptr<SapPreconditioner<float>> make_device_preconditioner<float, float>(                   \
      const float*, const Plan&);                                                            \
  template std::unique_ptr<SapPreconditioner<double>> make_device_preconditioner<double, double>(                \
      const double*, const Plan&);                                                           \
  template std::unique_ptr<SapPreconditioner<double>> make_device_preconditioner<double, float>(                 \
      const double*, const Plan&);

// Device bytes the GPU path needs for A in T and the preconditioner in P:
// the band of A and its diagonals (sap/gpu.hpp, to_diagonals), its LU (and
// UL for SaP-C) copies, the interfaces' k x k
// blocks and the work vectors of the solve.
std::size_t device_bytes_needed(const Plan& plan, std::size_t t_size, std::size_t p_size);

}  // namespace balsa::sap
