// balsa::Preconditioner (include/balsa/precondition.hpp): the Krylov
// solvers' own preconditioners (krylov::make_preconditioner: Jacobi,
// ILU(0)/IC(0) through the triangular solvers), SaP's sparse pipeline
// (SparseSapSolver::precondition) or a DirectSolver, behind
// one public object with checks, Auto's rule and stats. On the GPU an
// ILU(0)/IC(0) comes back analysed from A's pattern and awaiting values
// (krylov/preconditioner.hpp): A's values are uploaded and handed to it,
// as KrylovSolver does.
#include <cmath>
#include <vector>

#include "balsa/precondition.hpp"
#include "balsa/sap.hpp"
#include "core/call_scope.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/options.hpp"
#include "core/parallel.hpp"
#include "core/pimpl.hpp"
#include "krylov/preconditioner.hpp"

namespace balsa {

namespace {

constexpr const char* kWhere = "Preconditioner: ";

// Auto's rule (the header's): small -> Direct, SPD-looking -> IC(0), else ILU(0).
template <class T>
PreconditionMethod choose(const Csr<T>& A, const PreconditionOptions& o, std::string& rule) {
  if (A.rows <= o.direct_max_rows) {
    rule = "n = " + std::to_string(A.rows) + " <= direct_max_rows = " + std::to_string(o.direct_max_rows);
    return PreconditionMethod::Direct;
  }
  const std::vector<T> d = diagonal(A);
  bool positive = true;
  for (const T v : d) positive = positive && v > T(0);
  if (positive && first_asymmetry(A).row < 0) {
    rule = "symmetric with a positive diagonal";
    return PreconditionMethod::Ic0;
  }
  rule = positive ? "not symmetric" : "a diagonal entry <= 0 or missing";
  return PreconditionMethod::Ilu0;
}

PreconditionerKind krylov_kind(PreconditionMethod m) {
  switch (m) {
    case PreconditionMethod::Jacobi: return PreconditionerKind::Jacobi;
    case PreconditionMethod::Ilu0: return PreconditionerKind::Ilu0;
    case PreconditionMethod::Ic0: return PreconditionerKind::Ic0;
    default: throw Error(std::string(kWhere) + "internal: no Krylov preconditioner for " + to_string(m));
  }
}

template <class T>
bool all_finite(std::span<const T> v) {
  return parallel::first_where(v.size(), [&](std::size_t k) { return !std::isfinite(v[k]); }) == v.size();
}

}  // namespace

template <class T>
struct Preconditioner<T>::Impl {
  static constexpr const char* kOwner = "Preconditioner";
  PreconditionOptions options;
  PreconditionStats stats;
  Csr<T> pattern;  // A's pattern (values empty), for update_values' checks and the direct solver's values
  std::unique_ptr<krylov::Preconditioner<T>> incomplete;  // Jacobi, ILU(0), IC(0)
  std::unique_ptr<DirectSolver<T>> direct;
  std::unique_ptr<SparseSapSolver<T>> sap;  // SaP-D, SaP-C
  std::vector<T> r_host, z_host;  // Direct's and SaP's apply_device go through the host

  void set_up(const Csr<T>& A) {
    const auto t0 = Clock::now();
    PreconditionMethod m = options.method;
    if (m == PreconditionMethod::Auto) m = choose(A, options, stats.rule);
    stats.method = m;
    stats.device = options.device;
    stats.n = A.rows;
    stats.nnz = A.nnz();
    if (A.rows == 0) return;  // nothing to set up: applications are no-ops
    if (m == PreconditionMethod::SapD || m == PreconditionMethod::SapC) {
      sap = std::make_unique<SparseSapSolver<T>>(A, sap_options(m));
      stats.sap = sap->stats();
    } else if (m == PreconditionMethod::Direct) {
      DirectOptions d = options.direct;
      d.device = Device::Cpu;
      d.threads = 0;  // this call's (CallScope)
      direct = std::make_unique<DirectSolver<T>>(A, d);
      stats.direct = direct->stats();
    } else {
      KrylovOptions k;
      k.preconditioner = krylov_kind(m);
      k.device = options.device;
      k.trsv = options.trsv;
      k.factor = options.factor;
      k.stream = options.stream;
      incomplete = krylov::make_preconditioner(A, k);
      if (incomplete->awaits_values()) incomplete->update_values_device(cuda::DeviceBuffer<T>(std::span(A.values)));
      describe();
    }
    stats.setup_seconds = stats.analysis_seconds = seconds_since(t0);
  }

  // SaP's sparse pipeline (DB, CM, drop-off, the banded factors) for A, its
  // preconditioner applied alone (SparseSapSolver::precondition).
  SparseSapOptions sap_options(PreconditionMethod m) const {
    SparseSapOptions o = options.sap;
    o.variant = m == PreconditionMethod::SapC ? SapVariant::Coupled : SapVariant::Decoupled;
    o.device = options.device;
    o.stream = options.stream;
    o.threads = 0;  // this call's (CallScope)
    return o;
  }

  void describe() {
    if (!incomplete) return;
    KrylovStats k;
    incomplete->describe(k);
    stats.factor = k.factor;
    stats.lower = k.lower;
    stats.upper = k.upper;
  }

