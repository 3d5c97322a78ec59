// Internal: SaP's outer loop around its Krylov solve (BandedSolver and
// SparseSapSolver): restarts from the current x while a converged run's
// true residual still misses the tolerance (each restart starts from the
// true residual: iterative refinement of x in T).
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

#include "balsa/krylov.hpp"

namespace balsa::sap {

// The runs' iterations, products, times and histories summed; outcome,
// residuals and message of the last run. `restarts` receives their count.
// The target is the Krylov test's: ||b - A x||_2 <= max(tolerance ||b||_2,
// absolute_tolerance) (include/balsa/stopping.hpp).
template <class T>
KrylovStats solve_with_restarts(KrylovSolver<T>& krylov, std::span<const T> b, std::span<T> x,
                                const StoppingOptions& stopping, int max_restarts, int& restarts) {
  double bb = 0.0;
  for (const T v : b) bb += double(v) * double(v);
  const double tolerance =
      bb > 0 ? std::max(stopping.tolerance, stopping.absolute_tolerance / std::sqrt(bb)) : stopping.tolerance;
  KrylovStats st = krylov.solve(b, x);
  restarts = 0;
  while (st.outcome == KrylovOutcome::Converged && st.true_residual > tolerance && restarts < max_restarts) {
    ++restarts;
    KrylovStats more = krylov.solve(b, x);  // from x: its first residual is the true one
    more.iterations += st.iterations;
    more.matvecs += st.matvecs;
    more.solve_seconds += st.solve_seconds;
    more.spmv_seconds += st.spmv_seconds;
    more.preconditioner_seconds += st.preconditioner_seconds;
    more.vector_seconds += st.vector_seconds;
    st.history.insert(st.history.end(), more.history.begin(), more.history.end());
    more.history = std::move(st.history);
    st = std::move(more);
  }
  return st;
}

}  // namespace balsa::sap
