// The Chebyshev polynomial preconditioner (krylov/chebyshev.hpp): the host
// reference (apply) and the GPU path (apply_device, krylov/chebyshev_kernels.cu).
#include "krylov/chebyshev.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "krylov/preconditioner_kernels.hpp"

namespace balsa::krylov {

void check_chebyshev_options(const ChebyshevOptions& o) {
  if (o.degree < 0 || o.degree > 64)
    throw Error("Chebyshev preconditioner: degree must be 0..64, got " + std::to_string(o.degree));
  if (!std::isfinite(o.ratio) || !(o.ratio > 1.0))
    throw Error("Chebyshev preconditioner: ratio must be a finite number above 1, got " + std::to_string(o.ratio));
}

ChebyshevSteps chebyshev_steps(const ChebyshevOptions& o, const device::Spectrum& spectrum) {
  ChebyshevSteps s;
  s.b = spectrum.upper;
  s.a = std::min(s.b, std::max(s.b / o.ratio, spectrum.lower));
  // Alg. 12.1: theta = (b + a) / 2, delta = (b - a) / 2 (kept off 0 for a
  // one-point interval, D^{-1} A = I), sigma = theta / delta.
  const double theta = (s.b + s.a) / 2, delta = std::max((s.b - s.a) / 2, 1e-8 * s.b), sigma = theta / delta;
  s.first = 1.0 / theta;
  double rho = 1.0 / sigma;
  for (int k = 1; k <= o.degree; ++k) {
    const double next = 1.0 / (2 * sigma - rho);
    s.alpha.push_back(next * rho);
    s.gamma.push_back(2 * next / delta);
    rho = next;
  }
  return s;
}

template <class T, class P>
device::Scaling chebyshev_scaling(std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                  std::span<const T> values, std::span<P> dinv) {
  const index_t n = row_ptr.empty() ? 0 : index_t(row_ptr.size() - 1);
  std::int64_t first_key = std::int64_t(n) * 4;  // row * 4 + fault of the first bad row, as the kernel orders them
  double upper = 0, lower = n ? INFINITY : 0.0;
#pragma omp parallel for reduction(max : upper) reduction(min : lower, first_key) schedule(static) \
    if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i) {
    double sum = 0, diagonal = 0;
    bool has_diagonal = false, finite = true;
    for (index_t k = row_ptr[std::size_t(i)]; k < row_ptr[std::size_t(i) + 1]; ++k) {
      const double v = double(values[std::size_t(k)]);
      finite = finite && std::isfinite(v);
      sum += std::fabs(v);
      if (col_idx[std::size_t(k)] == i) {
        diagonal = v;
        has_diagonal = true;
      }
    }
    auto fault = device::DiagonalFault::None;
    if (!finite)
      fault = device::DiagonalFault::NotFinite;
    else if (!has_diagonal)
      fault = device::DiagonalFault::Missing;
    else if (!(diagonal > 0))
      fault = device::DiagonalFault::NotPositive;
    if (fault != device::DiagonalFault::None) {
      first_key = std::min(first_key, std::int64_t(i) * 4 + int(fault));
      continue;
    }
    dinv[std::size_t(i)] = P(1.0 / diagonal);
    const double ratio = sum / diagonal;
    upper = std::max(upper, ratio);
    lower = std::min(lower, std::max(0.0, 2.0 - ratio));
  }
  if (first_key < std::int64_t(n) * 4)
    return {{index_t(first_key / 4), device::DiagonalFault(int(first_key % 4))}, {}};
  return {{}, {lower, upper}};
}

void throw_diagonal_problem(const device::DiagonalProblem& p, const char* who) {
  const std::string row = "row " + std::to_string(p.row), w = std::string(who) + " preconditioner: ";
  switch (p.fault) {
    case device::DiagonalFault::NotFinite:
      throw MatrixError(w + "NaN or Inf among the values of " + row);
    case device::DiagonalFault::Missing:
      throw MatrixError(w + row + " has no diagonal entry (it scales by D^{-1})");
    default:
      throw MatrixError(w + "the diagonal entry of " + row +
                        " is not positive (it needs D^{-1} A's eigenvalues positive: is A SPD? Use ilu0)");
  }
}

