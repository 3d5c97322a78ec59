// The direct baselines of `balsa-bench sparse`: UMFPACK and CHOLMOD
// (SuiteSparse) and SuperLU, all in double on a CSC copy of A (made by the
// caller, untimed), with their default settings as the SaP report used them:
//  * UMFPACK: umfpack_dl_symbolic / _numeric / _solve (64-bit) (its own choice of
//    strategy and ordering, iterative refinement as by default). A singular
//    matrix (UMFPACK_WARNING_singular_matrix) is a failure.
//  * CHOLMOD: cholmod_l_analyze / _factorize / _solve (64-bit), default
//    settings (supernodal when the analysis says so, AMD or METIS by its own
//    choice), A read through stype = -1: only the lower triangle of the CSC
//    copy is used, so the caller gives it symmetric matrices alone. A matrix
//    CHOLMOD finds not positive definite (CHOLMOD_NOT_POSDEF) is a failure.
//  * SuperLU: the expert driver dgssvx with equilibration, the COLAMD column
//    ordering and threshold partial pivoting 1.0 (set_default_options), no
//    refinement; Debian's SuperLU is the sequential one (its dense kernels
//    call the system BLAS). An exactly zero pivot (info in 1..n) is a failure.
// Each returns x and the times (steady clock) of the factorisation
// (symbolic + numeric; SuperLU: equilibration, ordering, factorisation) and
// the solve, medians over the repeats.
//
// run_isolated runs one of them in a child process (fork) with a time limit:
// a factorisation that takes too long, or runs out of memory, or aborts (as
// SuperLU does when an allocation fails) ends the child, not the benchmark.
// The child calls no CUDA, and runs OpenMP regions (CHOLMOD's) on one thread:
// libgomp's thread pool does not survive fork.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::bench {

struct DirectResult {
  bool ran = false;          // produced an x (the status may still be a warning)
  bool failed = false;       // the solver itself reported a failure (singular, out of memory, timed out, ...)
  std::string status = "-";  // "ok", or what the solver said
  std::vector<double> x;
  double factor_seconds = 0, solve_seconds = 0;  // medians over the repeats
  int repeats = 0;
  double lu_nnz = 0;         // entries of L + U
  std::string detail;        // strategy / ordering used, memory
  double total_seconds() const { return factor_seconds + solve_seconds; }
};

// `repeat` factorisations and solves at most, fewer once `budget_seconds`
// have passed (at least one).
DirectResult umfpack_solve(const Csc<double>& A, std::span<const double> b, int repeat = 1,
                           double budget_seconds = 0);
DirectResult cholmod_solve(const Csc<double>& A, std::span<const double> b, int repeat = 1,
                           double budget_seconds = 0);
DirectResult superlu_solve(const Csc<double>& A, std::span<const double> b, int repeat = 1,
                           double budget_seconds = 0);

// solver() in a child process, x of n values passed back through shared
// memory; killed after timeout_seconds (status "timed out after ... s").
// timeout_seconds <= 0: solver() runs in this process.
DirectResult run_isolated(const std::function<DirectResult()>& solver, index_t n, double timeout_seconds);

// What the output says about the baselines' versions and threads.
std::string umfpack_version();
std::string cholmod_version();
std::string superlu_version();

}  // namespace balsa::bench
