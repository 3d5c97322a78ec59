// Internal: the Chebyshev polynomial preconditioner of the Krylov solvers
// (PreconditionerKind::Chebyshev, include/balsa/krylov.hpp):
//   M^{-1} r = z_{m+1}, the Chebyshev iteration (Saad, "Iterative Methods for
//   Sparse Linear Systems", 2nd ed., Alg. 12.1) on A z = r, Jacobi-scaled,
//   from z_0 = 0 over m = degree products with A, written as the three-term
//   recurrence
//     z_1     = (first / b) D^{-1} r
//     z_{k+1} = z_k + alpha_k (z_k - z_{k-1}) + (gamma_k / b) D^{-1} (r - A z_k)
//   for the interval [a, b] of D^{-1} A's spectrum: b Gershgorin's upper
//   bound max_i sum_j |a_ij| / a_ii, a the larger of b / ratio and
//   Gershgorin's lower bound (positive when every row is strictly
//   diagonally dominant: then the interval holds the whole spectrum and a
//   well-conditioned A needs one or two iterations).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "balsa/krylov.hpp"
#include "krylov/chebyshev_kernels.hpp"
#include "krylov/preconditioner.hpp"

namespace balsa::krylov {

// Throws balsa::Error for a degree outside 0..64 or a ratio not above 1 (or not finite).
void check_chebyshev_options(const ChebyshevOptions& options);

// The recurrence's coefficients for D^{-1} A's Gershgorin interval
// (alpha[k - 1], gamma[k - 1]: step k), and the interval [a, b] they target.
struct ChebyshevSteps {
  double a = 0.0, b = 0.0;
  double first = 0.0;
  std::vector<double> alpha, gamma;
};
// options as check_chebyshev_options accepts them (the preconditioner checks them once, when built).
ChebyshevSteps chebyshev_steps(const ChebyshevOptions& options, const device::Spectrum& spectrum);

// The host reference of device::chebyshev_scaling: dinv[i] = P(1 / a_ii),
// the interval and the first bad row (then dinv and the interval are not
// usable), for the pattern (row_ptr, col_idx) with these values.
template <class T, class P>
device::Scaling chebyshev_scaling(std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                  std::span<const T> values, std::span<P> dinv);
// The same for A's pattern.
template <class T, class P>
device::Scaling chebyshev_scaling(const Csr<T>& A, std::span<const T> values, std::span<P> dinv) {
  return chebyshev_scaling<T, P>(std::span<const index_t>(A.row_ptr), std::span<const index_t>(A.col_idx), values,
                                 dinv);
}

// A MatrixError naming the row and the fault (row in the solver's numbering)
// for the preconditioner `who` ("Chebyshev", "Jacobi").
[[noreturn]] void throw_diagonal_problem(const device::DiagonalProblem& p, const char* who = "Chebyshev");

// The preconditioner for A (checked by the caller) on options.device, in
// options.float_preconditioner's precision. On Device::Cuda it comes back
// waiting for A's device copy (awaits_values(): use_device_matrix, then
// update_values_device) and reads nothing of A's values on the host.
template <class T>
std::unique_ptr<Preconditioner<T>> make_chebyshev(const Csr<T>& A, const KrylovOptions& options);

// The preconditioners a matrix that is only on the device can have
// (KrylovSolver's device constructor): Chebyshev and Jacobi, set up from A's
// device arrays (which must outlive it), scaling and checks by kernels;
// nullptr for None. The others need a host analysis: an Error saying so.
template <class T>
std::unique_ptr<Preconditioner<T>> make_device_preconditioner(const cuda::DeviceCsr<T>& A, const KrylovOptions& options);

}  // namespace balsa::krylov
