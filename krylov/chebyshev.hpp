// Internal: the Chebyshev polynomial preconditioner of the Krylov solvers
// (PreconditionerKind::Chebyshev, include/balsa/krylov.hpp):
//   M^{-1} r = z_{m+1}, the Chebyshev iteration (Saad, "Iterative Methods for
//   Sparse Linear Systems", 2nd ed., Alg. 12.1) on A z = r, Jacobi-scaled,
//   from z_0 = 0 over m = degree products with A, written as the three-term
//   recurrence
//     z_1     = (first / b) D^{-1} r
//     z_{k+1} = z_k + alpha_k (z_k - z_{k-1}) + (gamma_k / b) D^{-1} (r - A z_k)
//   for the interval [b / ratio, b] of D^{-1} A's spectrum, b Gershgorin's
//   bound max_i sum_j |a_ij| / a_ii. The coefficients depend only on the
//   ratio and k; b scales them, so the GPU path reads b from device memory
//   and never waits for it.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "balsa/krylov.hpp"
#include "krylov/chebyshev_kernels.hpp"
#include "krylov/preconditioner.hpp"

namespace balsa::krylov {

// The recurrence's coefficients for b = 1 (alpha[k - 1], gamma[k - 1]: step k).
struct ChebyshevSteps {
  double first = 0.0;
  std::vector<double> alpha, gamma;
};
// Throws balsa::Error for a degree outside 0..64 or a ratio not above 1 (or not finite).
ChebyshevSteps chebyshev_steps(const ChebyshevOptions& options);

// The host reference of device::chebyshev_scaling: dinv[i] = P(1 / a_ii) and
// returns b (the bound) with the first bad row in `problem` (then dinv and b
// are not usable).
template <class T, class P>
double chebyshev_scaling(const Csr<T>& A, std::span<const T> values, std::span<P> dinv,
                         device::DiagonalProblem& problem);

// A MatrixError naming the row and the fault (row in the solver's numbering).
[[noreturn]] void throw_diagonal_problem(const device::DiagonalProblem& p);

// The preconditioner for A (checked by the caller) on options.device, in
// options.float_preconditioner's precision. On Device::Cuda it comes back
// waiting for A's device copy (awaits_values(): use_device_matrix, then
// update_values_device) and reads nothing of A's values on the host.
template <class T>
std::unique_ptr<Preconditioner<T>> make_chebyshev(const Csr<T>& A, const KrylovOptions& options);

}  // namespace balsa::krylov
