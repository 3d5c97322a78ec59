// balsa::TriangularSolver's pattern updates (replace_columns,
// update_pattern; thesis ch. 6): incrementally when the backend can
// (TASSL), else by a full analysis of the new matrix.
#include "trsv/triangular_solver_impl.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "core/instantiate.hpp"
#include "core/pimpl.hpp"

namespace balsa {

// An incremental update of the backend's analysis (TASSL, thesis ch. 6, on
// the CPU or the GPU), within the limits that make it worth it: the edges to
// schedule again below what a full analysis costs at the measured rate, the
// sub-graph levels below (1 + tassl_level_growth) x those of the last full
// analysis + 2.
template <class T>
bool TriangularSolver<T>::Impl::update_in_place(const Csr<T>& M_new, const tassl::PatternChange& change,
                                                TrsvUpdateStats& u, std::string& reason) {
  // Before any update is measured, an edge is taken to cost what it costs in
  // a full analysis (so only an update touching everything falls back).
  const double full = std::max(stats.updates.full_analysis_seconds, 1e-9);
  const double per_edge = seconds_per_edge > 0 ? seconds_per_edge : full / double(M_new.nnz() + M_new.rows + 1);
  trsv::PatternUpdate pu;
  pu.change = &change;
  pu.edge_budget = std::int64_t(std::min(full / per_edge, 9.0e18));
  pu.max_levels = index_t(double(levels_at_analysis) * (1.0 + std::max(options.tassl_level_growth, 0.0)) + 2.0);
  if (!backend->update_pattern(M_new, pu)) {
    reason = pu.reason;
    return false;
  }
  u.last_scheduled_edges = pu.scheduled_edges;
  u.last_blocks = pu.blocks;
  u.last_relocated = pu.relocated;
  u.last_uploaded_bytes = pu.uploaded_bytes;
  u.recaptures += pu.recaptured ? 1 : 0;
  backend->describe(stats);
  return true;
}

// After an incremental update: M_new is the matrix solved.
template <class T>
void TriangularSolver<T>::Impl::took_pattern(Csr<T>&& M_new) {
  M = std::move(M_new);
  if (!source.empty()) {  // the gather from the caller's (A's) order: the inverse of A's transpose map
    const TransposedPattern t = transpose_pattern(M.rows, M.cols, M.row_ptr, M.col_idx);
    source.assign(t.source.size(), 0);
    for (std::size_t q = 0; q < t.source.size(); ++q) source[std::size_t(t.source[q])] = index_t(q);
  }
  stats.nnz = M.nnz();
  device_diag_pos = {};  // the device value-update maps are of the old pattern
  device_source = {};
  device_values = {};
  ++updates_since_analysis;
}

template <class T>
void TriangularSolver<T>::Impl::change_pattern(std::unique_ptr<Impl>& self, Csr<T>&& M_new,
                                               const tassl::PatternChange& change, Clock::time_point t0) {
  Impl& s = *self;
  TrsvUpdateStats u = s.stats.updates;
  ++u.updates;
  std::string reason;
  bool done = false, attempted = false;
  if (s.stats.algorithm != TrsvAlgorithm::Tassl)
    reason = std::string("algorithm '") + to_string(s.stats.algorithm) + "' has no incremental analysis";
  else if (s.options.tassl_repartition_every > 0 && s.updates_since_analysis + 1 >= s.options.tassl_repartition_every)
    reason = "tassl_repartition_every = " + std::to_string(s.options.tassl_repartition_every);
  else {
    attempted = true;
    try {
      done = s.update_in_place(M_new, change, u, reason);
    } catch (const std::exception& e) {  // internal (out of memory, a value the scaling rejects): analyse afresh
      reason = std::string("the incremental update failed (") + e.what() + ")";
    }
  }
  if (!done) return reanalyse(self, std::move(M_new), attempted, u, reason, t0);
  s.took_pattern(std::move(M_new));
  const double dt = seconds_since(t0);
  ++u.incremental;
  u.incremental_seconds += dt;
  u.last_seconds = dt;
  u.last_reason.clear();
  // The rate of the rule above; not from the first update after an
  // analysis, which also builds the update's own state (DAG, slots per entry).
  const double rate = dt / double(std::max<std::int64_t>(u.last_scheduled_edges, 1));
  if (s.updates_since_analysis > 1) s.seconds_per_edge = s.seconds_per_edge > 0 ? 0.5 * (s.seconds_per_edge + rate) : rate;
  s.stats.updates = u;
}

// A full analysis of the new matrix (A's orientation: transposed back) in a
// new Impl that replaces `self`.
template <class T>
void TriangularSolver<T>::Impl::reanalyse(std::unique_ptr<Impl>& self, Csr<T>&& M_new, bool attempted,
                                          TrsvUpdateStats u, const std::string& reason, Clock::time_point t0) {
  Impl& s = *self;
  const bool transposed = !s.source.empty();
  Csr<T> A_new = transposed ? transpose(M_new) : std::move(M_new);
  const double per_edge = s.seconds_per_edge;
  std::unique_ptr<Impl> fresh;
  try {
    fresh = trsv::analysed<Impl>([&](Impl& x) { x.analyse(A_new, s.given_options(), &A_new, /*checked=*/true); });
  } catch (...) {
    // A failed incremental attempt may have changed the solver's analysis:
    // the old matrix analysed again, so that the error leaves it as it was.
    if (attempted) {
      const TrsvUpdateStats before = s.stats.updates;
      Csr<T> A_old = transposed ? transpose(s.M) : s.M;
      try {
        auto old = trsv::analysed<Impl>([&](Impl& x) { x.analyse(A_old, s.given_options(), &A_old, /*checked=*/true); });
        old->stats.updates = before;
        old->seconds_per_edge = s.seconds_per_edge;
        self = std::move(old);
      } catch (...) {
        self.reset();  // nothing valid is left: later calls say so
      }
    }
    throw;
  }
  const double dt = seconds_since(t0);
  ++u.reanalyses;
  u.reanalysis_seconds += dt;
  u.last_seconds = dt;
  u.last_reason = reason;
  u.last_scheduled_edges = 0;
  u.last_blocks = u.last_relocated = 0;
  u.full_analysis_seconds = fresh->stats.updates.full_analysis_seconds;
  fresh->stats.updates = u;
  fresh->seconds_per_edge = per_edge;
  self = std::move(fresh);
}

template <class T>
void TriangularSolver<T>::replace_columns(std::span<const index_t> columns, std::span<const index_t> col_ptr,
                                          std::span<const index_t> row_idx, std::span<const T> values) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  const auto t0 = Clock::now();
  s.require_host_values("replace_columns");
  const trsv_update::NewColumns<T> c{columns, col_ptr, row_idx, values};
  trsv_update::check_new_columns(s.M.rows, s.options.triangle, s.options.diagonal, c);
  tassl::PatternChange change;
  Csr<T> M_new = s.options.operation == Operation::Transpose ? trsv_update::with_rows_replaced(s.M, s.tri, c, change)
                                                              : trsv_update::with_columns_replaced(s.M, s.tri, c, change);
  Impl::change_pattern(impl_, std::move(M_new), change, t0);
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::replace_columns");
}

