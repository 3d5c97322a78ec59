// balsa solve: A x = b with a preconditioned Krylov method, or SaP on A's
// band. Without --rhs, b = A x_true for a known random x_true and the error
// is reported; --rhs may hold several columns, each solved in turn by the
// same set-up. A live progress line shows iteration and residual (stderr,
// when it is a terminal or with --progress). Non-convergence is an error:
// the message says why and the exit code is 3; a result that is not finite
// is exit code 1.
#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <variant>

#include "common.hpp"

namespace balsa::app {

namespace {

// --method: a Krylov preset or a SaP variant (SaP on A's band).
using Method = std::variant<KrylovPreset, SapVariant>;

struct SolveOptions {
  std::string matrix;
  std::string rhs;
  std::string method = "pcg-ic0";
  double tolerance = 1e-8;
  int max_iterations = 10000;
  StoppingNorm norm = StoppingNorm::Infinity;
  Device device = Device::Auto;
  TrsvAlgorithm trsv = TrsvAlgorithm::Auto;
  bool float_preconditioner = false;
  bool no_shift = false;
  std::string output;
  bool json = false;
  bool progress = false;
  std::uint64_t seed = 1;
  index_t partitions = 0;  // SaP
};

// The --method names: the Krylov presets', then SaP's variants'.
std::vector<std::string> method_names() {
  std::vector<std::string> v = enum_names<KrylovPreset>();
  for (const std::string& s : enum_names<SapVariant>()) v.push_back(s);
  return v;
}
Method parse_method(const std::string& name) {
  for (const std::string& s : enum_names<SapVariant>())
    if (name == s) return from_string<SapVariant>(name);
  return from_string<KrylovPreset>(name);
}

// One right-hand side at a time through whichever solver was set up.
using SolveOne = std::function<KrylovStats(std::span<const double>, std::span<double>)>;

void print_sap_stats(std::FILE* report, const BandedStats& st) {
  fmt::print(report, "  SaP: n = {}, k = {}, P = {} (blocks of {}..{} rows, bandwidths {}..{}), {} boosted pivots{}\n"
             "  T_upload {:.4f} s, T_LU {:.4f} s, T_BC {:.4f} s, T_SPK {:.4f} s, T_LUrdcd {:.4f} s, T_Kry {:.4f} s "
             "({} restarts)\n",
             st.n, st.k, st.partitions, st.min_block, st.max_block, st.min_block_bandwidth, st.max_block_bandwidth,
             st.boosted_pivots, st.float_preconditioner ? ", float preconditioner" : "", st.t_upload, st.t_lu, st.t_bc,
             st.t_spk, st.t_lu_rdcd, st.t_kry, st.restarts);
}

nlohmann::json column_json(const KrylovStats& s) {
  return {{"outcome", to_string(s.outcome)}, {"message", s.message}, {"iterations", s.iterations},
          {"residual", s.residual}, {"true_residual", s.true_residual}, {"solve_seconds", s.solve_seconds}};
}

void run_solve(const SolveOptions& o) {
  std::FILE* report = report_stream(o.json, o.output);
  const Method method = parse_method(o.method);
  const bool sap = std::holds_alternative<SapVariant>(method);
  const LoadedMatrix<double> m = load_matrix<double>(o.matrix);
  const Csr<double>& A = m.A;
  if (A.rows != A.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, a solve needs a square one", o.matrix, A.rows, A.cols));
  DenseMatrix<double> B;
  std::vector<double> x_true;
  if (!o.rhs.empty()) {
    B = load_columns(o.rhs, A.rows);
  } else {
    x_true = random_vector<double>(A.rows, o.seed);
    B = DenseMatrix<double>(A.rows, 1);
    B.values = multiply(A, std::span<const double>(x_true));
  }
  const Device device = usable_device(o.device);
  const bool live = o.progress || (!o.json && isatty(fileno(stderr)));
  const std::function<void(int, double)> progress =
      live ? std::function<void(int, double)>(
                 [](int it, double res) { std::fprintf(stderr, "\r  iteration %7d  residual %.3e", it, res); })
           : nullptr;
  if (!o.json)
    fmt::print(report, "balsa solve: {} ({} x {}, {} entries), {} on {}{}\n", o.matrix, A.rows, A.cols, A.nnz(), o.method,
               to_string(device), B.cols > 1 ? fmt::format(", {} right-hand sides", B.cols) : "");

  // Set up once, then solve every column.
  std::optional<BandedSolver<double>> banded;
  std::optional<KrylovSolver<double>> krylov;
  SolveOne solve_one;
  if (sap) {
    BandedOptions so;
    so.variant = std::get<SapVariant>(method);
    so.device = device;
    so.partitions = o.partitions;
    so.float_preconditioner = o.float_preconditioner;
    so.tolerance = o.tolerance;
    so.max_iterations = o.max_iterations;
    if (o.no_shift) so.pivot_boost = false;
    banded.emplace(A, so);
    solve_one = [&](std::span<const double> b, std::span<double> x) { return banded->solve(b, x); };
  } else {
    KrylovOptions ko = krylov_options(std::get<KrylovPreset>(method));
    ko.tolerance = o.tolerance;
    ko.max_iterations = o.max_iterations;
    ko.norm = o.norm;
    ko.device = device;
    ko.trsv = o.trsv;
    ko.float_preconditioner = o.float_preconditioner;
    if (o.no_shift) ko.factor.on_breakdown = PivotBreakdown::Fail;
    ko.progress = progress;
    krylov.emplace(A, ko);
    solve_one = [&](std::span<const double> b, std::span<double> x) { return krylov->solve(b, x); };
  }
  DenseMatrix<double> X(A.rows, B.cols);
  std::vector<KrylovStats> stats;
  for (index_t c = 0; c < B.cols; ++c) {
    stats.push_back(solve_one(B.column(c), X.column(c)));
    if (live) std::fprintf(stderr, "\n");
  }
  const KrylovStats& s = stats.front();  // set-up fields and, for one column, everything
  const double error = x_true.empty() ? -1.0 : relative_error<double>(X.column(0), x_true);
  if (!o.output.empty()) save_matrix(o.output, X);
  const char* norm_name = sap ? "2" : to_string(o.norm);
  if (o.json) {
    nlohmann::json j = {{"matrix", o.matrix}, {"n", A.rows}, {"nnz", A.nnz()}, {"method", o.method},
                        {"device", to_string(device)}, {"columns", B.cols}, {"norm", norm_name},
                        {"setup_seconds", s.setup_seconds}, {"factor_seconds", s.factor_seconds},
                        {"shift", s.factor.shift}};
    if (B.cols == 1) {
      j.update(column_json(s));
      j.update({{"spmv_seconds", s.spmv_seconds}, {"preconditioner_seconds", s.preconditioner_seconds},
                {"vector_seconds", s.vector_seconds}, {"history", s.history}});
    } else {
      j["results"] = nlohmann::json::array();
      for (const KrylovStats& c : stats) j["results"].push_back(column_json(c));
    }
    if (!x_true.empty()) j["error"] = error;
    if (sap) j["sap"] = {{"partitions", banded->stats().partitions}, {"k", banded->stats().k},
                         {"boosted_pivots", banded->stats().boosted_pivots}, {"restarts", banded->stats().restarts}};
    print_json(j);
  } else {
    if (sap) print_sap_stats(report, banded->stats());
    for (index_t c = 0; c < B.cols; ++c) {
      const KrylovStats& r = stats[std::size_t(c)];
      fmt::print(report, "  {}{} after {} iterations: residual {:.3e} ({}-norm, recursive), true residual {:.3e}{}\n",
                 B.cols > 1 ? fmt::format("column {}: ", c + 1) : "", to_string(r.outcome), r.iterations, r.residual,
                 norm_name, r.true_residual, x_true.empty() ? "" : fmt::format(", error {:.3e}", error));
    }
    const double per_iteration = s.iterations > 0 ? s.solve_seconds * 1e3 / s.iterations : 0.0;
    if (sap)  // its set-up phases are on the SaP line above
      fmt::print(report, "  solve {:.4f} s ({:.4f} ms per iteration)\n", s.solve_seconds, per_iteration);
    else
      fmt::print(report, "  setup {:.4f} s (factorisation {:.4f} s, shift {:g}), solve {:.4f} s ({:.4f} ms per iteration)\n",
                 s.setup_seconds, s.factor_seconds, s.factor.shift, s.solve_seconds, per_iteration);
    if (s.preconditioner == PreconditionerKind::Ic0 || s.preconditioner == PreconditionerKind::Ilu0)
      fmt::print(report, "  triangular solves: {} / {}\n", to_string(s.lower.algorithm), to_string(s.upper.algorithm));
  }
  for (index_t c = 0; c < B.cols; ++c) {
    const KrylovStats& r = stats[std::size_t(c)];
    const std::string which = B.cols > 1 ? fmt::format(" (column {})", c + 1) : "";
    if (r.outcome != KrylovOutcome::Converged)
      throw NotConverged(fmt::format("{} did not converge{}: {} ({})", o.method, which, to_string(r.outcome), r.message));
    require_finite_result(X.column(c), r.true_residual, "the solution x" + which);
  }
}

}  // namespace

void add_solve_command(CLI::App& app) {
  auto o = std::make_shared<SolveOptions>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve A x = b with a preconditioned Krylov method (GPU when present)");
  cmd->add_option("matrix", o->matrix, "Matrix Market file of A (square; '-': standard input)")
      ->required()
      ->option_text(" FILE");
  cmd->add_option("--rhs", o->rhs,
                  "Matrix Market file of b (n x k: k right-hand sides); default: b = A x_true, error reported")
      ->option_text(" FILE");
  const std::vector<std::string> methods = method_names();
  std::string list;
  for (const std::string& s : methods) list += (list.empty() ? "" : ", ") + s;
  cmd->add_option("--method", o->method, "Krylov method and preconditioner, or SaP on A's band (" + list + ")")
      ->check(one_of(methods))
      ->option_text(" NAME")
      ->capture_default_str();
  cmd->add_option("--tol", o->tolerance, "Relative tolerance")->check(positive())->capture_default_str();
  cmd->add_option("--maxit", o->max_iterations, "Most iterations")->check(between(0, 1e8))->capture_default_str();
  add_enum_option(cmd, "--norm", o->norm, "Stopping norm: inf (the thesis') or 2");
  add_device_option(cmd, o->device);
  add_enum_option(cmd, "--trsv", o->trsv, "Triangular solver of the IC(0)/ILU(0) preconditioner");
  cmd->add_option("--partitions", o->partitions, "SaP: number of partitions P (0: chosen automatically)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_flag("--float-preconditioner", o->float_preconditioner, "Mixed precision: float preconditioner");
  cmd->add_flag("--no-shift", o->no_shift,
                "Fail on an IC(0)/ILU(0) pivot breakdown instead of shifting (SaP: no pivot boosting)");
  cmd->add_option("-o,--output", o->output, "Write x here (Matrix Market array; '-': standard output)")
      ->option_text(" FILE");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_flag("--progress", o->progress, "Show the progress line even when stderr is not a terminal");
  cmd->add_option("--seed", o->seed, "Seed of x_true (without --rhs)")->capture_default_str();
  cmd->callback([o] { run_solve(*o); });
}

}  // namespace balsa::app
