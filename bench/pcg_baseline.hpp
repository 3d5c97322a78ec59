// The baseline of `balsa-bench solve` (Picciau's thesis sec. 5.2): PCG with
// an IC(0) preconditioner done the conventional way, entirely with the
// vendor libraries: cuSPARSE csric02 for the factorisation, cuSPARSE SpSV
// for the two triangular solves (L and an explicit L^T made on the device by
// csr2csc), cuSPARSE SpMV, cuBLAS for dots, axpys, scalings and the
// infinity-norm stopping test (which, as in the thesis, is evaluated on the
// host every iteration: cuBLAS returns its scalars there).
#pragma once

#include <span>
#include <string>

#include "balsa/krylov.hpp"
#include "balsa/sparse.hpp"

namespace balsa::bench {

struct BaselineResult {
  bool ran = false;        // false: no GPU / built without CUDA (note says why)
  bool converged = false;
  int iterations = 0;
  double setup_seconds = 0.0;   // uploads, csric02 (analysis + factorisation), csr2csc, SpSV analyses
  double factor_seconds = 0.0;  // of which csric02
  double solve_seconds = 0.0;   // the iterations, wall clock
  double residual = 0.0;        // final relative residual in the stopping norm (recursive r)
  double true_residual = 0.0;   // ||b - A x||_2 / ||b||_2
  std::string note;
};

// PCG-IC(0) on A (symmetric positive definite; its lower triangle is
// factored) from x0 = 0, stopping on the same rule as balsa's CG.
BaselineResult cusparse_pcg_ic0(const Csr<double>& A, std::span<const double> b, double tolerance,
                                int max_iterations, StoppingNorm norm, std::vector<double>* x_out = nullptr);

}  // namespace balsa::bench