namespace {

// Lanes per row of the fused step: the power of two at most A's mean row
// length, 1..32. On the H200 (3D Laplacian 100^3, 6.94 entries a row) this
// (4 lanes, plain loads) took 50 us a step, against 77 us with 8 lanes and
// __ldg loads (bench/results/2026-11-29-setup-chebyshev-h200-run1-solve-lap3d-double.md
// and ...-run2-solve-lap3d.md: the preconditioner's time per iteration over 7).
int lanes_for_rows(index_t rows, std::int64_t nnz) {
  const double mean = rows ? double(nnz) / double(rows) : 1.0;
  int lanes = 1;
  while (lanes < 32 && 2 * lanes <= mean) lanes *= 2;
  return lanes;
}

// z = M^{-1} r with the recurrence in precision P (T, or float inside a
// double iteration).
template <class T, class P>
class Chebyshev final : public Preconditioner<T> {
 public:
  Chebyshev(const Csr<T>& A, const KrylovOptions& o) : Chebyshev(A.rows, A.nnz(), o) {
    if (device_ == Device::Cuda) return;  // A's device copy comes through use_device_matrix
    A_ = Csr<P>{A.rows, A.cols, A.row_ptr, A.col_idx, {}};
    set_host(std::span<const T>(A.values));
  }
  // The GPU path from A's sizes alone (awaits use_device_matrix and update_values_device).
  Chebyshev(index_t rows, std::int64_t nnz, const KrylovOptions& o)
      : device_(o.device), options_(o.chebyshev), lanes_(lanes_for_rows(rows, nnz)) {
    check_chebyshev_options(options_);
    awaits_ = device_ == Device::Cuda;
  }

  void apply(std::span<const T> r, std::span<T> z) override {
    if (device_ == Device::Cuda) throw Error("internal: host apply of a GPU Chebyshev preconditioner");
    const std::int64_t n = std::int64_t(r.size());
    for (std::vector<P>* v : {&r_host_, &w0_host_, &w1_host_, &z_host_}) v->resize(r.size());
    std::copy(r.begin(), r.end(), r_host_.begin());
    const P s = P(steps_.first);
    P* first = degree() ? w0_host_.data() : z_host_.data();
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
    for (std::int64_t i = 0; i < n; ++i) first[i] = s * dinv_host_[std::size_t(i)] * r_host_[std::size_t(i)];
    P *cur = first, *prev = nullptr;
    for (int k = 1; k <= degree(); ++k) {  // the device path's buffer rotation
      P* dst = k == degree() ? z_host_.data() : (prev ? prev : w1_host_.data());
      host_step(k, r_host_.data(), cur, prev, dst);
      prev = cur;
      cur = dst;
    }
    std::copy(z_host_.begin(), z_host_.end(), z.begin());
  }

  void apply_device(const T* r, T* z) override { apply_device_unless(r, z, nullptr); }
  void apply_device_unless(const T* r, T* z, const int* stopped) override {
    require_values();
    const index_t n = view_.n;
    const P* rp;
    P* zp;
    if constexpr (std::is_same_v<T, P>) {
      rp = r;
      zp = z;
    } else {
      device::convert(r, r_.data(), std::size_t(n));
      rp = r_.data();
      zp = z_.data();
    }
    P* first = degree() ? w0_.data() : zp;
    device::chebyshev_first(n, dinv_.data(), steps_.first, rp, first, stopped);
    const P *cur = first, *prev = nullptr;
    for (int k = 1; k <= degree(); ++k) {
      P* dst = k == degree() ? zp : (prev ? const_cast<P*>(prev) : w1_.data());
      device::chebyshev_step(view_, lanes_, dinv_.data(), steps_.alpha[std::size_t(k - 1)],
                             steps_.gamma[std::size_t(k - 1)], rp, cur, prev, dst, stopped);
      prev = cur;
      cur = dst;
    }
    if constexpr (!std::is_same_v<T, P>) device::convert(static_cast<const P*>(zp), z, std::size_t(n));
  }

