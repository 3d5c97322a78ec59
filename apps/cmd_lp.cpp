// balsa lp MODEL.mps: the revised simplex (thesis ch. 7) on an MPS file.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <iostream>
#include <ostream>

#include "balsa/lp.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct LpOptions {
  std::string model;
  SimplexOptions simplex;
  JsonOutput json;
  bool quiet = false;
  bool progress = false;
  std::string output;
};

void print_line(const std::string& line, void* stream) { fmt::print(static_cast<std::FILE*>(stream), "{}\n", line); }

// The objective as the report states it: a value only where there is one
// to state (optimal, or the last point of a stopped solve).
std::string objective_text(const LpSolution& s) {
  switch (s.status) {
    case LpStatus::Infeasible:
      return "no objective value (no point satisfies the constraints)";
    case LpStatus::Unbounded:
      return "no objective value (the objective is unbounded)";
    case LpStatus::Optimal:
      return fmt::format("objective {:.12g}", s.objective);
    default:
      return fmt::format("objective {:.12g} at the last point (not optimal)", s.objective);
  }
}

// Column name, value, reduced cost; then row name, activity, dual. A file
// is replaced whole or not at all (balsa/atomic_file.hpp); "-" is standard
// output.
void write_solution(const std::string& path, const LinearProgram& lp, const LpSolution& s) {
  const auto write = [&](std::ostream& out) {
    const bool none = s.status == LpStatus::Infeasible || s.status == LpStatus::Unbounded;
    out << fmt::format("# balsa lp: {} status {} {}\n", lp.name, to_string(s.status),
                       none ? objective_text(s) : fmt::format("objective {:.17g}", s.objective));
    out << "# columns: name value reduced_cost\n";
    for (index_t j = 0; j < lp.cols(); ++j)
      out << fmt::format("{} {:.17g} {:.17g}\n", lp.col_names.empty() ? fmt::format("C{}", j) : lp.col_names[j], s.x[j],
                         s.reduced_cost[j]);
    out << "# rows: name activity dual\n";
    for (index_t i = 0; i < lp.rows(); ++i)
      out << fmt::format("{} {:.17g} {:.17g}\n", lp.row_names.empty() ? fmt::format("R{}", i) : lp.row_names[i],
                         s.row_activity[i], s.row_dual[i]);
  };
  if (path != "-") return write_file_atomically(path, write);
  write(std::cout);
  std::cout.flush();
  if (!std::cout) throw Error("cannot write the solution to standard output");
}

// Optimal is the answer (exit 0); an infeasible or unbounded LP has no
// optimum and a solve stopped by --max-iterations or --time-limit reached
// a limit (exit 3, as a Krylov solve that did not converge); numerical
// trouble is a failed computation (exit 1).
void require_finished(const LpSolution& s) {
  if (s.status == LpStatus::Infeasible)
    throw NotConverged(fmt::format("the linear program is infeasible: no point satisfies the constraints ({} "
                                   "iterations)", s.iterations));
  if (s.status == LpStatus::Unbounded)
    throw NotConverged(fmt::format("the linear program is unbounded: the objective has no optimum ({} iterations)",
                                   s.iterations));
  if (s.status == LpStatus::IterationLimit)
    throw NotConverged(
        fmt::format("the simplex stopped at --max-iterations after {} iterations: not optimal", s.iterations));
  if (s.status == LpStatus::TimeLimit)
    throw NotConverged(
        fmt::format("the simplex stopped at --time-limit after {} iterations: not optimal", s.iterations));
  if (s.status == LpStatus::NumericalTrouble)
    throw Error(fmt::format("the simplex ran into numerical trouble after {} iterations: no answer", s.iterations));
}

void run_lp(LpOptions& o) {
  refuse_overwriting({o.model}, {o.output});
  usable_device(o.simplex.device);  // --device cuda without a GPU: an Error naming the option, before any work
  Stopwatch read_clock;
  const LinearProgram lp = read_mps(o.model);
  const double read_seconds = read_clock.seconds();
  std::FILE* report = report_stream(o.json, o.output);  // stderr when the solution takes stdout
  if (o.json.to_stdout()) report = stderr;
  if (!o.quiet) {
    o.simplex.log = print_line;
    o.simplex.log_user = report;
  }
  if (!o.quiet && !o.json) {
    fmt::print(report, "{}: {} rows, {} columns, {} nonzeros{}\n", lp.name.empty() ? o.model : lp.name, lp.rows(),
               lp.cols(), lp.A.nnz(),
               lp.integer_columns() > 0
                   ? fmt::format(" ({} integer columns: solving the LP relaxation)", lp.integer_columns())
                   : std::string());
    fmt::print(report, "{:>9} {:>18} {:>11} {:>11} {:>10}\n", "iteration", "objective", "primal inf", "dual inf",
               "time");
  }
  if (lp.integer_columns() > 0)
    warn(fmt::format("{}: {} integer columns (MPS markers) are relaxed: balsa lp solves the LP relaxation, not the "
                     "integer program", o.model, lp.integer_columns()));
  // Without -q the simplex's own lines are the progress; the ticker only when forced.
  ProgressLine progress(o.progress, true);
  progress.phase("simplex");
  SimplexSolver solver(lp, o.simplex);
  const LpSolution s = solver.solve();
  progress.stop();
  const SimplexStats& st = solver.stats();
  if (!o.output.empty()) write_solution(o.output, lp, s);
  if (o.json) {
    print_json({{"model", o.model},
                {"name", lp.name},
                {"rows", lp.rows()},
                {"cols", lp.cols()},
                {"nnz", lp.A.nnz()},
                {"integer_columns", lp.integer_columns()},
                {"status", to_string(s.status)},
                {"objective", s.objective},
                {"iterations", s.iterations},
                {"max_primal_infeasibility", s.max_primal_infeasibility},
                {"max_dual_infeasibility", s.max_dual_infeasibility},
                {"read_seconds", read_seconds},
                {"stats", fields_json(st)}}, o.json.path);
  } else {
    fmt::print(report, "status {}, {}, {} iterations ({} dual phase 1, {} dual phase 2, {} primal), {:.3f} s\n",
               to_string(s.status), objective_text(s), s.iterations, st.dual_phase1_iterations,
               st.dual_phase2_iterations, st.primal_iterations, st.total_seconds);
  }
  if (!o.json && !o.quiet) {
    fmt::print(report, "time: factorization {:.3f} s, FTRAN {:.3f} s, BTRAN {:.3f} s, pricing {:.3f} s, update "
               "{:.3f} s; basis solves on {} ({} of {} factorisations on the GPU)\n", st.factorization_seconds,
               st.ftran_seconds, st.btran_seconds, st.pricing_seconds, st.update_seconds, to_string(st.device),
               st.gpu_factorizations, st.factorizations);
    fmt::print(report, "max primal infeasibility {:.2e}, max dual infeasibility {:.2e}\n",
               s.max_primal_infeasibility, s.max_dual_infeasibility);
  }
  require_finished(s);
}

}  // namespace

void add_lp_command(CLI::App& app) {
  auto o = std::make_shared<LpOptions>();
  CLI::App* cmd = app.add_subcommand("lp", "Solve a linear program (MPS, .mps.gz) with the revised simplex");
  cmd->add_option("model", o->model, "MPS file (fixed or free format, gzip allowed)")->required()->option_text(" FILE");
  add_device_option(cmd, o->simplex.device);
  add_enum_option(cmd, "--pricing", o->simplex.pricing, "Dual pricing");
  cmd->add_option("--max-iterations", o->simplex.max_iterations, "Iteration limit")->check(positive());
  cmd->add_option("--time-limit", o->simplex.time_limit_seconds, "Time limit in seconds")->check(positive());
  cmd->add_option("--primal-tol", o->simplex.primal_tolerance, "Primal feasibility tolerance")->check(positive());
  cmd->add_option("--dual-tol", o->simplex.dual_tolerance, "Dual feasibility tolerance")->check(positive());
  cmd->add_option("--refactor-every", o->simplex.refactor_every, "Forrest-Tomlin updates between factorisations")
      ->check(between(1, 1000));
  cmd->add_flag("--no-presolve", [o](std::int64_t) { o->simplex.presolve = false; }, "Solve without presolve");
  cmd->add_flag("--no-scale", [o](std::int64_t) { o->simplex.scale = false; }, "Solve without scaling");
  cmd->add_flag("--no-perturb", [o](std::int64_t) { o->simplex.perturb = false; }, "No cost perturbation");
  o->simplex.log_every = 1000;
  cmd->add_option("--log-every", o->simplex.log_every,
                  "A progress line every this many iterations (0: only the "
                  "phases' last lines)")
      ->check(at_least(0))
      ->capture_default_str();
  add_json_option(cmd, o->json, "Print the result as JSON, the progress lines on standard error");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress lines nor details: the one status line");
  add_progress_option(cmd, o->progress);
  cmd->add_option("-o,--output", o->output, "Write the solution (columns, then rows) to this file ('-': standard output)")
      ->option_text(" FILE");
  cmd->callback([o] { run_lp(*o); });
}

}  // namespace balsa::app
