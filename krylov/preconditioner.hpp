// Internal: the preconditioner interface of the Krylov solvers (z = M^{-1} r)
// and its factory. The solvers (krylov/*) see only this; the
// implementations (none, Jacobi, ILU(0)/IC(0) through balsa's triangular
// solvers, later SaP) live in krylov/preconditioner*.{cpp,cu}.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/krylov.hpp"
#include "krylov/operator.hpp"

namespace balsa::krylov {

template <class T>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // CPU path: z = M^{-1} r on host vectors (r and z do not alias).
  virtual void apply(std::span<const T> r, std::span<T> z) = 0;
  // GPU path: the same on device arrays of rows() values, asynchronous on
  // the current stream (the Krylov solver's, cuda/stream.hpp), no host
  // synchronisation (r and z do not alias).
  virtual void apply_device(const T* r, T* z) = 0;
  // The same, but a no-op on the device once *stopped != 0 (a device int:
  // the Krylov status's stop code, see krylov/gpu_method.cuh). A
  // preconditioner whose application is expensive (SaP) reads it in its
  // kernels; the default ignores it.
  virtual void apply_device_unless(const T* r, T* z, const int* /*stopped*/) { apply_device(r, z); }
  // New values of A (A's CSR order): refactor.
  virtual void update_values(std::span<const T> A_values) = 0;
  // The same from A's values on the device (GPU path): without a host round
  // trip where the preconditioner can (ILU(0)/IC(0)), else through the host.
  virtual void update_values_device(const cuda::DeviceBuffer<T>& A_values) {
    const std::vector<T> host = A_values.to_host();
    update_values(std::span<const T>(host));
  }
  // True while the preconditioner is set up from A's pattern only (the GPU
  // path of ILU(0)/IC(0): A's values are uploaded beside the analysis): the
  // caller then owes it one update_values_device before any apply or
  // describe.
  virtual bool awaits_values() const { return false; }
  // GPU path: A's device copy (the Krylov solver's, which outlives the
  // preconditioner's applications), given before update_values_device to a
  // preconditioner that multiplies by A itself (Chebyshev); others ignore it.
  virtual void use_device_matrix(const cuda::DeviceCsr<T>& /*A*/) {}
  // Setup stats (factorisation, triangular solvers, times) into `stats`.
  virtual void describe(KrylovStats& stats) const = 0;
};

// A user's preconditioner (balsa::LinearOperator, a copy of it) applied as
// z = M r (M approximates A^{-1}, SciPy's convention); its callbacks run
// through call_user (krylov/operator.hpp). Nothing to refactor: update_values
// refuses.
template <class T>
class UserPreconditioner final : public Preconditioner<T> {
 public:
  explicit UserPreconditioner(const LinearOperator<T>& M) : M_(M) {}
  void apply(std::span<const T> r, std::span<T> z) override { call_user(M_.apply, r, z); }
  void apply_device(const T* r, T* z) override { call_user(M_.apply_device, r, z, user_stream()); }
  void update_values(std::span<const T>) override {
    throw Error("Krylov solver update_values: not available with a user preconditioner M (build a new solver)");
  }
  void describe(KrylovStats&) const override {}

 private:
  const LinearOperator<T> M_;
};

// The preconditioner options.preconditioner names, for options.device, set
// up for A (already checked canonical, square and finite by the caller: the
// IC(0)/ILU(0) set-up does not check it again); nullptr for
// PreconditionerKind::None (the solvers then take z = r). On Device::Cuda an
// ILU(0)/IC(0) preconditioner in A's precision comes back analysed but not
// factored (awaits_values()): apply and describe throw until
// update_values_device.
template <class T>
std::unique_ptr<Preconditioner<T>> make_preconditioner(const Csr<T>& A, const KrylovOptions& options);

}  // namespace balsa::krylov
