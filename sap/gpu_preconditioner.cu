// The GPU SaP preconditioners (sap/preconditioner.hpp): set-up from A's
// band on the device (convert to P, coupling blocks, reversed copy, LU and
// UL, spikes, reduced systems; each phase timed with a device
// synchronisation at its end) and application on device vectors, in the
// steps of the CPU reference (sap/preconditioner_cpu.cpp).
#include <cuda_runtime.h>

#include <chrono>
#include <type_traits>

#include "cuda/check.hpp"
#include "sap/gpu.hpp"
#include "sap/preconditioner.hpp"
#include "core/clock.hpp"

namespace balsa::sap {

namespace {

template <class P>
struct DeviceFactors {
  gpu::DeviceBlocks blocks;               // with the bandwidths of lu's blocks
  cuda::DeviceBuffer<P> lu, ul;           // the blocks' LU; their reversed LU (SaP-C)
  cuda::DeviceBuffer<P> B, C, V, W, R;    // per interface k x k (SaP-C)
};

template <class T, class P>
class DeviceSap final : public SapPreconditioner<T> {
 public:
  DeviceSap(const T* A, const Plan& plan) : SapPreconditioner<T>(plan) {
    for (index_t i = 0; i < plan.blocks.count(); ++i) max_block_ = std::max(max_block_, plan.blocks.size(i));
    factor(A);
    g_ = cuda::DeviceBuffer<P>(std::size_t(plan.n));
    if (coupled() || !std::is_same_v<T, P>) w_ = cuda::DeviceBuffer<P>(std::size_t(plan.n));
  }

  void apply(std::span<const T>, std::span<T>) override {
    throw Error("internal: the GPU SaP preconditioner has no host path");
  }
  void apply_device(const T* r, T* z) override { apply_device_unless(r, z, nullptr); }
  // z = M^{-1} r on the device (see HostSap::apply); every kernel a no-op
  // once *stopped != 0.
  void apply_device_unless(const T* r, T* z, const int* stopped) override {
    const std::int64_t n = plan_.n;
    const index_t k = plan_.k;
    if (coupled()) {
      gpu::convert(r, g_.data(), n, stopped);
      gpu::solve_blocks(f_.lu.data(), plan_.n, k, f_.blocks, g_.data(), stopped);
      P* w = std::is_same_v<T, P> ? reinterpret_cast<P*>(z) : w_.data();
      gpu::convert(r, w, n, stopped);
      gpu::coupling_corrections(f_.B.data(), f_.C.data(), f_.V.data(), f_.W.data(), f_.R.data(), k, f_.blocks,
                                g_.data(), w, stopped);
      gpu::solve_blocks(f_.lu.data(), plan_.n, k, f_.blocks, w, stopped);
      if constexpr (!std::is_same_v<T, P>) gpu::convert(w, z, n, stopped);
    } else if constexpr (std::is_same_v<T, P>) {
      gpu::convert(r, z, n, stopped);
      gpu::solve_blocks(f_.lu.data(), plan_.n, k, f_.blocks, z, stopped);
    } else {
      gpu::convert(r, g_.data(), n, stopped);
      gpu::solve_blocks(f_.lu.data(), plan_.n, k, f_.blocks, g_.data(), stopped);
      gpu::convert(g_.data(), z, n, stopped);
    }
  }
  void update_values(std::span<const T> values) override {
    cuda::DeviceBuffer<T> A(values);
    factor(A.data());
  }
  void update_values_device(const cuda::DeviceBuffer<T>& A) override { factor(A.data()); }

 private:
  bool coupled() const { return plan_.variant == SapVariant::Coupled && plan_.blocks.count() > 1 && plan_.k > 0; }

  // New factors from A (a failure keeps the old ones).
  void factor(const T* A) {
    SetupReport rep;
    const std::int64_t n = plan_.n, k = plan_.k;
    const std::size_t band = std::size_t(n) * std::size_t(2 * k + 1);
    const std::size_t kk = coupled() ? std::size_t(k) * std::size_t(k) * std::size_t(plan_.blocks.count() - 1) : 0;
    DeviceFactors<P> f;
    auto t0 = Clock::now();
    f.lu = cuda::DeviceBuffer<P>(band);
    gpu::convert(A, f.lu.data(), std::int64_t(band));
    f.blocks = gpu::upload(plan_.blocks, plan_.k);
    gpu::measure_bandwidths(f.lu.data(), plan_.n, plan_.k, f.blocks);  // of the values factored (in P)
    rep.min_bandwidth = f.blocks.min_bandwidth;
    rep.max_bandwidth = f.blocks.max_bandwidth;
    const gpu::DeviceBlocks& blocks = f.blocks;
    if (coupled()) {
      for (auto* b : {&f.B, &f.C, &f.V, &f.W, &f.R}) *b = cuda::DeviceBuffer<P>(kk);
      gpu::coupling_blocks(f.lu.data(), plan_.k, blocks, f.B.data(), f.C.data());
      cuda::detail::synchronize();
      rep.t_bc = seconds_since(t0);
      t0 = Clock::now();
      f.ul = cuda::DeviceBuffer<P>(band);
      gpu::reverse_blocks(f.lu.data(), f.ul.data(), plan_.k, blocks, max_block_);
    }
    rep.boosted_pivots = coupled() ? gpu::factor_lu_and_ul(f.lu.data(), f.ul.data(), plan_.k, blocks, plan_.boost)
                                   : gpu::factor_blocks(f.lu.data(), plan_.k, blocks, plan_.boost, false);
    rep.t_lu = seconds_since(t0);
    if (coupled()) {
      t0 = Clock::now();
      gpu::truncated_spikes(f.lu.data(), f.ul.data(), plan_.k, blocks, f.B.data(), f.C.data(), f.V.data(), f.W.data());
      f.ul = {};  // only its bottom blocks were needed
      rep.t_spk = seconds_since(t0);
      t0 = Clock::now();
      gpu::reduced_systems(f.V.data(), f.W.data(), plan_.k, plan_.blocks.count() - 1, f.R.data());
      rep.t_lu_rdcd = seconds_since(t0);
    }
    f_ = std::move(f);
    this->report_ = rep;
  }

  using SapPreconditioner<T>::plan_;
  index_t max_block_ = 0;
  DeviceFactors<P> f_;
  cuda::DeviceBuffer<P> g_, w_;
};
}  // namespace

template <class T, class P>
std::unique_ptr<SapPreconditioner<T>> make_device_preconditioner(const T* A, const Plan& plan) {
  return std::make_unique<DeviceSap<T, P>>(A, plan);
}

BALSA_SAP_DEVICE_PRECONDITIONERS

}  // namespace balsa::sap
