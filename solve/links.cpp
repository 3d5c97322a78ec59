// The links of balsa::solve's chain (solve/links.hpp).
#include "solve/links.hpp"

#include <algorithm>

#include "balsa/qr.hpp"
#include "balsa/sap.hpp"
#include "core/instantiate.hpp"
#include "sparse/system_map.hpp"

namespace balsa::solve_detail {

template <class T>
const Mapped<T>& Shared<T>::boosted_system(Device device) {
  if (!boosted) {
    const DiagonalBoosting db = diagonal_boosting(A, {.device = device, .stream = options.stream});
    boosted.emplace(Mapped<T>{SystemMap::boosting(db), apply_boosting(A, db)});
  }
  return *boosted;
}

// SaP's global reordering (its pipeline's CM, sec. 3.2 of the SaP report)
// made here once for sap-d, sap-c and sap-lu.
template <class T>
const Mapped<T>& Shared<T>::banded_system(Device device) {
  if (!banded) {
    const Mapped<T>& b = boosted_system(device);
    const Ordering cm = cuthill_mckee(b.C);
    SystemMap map = b.map;
    map.then_symmetric(cm.perm);
    banded.emplace(Mapped<T>{std::move(map), permute_symmetric(b.C, std::span<const index_t>(cm.perm))});
  }
  return *banded;
}

template <class T>
void Link<T>::solve_columns(std::span<const T> B, std::span<T> X, index_t rows, index_t first) {
  const std::size_t n = std::size_t(rows);
  for (std::size_t c = std::size_t(first); c * n < B.size(); ++c) solve(B.subspan(c * n, n), X.subspan(c * n, n));
}

namespace {

KrylovOptions krylov_for(KrylovPreset preset, Device device, const SolveOptions& o, const SolveFeatures& f,
                         std::function<void(int, double)> progress) {
  KrylovOptions k = krylov_options(preset);
  k.device = device;
  k.stopping = o.stopping;
  k.progress = std::move(progress);
  k.stream = o.stream;
  k.check_symmetry = !f.symmetric;  // the features' test already passed: not again
  return k;
}

template <class T>
class KrylovLink final : public Link<T> {
 public:
  KrylovLink(const Csr<T>& A, const KrylovOptions& o) : krylov_(A, o) {}
  KrylovStats solve(std::span<const T> b, std::span<T> x) override { return krylov_.solve(b, x); }
  Device device() const override { return krylov_.stats().device; }

 private:
  KrylovSolver<T> krylov_;
};

// A method on a shared system (DB's, or DB's then CM's): b and x go through its map.
template <class T, class Inner>
class MappedLink final : public Link<T> {
 public:
  template <class Options>
  MappedLink(const Mapped<T>& m, const Options& o)
      : map_(m.map), inner_(m.C, o), c_(std::size_t(m.C.rows)), y_(std::size_t(m.C.rows)) {}
  KrylovStats solve(std::span<const T> b, std::span<T> x) override {
    map_.rhs_in(b, std::span<T>(c_));
    map_.x_in(std::span<const T>(x), std::span<T>(y_));
    KrylovStats st = inner_.solve(std::span<const T>(c_), std::span<T>(y_));
    map_.x_out(std::span<const T>(y_), x);
    return st;
  }
  Device device() const override { return device_of(inner_.stats()); }

 private:
  static Device device_of(const KrylovStats& s) { return s.device; }
  static Device device_of(const SparseSapStats& s) { return s.device; }
  SystemMap map_;
  Inner inner_;
  std::vector<T> c_, y_;
};

SparseSapOptions sap_for(SolveMethod m, Device device, const SolveOptions& o, std::function<void(int, double)> progress) {
  SparseSapOptions s;
  s.variant = m == SolveMethod::SapC ? SapVariant::Coupled : SapVariant::Decoupled;
  if (m == SolveMethod::SapLu) {  // one block, no drop-off: the whole band
    s.partitions = 1;
    s.drop_tolerance = 0;
    s.third_stage = false;
  }
  s.boosting = false;             // the link's matrix is DB's ...
  s.bandwidth_reduction = false;  // ... reordered by CM already (shared)
  s.device = device;
  s.stopping = o.stopping;
  s.progress = std::move(progress);
  s.stream = o.stream;
  return s;
}

template <class T>
class DirectLink final : public Link<T> {
 public:
  explicit DirectLink(std::unique_ptr<DirectSolver<T>> lu) : lu_(std::move(lu)) {
    if (!lu_->stats().factorized) lu_->factorize();
  }
  KrylovStats solve(std::span<const T> b, std::span<T> x) override {
    lu_->solve(b, x);
    return direct_answer();
  }
  void solve_columns(std::span<const T> B, std::span<T> X, index_t rows, index_t first) override {
    const index_t cols = rows > 0 ? index_t(B.size() / std::size_t(rows)) : 0;
    if (first >= cols) return;
    const std::size_t skip = std::size_t(first) * std::size_t(rows);
    DenseMatrix<T> rest(rows, cols - first), out(rows, cols - first);
    std::copy(B.begin() + std::ptrdiff_t(skip), B.end(), rest.values.begin());
    lu_->solve(rest, out);
    std::copy(out.values.begin(), out.values.end(), X.begin() + std::ptrdiff_t(skip));
  }
  const DirectStats* direct_stats() const override { return &lu_->stats(); }
  Device device() const override { return Device::Cpu; }

