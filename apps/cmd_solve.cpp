// balsa solve: A x = b. The default method, auto, is balsa::solve's plan
// (include/balsa/solve.hpp): Auto predicts each method's time to the answer
// (the direct solvers' own analysis, the iterative methods' cost model) and
// attempts them fastest first within a time budget, judging each answer by
// its backward error; a chain method named alone (cholmod, umfpack, klu,
// db-bicgstab2-ilu0, direct-qr, ...) runs through the same call without the
// fallback unless --fallback; sap-d and sap-c are SaP's sparse pipeline
// (SparseSapSolver), with its phase times; the Krylov presets run
// KrylovSolver on A as it is. Without --rhs, b is random (--rhs random: a
// singular A then has no solution, and the solve says so); --rhs ax is b =
// A x_true for a known random x_true, with the error reported; a --rhs file
// may hold several columns, all solved with one set-up (one plan and
// factorisation for the chain). Options the chosen method does not read are
// named in a warning (kOptionReaders). A live progress line shows the phase,
// iteration and residual (apps/progress.hpp). A system not solved is an error: the message says
// why (for the chain, every method's reason) and the exit code is 3; a
// result that is not finite is exit code 1.
#include <fmt/core.h>
#include <fmt/ranges.h>
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
  std::string rhs = "random";
  std::string method = "auto";
  double tolerance = 0;  // 0: 1e-8 in double, 1e-5 in float
  double absolute_tolerance = 0.0;
  std::string precision = "double";
  std::optional<int> max_iterations;  // default: 10000 (presets, SaP), SolveOptions' (the chain)
  StoppingNorm norm = StoppingNorm::Two;
  Device device = Device::Auto;
  TrsvAlgorithm trsv = TrsvAlgorithm::Auto;
  bool float_preconditioner = false;
  bool no_shift = false;
  bool fallback = false;
  std::string output;
  JsonOutput json;
  bool progress = false;
  std::uint64_t seed = 1;
  index_t partitions = 0;  // SaP
  std::optional<double> time_budget;  // the chain's (seconds)
  Acceptance acceptance = Acceptance::Either;
  double drop_tolerance = SparseSapOptions{}.drop_tolerance;  // SaP
  std::vector<int> devices;  // SaP: the GPUs its blocks are spread over (empty: the current one)
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

// The options only some methods read, and which: given under another
// method, each is named in a warning ("--drop is ignored: method umfpack
// does not read it (read by sap-d, sap-c)").
struct OptionReaders {
  const char* option;
  const char* readers;  // said in the warning
  bool (*reads)(Path path, const std::string& method);
};
bool preset(Path p, const std::string&) { return p == Path::Preset; }
bool sap(Path p, const std::string&) { return p == Path::Sap; }
bool preset_or_sap(Path p, const std::string&) { return p != Path::Chain; }
bool chain(Path p, const std::string&) { return p == Path::Chain; }
bool chain_alone(Path p, const std::string& m) { return p == Path::Chain && m != "auto"; }
constexpr OptionReaders kOptionReaders[] = {
    {"--norm", "the Krylov methods named alone (cg, pcg-*, bicgstab*, gmres*, minres*)", preset},
    {"--trsv", "the Krylov methods named alone with IC(0)/ILU(0)", preset},
    {"--float-preconditioner", "the Krylov methods named alone and sap-d, sap-c", preset_or_sap},
    {"--no-shift", "the Krylov methods named alone and sap-d, sap-c", preset_or_sap},
    {"--drop", "sap-d, sap-c", sap},
    {"--partitions", "sap-d, sap-c", sap},
    {"--devices", "sap-d, sap-c", sap},
    {"--time-budget", "auto and the chain's methods", chain},
    {"--acceptance", "auto and the chain's methods", chain},
    {"--fallback", "a chain method named alone (auto always falls back)", chain_alone},
};

// One warning line per option given that the chosen method does not read.
void warn_ignored(const CLI::App& cmd, const SolveCliOptions& o, Path path) {
  for (const OptionReaders& r : kOptionReaders)
    if (cmd.count(r.option) > 0 && !r.reads(path, o.method))
      warn(fmt::format("{} is ignored: method {} does not read it (read by {})", r.option, o.method, r.readers));
}

// One column's result, whichever path made it.
struct Column {
  bool ok = false;
  std::string outcome;  // a KrylovOutcome name, "direct", or "not-solved"
  std::string message;
  std::string method;   // what produced x
  int iterations = 0;
  double residual = -1, true_residual = -1, seconds = 0;
  double backward_error = -1, componentwise_backward_error = -1;
  std::vector<double> history;
  std::vector<SolveAttempt> chain;
};

Column from_krylov(const KrylovStats& s, const std::string& method) {
  return {s.outcome == KrylovOutcome::Converged, to_string(s.outcome), in_cli_terms(s.message), method,
          s.iterations, s.residual, s.true_residual, s.solve_seconds, -1, -1, s.history, {}};
}

// Column c of a chain report (column 0 carries the chain and the history).
Column from_report(const SolveReport& r, std::size_t c) {
  const SolveAttempt& a = r.columns[c];
  Column col;
  if (c == 0 && a.solved && !is_direct(a.method)) col = from_krylov(r.krylov, to_string(a.method));
  col.ok = a.solved;
  col.outcome = !a.solved ? "not-solved" : is_direct(a.method) ? "direct" : "converged";
  col.method = a.solved ? to_string(a.method) : "none";
  col.message = in_cli_terms(c == 0     ? r.message
                             : a.solved ? std::string(to_string(a.method)) + " solved it"
                                        : a.reason);
  col.iterations = a.iterations;
  col.true_residual = a.true_residual;
  col.backward_error = a.backward_error;
  col.componentwise_backward_error = a.componentwise_backward_error;
  col.seconds = c == 0 ? r.seconds : a.solve_seconds;
  if (c == 0) col.chain = r.chain;
  return col;
}

void print_plan(std::FILE* report, const SolveReport& r) {
  const SolveFeatures& f = r.features;
  fmt::print(report, "  features: {}symmetric, {} diagonal, {:.0f}% diagonally dominant rows ({:.3f} s)\n",
             f.symmetric ? "" : "not ", f.positive_diagonal ? "positive" : "not a positive", 100 * f.dominant_rows,
             f.seconds);
  print_predictions(report, r);
  if (r.budget_seconds > 0) fmt::print(report, "  time budget {:.4g} s\n", r.budget_seconds);
}

nlohmann::json column_json(const Column& c) {
  nlohmann::json j = {{"outcome", c.outcome}, {"message", c.message}, {"method", c.method},
                      {"iterations", c.iterations}, {"residual", c.residual}, {"true_residual", c.true_residual},
                      {"solve_seconds", c.seconds}};
  if (c.backward_error >= 0 || c.componentwise_backward_error >= 0)
    j.update({{"backward_error", c.backward_error}, {"componentwise_backward_error", c.componentwise_backward_error}});
  if (!c.chain.empty()) j["chain"] = fields_json(c.chain);
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
  if (!st.devices.empty())
    fmt::print(report, "  SaP on GPU{} {} ({}{})\n", st.devices.size() > 1 ? "s" : "", fmt::join(st.devices, ","),
               st.devices_reason, st.peer_access ? "" : "; some copies staged through the host: " + st.transfers);
}

void print_chain(std::FILE* report, const std::vector<SolveAttempt>& chain) {
  for (const SolveAttempt& a : chain)
    fmt::print(report, "  {} {} on {}: {}{} (set-up {:.4f} s, solve {:.4f} s{})\n", a.solved ? "+" : "-",
               to_string(a.method), to_string(a.device), a.solved ? "solved" : in_cli_terms(a.reason),
               a.backward_error >= 0 ? fmt::format(", backward error {:.2e} normwise, {:.2e} componentwise",
                                                   a.backward_error, a.componentwise_backward_error)
                                     : "",
               a.setup_seconds, a.solve_seconds,
               a.predicted_seconds >= 0 ? fmt::format("; predicted {:.4g} s", a.predicted_seconds) : "");
}

