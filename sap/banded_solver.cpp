// balsa::BandedSolver (include/balsa/sap.hpp): the SaP front end. Checks,
// the split into blocks, the memory check, A's upload (GPU), the SaP-D/SaP-C
// preconditioner (sap/preconditioner_cpu.cpp, sap/gpu_preconditioner.cu),
// then BiCGStab(2) or CG (balsa::KrylovSolver) with A as a band operator;
// over several GPUs the operator and preconditioner of sap/multi_device.hpp.

#include <chrono>
#include <cmath>
#include <string>

#include "balsa/sap.hpp"
#include "balsa/cuda.hpp"  // current_device, use_device
#include "sap/gpu.hpp"
#include "sap/multi_device.hpp"
#include "sap/preconditioner.hpp"
#include "sap/restarts.hpp"
#include "sparse/banded_check.hpp"
#include "core/call_scope.hpp"
#include "core/instantiate.hpp"
#include "core/options.hpp"
#include "core/pimpl.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "krylov/termination.hpp"

namespace balsa {

namespace {
std::string s(std::int64_t v) { return std::to_string(v); }

// max|a_ij|, the boosting rule's scale; a zero matrix is singular.
double nonzero_scale(index_t n, double amax) {
  if (n > 0 && amax == 0) throw MatrixError("SaP banded solver: A is zero (singular)");
  return amax;
}

// A's products on the CPU: a copy of A's band.
template <class T>
class HostBandOperator final : public krylov::Operator<T> {
 public:
  explicit HostBandOperator(const Banded<T>& A) : A_(A) {}
  index_t rows() const override { return A_.n; }
  void apply(const T* x, T* y) override {
    spmv(A_, std::span<const T>(x, std::size_t(A_.n)), std::span<T>(y, std::size_t(A_.n)));
  }
  void apply_device(const T*, T*) override { throw Error("internal: the host band operator has no device path"); }
  std::string name() const override { return "balsa-banded-cpu"; }
  Banded<T>& band() { return A_; }

 private:
  Banded<T> A_;
};

template <class T>
void check_options(const BandedOptions& o) {
  const std::string w = "SaP banded solver: ";
  if (o.partitions < 0) throw Error(w + "partitions must be >= 0 (0 chooses), got " + s(o.partitions));
  if (!(o.boost_threshold >= 0) || !std::isfinite(o.boost_threshold))
    throw Error(w + "boost_threshold must be finite and >= 0, got " + std::to_string(o.boost_threshold));
  if (!(o.boost_epsilon > 0) || !std::isfinite(o.boost_epsilon))
    throw Error(w + "boost_epsilon must be finite and > 0, got " + std::to_string(o.boost_epsilon));
  krylov::check_stopping(o.stopping, w);
  if (o.max_restarts < 0) throw Error(w + "max_restarts must be >= 0, got " + s(o.max_restarts));
  if (o.float_preconditioner && !std::is_same_v<T, double>)
    throw Error(w + "float_preconditioner needs a double solver (this one is already float)");
  if (o.device == Device::Cuda && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? w + "Device::Cuda: no CUDA GPU found"
                                            : w + "Device::Cuda: balsa was built without CUDA");
}
}  // namespace

template <class T>
struct BandedSolver<T>::Impl {
  static constexpr const char* kOwner = "BandedSolver";  // (live_impl's error)
  BandedOptions options;
  sap::Plan plan;  // as set up (the preconditioner keeps its own, with the current boost scale)
  BandedStats stats;
  std::unique_ptr<KrylovSolver<T>> krylov;
  sap::SapPreconditioner<T>* M = nullptr;       // owned by krylov
  HostBandOperator<T>* host_A = nullptr;        // owned by krylov (CPU path)
  sap::gpu::DeviceBandOperator<T>* device_A = nullptr;  // owned by krylov (GPU path)
  sap::MultiDevice<T>* multi = nullptr;                 // owned by krylov (several GPUs)
  std::vector<int> slots;  // the devices used (slots[0] the primary), or empty (CPU, or the current GPU)
  int primary() const { return slots.empty() ? -1 : slots[0]; }