  // New values of A (A's CSR order, checked finite). CPU: the scaling and
  // the interval on the host; GPU: uploaded once and taken as device values.
  void update_values(std::span<const T> values) override {
    if (device_ != Device::Cuda) return set_host(values);
    update_values_device(cuda::DeviceBuffer<T>(values));
  }
  // From A's device values: the scaling by the kernel, only the interval
  // (two numbers) to the host. Into fresh buffers, swapped in on success: an
  // error keeps the old scaling (and, in mixed precision, the old float values).
  void update_values_device(const cuda::DeviceBuffer<T>& values) override {
    if (device_ != Device::Cuda) return Preconditioner<T>::update_values_device(values);
    cuda::DeviceBuffer<P> dinv(std::size_t(view_.n)), values_p;
    if constexpr (!std::is_same_v<T, P>) {
      values_p = cuda::DeviceBuffer<P>(values.size());
      device::convert(values.data(), values_p.data(), values.size());
    }
    const device::Scaling got =
        device::chebyshev_scaling<T, P>(view_.n, view_.row_ptr, view_.col_idx, values.data(), dinv.data());
    if (got.problem.row >= 0) throw_diagonal_problem(got.problem);
    steps_ = chebyshev_steps(options_, got.spectrum);
    dinv_ = std::move(dinv);
    if constexpr (!std::is_same_v<T, P>) {
      values_p_ = std::move(values_p);
      view_.values = values_p_.data();
    }
    awaits_ = false;
  }
  bool awaits_values() const override { return awaits_; }

  void use_device_matrix(const cuda::DeviceCsr<T>& A) override {
    const std::size_t n = std::size_t(A.rows);
    view_ = {A.rows, A.row_ptr.data(), A.col_idx.data(), nullptr};  // mixed: the float copy's, once made
    if constexpr (std::is_same_v<T, P>) {
      view_.values = A.values.data();
    } else {
      r_ = cuda::DeviceBuffer<P>(n);
      z_ = cuda::DeviceBuffer<P>(n);
    }
    w0_ = cuda::DeviceBuffer<P>(n);
    w1_ = cuda::DeviceBuffer<P>(n);
  }

  void describe(KrylovStats& st) const override {
    require_values();
    st.chebyshev_degree = degree();
    st.spectrum_lower = steps_.a;
    st.spectrum_bound = steps_.b;
  }

 private:
  int degree() const { return options_.degree; }
  void require_values() const {
    if (awaits_) throw Error("internal: the Chebyshev preconditioner has no values yet (update_values_device first)");
  }
  void set_host(std::span<const T> values) {
    std::vector<P> dinv(std::size_t(A_.rows));
    const device::Scaling got = chebyshev_scaling<T, P>(std::span<const index_t>(A_.row_ptr),
                                                        std::span<const index_t>(A_.col_idx), values, std::span<P>(dinv));
    if (got.problem.row >= 0) throw_diagonal_problem(got.problem);
    steps_ = chebyshev_steps(options_, got.spectrum);
    A_.values.assign(values.begin(), values.end());
    dinv_host_ = std::move(dinv);
  }
  // dst = cur + alpha (cur - prev) + gamma D^{-1} (r - A cur) on the host.
  void host_step(int k, const P* r, const P* cur, const P* prev, P* dst) const {
    const P alpha = P(steps_.alpha[std::size_t(k - 1)]), g = P(steps_.gamma[std::size_t(k - 1)]);
    const index_t n = A_.rows;
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
    for (index_t i = 0; i < n; ++i) {
      P sum = 0;
      for (index_t q = A_.row_ptr[i]; q < A_.row_ptr[i + 1]; ++q)
        sum += A_.values[std::size_t(q)] * cur[A_.col_idx[std::size_t(q)]];
      const P p = prev ? prev[i] : P(0);
      dst[i] = cur[i] + alpha * (cur[i] - p) + g * dinv_host_[std::size_t(i)] * (r[i] - sum);
    }
  }