 private:
  std::unique_ptr<DirectSolver<T>> lu_;
};

// SPQR-style multifrontal QR (include/balsa/qr.hpp), in double.
template <class T>
class QrLink final : public Link<T> {
 public:
  QrLink(const Csr<T>& A, const SolveOptions& o) : qr_(convert_values<double>(A), {.stream = o.stream}) {
    if (qr_.stats().rank < A.rows)
      throw SingularMatrix("QR: A is numerically rank deficient (rank " + std::to_string(qr_.stats().rank) + " of " +
                           std::to_string(A.rows) + ")");
  }
  KrylovStats solve(std::span<const T> b, std::span<T> x) override {
    const std::vector<double> bd(b.begin(), b.end());
    const std::vector<double> xd = qr_.solve(std::span<const double>(bd));
    std::transform(xd.begin(), xd.end(), x.begin(), [](double v) { return T(v); });
    return direct_answer();
  }
  Device device() const override { return Device::Cpu; }

 private:
  SparseQR qr_;
};

template <class T>
std::unique_ptr<Link<T>> make_direct(SolveMethod m, Shared<T>& s) {
  const DirectMethod want = direct_method_of(m);
  std::unique_ptr<DirectSolver<T>> lu;
  if (s.analysed && (want == DirectMethod::Auto || s.analysed->stats().method == want)) {
    lu = std::move(s.analysed);
  } else {
    DirectOptions d;
    d.method = want;
    d.device = Device::Cpu;
    d.threads = s.options.threads;
    d.factorize = false;
    lu = std::make_unique<DirectSolver<T>>(s.A, d);
  }
  return std::make_unique<DirectLink<T>>(std::move(lu));
}

}  // namespace

KrylovStats direct_answer() {
  KrylovStats st;
  st.outcome = KrylovOutcome::Converged;
  return st;
}

SolveMethod solve_method_of(DirectMethod m) noexcept {
  switch (m) {
    case DirectMethod::Cholmod: return SolveMethod::Cholmod;
    case DirectMethod::Klu: return SolveMethod::Klu;
    default: return SolveMethod::Umfpack;
  }
}

DirectMethod direct_method_of(SolveMethod m) noexcept {
  switch (m) {
    case SolveMethod::Cholmod: return DirectMethod::Cholmod;
    case SolveMethod::Klu: return DirectMethod::Klu;
    case SolveMethod::Umfpack: return DirectMethod::Umfpack;
    default: return DirectMethod::Auto;
  }
}

template <class T>
std::unique_ptr<Link<T>> make_link(SolveMethod m, Device device, Shared<T>& s,
                                   std::function<void(int, double)> progress) {
  const SolveOptions& o = s.options;
  const auto krylov = [&](KrylovPreset p) { return krylov_for(p, device, o, s.features, progress); };
  switch (m) {
    case SolveMethod::Cg: return std::make_unique<KrylovLink<T>>(s.A, krylov(KrylovPreset::Cg));
    case SolveMethod::PcgJacobi: return std::make_unique<KrylovLink<T>>(s.A, krylov(KrylovPreset::PcgJacobi));
    case SolveMethod::PcgChebyshev:
      return std::make_unique<KrylovLink<T>>(s.A, krylov(KrylovPreset::PcgChebyshev));
    case SolveMethod::PcgIc0: return std::make_unique<KrylovLink<T>>(s.A, krylov(KrylovPreset::PcgIc0));
    case SolveMethod::DbBiCgStab2Ilu0: {
      KrylovOptions k = krylov(KrylovPreset::BiCgStab2Ilu0);
      k.check_symmetry = false;
      return std::make_unique<MappedLink<T, KrylovSolver<T>>>(s.boosted_system(device), k);
    }
    case SolveMethod::SapD:
    case SolveMethod::SapC:
    case SolveMethod::SapLu:
      return std::make_unique<MappedLink<T, SparseSapSolver<T>>>(s.banded_system(device), sap_for(m, device, o, progress));
    case SolveMethod::DirectQr: return std::make_unique<QrLink<T>>(s.A, o);
    case SolveMethod::Umfpack:
    case SolveMethod::Cholmod:
    case SolveMethod::Klu:
    case SolveMethod::Auto: return make_direct(m, s);
  }
  throw Error("internal: no link for this method");
}

#define BALSA_INSTANTIATE(T)                                                                                   \
  template struct Shared<T>;                                                                                   \
  template class Link<T>;                                                                                      \
  template std::unique_ptr<Link<T>> make_link(SolveMethod, Device, Shared<T>&, std::function<void(int, double)>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::solve_detail