template <class T>
void TriangularSolver<T>::update_pattern(const Csr<T>& A) try {
  Impl& s = live_impl(impl_);
  const CallScope on(s.options, "TrsvOptions");
  const auto t0 = Clock::now();
  s.require_host_values("update_pattern");
  if (A.rows != s.M.rows || A.cols != s.M.cols)
    throw DimensionError("update_pattern: the new matrix is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                         ", the solver's " + std::to_string(s.M.rows) + " x " + std::to_string(s.M.cols));
  check_triangular_system(A, s.options.triangle, s.options.diagonal);
  Csr<T> M_new = s.options.operation == Operation::Transpose ? transpose(A) : A;
  const tassl::PatternChange change = trsv_update::pattern_difference(s.M, M_new, s.tri);
  if (change.rows.empty()) {  // the same pattern: new values only
    update_values(std::span<const T>(A.values));
    return;
  }
  Impl::change_pattern(impl_, std::move(M_new), change, t0);
  Impl& now = live_impl(impl_);
  if (now.stats.updates.last_reason.empty()) {  // incremental: the other rows' values too
    update_values(std::span<const T>(A.values));
    now.stats.updates.last_seconds = seconds_since(t0);
  }
} catch (...) {
  rethrow_as_balsa_error("TriangularSolver::update_pattern");
}

#define BALSA_INSTANTIATE(T)                                                                                      \
  template void TriangularSolver<T>::replace_columns(std::span<const index_t>, std::span<const index_t>,           \
                                                     std::span<const index_t>, std::span<const T>);                \
  template void TriangularSolver<T>::update_pattern(const Csr<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