  void check_length(std::size_t got, const char* what) const {
    if (got != std::size_t(pattern.rows))
      throw DimensionError(std::string(kWhere) + what + " has " + std::to_string(got) + " values, A has " +
                           std::to_string(pattern.rows) + " rows");
  }
};

template <class T>
Preconditioner<T>::Preconditioner(const Csr<T>& A, const PreconditionOptions& given) try
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = with_device_resolved(given);
  const CallScope on(s.options, "PreconditionOptions");
  validate(A, /*require_sorted=*/true);
  require_square(A, "Preconditioner");
  if (!all_finite(std::span<const T>(A.values))) require_finite(A);  // a MatrixError naming the entry
  if (s.options.device == Device::Cuda && !cuda::available())
    throw CudaError(std::string(kWhere) + (cuda::built_with_cuda() ? "Device::Cuda: no CUDA GPU found"
                                                                   : "Device::Cuda: balsa was built without CUDA"));
  if (s.options.direct_max_rows < 0) throw Error(std::string(kWhere) + "direct_max_rows must be >= 0");
  s.pattern = Csr<T>{A.rows, A.cols, A.row_ptr, A.col_idx, {}};
  s.set_up(A);
} catch (...) {
  rethrow_as_balsa_error("Preconditioner");
}

template <class T>
Preconditioner<T>::~Preconditioner() = default;
template <class T>
Preconditioner<T>::Preconditioner(Preconditioner&&) noexcept = default;
template <class T>
Preconditioner<T>& Preconditioner<T>::operator=(Preconditioner&&) noexcept = default;

template <class T>
void Preconditioner<T>::apply(std::span<const T> r, std::span<T> z) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "PreconditionOptions");
  s.check_length(r.size(), "r");
  s.check_length(z.size(), "z");
  const auto t0 = Clock::now();
  if (s.direct)
    s.direct->solve(r, z);
  else if (s.sap)
    s.sap->precondition(r, z);
  else if (s.incomplete)
    s.incomplete->apply(r, z);
  s.stats.apply_seconds += seconds_since(t0);
  ++s.stats.applications;
} catch (...) {
  rethrow_as_balsa_error("Preconditioner::apply");
}

template <class T>
void Preconditioner<T>::apply_device(const T* r, T* z) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "PreconditionOptions");
  if (s.stats.device != Device::Cuda)
    throw Error(std::string(kWhere) + "apply_device needs a preconditioner set up on the GPU (this one is on the CPU)");
  const std::size_t n = std::size_t(s.pattern.rows), bytes = n * sizeof(T);
  if (n == 0) return;
  if (s.direct || s.sap) {  // a CPU factorisation, or SaP's host-side maps: through the host
    s.r_host.resize(n);
    s.z_host.resize(n);
    cuda::detail::copy_to_host(s.r_host.data(), r, bytes);
    if (s.direct)
      s.direct->solve(std::span<const T>(s.r_host), std::span<T>(s.z_host));
    else
      s.sap->precondition(std::span<const T>(s.r_host), std::span<T>(s.z_host));
    cuda::detail::copy_to_device(z, s.z_host.data(), bytes);
  } else {
    s.incomplete->apply_device(r, z);
  }
  ++s.stats.applications;
} catch (...) {
  rethrow_as_balsa_error("Preconditioner::apply_device");
}

template <class T>
void Preconditioner<T>::update_values(std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "PreconditionOptions");
  if (values.size() != std::size_t(s.pattern.nnz()))
    throw DimensionError(std::string(kWhere) + "update_values: " + std::to_string(values.size()) +
                         " values for a pattern of " + std::to_string(s.pattern.nnz()) + " entries");
  if (!all_finite(values)) require_finite(values, "Preconditioner::update_values: values");
  const auto t0 = Clock::now();
  if (s.pattern.rows == 0) {
  } else if (s.sap) {  // DB's matching and scaling follow the values: set up again whole
    s.sap = std::make_unique<SparseSapSolver<T>>(Csr<T>{s.pattern.rows, s.pattern.cols, s.pattern.row_ptr,
                                                        s.pattern.col_idx, std::vector<T>(values.begin(), values.end())},
                                                 s.sap_options(s.stats.method));
    s.stats.sap = s.sap->stats();
  } else if (s.direct) {
    s.direct->update_values(values);
    s.stats.direct = s.direct->stats();
  } else {
    if (s.stats.device == Device::Cuda)
      s.incomplete->update_values_device(cuda::DeviceBuffer<T>(values));
    else
      s.incomplete->update_values(values);
    s.describe();
  }
  s.stats.setup_seconds = seconds_since(t0);
  s.stats.analysis_reused = !s.sap;
  ++s.stats.updates;
} catch (...) {
  rethrow_as_balsa_error("Preconditioner::update_values");
}

template <class T>
const PreconditionStats& Preconditioner<T>::stats() const try {
  return live_impl(impl_).stats;
} catch (...) {
  rethrow_as_balsa_error("Preconditioner::stats");
}

template <class T>
index_t Preconditioner<T>::rows() const try {
  return live_impl(impl_).pattern.rows;
} catch (...) {
  rethrow_as_balsa_error("Preconditioner::rows");
}

#define BALSA_INSTANTIATE(T) template class Preconditioner<T>;
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