  void build(const Banded<T>& A) {
    const BandedOptions& o = options;
    const bool gpu = o.device == Device::Cuda;
    std::unique_ptr<krylov::Operator<T>> op;
    std::unique_ptr<sap::SapPreconditioner<T>> pre;
    const auto t0 = Clock::now();
    if (gpu && slots.size() > 1) {
      auto sys = sap::make_multi_device<T>(A, plan, slots, o.float_preconditioner, true, true, o.device_memory_limit);
      multi = sys.state;
      op = std::move(sys.op);
      pre = std::move(sys.pre);
    } else if (gpu) {
      const std::size_t need = sap::device_bytes_needed(plan, sizeof(T), o.float_preconditioner ? sizeof(float) : sizeof(T));
      const std::size_t limit = o.device_memory_limit ? o.device_memory_limit : cuda::memory_info().first;
      if (need > limit)
        throw DeviceOutOfMemory("SaP banded solver: n = " + s(plan.n) + ", k = " + s(plan.k) + ", P = " +
                                s(plan.blocks.count()) + " needs " + s(std::int64_t(need)) + " bytes of device memory, " +
                                s(std::int64_t(limit)) + (o.device_memory_limit ? " allowed (device_memory_limit)" : " free"));
      stats.device_bytes = need;
      auto [band, amax] = upload_checked(A);
      plan.boost.amax = amax;
      stats.t_upload = seconds_since(t0);
      if (o.float_preconditioner) {
        if constexpr (std::is_same_v<T, double>) pre = sap::make_device_preconditioner<T, float>(band.data(), plan);
      } else {
        pre = sap::make_device_preconditioner<T, T>(band.data(), plan);
      }
      auto dop = std::make_unique<sap::gpu::DeviceBandOperator<T>>(band, plan.n, plan.k);  // band freed after
      device_A = dop.get();
      op = std::move(dop);
    } else {
      if (o.float_preconditioner) {
        if constexpr (std::is_same_v<T, double>) pre = sap::make_host_preconditioner<T, float>(A, plan);
      } else {
        pre = sap::make_host_preconditioner<T, T>(A, plan);
      }
      auto hop = std::make_unique<HostBandOperator<T>>(A);
      host_A = hop.get();
      op = std::move(hop);
    }
    M = pre.get();
    KrylovOptions ko;
    ko.method = o.spd ? KrylovMethod::Cg : KrylovMethod::BiCgStabL;
    ko.l = 2;
    ko.preconditioner = o.variant == SapVariant::Coupled ? PreconditionerKind::SapC : PreconditionerKind::SapD;
    ko.device = o.device;
    ko.stopping = o.stopping;
    ko.stream = o.stream;
    krylov = std::make_unique<KrylovSolver<T>>(std::move(op), std::move(pre), ko);
    record_setup();
  }

  // A's band on the device and its max|a|, checked there (NaN/Inf named as
  // require_finite names them): the host passes over a band of gigabytes
  // cost more than its upload.
  static std::pair<cuda::DeviceBuffer<T>, double> upload_checked(const Banded<T>& A) {
    cuda::DeviceBuffer<T> band(A.data.size());
    band.upload(std::span<const T>(A.data));
    const sap::gpu::BandCheck c = sap::gpu::check_band(band.data(), band.size());
    if (c.first_bad < band.size()) detail::throw_nonfinite_band_entry(A, c.first_bad);
    const double amax = nonzero_scale(A.n, c.amax);
    return {std::move(band), amax};
  }

