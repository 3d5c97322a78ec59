// Internal: the simplex' basis solves on the GPU (thesis 7.2): FTRAN and
// BTRAN as four triangular solves (L, U and their transposes) by
// balsa::TriangularSolver in slot space (basis_factor.hpp), the row etas of
// the Forrest-Tomlin updates on the host between them (7.18b), and each
// update's new U columns absorbed by the solvers' incremental analysis
// (replace_columns, thesis ch. 6). The model of 7.2.4-7.2.5 that decides
// whether this pays is predict_basis_solves.
#pragma once

#include <memory>
#include <vector>

#include "balsa/lp.hpp"
#include "balsa/trsv.hpp"
#include "lp/basis/basis_factor.hpp"

namespace balsa::lp {

// The model's coefficients (seconds per simplex iteration, all its basis
// solves and the factor's update together). On the CPU (7.39, 7.45): a
// hypersparse solve traverses the fraction r (the right-hand sides' density)
// of the factors' edges: cpu_fixed + cpu_per_edge * r * edges + cpu_per_row *
// m. On the GPU (7.41, 7.46, 7.31-7.32) the solves run over all edges, with
// fixed costs per launch and copy, and each Forrest-Tomlin update moves U's
// changed columns into both U solvers' incremental analysis: gpu_fixed +
// gpu_per_edge * edges + gpu_update_per_edge * nnz(U). Fitted by
// scripts/lp-model-fit.py on half of the LPs of
// bench/results/2026-11-26-lp-h200-model-fit.json (H200), scored on the
// other half (GPU: 8 of 8 within 2x; CPU: 5 of 8, which is why a measured
// CPU time replaces the CPU model once there is one).
struct BasisSolveCoefficients {
  double cpu_fixed = 1.48e-6;
  double cpu_per_edge = 7.69e-9;
  double cpu_per_row = 9.74e-9;
  double gpu_fixed = 2.27e-4;
  double gpu_per_edge = 1.69e-8;
  double gpu_update_per_edge = 1.08e-7;
};

// `measured_cpu`: the CPU's measured seconds per iteration over the last
// factorisation's iterations (0: none; the model's own estimate is used).
// `levels`: also count the factors' dependency levels (reported, not in the
// formula; two O(nnz) passes per factorisation, so only when the GPU is an option).
BasisSolveModel predict_basis_solves(const BasisFactor& factor, double density, double measured_cpu = 0,
                                     bool levels = true, const BasisSolveCoefficients& c = {});

class GpuBasisSolves {
 public:
  // The four solvers' CUDA stream: the simplex solver's (SimplexOptions::stream).
  explicit GpuBasisSolves(StreamHandle stream = nullptr) : stream_(stream) {}
  // Sets up the four solvers for the factor just computed (U's room: the
  // factor's max_updates new slots).
  void load(const BasisFactor& f);
  // The last Forrest-Tomlin update's columns of U.
  void forrest_tomlin_update(const BasisFactor& f);
  void ftran(BasisFactor& f, SparseVector& v, bool keep_ft_spike, double& gpu_seconds);
  void btran(BasisFactor& f, SparseVector& v, double& gpu_seconds);

 private:
  StreamHandle stream_;
  index_t m_ = 0, capacity_ = 0;
  std::unique_ptr<TriangularSolver<double>> L_, Lt_, U_, Ut_;
  std::vector<double> z_, w_;  // slot-space work vectors
};

}  // namespace balsa::lp
