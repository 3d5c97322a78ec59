// The CPU SaP preconditioners (sap/preconditioner.hpp): SaP-D and SaP-C set
// up and applied with the reference steps of sap/steps_cpu.cpp, in precision P.
#include <algorithm>
#include <chrono>

#include "sap/steps_cpu.hpp"
#include "core/instantiate.hpp"
#include "core/clock.hpp"

namespace balsa::sap {

namespace {

template <class T, class P>
class HostSap final : public SapPreconditioner<T> {
 public:
  HostSap(const Banded<T>& A, const Plan& plan) : SapPreconditioner<T>(plan) { factor(A); }

  // z = M^{-1} r: g = D^{-1} r; SaP-C then solves D again with r corrected
  // by the truncated coupling (eq. 9-10).
  void apply(std::span<const T> r, std::span<T> z) override {
    const std::size_t n = r.size();
    g_.assign(r.begin(), r.end());
    solve_blocks(lu_, blocks_, g_.data());
    if (plan_.variant == SapVariant::Coupled && c_.count > 0) {
      w_.assign(r.begin(), r.end());
      coupling_corrections(c_, blocks_, g_.data(), w_.data());
      solve_blocks(lu_, blocks_, w_.data());
      for (std::size_t i = 0; i < n; ++i) z[i] = T(w_[i]);
    } else {
      for (std::size_t i = 0; i < n; ++i) z[i] = T(g_[i]);
    }
  }
  void apply_device(const T*, T*) override { throw Error("internal: the CPU SaP preconditioner has no device path"); }
  void update_values(std::span<const T> values) override {
    Banded<T> A;
    A.n = plan_.n;
    A.k = plan_.k;
    A.data.assign(values.begin(), values.end());
    factor(A);
  }

 private:
  void factor(const Banded<T>& A) {
    SetupReport& rep = this->report_;
    rep = {};
    // The steps in the GPU path's order (sap/gpu_preconditioner.cu): the
    // coupling blocks come from A's copy in P before it is factored in place.
    auto t0 = Clock::now();
    Banded<P> lu = convert_values<P>(A);
    Banded<P> ul;
    Interfaces<P> c;
    Blocks blocks = plan_.blocks;
    blocks.bandwidths = block_bandwidths(lu, blocks);  // of the values factored (in P)
    const BandwidthRange range = bandwidth_range(blocks.bandwidths);
    rep.min_bandwidth = range.min;
    rep.max_bandwidth = range.max;
    const bool coupled = plan_.variant == SapVariant::Coupled && blocks.count() > 1;
    if (coupled) {
      coupling_blocks(lu, blocks, c);
      rep.t_bc = seconds_since(t0);
      t0 = Clock::now();
      ul = lu;
      reverse_blocks(ul, blocks);
    }
    rep.boosted_pivots = factor_blocks(lu, blocks, plan_.boost, false);
    if (coupled) rep.boosted_pivots += factor_blocks(ul, blocks, plan_.boost, true);
    rep.t_lu = seconds_since(t0);
    if (coupled) {
      t0 = Clock::now();
      truncated_spikes(lu, ul, blocks, c);
      rep.t_spk = seconds_since(t0);
      t0 = Clock::now();
      reduced_systems(c);
      rep.t_lu_rdcd = seconds_since(t0);
    }
    lu_ = std::move(lu);  // only now: a failed refactor keeps the old factors
    c_ = std::move(c);
    blocks_ = std::move(blocks);
  }

  using SapPreconditioner<T>::plan_;
  Banded<P> lu_;
  Interfaces<P> c_;
  Blocks blocks_;  // with the bandwidths of lu_'s blocks
  std::vector<P> g_, w_;
};
}  // namespace

template <class T, class P>
std::unique_ptr<SapPreconditioner<T>> make_host_preconditioner(const Banded<T>& A, const Plan& plan) {
  return std::make_unique<HostSap<T, P>>(A, plan);
}

template std::unique_ptr<SapPreconditioner<float>> make_host_preconditioner<float, float>(const Banded<float>&, const Plan&);
template std::unique_ptr<SapPreconditioner<double>> make_host_preconditioner<double, double>(const Banded<double>&,
                                                                                             const Plan&);
template std::unique_ptr<SapPreconditioner<double>> make_host_preconditioner<double, float>(const Banded<double>&,
                                                                                            const Plan&);

std::size_t device_bytes_needed(const Plan& plan, std::size_t t_size, std::size_t p_size) {
  const std::size_t band = std::size_t(plan.n) * std::size_t(2 * std::int64_t(plan.k) + 1);
  const bool coupled = plan.variant == SapVariant::Coupled && plan.blocks.count() > 1;
  const std::size_t interfaces = coupled ? std::size_t(plan.blocks.count() - 1) * plan.k * plan.k : 0;
  // At the peak: A's band, the LU, and either the UL (SaP-C's set-up frees
  // it) or A's diagonals for the products (made after the set-up).
  std::size_t bytes = band * t_size + band * p_size;
  bytes += band * std::max(t_size, coupled ? p_size : std::size_t(0));
  bytes += interfaces * p_size * 7;               // B, C, V, W, R and two k x k work blocks
  bytes += std::size_t(plan.n) * (12 * t_size + 3 * p_size);  // Krylov (BiCGStab(2)) and apply vectors
  return bytes;
}

}  // namespace balsa::sap
