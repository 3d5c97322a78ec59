// The basis solves of the simplex: the LU factor on the host, or its
// triangular solves on the GPU where the model chooses it (basis_gpu.hpp).
#include "lp/basis/basis_solver.hpp"

#include "core/clock.hpp"
#include "lp/basis/basis_gpu.hpp"

namespace balsa::lp {

BasisSolver::BasisSolver(const SimplexOptions& options, SimplexStats& stats)
    : options_(options),
      stats_(stats),
      factor_(BasisFactorOptions{.pivot_threshold = options.pivot_threshold, .max_updates = options.refactor_every}) {}

BasisSolver::~BasisSolver() = default;

FactorResult BasisSolver::factorize(const Csc<double>& A, std::vector<index_t>& basic) {
  if (solve_iterations_ > 0) {
    stats_.measured_solve_seconds_per_iteration = solve_seconds_ / double(solve_iterations_);
    if (!gpu_) measured_cpu_ = stats_.measured_solve_seconds_per_iteration;
  }
  solve_seconds_ = 0;
  solve_iterations_ = 0;
  const Clock::time_point t0 = Clock::now();
  FactorResult f = factor_.factorize(A, basic);
  decide_device();
  if (gpu_) {
    gpu_->load(factor_);
    ++stats_.gpu_factorizations;
  }
  stats_.device = gpu_ ? Device::Cuda : Device::Cpu;
  stats_.factorization_seconds += seconds_since(t0);
  return f;
}

// The model (thesis 7.2.4-7.2.5) decides at every factorisation; --device
// cpu or cuda overrides it.
void BasisSolver::decide_device() {
  const double density = density_count_ > 0 ? density_sum_ / double(density_count_) : 1.0;
  const bool gpu_possible = options_.device != Device::Cpu && resolve_device(Device::Auto) == Device::Cuda;
  stats_.model = predict_basis_solves(factor_, density, measured_cpu_, gpu_possible);
  Device want = options_.device;
  if (want == Device::Auto) want = stats_.model.chosen;
  if (want == Device::Cuda) {
    if (!gpu_) gpu_ = std::make_unique<GpuBasisSolves>(options_.stream);
  } else {
    gpu_.reset();
  }
}

void BasisSolver::ftran(SparseVector& v, bool keep_ft_spike) {
  const Clock::time_point t0 = Clock::now();
  if (gpu_)
    gpu_->ftran(factor_, v, keep_ft_spike, stats_.gpu_solve_seconds);
  else
    factor_.ftran(v, keep_ft_spike);
  const double s = seconds_since(t0);
  stats_.ftran_seconds += s;
  solve_seconds_ += s;
}

void BasisSolver::btran(SparseVector& v) {
  const Clock::time_point t0 = Clock::now();
  if (gpu_)
    gpu_->btran(factor_, v, stats_.gpu_solve_seconds);
  else
    factor_.btran(v);
  const double s = seconds_since(t0);
  stats_.btran_seconds += s;
  solve_seconds_ += s;
}

UpdateResult BasisSolver::forrest_tomlin_update(index_t position, double alpha) {
  const Clock::time_point t0 = Clock::now();
  const UpdateResult r = factor_.forrest_tomlin_update(position, alpha);
  if (r == UpdateResult::Ok && gpu_) gpu_->forrest_tomlin_update(factor_);
  ++solve_iterations_;
  const double s = seconds_since(t0);
  stats_.update_seconds += s;
  solve_seconds_ += s;
  return r;
}

}  // namespace balsa::lp
