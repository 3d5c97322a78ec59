// The simplex' basis solves on the GPU and the model that chooses them
// (thesis 7.2.1-7.2.5); see basis_gpu.hpp.
#include "lp/basis/basis_gpu.hpp"

#include <algorithm>

#include "core/clock.hpp"

namespace balsa::lp {

namespace {

// Dependency levels of a triangular CSR matrix (lower: rows in order).
index_t levels_of(const Csr<double>& T, bool lower) {
  const index_t n = T.rows;
  std::vector<index_t> level(std::size_t(n), 0);
  index_t deepest = 0;
  if (lower) {
    for (index_t i = 0; i < n; ++i) {
      index_t l = 0;
      for (index_t k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k)
        if (T.col_idx[k] < i) l = std::max(l, level[T.col_idx[k]] + 1);
      level[i] = l;
      deepest = std::max(deepest, l);
    }
  } else {
    for (index_t i = n - 1; i >= 0; --i) {
      index_t l = 0;
      for (index_t k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k)
        if (T.col_idx[k] > i) l = std::max(l, level[T.col_idx[k]] + 1);
      level[i] = l;
      deepest = std::max(deepest, l);
    }
  }
  return n > 0 ? deepest + 1 : 0;
}

}  // namespace

// Per iteration (7.39-7.46), see BasisSolveCoefficients.
BasisSolveModel predict_basis_solves(const BasisFactor& f, double density, double measured_cpu, bool levels,
                                     const BasisSolveCoefficients& c) {
  BasisSolveModel m;
  m.rows = f.rows();
  m.nnz_L = f.stats().nnz_L;
  m.nnz_U = f.stats().nnz_U;
  m.density = std::clamp(density, m.rows > 0 ? 1.0 / double(m.rows) : 1.0, 1.0);
  if (m.rows == 0) return m;
  if (levels) {
    m.levels_L = levels_of(f.lower_factor(), true);
    m.levels_U = levels_of(f.upper_factor(f.slots()), false);
  }
  const double edges = double(m.nnz_L + m.nnz_U);
  m.cpu_seconds = measured_cpu > 0 ? measured_cpu
                                   : c.cpu_fixed + c.cpu_per_edge * m.density * edges + c.cpu_per_row * double(m.rows);
  m.gpu_seconds = c.gpu_fixed + c.gpu_per_edge * edges + c.gpu_update_per_edge * double(m.nnz_U);
  m.chosen = m.gpu_seconds < m.cpu_seconds && resolve_device(Device::Auto) == Device::Cuda ? Device::Cuda
                                                                                           : Device::Cpu;
  return m;
}

void GpuBasisSolves::load(const BasisFactor& f) {
  m_ = f.rows();
  capacity_ = m_ + f.max_updates() + 1;
  TrsvOptions lo{.algorithm = TrsvAlgorithm::Auto, .device = Device::Cuda, .triangle = Triangle::Lower,
                 .diagonal = DiagonalKind::Unit, .stream = stream_};
  const Csr<double> L = f.lower_factor();
  L_ = std::make_unique<TriangularSolver<double>>(L, lo);
  lo.operation = Operation::Transpose;
  Lt_ = std::make_unique<TriangularSolver<double>>(L, lo);
  TrsvOptions up{.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cuda, .triangle = Triangle::Upper,
                 .diagonal = DiagonalKind::NonUnit, .stream = stream_};
  const Csr<double> U = f.upper_factor(capacity_);
  U_ = std::make_unique<TriangularSolver<double>>(U, up);
  up.operation = Operation::Transpose;
  Ut_ = std::make_unique<TriangularSolver<double>>(U, up);
  z_.assign(std::size_t(capacity_), 0.0);
  w_.assign(std::size_t(capacity_), 0.0);
}

// The columns of U the update changed, with their new entries, to both U
// solvers' incremental analysis.
void GpuBasisSolves::forrest_tomlin_update(const BasisFactor& f) {
  const std::span<const index_t> columns = f.changed_upper_columns();
  if (columns.empty()) return;
  std::vector<index_t> col_ptr, rows;
  std::vector<double> values;
  f.upper_columns(columns, col_ptr, rows, values);
  U_->replace_columns(columns, col_ptr, rows, values);
  Ut_->replace_columns(columns, col_ptr, rows, values);
}

// FTRAN (7.18): z = L^{-1} P a on the GPU, the row etas on the host, then
// x = U^{-1} z on the GPU; x in slot space mapped to basis positions.
void GpuBasisSolves::ftran(BasisFactor& f, SparseVector& v, bool keep_ft_spike, double& gpu_seconds) {
  const std::span<const index_t> slot_of_row = f.slot_of_row();
  std::fill(z_.begin(), z_.end(), 0.0);
  for (index_t i = 0; i < m_; ++i) z_[slot_of_row[i]] = v.values[i];
  Clock::time_point t0 = Clock::now();
  L_->solve(std::span<const double>(z_.data(), std::size_t(m_)), std::span<double>(w_.data(), std::size_t(m_)));
  gpu_seconds += seconds_since(t0);
  std::fill(w_.begin() + m_, w_.end(), 0.0);
  f.apply_row_etas(w_);
  if (keep_ft_spike) f.set_ft_spike(w_);
  t0 = Clock::now();
  U_->solve(w_, z_);
  gpu_seconds += seconds_since(t0);
  const std::span<const index_t> position_of_slot = f.position_of_slot();
  for (index_t s = 0; s < index_t(position_of_slot.size()); ++s)
    if (position_of_slot[s] >= 0) v.values[position_of_slot[s]] = z_[s];
  v.rebuild_index();
}

// BTRAN: the transposes in reverse order.
void GpuBasisSolves::btran(BasisFactor& f, SparseVector& v, double& gpu_seconds) {
  const std::span<const index_t> position_of_slot = f.position_of_slot();
  std::fill(z_.begin(), z_.end(), 0.0);
  for (index_t s = 0; s < index_t(position_of_slot.size()); ++s)
    if (position_of_slot[s] >= 0) z_[s] = v.values[position_of_slot[s]];
  Clock::time_point t0 = Clock::now();
  Ut_->solve(z_, w_);
  gpu_seconds += seconds_since(t0);
  f.apply_row_etas_transposed(w_);
  t0 = Clock::now();
  Lt_->solve(std::span<const double>(w_.data(), std::size_t(m_)), std::span<double>(z_.data(), std::size_t(m_)));
  gpu_seconds += seconds_since(t0);
  const std::span<const index_t> slot_of_row = f.slot_of_row();
  for (index_t i = 0; i < m_; ++i) v.values[i] = z_[slot_of_row[i]];
  v.rebuild_index();
}

}  // namespace balsa::lp
