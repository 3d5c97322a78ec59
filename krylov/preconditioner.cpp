// The preconditioners of the Krylov solvers (krylov/preconditioner.hpp):
// Jacobi, and ILU(0)/IC(0) applied as two triangular solves (Picciau's thesis
// sec. 5.1.1: z = M^{-1} r with M = M_L M_R), optionally in float inside a
// double iteration (mixed precision).
//
// The factor values reach the triangular solvers without leaving the device:
// IncompleteFactorization keeps them on the GPU, and a refactor gathers them
// into the L and U value orders there (trsv_gpu::gather_device) and hands them
// to TriangularSolver::update_values(DeviceBuffer) (which stays on the device
// for sync-free-blocks and cuSPARSE; the other algorithms copy through the
// host). Only the constructor takes one host copy of the first factors, for
// the solvers' analysis.
#include <algorithm>
#include <type_traits>

#include "krylov/preconditioner.hpp"
#include "krylov/preconditioner_kernels.hpp"
#include "sparse/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/off_diagonal.hpp"

namespace balsa::krylov {

namespace {

template <class To, class From>
std::vector<To> converted(std::span<const From> v) {
  return std::vector<To>(v.begin(), v.end());
}

// z = D^{-1} r, D = diag(A) (every diagonal entry must be nonzero).
template <class T>
class Jacobi final : public Preconditioner<T> {
 public:
  Jacobi(const Csr<T>& A, Device device) : A_(A), device_(device) { set(A.values); }
  void apply(std::span<const T> r, std::span<T> z) override {
    for (std::size_t i = 0; i < r.size(); ++i) z[i] = r[i] * inv_[i];
  }
  void apply_device(const T* r, T* z) override { device::scale(r, dinv_.data(), z, inv_.size()); }
  void update_values(std::span<const T> values) override { set(values); }
  void describe(KrylovStats&) const override {}

 private:
  void set(std::span<const T> values) {
    A_.values.assign(values.begin(), values.end());
    require_nonzero_diagonal(A_);  // names the row
    const std::vector<T> d = diagonal(A_);
    inv_.resize(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) inv_[i] = T(1) / d[i];
    if (device_ == Device::Cuda) dinv_ = cuda::DeviceBuffer<T>(std::span<const T>(inv_));
  }
  Csr<T> A_;
  Device device_;
  std::vector<T> inv_;
  cuda::DeviceBuffer<T> dinv_;
};

// ILU(0) (M = L U, L unit lower) or IC(0) (M = L L^T), factored and applied in
// precision P (T, or float inside a double iteration).
template <class T, class P>
class Incomplete final : public Preconditioner<T> {
 public:
  Incomplete(const Csr<T>& A, const KrylovOptions& o) : device_(o.device) {
    IncompleteOptions fo = o.factor;
    fo.kind = o.preconditioner == PreconditionerKind::Ic0 ? IncompleteKind::Ic0 : IncompleteKind::Ilu0;
    fo.device = o.device;
    fac_ = std::make_unique<IncompleteFactorization<P>>(convert_values<P>(A), fo);
    const Csr<P> F = fac_->factors();  // the one host copy: the solvers' analysis
    const TrsvAlgorithm alg = o.trsv;
    if (fo.kind == IncompleteKind::Ilu0) {
      // L: the strictly lower entries, unit diagonal (the stored U diagonal is
      // ignored); U: the diagonal and above.
      lower_pos_ = positions(F, Triangle::Lower);
      upper_pos_ = positions(F, Triangle::Upper);
      L_ = std::make_unique<TriangularSolver<P>>(
          extract_triangle(F, Triangle::Lower),
          TrsvOptions{.algorithm = alg, .device = o.device, .triangle = Triangle::Lower, .diagonal = DiagonalKind::Unit});
      U_ = std::make_unique<TriangularSolver<P>>(
          extract_triangle(F, Triangle::Upper),
          TrsvOptions{.algorithm = alg, .device = o.device, .triangle = Triangle::Upper});
    } else {
      L_ = std::make_unique<TriangularSolver<P>>(F, TrsvOptions{.algorithm = alg, .device = o.device});
      U_ = std::make_unique<TriangularSolver<P>>(
          F, TrsvOptions{.algorithm = alg, .device = o.device, .operation = Operation::Transpose});
    }
    const std::size_t n = std::size_t(A.rows);
    y_host_.resize(n);
    if (device_ == Device::Cuda) {
      y_ = cuda::DeviceBuffer<P>(n);
      if constexpr (!std::is_same_v<T, P>) {
        r_ = cuda::DeviceBuffer<P>(n);
        z_ = cuda::DeviceBuffer<P>(n);
      }
      if (!lower_pos_.empty()) {
        dlower_pos_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(lower_pos_));
        dupper_pos_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(upper_pos_));
        dlower_ = cuda::DeviceBuffer<P>(lower_pos_.size());
        dupper_ = cuda::DeviceBuffer<P>(upper_pos_.size());
      }
    }
  }