// The system: A, the right-hand sides, and x_true when b = A x_true.
template <class T>
struct System {
  Csr<T> A;
  DenseMatrix<T> B;
  std::vector<T> x_true;  // with --rhs ax only
};

// Before A's CSR is built: a square A, with an entry in every row and column
// (else structurally singular, whatever the method and b: refused before any
// work of n, at every size, so that one rule holds for 10 rows and for 2^31),
// and the memory of the vectors of n (x_true, b, x) and of the solver's
// work (at least a copy of A and a few vectors of n: every method's lower
// bound).
template <class T>
void check_census(const SolveCliOptions& o, const EntryCensus& c, MemoryPlan& plan) {
  if (c.rows != c.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, a solve needs a square one", o.matrix, c.rows, c.cols));
  require_no_empty_lines(o.matrix, c, "a solve");
  plan.add("x, b and x_true", vectors_bytes(3, c.rows, sizeof(T)));
  plan.add("the solver's work (at least a copy of A and 4 vectors of n)",
           csr_bytes(c.rows, c.positions, sizeof(T)) + vectors_bytes(4, c.rows, sizeof(T)));
}

// B's values in another precision: b read and generated in double into the
// solve's, x back to double for the output file.
template <class To, class From>
DenseMatrix<To> in_precision(const DenseMatrix<From>& B) {
  DenseMatrix<To> out(B.rows, B.cols);
  std::transform(B.values.begin(), B.values.end(), out.values.begin(), [](From v) { return To(v); });
  return out;
}

template <class T>
System<T> load_system(const SolveCliOptions& o) {
  System<T> s{load_matrix<T>(o.matrix, {}, [&o](const EntryCensus& c, MemoryPlan& p) { check_census<T>(o, c, p); }).A,
              {}, {}};
  const Csr<T>& A = s.A;
  if (!generated_rhs(o.rhs)) {
    s.B = in_precision<T>(load_columns(o.rhs, A.rows));
  } else if (o.rhs == "ax") {
    s.x_true = random_vector<T>(A.rows, o.seed);
    s.B = DenseMatrix<T>(A.rows, 1);
    s.B.values = multiply(A, std::span<const T>(s.x_true));
  } else {
    DenseMatrix<double> b(A.rows, 1);
    b.values = generated_b(o.rhs, A.rows, o.seed);
    s.B = in_precision<T>(b);
  }
  return s;
}

// What ran: one of the three paths' solver or report, X and every column's result.
template <class T>
struct SolveRun {
  Path path = Path::Chain;
  Device device = Device::Cpu;  // usable_device(--device)
  ProgressLine* progress = nullptr;
  std::optional<SparseSapSolver<T>> sap;
  std::optional<KrylovSolver<T>> krylov;
  std::optional<SolveReport> chain;
  DenseMatrix<T> X;
  std::vector<Column> columns;
};

// The chain: one balsa::solve call for every column.
template <class T>
void run_chain(const SolveCliOptions& o, const System<T>& sys, SolveRun<T>& run) {
  SolveOptions so;
  so.method = from_string<SolveMethod>(o.method);
  so.device = o.device;  // Auto stays Auto: the plan weighs each device
  so.stopping.tolerance = o.tolerance;
  so.stopping.absolute_tolerance = o.absolute_tolerance;
  if (o.max_iterations) so.stopping.max_iterations = *o.max_iterations;
  so.direct_fallback = so.method == SolveMethod::Auto || o.fallback;
  so.time_budget = o.time_budget;
  so.acceptance = o.acceptance;
  if (run.progress->live())
    so.progress = [&run](const char* name, int it, double res) {
      run.progress->detail(fmt::format("{}, iteration {}, residual {:.3e}", name, it, res));
    };
  run.chain = solve(sys.A, sys.B, run.X, so);
  for (index_t c = 0; c < sys.B.cols; ++c) run.columns.push_back(from_report(*run.chain, std::size_t(c)));
}

// SaP or a Krylov preset: set up once, then solve the columns one by one.
template <class T>
void run_solver(const SolveCliOptions& o, const System<T>& sys, SolveRun<T>& run) {
  const std::function<void(int, double)> progress =
      run.progress->live() ? std::function<void(int, double)>([&run](int it, double res) {
        run.progress->detail(fmt::format("iteration {}, residual {:.3e}", it, res));
      })
                           : nullptr;
  std::function<Column(std::span<const T>, std::span<T>)> solve_one;
  if (run.path == Path::Sap) {
    SparseSapOptions so;
    so.variant = from_string<SapVariant>(o.method);
    so.device = run.device;
    so.partitions = o.partitions;
    so.drop_tolerance = o.drop_tolerance;
    so.devices = o.devices;
    so.float_preconditioner = o.float_preconditioner;
    so.stopping.tolerance = o.tolerance;
    so.stopping.absolute_tolerance = o.absolute_tolerance;
    so.stopping.max_iterations = o.max_iterations.value_or(10000);
    so.pivot_boost = !o.no_shift;
    so.progress = progress;
    run.sap.emplace(sys.A, so);
    // SaP's Krylov residuals are those of the permuted, scaled system: the
    // true residual reported is A's own, measured here.
    solve_one = [&](std::span<const T> b, std::span<T> x) {
      Column c = from_krylov(run.sap->solve(b, x), o.method);
      c.true_residual = relative_residual(sys.A, std::span<const T>(x), b);
      return c;
    };
  } else {
    KrylovOptions ko = krylov_options(from_string<KrylovPreset>(o.method));
    ko.stopping.tolerance = o.tolerance;
    ko.stopping.absolute_tolerance = o.absolute_tolerance;
    ko.stopping.max_iterations = o.max_iterations.value_or(10000);
    ko.stopping.norm = o.norm;
    ko.device = run.device;
    ko.trsv = o.trsv;
    ko.float_preconditioner = o.float_preconditioner;
    if (o.no_shift) ko.factor.on_breakdown = PivotBreakdown::Fail;
    ko.progress = progress;
    run.krylov.emplace(sys.A, ko);
    solve_one = [&](std::span<const T> b, std::span<T> x) {
      return from_krylov(run.krylov->solve(b, x), o.method);
    };
  }
  for (index_t c = 0; c < sys.B.cols; ++c) {
    if (sys.B.cols > 1) run.progress->phase(fmt::format("solving column {} of {}", c + 1, sys.B.cols));
    run.columns.push_back(solve_one(sys.B.column(c), run.X.column(c)));
  }
}

// The JSON: the command's summary, each column's result, and the solver's
// stats (include/balsa/fields.hpp).
template <class T>
nlohmann::json solve_json(const SolveCliOptions& o, const System<T>& sys, const SolveRun<T>& run, double error) {
  const Column& first = run.columns.front();
  nlohmann::json j = {{"matrix", o.matrix}, {"n", sys.A.rows}, {"nnz", sys.A.nnz()}, {"method", first.method},
                      {"requested_method", o.method}, {"device", to_string(run.device)}, {"columns", sys.B.cols},
                      {"rhs", o.rhs}, {"rtol", o.tolerance}, {"atol", o.absolute_tolerance}, {"precision", o.precision},
                      {"norm", run.path == Path::Preset ? to_string(o.norm) : "2"}};
  if (run.krylov) {
    j["stats"] = fields_json(run.krylov->stats());
  } else if (run.sap) {
    j["stats"] = fields_json(run.sap->stats());
  } else {  // the chain: features, plan and every set-up it made, once for all columns
    const SolveReport& r = *run.chain;
    j.update({{"setup_seconds", r.setup_seconds}, {"total_seconds", r.seconds}, {"plan", fields_json(r.plan)},
              {"budget_seconds", r.budget_seconds}, {"device", to_string(r.device)},
              {"backward_error", r.backward_error}, {"componentwise_backward_error", r.componentwise_backward_error}});
  }
  if (sys.B.cols == 1) {
    j.update(column_json(first));
    j["history"] = first.history;
  } else {
    j["results"] = nlohmann::json::array();
    for (const Column& c : run.columns) j["results"].push_back(column_json(c));
  }
  if (!sys.x_true.empty()) j["error"] = error;
  return j;
}

// The set-up and solve times, as text.
template <class T>
void print_solve_times(std::FILE* report, const SolveRun<T>& run) {
  const Column& first = run.columns.front();
  const double per_iteration = first.iterations > 0 ? first.seconds * 1e3 / first.iterations : 0.0;
  if (run.krylov) {
    const KrylovStats& setup = run.krylov->stats();
    fmt::print(report, "  setup {:.4f} s ({}factorisation {:.4f} s, shift {:g}), solve {:.4f} s ({:.4f} ms per iteration)\n",
               setup.setup_seconds,
               setup.ordering == KrylovOrdering::Multicolour
                   ? fmt::format("multicolour ordering {:.4f} s, {} colours; ", setup.ordering_seconds, setup.colours)
                   : "",
               setup.factor_seconds, setup.factor.shift, first.seconds, per_iteration);
    if (setup.preconditioner == PreconditionerKind::Ic0 || setup.preconditioner == PreconditionerKind::Ilu0)
      fmt::print(report, "  triangular solves: {} / {}\n", to_string(setup.lower.algorithm),
                 to_string(setup.upper.algorithm));
  } else if (run.sap) {
    fmt::print(report, "  set-up {:.4f} s, solve {:.4f} s ({:.4f} ms per iteration)\n", run.sap->stats().t_setup,
               first.seconds, per_iteration);
  } else {
    fmt::print(report, "  {:.4f} s in all (features, plan and set-up {:.4f} s, once for {} column{})\n",
               run.chain->seconds, run.chain->setup_seconds, run.columns.size(), run.columns.size() > 1 ? "s" : "");
  }
}

// A solved first column whose error against x_true is 1e4 times its residual
// (or the tolerance) or more: the error then measures A's conditioning or
// singularity, not the solve.
bool far_from_x_true(const SolveCliOptions& o, const Column& first, double error) {
  return first.ok && error > 1e4 * std::max(first.true_residual, o.tolerance);
}

// The text report: each column's result, then the times.
template <class T>
void print_solve(std::FILE* report, const SolveCliOptions& o, const System<T>& sys, const SolveRun<T>& run,
                 double error) {
  const bool with_error = !sys.x_true.empty();
  const index_t cols = index_t(run.columns.size());
  const char* norm_name = run.path == Path::Preset ? to_string(o.norm) : "2";
  if (run.sap) print_sap_stats(report, run.sap->stats());
  for (index_t c = 0; c < cols; ++c) {
    const Column& r = run.columns[std::size_t(c)];
    const std::string which = cols > 1 ? fmt::format("column {}: ", c + 1) : "";
    const std::string err = with_error ? fmt::format(", error {:.3e}", error) : "";
    if (run.chain && c == 0) {
      print_plan(report, *run.chain);
      print_chain(report, r.chain);
      fmt::print(report, "  {}{}{}\n", which, r.message, r.ok ? err : "");
    } else if (run.chain) {
      fmt::print(report, "  {}{}: backward error {:.2e} normwise, {:.2e} componentwise, solve {:.4f} s\n", which,
                 r.ok ? r.method + " solved it" : r.message, r.backward_error, r.componentwise_backward_error,
                 r.seconds);
    } else {
      fmt::print(report, "  {}{} after {} iterations: residual {:.3e} ({}-norm, recursive), true residual {:.3e}{}{}\n",
                 which, r.outcome, r.iterations, r.residual, norm_name, r.true_residual, err,
                 all_zero(sys.B.column(c)) ? "; b = 0: x = 0" : "");
    }
  }
  if (with_error && far_from_x_true(o, run.columns.front(), error))
    fmt::print(report,
               "  note: x fits b but is far from x_true: A is singular or ill-conditioned, so other x fit b "
               "as well (the error says how far this one is from x_true)\n");
  print_solve_times(report, run);
}

// Every column solved, its x finite: else NotConverged (exit 3) or an Error.
template <class T>
void require_solved(const SolveCliOptions& o, const SolveRun<T>& run) {
  const std::size_t cols = run.columns.size();
  for (std::size_t c = 0; c < cols; ++c) {
    const Column& r = run.columns[c];
    const std::string which = cols > 1 ? fmt::format(" (right-hand side {})", c + 1) : "";
    if (!r.ok) {
      if (run.chain) throw NotConverged(fmt::format("{}: not solved{}: {}", o.method, which, r.message));
      throw NotConverged(fmt::format("{} did not converge{}: {} ({})", o.method, which, r.outcome, r.message));
    }
    require_finite_result(run.X.column(index_t(c)), r.true_residual, "the solution x" + which);
  }
}

// b = A x_true (--rhs ax) is zero only when A is singular (x_true has no
// zero entry): an Error, not "x = 0" with an error of 1.
template <class T>
void require_nonzero_default_b(const SolveCliOptions& o, const System<T>& sys) {
  if (sys.x_true.empty() || !all_zero(sys.B.column(0))) return;
  throw Error(
      fmt::format("{}: A is singular{}: b = A x_true (--rhs ax) is zero for a nonzero x_true; give another b "
                  "with --rhs to find an x, if one exists",
                  o.matrix, sys.A.nnz() == 0 ? " (it has no nonzero entry)" : ""));
}

// "b = random (seed 1)", "b = A x_true (seed 1)", "b = ones", "b from FILE (k columns)".
std::string rhs_text(const SolveCliOptions& o, index_t columns) {
  if (o.rhs == "random") return fmt::format("b = random (seed {})", o.seed);
  if (o.rhs == "ax") return fmt::format("b = A x_true (x_true random, seed {})", o.seed);
  if (o.rhs == "ones") return "b = ones";
  return fmt::format("b from {}{}", o.rhs, columns > 1 ? fmt::format(" ({} right-hand sides)", columns) : "");
}

template <class T>
void run_solve(const CLI::App& cmd, const SolveCliOptions& o) {
  refuse_overwriting({o.matrix, generated_rhs(o.rhs) ? std::string() : o.rhs}, {o.output});
  std::FILE* report = report_stream(o.json, o.output);
  SolveRun<T> run;
  run.path = path_of(o.method);
  warn_ignored(cmd, o, run.path);
  ProgressLine progress(o.progress, o.json.to_stdout());
  run.progress = &progress;
  progress.phase("reading");
  const System<T> sys = load_system<T>(o);
  require_nonzero_default_b(o, sys);
  run.device = usable_device(o.device);
  run.X = DenseMatrix<T>(sys.A.rows, sys.B.cols);
  if (!o.json)
    fmt::print(report, "balsa solve: {} ({} x {}, {} entries), {} in {} on {}, {}\n", o.matrix, sys.A.rows,
               sys.A.cols, sys.A.nnz(), o.method, o.precision,
               run.path == Path::Chain && o.device == Device::Auto ? "the device Auto predicts faster"
                                                                    : to_string(run.device),
               rhs_text(o, sys.B.cols));
  progress.phase("solving");
  if (run.path == Path::Chain)
    run_chain(o, sys, run);
  else
    run_solver(o, sys, run);
  progress.stop();
  const double error = sys.x_true.empty() ? -1.0 : relative_error<T>(run.X.column(0), sys.x_true);
  if (!o.output.empty()) save_matrix(o.output, in_precision<double>(run.X));
  if (o.json)
    print_json(solve_json(o, sys, run, error), o.json.path);
  else
    print_solve(report, o, sys, run, error);
  require_solved(o, run);
}

}  // namespace

