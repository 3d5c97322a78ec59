// balsa: the field visitors of the stats structs.
//
// For each public stats struct S (TrsvStats, KrylovStats, QrStats, ...):
//   template <class V> void visit_fields(const S& s, V&& v);
// calls v(name, field) for every field, in declaration order. The names are
// the keys of the balsa command's JSON, of the benchmarks' JSON and of
// Python's stats dicts, and every time ends in "_seconds" (a field named
// t_lu is visited as "lu_seconds"). A field that is itself a stats struct
// (TrsvStats::tassl, KrylovStats::factor) is passed whole: a writer recurses
// into whatever satisfies HasFields (apps/fields_json.hpp, python/src/
// stats.hpp). Adding a stat: declare it in its struct, and name it here, in
// the section of its header; every writer then has it.
#pragma once

#include "balsa/direct.hpp"
#include "balsa/factor.hpp"
#include "balsa/krylov.hpp"
#include "balsa/lp.hpp"
#include "balsa/precondition.hpp"
#include "balsa/qr.hpp"
#include "balsa/reorder.hpp"
#include "balsa/sap.hpp"
#include "balsa/solve.hpp"
#include "balsa/sparse.hpp"
#include "balsa/stats.hpp"
#include "balsa/trsv.hpp"

namespace balsa {

// ---- balsa/sparse.hpp ------------------------------------------------------------------------

template <class V>
void visit_fields(const DiagonalReport& s, V&& v) {
  v("missing", s.missing);
  v("zero", s.zero);
  v("first_missing", s.first_missing);
  v("first_zero", s.first_zero);
}

// ---- balsa/stats.hpp: balsa info -------------------------------------------------------------

template <class V>
void visit_fields(const LevelStats& s, V&& v) {
  v("levels", s.levels);
  v("max_width", s.max_width);
  v("min_width", s.min_width);
  v("mean_width", s.mean_width);
}

template <class V>
void visit_fields(const StructureStats& s, V&& v) {
  v("rows", s.rows);
  v("cols", s.cols);
  v("nnz", s.nnz);
  v("nnz_lower", s.nnz_lower);
  v("nnz_upper", s.nnz_upper);
  v("nnz_diagonal", s.nnz_diagonal);
  v("lower_bandwidth", s.lower_bandwidth);
  v("upper_bandwidth", s.upper_bandwidth);
  v("row_nnz_min", s.row_nnz_min);
  v("row_nnz_max", s.row_nnz_max);
  v("row_nnz_mean", s.row_nnz_mean);
  v("row_nnz_stddev", s.row_nnz_stddev);
  v("empty_rows", s.empty_rows);
  v("diagonal", s.diagonal);
  v("pattern_symmetric", s.pattern_symmetric);
  v("values_symmetric", s.values_symmetric);
  v("finite", s.finite);
  v("lower_levels", s.lower_levels);
  v("upper_levels", s.upper_levels);
}

// ---- balsa/trsv.hpp: TriangularSolver --------------------------------------------------------

template <class V>
void visit_fields(const TrsvUpdateStats& s, V&& v) {
  v("updates", s.updates);
  v("incremental", s.incremental);
  v("reanalyses", s.reanalyses);
  v("recaptures", s.recaptures);
  v("last_reason", s.last_reason);
  v("last_seconds", s.last_seconds);
  v("incremental_seconds", s.incremental_seconds);
  v("reanalysis_seconds", s.reanalysis_seconds);
  v("full_analysis_seconds", s.full_analysis_seconds);
  v("last_scheduled_edges", s.last_scheduled_edges);
  v("last_blocks", s.last_blocks);
  v("last_relocated", s.last_relocated);
  v("last_uploaded_bytes", s.last_uploaded_bytes);
}

template <class V>
void visit_fields(const SyncFreeBlocksStats& s, V&& v) {
  v("chunks", s.chunks);
  v("steps", s.steps);
  v("most_steps", s.most_steps);
  v("widest_step", s.widest_step);
}

template <class V>
void visit_fields(const SpikeStats& s, V&& v) {
  v("bandwidth", s.bandwidth);
  v("chain_rows", s.chain_rows);
  v("chains", s.chains);
  v("groups", s.groups);
  v("spike_bytes", s.spike_bytes);
  v("predicted_seconds", s.predicted_seconds);
  v("fallback", s.fallback);
}

template <class V>
void visit_fields(const TasslStats& s, V&& v) {
  v("n_max", s.n_max);
  v("subgraphs", s.subgraphs);
  v("subgraph_levels", s.subgraph_levels);
  v("isolated", s.isolated);
  v("components", s.components);
  v("split_components", s.split_components);
  v("fallbacks", s.fallbacks);
  v("external_edges", s.external_edges);
  v("internal_edges", s.internal_edges);
  v("internal_slots", s.internal_slots);
  v("most_slots", s.most_slots);
  v("rounds", s.rounds);
  v("critical_rounds", s.critical_rounds);
  v("partition_seconds", s.partition_seconds);
  v("schedule_seconds", s.schedule_seconds);
  v("layout_seconds", s.layout_seconds);
  v("upload_seconds", s.upload_seconds);
}

template <class V>
void visit_fields(const TrsvStats& s, V&& v) {
  v("algorithm", s.algorithm);
  v("device", s.device);
  v("rows", s.rows);
  v("nnz", s.nnz);
  v("levels", s.levels);
  v("widest_level", s.widest_level);
  v("mean_level_width", s.mean_level_width);
  v("analysis_seconds", s.analysis_seconds);
  v("front_end_seconds", s.front_end_seconds);
  v("last_solve_seconds", s.last_solve_seconds);
  v("solves", s.solves);
  v("host_solves_on_cpu", s.host_solves_on_cpu);
  v("level_sets_device", s.level_sets_device);
  v("level_sets_seconds", s.level_sets_seconds);
  v("level_sets_reason", s.level_sets_reason);
  v("trial_pick_seconds", s.trial_pick_seconds);
  v("trial_cusparse_seconds", s.trial_cusparse_seconds);
  v("trial", s.trial);
  v("tassl", s.tassl);
  v("blocks", s.blocks);
  v("spike", s.spike);
  v("updates", s.updates);
}

// ---- balsa/factor.hpp: IncompleteFactorization -----------------------------------------------

template <class V>
void visit_fields(const IncompleteStats& s, V&& v) {
  v("kind", s.kind);
  v("device", s.device);
  v("rows", s.rows);
  v("nnz", s.nnz);
  v("levels", s.levels);
  v("shift", s.shift);
  v("attempts", s.attempts);
  v("breakdown_row", s.breakdown_row);
  v("analysis_seconds", s.analysis_seconds);
  v("factor_seconds", s.factor_seconds);
  v("factorizations", s.factorizations);
  v("host_numeric", s.host_numeric);
  v("level_sets_device", s.level_sets_device);
  v("level_sets_seconds", s.level_sets_seconds);
  v("level_sets_reason", s.level_sets_reason);
}

// ---- balsa/krylov.hpp: KrylovSolver ----------------------------------------------------------

template <class V>
void visit_fields(const KrylovStats& s, V&& v) {
  v("method", s.method);
  v("preconditioner", s.preconditioner);
  v("ordering", s.ordering);
  v("colours", s.colours);
  v("device", s.device);
  v("outcome", s.outcome);
  v("message", s.message);
  v("iterations", s.iterations);
  v("matvecs", s.matvecs);
  v("residual", s.residual);
  v("true_residual", s.true_residual);
  v("history", s.history);
  v("setup_seconds", s.setup_seconds);
  v("ordering_seconds", s.ordering_seconds);
  v("factor_seconds", s.factor_seconds);
  v("solve_seconds", s.solve_seconds);
  v("preconditioner_seconds", s.preconditioner_seconds);
  v("spmv_seconds", s.spmv_seconds);
  v("vector_seconds", s.vector_seconds);
  v("phase_samples", s.phase_samples);
  v("factor", s.factor);
  v("chebyshev_degree", s.chebyshev_degree);
  v("spectrum_lower", s.spectrum_lower);
  v("spectrum_bound", s.spectrum_bound);
  v("preconditioner_matvecs", s.preconditioner_matvecs);
  v("lower", s.lower);
  v("upper", s.upper);
  v("spmv", s.spmv);
}

// ---- balsa/direct.hpp: DirectSolver ----------------------------------------------------------

template <class V>
void visit_fields(const DirectStats& s, V&& v) {
  v("method", s.method);
  v("device", s.device);
  v("n", s.n);
  v("nnz", s.nnz);
  v("factor_entries", s.factor_entries);
  v("flops", s.flops);
  v("expected_flops", s.expected_flops);
  v("peak_bytes", s.peak_bytes);
  v("factorized", s.factorized);
  v("rcond", s.rcond);
  v("note", s.note);
  v("analyse_seconds", s.analyse_seconds);
  v("factor_seconds", s.factor_seconds);
  v("solve_seconds", s.solve_seconds);
  v("factorizations", s.factorizations);
  v("columns_solved", s.columns_solved);
}

// ---- balsa/precondition.hpp ------------------------------------------------------------------

template <class V>
void visit_fields(const PreconditionStats& s, V&& v) {
  v("method", s.method);
  v("device", s.device);
  v("rule", s.rule);
  v("n", s.n);
  v("nnz", s.nnz);
  v("setup_seconds", s.setup_seconds);
  v("analysis_seconds", s.analysis_seconds);
  v("analysis_reused", s.analysis_reused);
  v("updates", s.updates);
  v("applications", s.applications);
  v("apply_seconds", s.apply_seconds);
  v("factor", s.factor);
  v("lower", s.lower);
  v("upper", s.upper);
  v("direct", s.direct);
  v("sap", s.sap);
}

// ---- balsa/reorder.hpp: diagonal boosting ----------------------------------------------------

template <class V>
void visit_fields(const MatchingStats& s, V&& v) {
  v("device", s.device);
  v("initial_matches", s.initial_matches);
  v("augmentations", s.augmentations);
  v("s1_seconds", s.t_s1);
  v("s2_seconds", s.t_s2);
  v("s3_seconds", s.t_s3);
  v("s4_seconds", s.t_s4);
  v("transfer_seconds", s.t_transfer);
  v("total_seconds", s.t_total);
}

// ---- balsa/sap.hpp: BandedSolver, SparseSapSolver --------------------------------------------

template <class V>
void visit_fields(const BandedStats& s, V&& v) {
  v("variant", s.variant);
  v("device", s.device);
  v("n", s.n);
  v("k", s.k);
  v("partitions", s.partitions);
  v("min_block", s.min_block);
  v("max_block", s.max_block);
  v("min_block_bandwidth", s.min_block_bandwidth);
  v("max_block_bandwidth", s.max_block_bandwidth);
  v("float_preconditioner", s.float_preconditioner);
  v("boosted_pivots", s.boosted_pivots);
  v("device_bytes", s.device_bytes);
  v("upload_seconds", s.t_upload);
  v("lu_seconds", s.t_lu);
  v("bc_seconds", s.t_bc);
  v("spike_seconds", s.t_spk);
  v("lu_reduced_seconds", s.t_lu_rdcd);
  v("setup_seconds", s.t_setup);
  v("solve_seconds", s.t_kry);
  v("restarts", s.restarts);
  v("krylov", s.krylov);
  v("devices", s.devices);
  v("devices_reason", s.devices_reason);
  v("peer_access", s.peer_access);
  v("transfers", s.transfers);
  v("device_setup_seconds", s.device_setup_seconds);
  v("device_bytes_each", s.device_bytes_each);
}

// Not its ordering (a permutation, not a stat).
template <class V>
void visit_fields(const SparseSapStats& s, V&& v) {
  v("device", s.device);
  v("n", s.n);
  v("nnz", s.nnz);
  v("k_original", s.k_original);
  v("k_cm", s.k_cm);
  v("k", s.k);
  v("dropped", s.dropped);
  v("dropped_norm", s.dropped_norm);
  v("log_product", s.log_product);
  v("matching", s.matching);
  v("db_seconds", s.t_db);
  v("cm_seconds", s.t_cm);
  v("drop_seconds", s.t_drop);
  v("assembly_seconds", s.t_asmbl);
  v("transfer_seconds", s.t_dtransf);
  v("setup_seconds", s.t_setup);
  v("banded", s.banded);
}

// ---- balsa/qr.hpp: SparseQR ------------------------------------------------------------------

template <class V>
void visit_fields(const QrStats& s, V&& v) {
  v("rows", s.rows);
  v("cols", s.cols);
  v("nnz", s.nnz);
  v("ordering", s.ordering);
  v("singletons", s.singletons);
  v("reanalyses", s.reanalyses);
  v("fronts", s.fronts);
  v("max_front_rows", s.max_front_rows);
  v("max_front_cols", s.max_front_cols);
  v("flops", s.flops);
  v("dense_flops", s.dense_flops);
  v("flops_done", s.flops_done);
  v("r_nnz", s.r_nnz);
  v("intensity", s.intensity);
  v("factor_bytes", s.factor_bytes);
  v("max_front_bytes", s.max_front_bytes);
  v("tolerance", s.tolerance);
  v("heath_fronts", s.heath_fronts);
  v("dropped_norm", s.dropped_norm);
  v("rank", s.rank);
  v("order_seconds", s.t_order);
  v("analyse_seconds", s.t_analyse);
  v("factorise_seconds", s.t_factorise);
  v("solve_seconds", s.t_solve);
  v("device", s.device);
  v("fallback", s.fallback);
  v("gpu_launches", s.gpu_launches);
  v("gpu_tasks", s.gpu_tasks);
  v("gpu_bundles", s.gpu_bundles);
  v("gpu_fronts_redone", s.gpu_fronts_redone);
  v("device_bytes", s.device_bytes);
  v("gpu_stages", s.gpu_stages);
  v("staged_bytes_to_host", s.staged_bytes_to_host);
  v("gpu_plan_seconds", s.t_gpu_plan);
}

// ---- balsa/lp.hpp: SimplexSolver -------------------------------------------------------------

template <class V>
void visit_fields(const BasisSolveModel& s, V&& v) {
  v("rows", s.rows);
  v("nnz_L", s.nnz_L);
  v("nnz_U", s.nnz_U);
  v("levels_L", s.levels_L);
  v("levels_U", s.levels_U);
  v("density", s.density);
  v("cpu_seconds_per_iteration", s.cpu_seconds);
  v("gpu_seconds_per_iteration", s.gpu_seconds);
  v("chosen", s.chosen);
}

template <class V>
void visit_fields(const SimplexStats& s, V&& v) {
  v("status", s.status);
  v("device", s.device);
  v("iterations", s.iterations);
  v("dual_phase1_iterations", s.dual_phase1_iterations);
  v("dual_phase2_iterations", s.dual_phase2_iterations);
  v("primal_iterations", s.primal_iterations);
  v("bound_flips", s.bound_flips);
  v("factorizations", s.factorizations);
  v("singular_recoveries", s.singular_recoveries);
  v("unscaled_restarts", s.unscaled_restarts);
  v("presolve_restarts", s.presolve_restarts);
  v("gpu_factorizations", s.gpu_factorizations);
  v("rows", s.rows);
  v("cols", s.cols);
  v("presolved_rows", s.presolved_rows);
  v("presolved_cols", s.presolved_cols);
  v("integer_columns", s.integer_columns);
  v("presolve_seconds", s.presolve_seconds);
  v("factorization_seconds", s.factorization_seconds);
  v("ftran_seconds", s.ftran_seconds);
  v("btran_seconds", s.btran_seconds);
  v("pricing_seconds", s.pricing_seconds);
  v("update_seconds", s.update_seconds);
  v("gpu_solve_seconds", s.gpu_solve_seconds);
  v("total_seconds", s.total_seconds);
  v("model", s.model);
  v("measured_solve_seconds_per_iteration", s.measured_solve_seconds_per_iteration);
  v("max_primal_infeasibility", s.max_primal_infeasibility);
  v("max_dual_infeasibility", s.max_dual_infeasibility);
}

// ---- balsa/solve.hpp: balsa::solve -----------------------------------------------------------

template <class V>
void visit_fields(const SolveFeatures& s, V&& v) {
  v("n", s.n);
  v("nnz", s.nnz);
  v("symmetric", s.symmetric);
  v("positive_diagonal", s.positive_diagonal);
  v("zero_diagonal", s.zero_diagonal);
  v("dominant_rows", s.dominant_rows);
  v("diagonal_spread", s.diagonal_spread);
  v("norm_inf", s.norm_inf);
  v("seconds", s.seconds);
}

template <class V>
void visit_fields(const SolvePrediction& s, V&& v) {
  v("method", s.method);
  v("device", s.device);
  v("predicted_seconds", s.seconds);
  v("basis", s.basis);
}

template <class V>
void visit_fields(const SolveAttempt& s, V&& v) {
  v("method", s.method);
  v("device", s.device);
  v("solved", s.solved);
  v("reason", s.reason);
  v("iterations", s.iterations);
  v("true_residual", s.true_residual);
  v("backward_error", s.backward_error);
  v("componentwise_backward_error", s.componentwise_backward_error);
  v("predicted_seconds", s.predicted_seconds);
  v("setup_seconds", s.setup_seconds);
  v("solve_seconds", s.solve_seconds);
  v("stopped_early", s.stopped_early);
}

template <class V>
void visit_fields(const SolveReport& s, V&& v) {
  v("solved", s.solved);
  v("method", s.method);
  v("direct", s.direct);
  v("device", s.device);
  v("true_residual", s.true_residual);
  v("backward_error", s.backward_error);
  v("componentwise_backward_error", s.componentwise_backward_error);
  v("total_seconds", s.seconds);
  v("setup_seconds", s.setup_seconds);
  v("budget_seconds", s.budget_seconds);
  v("features", s.features);
  v("plan", s.plan);
  v("chain", s.chain);
  v("krylov", s.krylov);
  v("direct_stats", s.direct_stats);
  v("columns", s.columns);
  v("message", s.message);
}

// A struct with a visit_fields (found by argument-dependent lookup).
template <class S>
concept HasFields = requires(const S& s) { visit_fields(s, [](const char*, const auto&) {}); };

}  // namespace balsa
