// balsa solve: A x = b. The default method, auto, is balsa::solve's chain
// (include/balsa/solve.hpp: PCG-IC(0) for symmetric matrices with a positive
// diagonal, else diagonal boosting then ILU(0)-BiCGStab(2) and SaP, and
// UMFPACK at the end); a chain method named alone (db-bicgstab2-ilu0,
// umfpack, direct-qr) runs through the same call without the fallback
// unless --fallback; sap-d and sap-c are SaP's sparse pipeline
// (SparseSapSolver), with its phase times; the Krylov presets run
// KrylovSolver on A as it is. Without --rhs, b = A x_true for a known random
// x_true and the error is reported; --rhs may hold several columns, each
// solved in turn. A live progress line shows iteration and residual
// (stderr, when it is a terminal or with --progress). A system not solved
// is an error: the message says why (for the chain, every method's
// reason) and the exit code is 3; a result that is not finite is exit code 1.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>

#include "common.hpp"

namespace balsa::app {

namespace {

struct SolveCliOptions {
  std::string matrix;
  std::string rhs;
  std::string method = "auto";
  double tolerance = 1e-8;
  std::optional<int> max_iterations;  // default: 10000 (presets, SaP), SolveOptions' (the chain)
  StoppingNorm norm = StoppingNorm::Infinity;
  Device device = Device::Auto;
  TrsvAlgorithm trsv = TrsvAlgorithm::Auto;
  bool float_preconditioner = false;
  bool no_shift = false;
  bool fallback = false;
  std::string output;
  bool json = false;
  bool progress = false;
  std::uint64_t seed = 1;
  index_t partitions = 0;  // SaP
  double drop_tolerance = SparseSapOptions{}.drop_tolerance;  // SaP
};

// How --method runs.
enum class Path { Chain, Sap, Preset };

// The --method names: auto and the chain's methods, then the Krylov
// presets (pcg-ic0 is both: it runs as a preset, with --norm and --trsv).
std::vector<std::string> method_names() {
  std::vector<std::string> v = enum_names<SolveMethod>();
  for (const std::string& s : enum_names<KrylovPreset>())
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  return v;
}
Path path_of(const std::string& name) {
  const std::vector<std::string> presets = enum_names<KrylovPreset>();
  if (std::find(presets.begin(), presets.end(), name) != presets.end()) return Path::Preset;
  const SolveMethod m = from_string<SolveMethod>(name);
  return m == SolveMethod::SapD || m == SolveMethod::SapC ? Path::Sap : Path::Chain;
}

// One column's result, whichever path made it.
struct Column {
  bool ok = false;
  std::string outcome;  // a KrylovOutcome name, "direct", or "not-solved"
  std::string message;
  std::string method;   // what produced x
  int iterations = 0;
  double residual = -1, true_residual = -1, seconds = 0;
  std::vector<double> history;
  std::vector<SolveAttempt> chain;
};

Column from_krylov(const KrylovStats& s, const std::string& method) {
  return {s.outcome == KrylovOutcome::Converged, to_string(s.outcome), s.message, method, s.iterations, s.residual,
          s.true_residual, s.solve_seconds, s.history, {}};
}

Column from_report(const SolveReport& r) {
  Column c;
  if (r.solved && !r.direct) c = from_krylov(r.krylov, to_string(r.method));
  c.ok = r.solved;
  c.outcome = !r.solved ? "not-solved" : r.direct ? "direct" : "converged";
  c.method = r.solved ? to_string(r.method) : "none";
  c.message = r.message;
  c.true_residual = r.true_residual;
  c.seconds = r.seconds;
  c.chain = r.chain;
  return c;
}

nlohmann::json chain_json(const std::vector<SolveAttempt>& chain) {
  nlohmann::json j = nlohmann::json::array();
  for (const SolveAttempt& a : chain)
    j.push_back({{"method", to_string(a.method)}, {"solved", a.solved}, {"reason", a.reason},
                 {"iterations", a.iterations}, {"true_residual", a.true_residual},
                 {"setup_seconds", a.setup_seconds}, {"solve_seconds", a.solve_seconds}});
  return j;
}

nlohmann::json column_json(const Column& c) {
  nlohmann::json j = {{"outcome", c.outcome}, {"message", c.message}, {"method", c.method},
                      {"iterations", c.iterations}, {"residual", c.residual}, {"true_residual", c.true_residual},
                      {"solve_seconds", c.seconds}};
  if (!c.chain.empty()) j["chain"] = chain_json(c.chain);
  return j;
}

void print_sap_stats(std::FILE* report, const SparseSapStats& p) {
  const BandedStats& st = p.banded;
  fmt::print(report,
             "  SaP: n = {}, half-bandwidth {} -> {} after DB and CM -> k = {} ({} entries dropped, {:.2g} of the "
             "norm), P = {} (blocks of {}..{} rows, bandwidths {}..{}), {} boosted pivots{}\n"
             "  T_DB {:.4f} s, T_CM {:.4f} s, T_Drop {:.4f} s, T_Asmbl {:.4f} s, T_Dtransf {:.4f} s, T_LU {:.4f} s, "
             "T_BC {:.4f} s, T_SPK {:.4f} s, T_LUrdcd {:.4f} s, T_Kry {:.4f} s ({} restarts)\n",
             p.n, p.k_original, p.k_cm, p.k, p.dropped, p.dropped_norm, st.partitions, st.min_block, st.max_block,
             st.min_block_bandwidth, st.max_block_bandwidth, st.boosted_pivots,
             st.float_preconditioner ? ", float preconditioner" : "", p.t_db, p.t_cm, p.t_drop, p.t_asmbl,
             p.t_dtransf, st.t_lu, st.t_bc, st.t_spk, st.t_lu_rdcd, st.t_kry, st.restarts);
}

void print_chain(std::FILE* report, const std::vector<SolveAttempt>& chain) {
  for (const SolveAttempt& a : chain)
    fmt::print(report, "  {} {}: {}{} (set-up {:.4f} s, solve {:.4f} s)\n", a.solved ? "+" : "-", to_string(a.method),
               a.solved ? "solved" : a.reason,
               a.true_residual >= 0 ? fmt::format(", ||b - A x|| / ||b|| = {:.3e}", a.true_residual) : "",
               a.setup_seconds, a.solve_seconds);
}

void run_solve(const SolveCliOptions& o) {
  std::FILE* report = report_stream(o.json, o.output);
  const Path path = path_of(o.method);
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

  // Set up once (SaP, presets) or per column (the chain), then solve every column.
  std::optional<SparseSapSolver<double>> sap;
  std::optional<KrylovSolver<double>> krylov;
  std::function<Column(std::span<const double>, std::span<double>)> solve_one;
  if (path == Path::Chain) {
    SolveOptions so;
    so.method = from_string<SolveMethod>(o.method);
    so.device = device;
    so.tolerance = o.tolerance;
    if (o.max_iterations) so.max_iterations = *o.max_iterations;
    so.direct_fallback = so.method == SolveMethod::Auto || o.fallback;
    if (live)
      so.progress = [](const char* name, int it, double res) {
        std::fprintf(stderr, "\r  %-18s iteration %7d  residual %.3e", name, it, res);
      };
    solve_one = [&A, so](std::span<const double> b, std::span<double> x) { return from_report(solve(A, b, x, so)); };
  } else if (path == Path::Sap) {
    SparseSapOptions so;
    so.variant = from_string<SapVariant>(o.method);
    so.device = device;
    so.partitions = o.partitions;
    so.drop_tolerance = o.drop_tolerance;
    so.float_preconditioner = o.float_preconditioner;
    so.tolerance = o.tolerance;
    so.max_iterations = o.max_iterations.value_or(10000);
    so.pivot_boost = !o.no_shift;
    so.progress = progress;
    sap.emplace(A, so);
    // SaP's Krylov residuals are those of the permuted, scaled system: the
    // true residual reported is A's own, measured here.
    solve_one = [&](std::span<const double> b, std::span<double> x) {
      Column c = from_krylov(sap->solve(b, x), o.method);
      c.true_residual = relative_residual(A, std::span<const double>(x), b);
      return c;
    };
  } else {
    KrylovOptions ko = krylov_options(from_string<KrylovPreset>(o.method));
    ko.tolerance = o.tolerance;
    ko.max_iterations = o.max_iterations.value_or(10000);
    ko.norm = o.norm;
    ko.device = device;
    ko.trsv = o.trsv;
    ko.float_preconditioner = o.float_preconditioner;
    if (o.no_shift) ko.factor.on_breakdown = PivotBreakdown::Fail;
    ko.progress = progress;
    krylov.emplace(A, ko);
    solve_one = [&](std::span<const double> b, std::span<double> x) {
      return from_krylov(krylov->solve(b, x), o.method);
    };
  }
  DenseMatrix<double> X(A.rows, B.cols);
  std::vector<Column> columns;
  for (index_t c = 0; c < B.cols; ++c) {
    columns.push_back(solve_one(B.column(c), X.column(c)));
    if (live) std::fprintf(stderr, "\n");
  }
  const Column& first = columns.front();
  const double error = x_true.empty() ? -1.0 : relative_error<double>(X.column(0), x_true);
  if (!o.output.empty()) save_matrix(o.output, X);
  const char* norm_name = path == Path::Preset ? to_string(o.norm) : "2";
  const KrylovStats* setup = krylov ? &krylov->stats() : sap ? &sap->stats().banded.krylov : nullptr;
  if (o.json) {
    nlohmann::json j = {{"matrix", o.matrix}, {"n", A.rows}, {"nnz", A.nnz()}, {"method", first.method},
                        {"requested_method", o.method}, {"device", to_string(device)}, {"columns", B.cols},
                        {"norm", norm_name}};
    if (krylov) {
      j.update({{"setup_seconds", setup->setup_seconds}, {"factor_seconds", setup->factor_seconds},
                {"shift", setup->factor.shift}, {"ordering", to_string(setup->ordering)},
                {"colours", setup->colours}, {"ordering_seconds", setup->ordering_seconds}});
    } else if (sap) {
      j["setup_seconds"] = sap->stats().t_setup;
    } else {  // the chain: the set-ups of every method it tried (first column)
      double total = 0;
      for (const SolveAttempt& a : first.chain) total += a.setup_seconds;
      j["setup_seconds"] = total;
    }
    if (B.cols == 1) {
      j.update(column_json(first));
      j["history"] = first.history;
      if (krylov) j.update({{"spmv_seconds", setup->spmv_seconds}, {"preconditioner_seconds", setup->preconditioner_seconds},
                            {"vector_seconds", setup->vector_seconds}});
    } else {
      j["results"] = nlohmann::json::array();
      for (const Column& c : columns) j["results"].push_back(column_json(c));
    }
    if (!x_true.empty()) j["error"] = error;
    if (sap) {
      const SparseSapStats& p = sap->stats();
      j["sap"] = {{"partitions", p.banded.partitions}, {"k_original", p.k_original}, {"k_cm", p.k_cm}, {"k", p.k},
                  {"dropped", p.dropped}, {"dropped_norm", p.dropped_norm},
                  {"boosted_pivots", p.banded.boosted_pivots}, {"restarts", p.banded.restarts},
                  {"t_db", p.t_db}, {"t_cm", p.t_cm}, {"t_drop", p.t_drop}, {"t_asmbl", p.t_asmbl},
                  {"t_dtransf", p.t_dtransf}, {"t_lu", p.banded.t_lu}, {"t_bc", p.banded.t_bc},
                  {"t_spk", p.banded.t_spk}, {"t_lu_rdcd", p.banded.t_lu_rdcd}, {"t_kry", p.banded.t_kry},
                  {"t_setup", p.t_setup}};
    }
    print_json(j);
  } else {
    if (sap) print_sap_stats(report, sap->stats());
    for (index_t c = 0; c < B.cols; ++c) {
      const Column& r = columns[std::size_t(c)];
      const std::string which = B.cols > 1 ? fmt::format("column {}: ", c + 1) : "";
      const std::string err = x_true.empty() ? "" : fmt::format(", error {:.3e}", error);
      if (path == Path::Chain) {
        print_chain(report, r.chain);
        fmt::print(report, "  {}{}{}\n", which, r.message, r.ok ? err : "");
      } else {
        fmt::print(report, "  {}{} after {} iterations: residual {:.3e} ({}-norm, recursive), true residual {:.3e}{}\n",
                   which, r.outcome, r.iterations, r.residual, norm_name, r.true_residual, err);
      }
    }
    const double per_iteration = first.iterations > 0 ? first.seconds * 1e3 / first.iterations : 0.0;
    if (krylov)
      fmt::print(report, "  setup {:.4f} s ({}factorisation {:.4f} s, shift {:g}), solve {:.4f} s ({:.4f} ms per iteration)\n",
                 setup->setup_seconds,
                 setup->ordering == KrylovOrdering::Multicolour
                     ? fmt::format("multicolour ordering {:.4f} s, {} colours; ", setup->ordering_seconds,
                                   setup->colours)
                     : "",
                 setup->factor_seconds, setup->factor.shift, first.seconds, per_iteration);
    else if (sap)
      fmt::print(report, "  set-up {:.4f} s, solve {:.4f} s ({:.4f} ms per iteration)\n", sap->stats().t_setup,
                 first.seconds, per_iteration);
    else
      fmt::print(report, "  {:.4f} s in all\n", first.seconds);
    if (krylov && (setup->preconditioner == PreconditionerKind::Ic0 || setup->preconditioner == PreconditionerKind::Ilu0))
      fmt::print(report, "  triangular solves: {} / {}\n", to_string(setup->lower.algorithm),
                 to_string(setup->upper.algorithm));
  }
  for (index_t c = 0; c < B.cols; ++c) {
    const Column& r = columns[std::size_t(c)];
    const std::string which = B.cols > 1 ? fmt::format(" (column {})", c + 1) : "";
    if (!r.ok) {
      if (path == Path::Chain) throw NotConverged(fmt::format("{}: not solved{}: {}", o.method, which, r.message));
      throw NotConverged(fmt::format("{} did not converge{}: {} ({})", o.method, which, r.outcome, r.message));
    }
    require_finite_result(X.column(c), r.true_residual, "the solution x" + which);
  }
}

}  // namespace

void add_solve_command(CLI::App& app) {
  auto o = std::make_shared<SolveCliOptions>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve A x = b: a chain of methods by default (GPU when present)");
  cmd->add_option("matrix", o->matrix, "Matrix Market file of A (square; '-': standard input)")
      ->required()
      ->option_text(" FILE");
  cmd->add_option("--rhs", o->rhs,
                  "Matrix Market file of b (n x k: k right-hand sides); default: b = A x_true, error reported")
      ->option_text(" FILE");
  const std::vector<std::string> methods = method_names();
  std::string list;
  for (const std::string& s : methods) list += (list.empty() ? "" : ", ") + s;
  cmd->add_option("--method", o->method, "auto (the chain), a chain method alone, SaP's sparse pipeline (sap-d, sap-c) or a Krylov method with its preconditioner (" + list + ")")
      ->check(one_of(methods))
      ->option_text(" NAME")
      ->capture_default_str();
  cmd->add_option("--tol", o->tolerance, "Relative tolerance")->check(positive())->capture_default_str();
  cmd->add_option("--maxit", o->max_iterations,
                  "Most iterations (default: 10000; the chain: " + std::to_string(SolveOptions{}.max_iterations) +
                      " per method)")
      ->check(between(0, 1e8));
  add_enum_option(cmd, "--norm", o->norm, "Stopping norm: inf (the thesis') or 2");
  add_device_option(cmd, o->device);
  add_enum_option(cmd, "--trsv", o->trsv, "Triangular solver of the IC(0)/ILU(0) preconditioner");
  cmd->add_option("--partitions", o->partitions, "SaP: number of partitions P (0: chosen automatically)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--drop", o->drop_tolerance,
                  "SaP (sap-d, sap-c): drop-off, the fraction of the Frobenius norm of the reordered matrix (SaP-D: "
                  "of each block's rows) that the entries left out of the band may hold")
      ->check(between(0, 0.999999))
      ->capture_default_str();
  cmd->add_flag("--fallback", o->fallback, "A chain method named alone falls back to UMFPACK when it fails");
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
