// Stats structs as Python dicts (python/src/stats.hpp).
#include "python/src/stats.hpp"

#include <nanobind/stl/vector.h>

namespace balsa::python {

nb::dict to_dict(const TrsvStats& s) {
  nb::dict d;
  d["algorithm"] = to_string(s.algorithm);
  d["device"] = to_string(s.device);
  d["rows"] = s.rows;
  d["nnz"] = s.nnz;
  d["levels"] = s.levels;
  d["widest_level"] = s.widest_level;
  d["mean_level_width"] = s.mean_level_width;
  d["analysis_seconds"] = s.analysis_seconds;
  d["front_end_seconds"] = s.front_end_seconds;
  d["last_solve_seconds"] = s.last_solve_seconds;
  d["solves"] = s.solves;
  if (s.algorithm == TrsvAlgorithm::Tassl) {
    nb::dict t;
    t["n_max"] = s.tassl.n_max;
    t["subgraphs"] = s.tassl.subgraphs;
    t["subgraph_levels"] = s.tassl.subgraph_levels;
    t["external_edges"] = s.tassl.external_edges;
    t["internal_edges"] = s.tassl.internal_edges;
    t["critical_rounds"] = s.tassl.critical_rounds;
    d["tassl"] = t;
  }
  if (s.algorithm == TrsvAlgorithm::Spike || !s.spike.fallback.empty()) {
    nb::dict t;
    t["bandwidth"] = s.spike.bandwidth;
    t["chain_rows"] = s.spike.chain_rows;
    t["chains"] = s.spike.chains;
    t["groups"] = s.spike.groups;
    t["spike_bytes"] = s.spike.spike_bytes;
    t["predicted_seconds"] = s.spike.predicted_seconds;
    t["fallback"] = text(s.spike.fallback);
    d["spike"] = t;
  }
  d["host_solves_on_cpu"] = s.host_solves_on_cpu;
  if (!s.trial.empty()) d["trial"] = text(s.trial);
  nb::dict u;
  u["updates"] = s.updates.updates;
  u["incremental"] = s.updates.incremental;
  u["reanalyses"] = s.updates.reanalyses;
  u["last_seconds"] = s.updates.last_seconds;
  d["updates"] = u;
  return d;
}

nb::dict to_dict(const IncompleteStats& s) {
  nb::dict d;
  d["kind"] = to_string(s.kind);
  d["device"] = to_string(s.device);
  d["rows"] = s.rows;
  d["nnz"] = s.nnz;
  d["levels"] = s.levels;
  d["shift"] = s.shift;
  d["attempts"] = s.attempts;
  d["analysis_seconds"] = s.analysis_seconds;
  d["factor_seconds"] = s.factor_seconds;
  d["host_numeric"] = s.host_numeric;
  return d;
}

nb::dict to_dict(const KrylovStats& s) {
  nb::dict d;
  d["method"] = to_string(s.method);
  d["preconditioner"] = to_string(s.preconditioner);
  d["ordering"] = to_string(s.ordering);
  d["colours"] = s.colours;
  d["device"] = to_string(s.device);
  d["outcome"] = to_string(s.outcome);
  d["converged"] = s.outcome == KrylovOutcome::Converged;
  d["message"] = s.message;
  d["iterations"] = s.iterations;
  d["matvecs"] = s.matvecs;
  d["residual"] = s.residual;
  d["true_residual"] = s.true_residual;
  d["history"] = s.history;
  d["setup_seconds"] = s.setup_seconds;
  d["ordering_seconds"] = s.ordering_seconds;
  d["factor_seconds"] = s.factor_seconds;
  d["solve_seconds"] = s.solve_seconds;
  d["preconditioner_seconds"] = s.preconditioner_seconds;
  d["spmv_seconds"] = s.spmv_seconds;
  d["vector_seconds"] = s.vector_seconds;
  d["spmv"] = s.spmv;
  if (s.preconditioner == PreconditionerKind::Ilu0 || s.preconditioner == PreconditionerKind::Ic0) {
    d["factor"] = to_dict(s.factor);
    d["lower"] = to_dict(s.lower);
    d["upper"] = to_dict(s.upper);
  }
  return d;
}

nb::dict to_dict(const BandedStats& s) {
  nb::dict d;
  d["variant"] = to_string(s.variant);
  d["device"] = to_string(s.device);
  d["n"] = s.n;
  d["k"] = s.k;
  d["partitions"] = s.partitions;
  d["boosted_pivots"] = s.boosted_pivots;
  d["device_bytes"] = s.device_bytes;
  d["setup_seconds"] = s.t_setup;
  d["lu_seconds"] = s.t_lu;
  d["spike_seconds"] = s.t_spk;
  d["solve_seconds"] = s.t_kry;
  d["restarts"] = s.restarts;
  d["krylov"] = to_dict(s.krylov);
  return d;
}

nb::dict to_dict(const QrStats& s) {
  nb::dict d;
  d["rows"] = s.rows;
  d["cols"] = s.cols;
  d["nnz"] = s.nnz;
  d["ordering"] = to_string(s.ordering);
  d["fronts"] = s.fronts;
  d["flops"] = s.flops;
  d["r_nnz"] = s.r_nnz;
  d["intensity"] = s.intensity;
  d["rank"] = s.rank;
  d["tolerance"] = s.tolerance;
  d["device"] = to_string(s.device);
  d["fallback"] = s.fallback;
  d["order_seconds"] = s.t_order;
  d["analyse_seconds"] = s.t_analyse;
  d["factorise_seconds"] = s.t_factorise;
  d["solve_seconds"] = s.t_solve;
  return d;
}

namespace {
nb::dict attempt_dict(const SolveAttempt& a) {
  nb::dict t;
  t["method"] = to_string(a.method);
  t["device"] = to_string(a.device);
  t["solved"] = a.solved;
  t["reason"] = a.reason;
  t["iterations"] = a.iterations;
  t["true_residual"] = a.true_residual;
  t["backward_error"] = a.backward_error;
  t["componentwise_backward_error"] = a.componentwise_backward_error;
  t["predicted_seconds"] = a.predicted_seconds;
  t["stopped_early"] = a.stopped_early;
  t["setup_seconds"] = a.setup_seconds;
  t["solve_seconds"] = a.solve_seconds;
  return t;
}
}  // namespace

nb::dict to_dict(const SolveReport& r) {
  nb::dict d;
  d["solved"] = r.solved;
  d["method"] = to_string(r.method);
  d["direct"] = r.direct;
  d["device"] = to_string(r.device);
  d["true_residual"] = r.true_residual;
  d["backward_error"] = r.backward_error;
  d["componentwise_backward_error"] = r.componentwise_backward_error;
  d["seconds"] = r.seconds;
  d["setup_seconds"] = r.setup_seconds;
  d["budget_seconds"] = r.budget_seconds;
  d["message"] = r.message;
  nb::list plan, chain, columns;
  for (const SolvePrediction& p : r.plan) {
    nb::dict t;
    t["method"] = to_string(p.method);
    t["device"] = to_string(p.device);
    t["predicted_seconds"] = p.seconds;
    t["basis"] = p.basis;
    plan.append(t);
  }
  for (const SolveAttempt& a : r.chain) chain.append(attempt_dict(a));
  for (const SolveAttempt& a : r.columns) columns.append(attempt_dict(a));
  d["plan"] = plan;
  d["chain"] = chain;
  d["columns"] = columns;
  d["krylov"] = to_dict(r.krylov);
  return d;
}

nb::dict to_dict(const SimplexStats& s) {
  nb::dict d;
  d["status"] = to_string(s.status);
  d["device"] = to_string(s.device);
  d["iterations"] = s.iterations;
  d["dual_phase1_iterations"] = s.dual_phase1_iterations;
  d["dual_phase2_iterations"] = s.dual_phase2_iterations;
  d["primal_iterations"] = s.primal_iterations;
  d["factorizations"] = s.factorizations;
  d["presolved_rows"] = s.presolved_rows;
  d["presolved_cols"] = s.presolved_cols;
  d["presolve_seconds"] = s.presolve_seconds;
  d["factorization_seconds"] = s.factorization_seconds;
  d["ftran_seconds"] = s.ftran_seconds;
  d["btran_seconds"] = s.btran_seconds;
  d["pricing_seconds"] = s.pricing_seconds;
  d["update_seconds"] = s.update_seconds;
  d["gpu_solve_seconds"] = s.gpu_solve_seconds;
  d["total_seconds"] = s.total_seconds;
  return d;
}

}  // namespace balsa::python