  void apply(std::span<const T> r, std::span<T> z) override {
    if constexpr (std::is_same_v<T, P>) {
      L_->solve(r, std::span<P>(y_host_));
      U_->solve(std::span<const P>(y_host_), z);
    } else {
      const std::vector<P> rp = converted<P>(r);
      std::vector<P> zp(z.size());
      L_->solve(std::span<const P>(rp), std::span<P>(y_host_));
      U_->solve(std::span<const P>(y_host_), std::span<P>(zp));
      std::copy(zp.begin(), zp.end(), z.begin());
    }
  }

  void apply_device(const T* r, T* z) override {
    const std::size_t n = y_.size();
    if constexpr (std::is_same_v<T, P>) {
      solve_device(*L_, r, y_.data());
      solve_device(*U_, y_.data(), z);
    } else {
      device::convert(r, r_.data(), n);
      solve_device(*L_, r_.data(), y_.data());
      solve_device(*U_, y_.data(), z_.data());
      device::convert(z_.data(), z, n);
    }
  }

  void update_values(std::span<const T> values) override {
    const std::vector<P> v = converted<P>(values);
    fac_->refactor(std::span<const P>(v));
    push_factors();
  }

  void describe(KrylovStats& st) const override {
    st.factor = fac_->stats();
    st.factor_seconds = fac_->stats().factor_seconds;
    st.lower = L_->stats();
    st.upper = U_->stats();
  }

 private:
  // Positions in F's values of the entries of extract_triangle(F, tri).
  static std::vector<index_t> positions(const Csr<P>& F, Triangle tri) {
    std::vector<index_t> pos;
    for (index_t i = 0; i < F.rows; ++i)
      for (index_t p = F.row_ptr[i]; p < F.row_ptr[i + 1]; ++p)
        if (tri == Triangle::Lower ? F.col_idx[p] <= i : F.col_idx[p] >= i) pos.push_back(p);
    return pos;
  }
  static void solve_device(TriangularSolver<P>& S, const P* b, P* x) { S.solve_device(b, x); }

  // New factor values into the triangular solvers: on the device, gathers
  // and device updates (no host round trip); on the CPU, host gathers.
  void push_factors() {
    if (device_ == Device::Cuda) {
      const cuda::DeviceBuffer<P>& F = fac_->device_values();
      if (lower_pos_.empty()) {  // IC(0): both solvers take L's values as they are
        L_->update_values(F);
        U_->update_values(F);
      } else {
        trsv_gpu::gather_device(dlower_pos_.data(), F.data(), dlower_.data(), dlower_.size());
        trsv_gpu::gather_device(dupper_pos_.data(), F.data(), dupper_.data(), dupper_.size());
        L_->update_values(dlower_);
        U_->update_values(dupper_);
      }
      return;
    }
    const Csr<P>& F = fac_->pattern();
    if (lower_pos_.empty()) {
      L_->update_values(std::span<const P>(F.values));
      U_->update_values(std::span<const P>(F.values));
      return;
    }
    std::vector<P> part;
    trsv_gpu::detail::gather_positions(std::span<const index_t>(lower_pos_), std::span<const P>(F.values), part);
    L_->update_values(std::span<const P>(part));
    trsv_gpu::detail::gather_positions(std::span<const index_t>(upper_pos_), std::span<const P>(F.values), part);
    U_->update_values(std::span<const P>(part));
  }

  Device device_;
  std::unique_ptr<IncompleteFactorization<P>> fac_;
  std::unique_ptr<TriangularSolver<P>> L_, U_;
  std::vector<index_t> lower_pos_, upper_pos_;  // ILU(0): L's and U's entries in the factor pattern
  std::vector<P> y_host_;
  cuda::DeviceBuffer<P> y_, r_, z_;  // intermediate; mixed precision: r and z in P
  cuda::DeviceBuffer<index_t> dlower_pos_, dupper_pos_;
  cuda::DeviceBuffer<P> dlower_, dupper_;
};

}  // namespace

template <class T>
std::unique_ptr<Preconditioner<T>> make_preconditioner(const Csr<T>& A, const KrylovOptions& o) {
  switch (o.preconditioner) {
    case PreconditionerKind::None: return nullptr;
    case PreconditionerKind::Jacobi: return std::make_unique<Jacobi<T>>(A, o.device);
    case PreconditionerKind::Ilu0:
    case PreconditionerKind::Ic0:
      if constexpr (std::is_same_v<T, double>)
        if (o.float_preconditioner) return std::make_unique<Incomplete<double, float>>(A, o);
      if (o.float_preconditioner)
        throw Error("Krylov solver: float_preconditioner needs a double iteration (T = double)");
      return std::make_unique<Incomplete<T, T>>(A, o);
  }
  throw Error("Krylov solver: unknown preconditioner");
}

#define BALSA_INSTANTIATE(T) \
  template std::unique_ptr<Preconditioner<T>> make_preconditioner(const Csr<T>&, const KrylovOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov
