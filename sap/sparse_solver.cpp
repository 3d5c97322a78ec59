// balsa::SparseSapSolver (include/balsa/sap.hpp): SaP for general sparse
// systems (report sec. 2.2, 3.4). DB -> CM -> split -> third stage (SaP-D)
// -> drop-off -> assembly -> SaP-D/SaP-C preconditioning BiCGStab(2) on the
// permuted, scaled sparse matrix C = D_r A(rp, cp) D_c.

#include <cmath>
#include <string>

#include "balsa/sap.hpp"
#include "core/call_scope.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/options.hpp"
#include "core/pimpl.hpp"
#include "krylov/termination.hpp"
#include "balsa/cuda.hpp"  // current_device, use_device
#include "sap/multi_device.hpp"
#include "sap/preconditioner.hpp"
#include "sap/restarts.hpp"
#include "sap/sparse_pipeline.hpp"
#include "sparse/system_map.hpp"

namespace balsa {

namespace {

std::string s(double v) { return std::to_string(v); }

void check_options(const SparseSapOptions& o, bool is_double) {
  const std::string w = "SaP sparse solver: ";
  if (!(o.drop_tolerance >= 0 && o.drop_tolerance < 1))
    throw Error(w + "drop_tolerance must be in [0, 1), got " + s(o.drop_tolerance));
  if (o.max_bandwidth < 0) throw Error(w + "max_bandwidth must be >= 0 (0: no cap), got " + s(o.max_bandwidth));
  if (!(o.max_factor_flops >= 0) || !std::isfinite(o.max_factor_flops))
    throw Error(w + "max_factor_flops must be finite and >= 0, got " + s(o.max_factor_flops));
  if (o.partitions < 0) throw Error(w + "partitions must be >= 0 (0 chooses), got " + s(o.partitions));
  krylov::check_stopping(o.stopping, w);
  if (o.max_restarts < 0) throw Error(w + "max_restarts must be >= 0, got " + s(o.max_restarts));
  if (o.float_preconditioner && !is_double)
    throw Error(w + "float_preconditioner needs a double solver (this one is already float)");
}

}  // namespace

template <class T>
struct SparseSapSolver<T>::Impl {
  static constexpr const char* kOwner = "SparseSapSolver";  // (live_impl's error)
  SparseSapOptions options;
  SparseSapStats stats;
  SystemMap map;
  std::unique_ptr<KrylovSolver<T>> krylov;
  sap::SapPreconditioner<T>* M = nullptr;  // owned by krylov
  sap::MultiDevice<T>* multi = nullptr;    // owned by krylov (several GPUs)
  int primary = -1;                        // the device of DB, the operator and the Krylov vectors (-1: the current)
  std::vector<T> cb, y;                    // the scaled system's b and unknowns
  cuda::DeviceBuffer<T> d_r, d_z;          // precondition's vectors on the GPU (made at its first call)

  // C = D_r Q A D_c after DB (or A), then CM: P C P^T.
  Csr<T> reorder(const Csr<T>& A) {
    const SparseSapOptions& o = options;
    Csr<T> C;
    auto t = Clock::now();
    if (o.boosting) {
      const DiagonalBoosting db = diagonal_boosting(A, {.scaling = true, .device = o.device, .stream = o.stream});
      C = apply_boosting(A, db);
      map = SystemMap::boosting(db);
      stats.matching = db.stats;
      stats.log_product = db.log_product;
      stats.t_dtransf += db.stats.t_transfer;
    } else {
      C = A;
    }
    stats.t_db = seconds_since(t);
    t = Clock::now();
    if (o.bandwidth_reduction) {
      stats.ordering = cuthill_mckee(C);
      C = permute_symmetric(C, stats.ordering.perm);
      map.then_symmetric(stats.ordering.perm);
    }
    stats.t_cm = seconds_since(t);
    stats.k_cm = half_bandwidth(C);
    return C;
  }