  void record_setup() {
    sap::record_report(multi ? multi->report() : M->report(), stats);
    if (multi) multi->record(stats);
  }
};

template <class T>
BandedSolver<T>::BandedSolver(const Banded<T>& A, const BandedOptions& given) try : impl_(std::make_unique<Impl>()) {
  sap::check_devices(given, "SaP banded solver");
  const BandedOptions options = with_device_resolved(given);
  const auto t0 = Clock::now();
  const CallScope on(options, "BandedOptions");
  Impl& m = *impl_;
  check_options<T>(options);
  if (A.n < 0 || A.k < 0 || (A.n > 0 && A.k >= A.n))
    throw DimensionError("SaP banded solver: half-bandwidth k = " + s(A.k) + " must be in 0.." +
                         s(std::max<index_t>(A.n - 1, 0)) + " for n = " + s(A.n));
  if (A.data.size() != std::size_t(A.n) * std::size_t(A.ld()))
    throw DimensionError("SaP banded solver: the band has " + s(std::int64_t(A.data.size())) + " values, n (2k + 1) = " +
                         s(std::int64_t(A.n) * A.ld()) + " expected");
  const bool gpu = options.device == Device::Cuda;
  if (!gpu) require_finite(A);  // the GPU path checks A on the device (Impl::upload_checked)
  m.options = options;
  m.plan.variant = options.variant;
  m.plan.n = A.n;
  m.plan.k = A.k;
  BandedStats& st = m.stats;
  const sap::DeviceSpread spread = sap::spread_over_devices(options, A.n, A.k, gpu, m.plan.blocks);
  m.slots = spread.slots;
  st.devices_reason = spread.reason;
  const sap::DeviceScope on_primary(m.primary());
  // The GPU path's scale comes with its upload (Impl::build).
  m.plan.boost = {options.pivot_boost, options.boost_threshold, options.boost_epsilon,
                  gpu ? 0.0 : nonzero_scale(A.n, max_abs(A))};
  sap::record_plan(m.plan, st);
  st.device = options.device;
  if (gpu) st.devices = m.slots.empty() ? std::vector<int>{cuda::current_device()} : m.slots;
  st.float_preconditioner = options.float_preconditioner;
  m.build(A);
  st.t_setup = seconds_since(t0);
} catch (...) {
  rethrow_as_balsa_error("BandedSolver::BandedSolver");
}

template <class T>
BandedSolver<T>::BandedSolver(const Csr<T>& A, const BandedOptions& options) : BandedSolver(to_banded(A), options) {}

template <class T>
BandedSolver<T>::~BandedSolver() = default;
template <class T>
BandedSolver<T>::BandedSolver(BandedSolver&&) noexcept = default;
template <class T>
BandedSolver<T>& BandedSolver<T>::operator=(BandedSolver&&) noexcept = default;

template <class T>
KrylovStats BandedSolver<T>::solve(std::span<const T> b, std::span<T> x) try {
  Impl& m = live_impl(impl_);
  const CallScope on(m.options, "BandedOptions");
  const sap::DeviceScope on_primary(m.primary());
  int restarts = 0;
  KrylovStats st =
      sap::solve_with_restarts(*m.krylov, b, x, m.options.stopping, m.options.max_restarts, restarts);
  m.stats.restarts = restarts;
  m.stats.t_kry = st.solve_seconds;
  m.stats.krylov = st;
  return st;
} catch (...) {
  rethrow_as_balsa_error("BandedSolver::solve");
}

template <class T>
void BandedSolver<T>::update_values(const Banded<T>& A) try {
  Impl& m = live_impl(impl_);
  const CallScope on(m.options, "BandedOptions");
  if (A.n != m.plan.n || A.k != m.plan.k || A.data.size() != std::size_t(A.n) * std::size_t(A.ld()))
    throw DimensionError("SaP update_values: the new band is n = " + s(A.n) + ", k = " + s(A.k) + " (" +
                         s(std::int64_t(A.data.size())) + " values); the solver's is n = " + s(m.plan.n) +
                         ", k = " + s(m.plan.k));
  const sap::DeviceScope on_primary(m.primary());
  const auto t0 = Clock::now();
  // The preconditioner's boost scale is set before every refactor (a
  // failed one keeps the old factors); the operator keeps the new values.
  if (m.multi) {
    m.multi->update_values(A, true, 0);
  } else if (m.device_A) {
    auto [band, amax] = Impl::upload_checked(A);
    m.M->set_amax(amax);
    m.M->update_values_device(band);
    m.device_A->set_values(band);
  } else {
    require_finite(A);
    m.M->set_amax(nonzero_scale(A.n, max_abs(A)));
    m.M->update_values(std::span<const T>(A.data));
    m.host_A->band() = A;
  }
  m.record_setup();
  m.stats.t_setup = seconds_since(t0);
} catch (...) {
  rethrow_as_balsa_error("BandedSolver::update_values");
}

template <class T>
const BandedStats& BandedSolver<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("BandedSolver::stats");
}

template class BandedSolver<float>;
template class BandedSolver<double>;

}  // namespace balsa