void add_solve_command(CLI::App& app) {
  auto o = std::make_shared<SolveCliOptions>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve A x = b: a chain of methods by default (GPU when present)");
  cmd->add_option("matrix", o->matrix, "Matrix Market file of A (square; '-': standard input)")
      ->required()
      ->option_text(" FILE");
  add_rhs_option(cmd, o->rhs, "n x k: k right-hand sides");
  const std::vector<std::string> methods = method_names();
  std::string list;
  for (const std::string& s : methods) list += (list.empty() ? "" : ", ") + s;
  cmd->add_option("--method", o->method, "auto (the chain), a chain method alone, SaP's sparse pipeline (sap-d, sap-c) or a Krylov method with its preconditioner (" + list + ")")
      ->check(one_of(methods))
      ->option_text(" NAME")
      ->capture_default_str();
  add_tolerance_options(cmd, o->tolerance, o->absolute_tolerance);
  cmd->add_option("--max-iterations", o->max_iterations,
                  "Most iterations (default: 10000; the chain: " +
                      std::to_string(SolveOptions{}.stopping.max_iterations) + " per method)")
      ->check(between(0, 1e8));
  add_renamed_option(cmd, "--maxit", "--max-iterations");
  add_enum_option(cmd, "--norm", o->norm, "Stopping norm of the Krylov methods named alone: 2 (SciPy's) or inf");
  add_device_option(cmd, o->device);
  add_enum_option(cmd, "--trsv", o->trsv, "Triangular solver of the IC(0)/ILU(0) preconditioner");
  cmd->add_option("--partitions", o->partitions, "SaP: number of partitions P (0: chosen automatically)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "SaP (sap-d, sap-c): the GPUs to spread its blocks over, the first the primary (default: the "
                  "current one); fewer are used when the work is too small to pay")
      ->delimiter(',')
      ->option_text(" ID,...");
  cmd->add_option("--drop", o->drop_tolerance,
                  "SaP (sap-d, sap-c): drop-off, the fraction of the Frobenius norm of the reordered matrix (SaP-D: "
                  "of each block's rows) that the entries left out of the band may hold")
      ->check(between(0, 0.999999))
      ->capture_default_str();
  cmd->add_flag("--fallback", o->fallback, "A chain method named alone falls back to a direct method when it fails");
  cmd->add_option("--time-budget", o->time_budget,
                  "Seconds for the whole chain (default: 1.75x the predicted direct time when a direct method fits)")
      ->check(positive())
      ->option_text(" SECONDS");
  add_enum_option(cmd, "--acceptance", o->acceptance,
                  "Backward error that accepts an answer: componentwise (Oettli-Prager), normwise, or either");
  cmd->add_flag("--float-preconditioner", o->float_preconditioner, "Mixed precision: float preconditioner");
  cmd->add_flag("--no-shift", o->no_shift,
                "Fail on an IC(0)/ILU(0) pivot breakdown instead of shifting (SaP: no pivot boosting)");
  cmd->add_option("-o,--output", o->output, "Write x here (Matrix Market array; '-': standard output)")
      ->option_text(" FILE");
  add_json_option(cmd, o->json, "Print the result as JSON");
  add_progress_option(cmd, o->progress);
  cmd->add_option("--seed", o->seed, "Seed of --rhs random and ax")->check(at_least(0))->capture_default_str();
  cmd->add_option("--precision", o->precision, "double or float (A, b and x; the output file is written in double)")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->callback([o, cmd] {
    SolveCliOptions e = *o;
    if (e.tolerance == 0) e.tolerance = e.precision == "float" ? 1e-5 : 1e-8;
    e.precision == "float" ? run_solve<float>(*cmd, e) : run_solve<double>(*cmd, e);
  });
}

}  // namespace balsa::app