  void build(const Csr<T>& A) {
    const SparseSapOptions& o = options;
    const bool gpu = o.device == Device::Cuda;
    const index_t n = A.rows;
    Csr<T> C = reorder(A);
    // Split, the third stage (SaP-D) and drop-off.
    const index_t cap = sap::bandwidth_cap(n, o.max_factor_flops, o.max_bandwidth);
    auto t = Clock::now();
    sap::DropResult drop = sap::drop_whole(C, o.drop_tolerance, cap);
    stats.t_drop = seconds_since(t);
    sap::Plan plan;
    plan.variant = o.variant;
    plan.n = n;
    const sap::DeviceSpread spread = sap::spread_over_devices(o, n, drop.k, gpu, plan.blocks);
    stats.banded.devices_reason = spread.reason;
    if (o.variant == SapVariant::Decoupled) {
      if (o.third_stage) {
        t = Clock::now();
        index_t changed = 0;
        const std::vector<index_t> p3 = sap::third_stage(C, plan.blocks, changed);
        if (changed > 0) {
          C = permute_symmetric(C, p3);
          map.then_symmetric(p3);
        }
        stats.t_cm += seconds_since(t);
      }
      t = Clock::now();
      drop = sap::drop_per_block(C, plan.blocks, o.drop_tolerance, cap);
      stats.t_drop += seconds_since(t);
    }
    stats.k = plan.k = drop.k;
    stats.dropped = drop.dropped;
    stats.dropped_norm = drop.dropped_norm;
    t = Clock::now();
    const Banded<T> band = sap::assemble(C, drop.k, plan.blocks, drop.bandwidths);
    stats.t_asmbl = seconds_since(t);
    double amax = max_abs(band);
    if (amax == 0) amax = 1;  // a zero band: boosting makes every pivot epsilon
    plan.boost = {o.pivot_boost, 1e-10, 1e-8, amax};
    // The preconditioner, then BiCGStab(2) on C itself.
    std::unique_ptr<sap::SapPreconditioner<T>> pre;
    const bool single = o.float_preconditioner;
    if (gpu && spread.slots.size() > 1) {
      auto sys = sap::make_multi_device<T>(band, plan, spread.slots, single, false, false, 0);
      multi = sys.state;
      pre = std::move(sys.pre);
    } else if (gpu) {
      t = Clock::now();
      cuda::DeviceBuffer<T> dband(band.data.size());
      dband.upload(std::span<const T>(band.data));
      stats.t_dtransf += seconds_since(t);
      if constexpr (std::is_same_v<T, double>)
        if (single) pre = sap::make_device_preconditioner<T, float>(dband.data(), plan);
      if (!pre) pre = sap::make_device_preconditioner<T, T>(dband.data(), plan);
    } else {
      if constexpr (std::is_same_v<T, double>)
        if (single) pre = sap::make_host_preconditioner<T, float>(band, plan);
      if (!pre) pre = sap::make_host_preconditioner<T, T>(band, plan);
    }
    M = pre.get();
    KrylovOptions ko;
    ko.method = KrylovMethod::BiCgStabL;
    ko.l = 2;
    ko.preconditioner = o.variant == SapVariant::Coupled ? PreconditionerKind::SapC : PreconditionerKind::SapD;
    ko.device = o.device;
    ko.stopping = o.stopping;
    ko.progress = o.progress;
    ko.check_symmetry = false;
    ko.stream = o.stream;
    krylov = std::make_unique<KrylovSolver<T>>(C, std::move(pre), ko);
    record_banded(plan);
    if (gpu && !multi) stats.banded.devices = {spread.slots.empty() ? cuda::current_device() : spread.slots[0]};
  }

