// Internal: the preconditioner interface of the Krylov solvers (z = M^{-1} r)
// and its factory. The solvers (krylov/*) see only this; the
// implementations (none, Jacobi, ILU(0)/IC(0) through balsa's triangular
// solvers, later SaP) live in krylov/preconditioner*.{cpp,cu}.
#pragma once

#include <memory>
#include <span>

#include "balsa/krylov.hpp"

namespace balsa::krylov {

template <class T>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // CPU path: z = M^{-1} r on host vectors (r and z do not alias).
  virtual void apply(std::span<const T> r, std::span<T> z) = 0;
  // GPU path: the same on device arrays of rows() values, asynchronous on
  // the legacy default stream, no host synchronisation (r and z do not alias).
  virtual void apply_device(const T* r, T* z) = 0;
  // New values of A (A's CSR order): refactor.
  virtual void update_values(std::span<const T> A_values) = 0;
  // Setup stats (factorisation, triangular solvers, times) into `stats`.
  virtual void describe(KrylovStats& stats) const = 0;
};

// The preconditioner options.preconditioner names, for options.device, set
// up for A (already checked canonical, square and finite by the caller: the
// IC(0)/ILU(0) set-up does not check it again); nullptr for
// PreconditionerKind::None (the solvers then take z = r).
template <class T>
std::unique_ptr<Preconditioner<T>> make_preconditioner(const Csr<T>& A, const KrylovOptions& options);

}  // namespace balsa::krylov