  Device device_;
  ChebyshevOptions options_;
  int lanes_;
  bool awaits_ = false;
  ChebyshevSteps steps_;
  Csr<P> A_;                                             // CPU path: A in P
  std::vector<P> dinv_host_;                             // CPU path
  std::vector<P> r_host_, w0_host_, w1_host_, z_host_;  // CPU path: work vectors
  device::CsrView<P> view_;                              // GPU path: A's device copy (values in P)
  cuda::DeviceBuffer<P> values_p_, dinv_, w0_, w1_, r_, z_;
};

// z = D^{-1} r for a matrix only on the device: the scaling (and its
// checks: a positive diagonal, finite values) by chebyshev_scaling's kernel.
template <class T>
class DeviceJacobi final : public Preconditioner<T> {
 public:
  explicit DeviceJacobi(const cuda::DeviceCsr<T>& A) : A_{A.rows, A.row_ptr.data(), A.col_idx.data(), nullptr} {
    update_values_device(A.values);
  }
  void apply(std::span<const T>, std::span<T>) override {
    throw Error("internal: host apply of a device-only Jacobi preconditioner");
  }
  void apply_device(const T* r, T* z) override { device::scale(r, dinv_.data(), z, dinv_.size()); }
  void update_values(std::span<const T> values) override { update_values_device(cuda::DeviceBuffer<T>(values)); }
  void update_values_device(const cuda::DeviceBuffer<T>& values) override {
    cuda::DeviceBuffer<T> dinv(std::size_t(A_.n));
    const device::Scaling got =
        device::chebyshev_scaling<T, T>(A_.n, A_.row_ptr, A_.col_idx, values.data(), dinv.data());
    if (got.problem.row >= 0) throw_diagonal_problem(got.problem, "Jacobi");
    dinv_ = std::move(dinv);
  }
  void describe(KrylovStats&) const override {}

 private:
  device::CsrView<T> A_;  // A's pattern on the device (the buffers keep their addresses when moved)
  cuda::DeviceBuffer<T> dinv_;
};

}  // namespace

template <class T>
std::unique_ptr<Preconditioner<T>> make_device_preconditioner(const cuda::DeviceCsr<T>& A, const KrylovOptions& o) {
  switch (o.preconditioner) {
    case PreconditionerKind::None: return nullptr;
    case PreconditionerKind::Jacobi: return std::make_unique<DeviceJacobi<T>>(A);
    case PreconditionerKind::Chebyshev: {
      if (o.float_preconditioner) throw Error("Krylov solver on a device matrix: float_preconditioner is not offered");
      auto M = std::make_unique<Chebyshev<T, T>>(A.rows, std::int64_t(A.nnz), o);
      M->use_device_matrix(A);
      M->update_values_device(A.values);
      return M;
    }
    default:
      throw Error(std::string("Krylov solver on a device matrix: the ") + to_string(o.preconditioner) +
                  " preconditioner needs a host analysis (use none, jacobi or chebyshev, or pass A as a host CSR)");
  }
}

template <class T>
std::unique_ptr<Preconditioner<T>> make_chebyshev(const Csr<T>& A, const KrylovOptions& o) {
  if constexpr (std::is_same_v<T, double>)
    if (o.float_preconditioner) return std::make_unique<Chebyshev<double, float>>(A, o);
  if (o.float_preconditioner) throw Error("Krylov solver: float_preconditioner needs a double iteration (T = double)");
  return std::make_unique<Chebyshev<T, T>>(A, o);
}

#define BALSA_INSTANTIATE(T)                                                                          \
  template device::Scaling chebyshev_scaling<T, T>(std::span<const index_t>, std::span<const index_t>,  \
                                                   std::span<const T>, std::span<T>);                  \
  template std::unique_ptr<Preconditioner<T>> make_chebyshev(const Csr<T>&, const KrylovOptions&);    \
  template std::unique_ptr<Preconditioner<T>> make_device_preconditioner(const cuda::DeviceCsr<T>&,  \
                                                                         const KrylovOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
template device::Scaling chebyshev_scaling<double, float>(std::span<const index_t>, std::span<const index_t>,
                                                          std::span<const double>, std::span<float>);

}  // namespace balsa::krylov