  void record_banded(const sap::Plan& plan) {
    sap::record_plan(plan, stats.banded);
    sap::record_report(multi ? multi->report() : M->report(), stats.banded);
    if (multi) multi->record(stats.banded);
    stats.banded.device = options.device;
    stats.banded.float_preconditioner = options.float_preconditioner;
  }
};

template <class T>
SparseSapSolver<T>::SparseSapSolver(const Csr<T>& A, const SparseSapOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  sap::check_devices(given, "SaP sparse solver");
  const SparseSapOptions options = with_device_resolved(given);
  const auto t0 = Clock::now();
  const CallScope on(options, "SparseSapOptions");
  check_options(options, std::is_same_v<T, double>);
  impl_->primary = options.device == Device::Cuda ? sap::primary_device(options.devices) : -1;
  const sap::DeviceScope on_primary(impl_->primary);
  validate(A, /*require_sorted=*/true);
  require_square(A, "SaP sparse solver");
  require_finite(A);
  Impl& m = *impl_;
  m.options = options;
  m.map = SystemMap(A.rows);
  SparseSapStats& st = m.stats;
  st.device = options.device;
  st.n = A.rows;
  st.nnz = A.nnz();
  st.k_original = half_bandwidth(A);
  if (A.rows > 0) m.build(A);
  st.t_setup = seconds_since(t0);
} catch (...) {
  rethrow_as_balsa_error("SparseSapSolver::SparseSapSolver");
}

template <class T>
SparseSapSolver<T>::~SparseSapSolver() = default;
template <class T>
SparseSapSolver<T>::SparseSapSolver(SparseSapSolver&&) noexcept = default;
template <class T>
SparseSapSolver<T>& SparseSapSolver<T>::operator=(SparseSapSolver&&) noexcept = default;

template <class T>
KrylovStats SparseSapSolver<T>::solve(std::span<const T> b, std::span<T> x) try {
  Impl& m = live_impl(impl_);
  const CallScope on(m.options, "SparseSapOptions");
  const sap::DeviceScope on_primary(m.primary);
  const std::size_t n = std::size_t(m.stats.n);
  if (b.size() != n || x.size() != n)
    throw DimensionError("SaP sparse solver: b has " + std::to_string(b.size()) + " and x " +
                         std::to_string(x.size()) + " entries, the matrix " + std::to_string(n) + " rows");
  require_finite(b, "right-hand side b");
  require_finite(std::span<const T>(x), "initial guess x");
  if (n == 0) return {};
  m.cb.resize(n);
  m.y.resize(n);
  m.map.rhs_in(b, std::span<T>(m.cb));
  m.map.x_in(std::span<const T>(x), std::span<T>(m.y));
  int restarts = 0;
  KrylovStats st = sap::solve_with_restarts(*m.krylov, std::span<const T>(m.cb), std::span<T>(m.y),
                                            m.options.stopping, m.options.max_restarts, restarts);
  m.map.x_out(std::span<const T>(m.y), x);
  m.stats.banded.restarts = restarts;
  m.stats.banded.t_kry = st.solve_seconds;
  m.stats.banded.krylov = st;
  return st;
} catch (...) {
  rethrow_as_balsa_error("SparseSapSolver::solve");
}

template <class T>
void SparseSapSolver<T>::precondition(std::span<const T> r, std::span<T> z) try {
  Impl& m = live_impl(impl_);
  const CallScope on(m.options, "SparseSapOptions");
  const sap::DeviceScope on_primary(m.primary);
  const std::size_t n = std::size_t(m.stats.n);
  if (r.size() != n || z.size() != n)
    throw DimensionError("SaP sparse solver: precondition: r has " + std::to_string(r.size()) + " and z " +
                         std::to_string(z.size()) + " entries, the matrix " + std::to_string(n) + " rows");
  if (n == 0) return;
  m.cb.resize(n);
  m.y.resize(n);
  m.map.rhs_in(r, std::span<T>(m.cb));
  if (m.options.device == Device::Cuda) {
    if (m.d_r.size() != n) {
      m.d_r = cuda::DeviceBuffer<T>(n);
      m.d_z = cuda::DeviceBuffer<T>(n);
    }
    m.d_r.upload(std::span<const T>(m.cb));
    m.M->apply_device(m.d_r.data(), m.d_z.data());
    m.d_z.download(std::span<T>(m.y));
  } else {
    m.M->apply(std::span<const T>(m.cb), std::span<T>(m.y));
  }
  m.map.x_out(std::span<const T>(m.y), z);
} catch (...) {
  rethrow_as_balsa_error("SparseSapSolver::precondition");
}

template <class T>
const SparseSapStats& SparseSapSolver<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("SparseSapSolver::stats");
}

template class SparseSapSolver<float>;
template class SparseSapSolver<double>;

}  // namespace balsa
