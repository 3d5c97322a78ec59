// Internal: the basis solves of the simplex (thesis 7.2): the LU factor with
// its Forrest-Tomlin updates (basis_factor.hpp) and, where the thesis' model
// (7.2.4-7.2.5) says the GPU pays or the options ask for it, the triangular
// solves of FTRAN/BTRAN run by balsa::TriangularSolver on the GPU with the
// updates to U absorbed by its incremental analysis (basis_gpu.hpp).
#pragma once

#include <memory>
#include <vector>

#include "balsa/lp.hpp"
#include "lp/basis/basis_factor.hpp"

namespace balsa::lp {

class GpuBasisSolves;

class BasisSolver {
 public:
  BasisSolver(const SimplexOptions& options, SimplexStats& stats);
  ~BasisSolver();
  FactorResult factorize(const Csc<double>& A, std::vector<index_t>& basic);
  void ftran(SparseVector& v, bool keep_ft_spike = false);
  void btran(SparseVector& v);
  UpdateResult forrest_tomlin_update(index_t position, double alpha);
  const BasisFactorStats& factor_stats() const { return factor_.stats(); }
  bool on_gpu() const { return gpu_ != nullptr; }
  // Density of the right-hand sides seen since the last factorisation (eq. 7.45).
  void note_density(double d) { density_sum_ += d; ++density_count_; }

 private:
  void decide_device();

  const SimplexOptions& options_;
  SimplexStats& stats_;
  BasisFactor factor_;
  std::unique_ptr<GpuBasisSolves> gpu_;
  double density_sum_ = 0;
  std::int64_t density_count_ = 0;
  double solve_seconds_ = 0;           // FTRAN, BTRAN, updates since the last factorisation
  double measured_cpu_ = 0;            // seconds per iteration of the last period on the CPU
  std::int64_t solve_iterations_ = 0;  // updates since the last factorisation
};

}  // namespace balsa::lp
