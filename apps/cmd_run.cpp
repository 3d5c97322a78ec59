// balsa run: the main job on a built-in default problem: the 3D Poisson
// equation (7-point Laplacian on a grid^3 grid, 10^6 unknowns by default),
// b = A x_true. By default (--method auto) balsa::solve's Auto picks the
// method and the device by predicted time to the answer, and the output says
// what it chose and why; a Krylov preset named with --method runs alone
// (KrylovSolver). Prints iterations, residual, error and times (or JSON).
// Exits non-zero unless the solve converged.
#include <fmt/core.h>

#include <algorithm>

#include "common.hpp"

namespace balsa::app {

namespace {

struct RunOptions {
  index_t grid = 100;
  Stencil3d stencil = Stencil3d::Point7;
  Device device = Device::Auto;
  std::string precision = "double";
  std::string method = "auto";  // or a KrylovPreset's name
  double tolerance = 0;  // 0: 1e-8 in double, 1e-5 in float
  double absolute_tolerance = 0.0;
  int max_iterations = 10000;
  bool progress = false;
  std::uint64_t seed = 1;
  JsonOutput json;
};

// The problem and what the run learnt before solving it.
template <class T>
struct Job {
  Csr<T> A;
  std::vector<T> x_true, b;
  double build_seconds = 0, context_seconds = 0, tolerance = 0;
  bool gpu = false;  // a GPU is used (or may be, for auto)
  std::string gpu_line;
  nlohmann::json gpu_json = nullptr;
};

template <class T>
Job<T> make_job(const RunOptions& o) {
  Job<T> job;
  Stopwatch gen_clock;
  job.A = laplacian_3d<T>(o.grid, o.grid, o.grid, o.stencil);
  job.x_true = random_vector<T>(job.A.rows, o.seed);
  job.b = multiply(job.A, std::span<const T>(job.x_true));
  job.build_seconds = gen_clock.seconds();
  job.tolerance = o.tolerance > 0 ? o.tolerance : (std::is_same_v<T, float> ? 1e-5 : 1e-8);
  job.gpu = usable_device(o.device) == Device::Cuda;
  if (job.gpu) {
    // The CUDA context is made here, before the solver, and reported on its
    // own: a process pays it once, whatever it then sets up (the benchmarks
    // make it before any timing too).
    Stopwatch context_clock;
    const cuda::DeviceBuffer<char> context(1);
    job.context_seconds = context_clock.seconds();
    const cuda::DeviceInfo dev = cuda::device_info();
    job.gpu_line = fmt::format("{} ({} SMs, CUDA runtime {}.{})", dev.name, dev.sm_count, dev.runtime_version / 1000,
                               dev.runtime_version % 1000 / 10);
    job.gpu_json = {{"name", dev.name}, {"sm_count", dev.sm_count}, {"runtime_version", dev.runtime_version}};
  }
  return job;
}

template <class T>
void print_header(const RunOptions& o, const Job<T>& job, const std::string& where) {
  fmt::print("balsa run: 3D Poisson, {}-point Laplacian on a {}^3 grid (n = {}, nnz = {}), {} in {} on {}\n",
             to_string(o.stencil), o.grid, job.A.rows, job.A.nnz(), o.method, o.precision, where);
  fmt::print("  GPU: {}\n", job.gpu ? job.gpu_line
                                    : fmt::format("{}; running on the CPU", cuda::built_with_cuda()
                                                                                ? "no CUDA device found or chosen"
                                                                                : "balsa was built without CUDA"));
  fmt::print("  problem built in {:.2f} s{}\n", job.build_seconds,
             job.gpu ? fmt::format("; CUDA context created in {:.3f} s (before the set-up)", job.context_seconds) : "");
}

nlohmann::json problem_json(const RunOptions& o, index_t n, std::int64_t nnz) {
  return {{"grid", o.grid}, {"stencil", to_string(o.stencil)}, {"n", n}, {"nnz", nnz}};
}

// Seconds per iteration.
double per_iteration(const KrylovStats& s, double seconds) { return s.iterations ? seconds / s.iterations : 0.0; }

// Auto: balsa::solve's plan and chain on the job.
template <class T>
void run_auto(const RunOptions& o, const Job<T>& job) {
  SolveOptions so;
  so.device = o.device;
  so.stopping.tolerance = job.tolerance;
  so.stopping.absolute_tolerance = o.absolute_tolerance;
  so.stopping.max_iterations = o.max_iterations;
  if (!o.json) print_header(o, job, "the device Auto predicts faster");
  std::vector<T> x(std::size_t(job.A.rows), T(0));
  ProgressLine progress(o.progress, o.json.to_stdout());
  progress.phase("auto: plan and solve");
  if (progress.live())
    so.progress = [&progress](const char* name, int it, double res) {
      progress.detail(fmt::format("{}, iteration {}, residual {:.3e}", name, it, res));
    };
  const SolveReport r = solve(job.A, std::span<const T>(job.b), std::span<T>(x), so);
  progress.stop();
  const double error = relative_error(std::span<const T>(x), std::span<const T>(job.x_true));
  const KrylovStats& k = r.krylov;
  const SolveAttempt* answer = r.chain.empty() ? nullptr : &r.chain.back();
  const double setup = answer ? answer->setup_seconds : 0, solve_s = answer ? answer->solve_seconds : 0;
  if (o.json) {
    print_json({{"problem", problem_json(o, job.A.rows, job.A.nnz())}, {"method", to_string(r.method)},
                {"requested_method", "auto"}, {"precision", o.precision}, {"device", to_string(r.device)},
                {"gpu", job.gpu_json}, {"outcome", r.solved ? "converged" : "not-solved"},
                {"message", in_cli_terms(r.message)}, {"plan", fields_json(r.plan)}, {"iterations", k.iterations},
                {"true_residual", r.true_residual},
                {"backward_error", r.backward_error}, {"componentwise_backward_error", r.componentwise_backward_error},
                {"error", error}, {"build_seconds", job.build_seconds}, {"cuda_context_seconds", job.context_seconds},
                {"plan_seconds", r.setup_seconds - setup}, {"setup_seconds", setup}, {"solve_seconds", solve_s},
                {"total_seconds", r.seconds}, {"iteration_seconds", per_iteration(k, solve_s)},
                {"history", k.history}}, o.json.path);
  } else {
    print_predictions(stdout, r);
    for (const SolveAttempt& a : r.chain)
      fmt::print("  {} {} on {}: {} (set-up {:.3f} s, solve {:.3f} s)\n", a.solved ? "+" : "-", to_string(a.method),
                 to_string(a.device), a.solved ? "solved" : in_cli_terms(a.reason), a.setup_seconds, a.solve_seconds);
    fmt::print("  {}\n", in_cli_terms(r.message));
    if (r.solved)
      fmt::print("  {}: {} iterations, true residual {:.2e}, backward error {:.2e}, error {:.2e}\n",
                 r.direct ? "solved directly" : "converged", k.iterations, r.true_residual, r.backward_error, error);
    fmt::print("  time to the answer {:.3f} s: features and plan {:.3f} s, set-up {:.3f} s, solve {:.3f} s{}\n",
               r.seconds, r.setup_seconds - setup, setup, solve_s,
               k.iterations ? fmt::format(" ({:.3f} ms per iteration)", 1e3 * per_iteration(k, solve_s)) : "");
  }
  if (!r.solved) throw NotConverged("the solve did not converge: " + in_cli_terms(r.message));
  require_finite_result(std::span<const T>(x), r.true_residual, "the solution x");
}

// A Krylov preset alone.
template <class T>
void run_preset(const RunOptions& o, const Job<T>& job) {
  const Device device = usable_device(o.device);
  KrylovOptions ko = krylov_options(from_string<KrylovPreset>(o.method));
  ko.device = device;
  ko.stopping.max_iterations = o.max_iterations;
  ko.stopping.tolerance = job.tolerance;
  ko.stopping.absolute_tolerance = o.absolute_tolerance;
  if (!o.json) print_header(o, job, device == Device::Cuda ? "the GPU" : "the CPU");
  ProgressLine progress(o.progress, o.json.to_stdout());
  progress.phase("set-up");
  if (progress.live())
    ko.progress = [&progress](int it, double res) {
      progress.detail(fmt::format("iteration {}, residual {:.3e}", it, res));
    };
  KrylovSolver<T> solver(job.A, ko);
  std::vector<T> x(std::size_t(job.A.rows), T(0));
  progress.phase("solving");
  const KrylovStats s = solver.solve(std::span<const T>(job.b), std::span<T>(x));
  progress.stop();
  const double error = relative_error(std::span<const T>(x), std::span<const T>(job.x_true));
  const bool factored = ko.preconditioner == PreconditionerKind::Ic0 || ko.preconditioner == PreconditionerKind::Ilu0;
  if (o.json) {
    nlohmann::json j = {{"problem", problem_json(o, job.A.rows, job.A.nnz())}, {"method", o.method},
                        {"precision", o.precision}, {"device", to_string(device)}, {"gpu", job.gpu_json},
                        {"outcome", to_string(s.outcome)}, {"iterations", s.iterations},
                        {"true_residual", s.true_residual}, {"error", error},
                        {"build_seconds", job.build_seconds}, {"cuda_context_seconds", job.context_seconds},
                        {"setup_seconds", s.setup_seconds}, {"solve_seconds", s.solve_seconds},
                        {"total_seconds", s.setup_seconds + s.solve_seconds},
                        {"iteration_seconds", per_iteration(s, s.solve_seconds)},
                        {"spmv_iteration_seconds", per_iteration(s, s.spmv_seconds)},
                        {"preconditioner_iteration_seconds", per_iteration(s, s.preconditioner_seconds)},
                        {"vector_iteration_seconds", per_iteration(s, s.vector_seconds)},
                        {"norm", to_string(ko.stopping.norm)}, {"history", s.history},
                        {"stats", fields_json(s)}};
    print_json(j, o.json.path);
  } else {
    fmt::print("  setup {:.3f} s{}{}\n", s.setup_seconds,
               s.ordering == KrylovOrdering::Multicolour
                   ? fmt::format(" (multicolour ordering: {} colours, {:.3f} s)", s.colours, s.ordering_seconds)
                   : "",
               factored ? fmt::format(" (factorisation {:.3f} s, shift {:g}; triangular solves: {} / {})",
                                      s.factor_seconds, s.factor.shift, to_string(s.lower.algorithm),
                                      to_string(s.upper.algorithm))
                        : "");
    fmt::print("  {}: {} iterations, residual {:.2e} ({}-norm, relative), true residual {:.2e}, error {:.2e}\n",
               to_string(s.outcome), s.iterations, s.residual, to_string(ko.stopping.norm), s.true_residual, error);
    fmt::print("  solve {:.3f} s = {:.3f} ms per iteration (SpMV {:.3f}, preconditioner {:.3f}, vector ops {:.3f} ms)\n",
               s.solve_seconds, 1e3 * per_iteration(s, s.solve_seconds), 1e3 * per_iteration(s, s.spmv_seconds),
               1e3 * per_iteration(s, s.preconditioner_seconds), 1e3 * per_iteration(s, s.vector_seconds));
    fmt::print("  time to the answer {:.3f} s (set-up and solve)\n", s.setup_seconds + s.solve_seconds);
  }
  if (s.outcome != KrylovOutcome::Converged)
    throw NotConverged(fmt::format("the solve did not converge: {} ({})", to_string(s.outcome), in_cli_terms(s.message)));
  require_finite_result(std::span<const T>(x), s.true_residual, "the solution x");
}

template <class T>
void run_job(const RunOptions& o) {
  const Job<T> job = make_job<T>(o);
  o.method == "auto" ? run_auto(o, job) : run_preset(o, job);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run the main job: 3D Poisson, the method and device chosen by Auto (GPU when it pays, else CPU)");
  cmd->add_option("--grid", o->grid, "Grid points per side of the 3D Laplacian")
      ->check(between(2, 1200))
      ->capture_default_str();
  add_enum_option(cmd, "--stencil", o->stencil, "Points of the stencil");
  add_device_option(cmd, o->device);
  cmd->add_option("--precision", o->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  std::vector<std::string> methods = {"auto"};
  for (const std::string& m : enum_names<KrylovPreset>()) methods.push_back(m);
  cmd->add_option("--method", o->method,
                  "auto (balsa::solve's choice by predicted time to the answer) or a Krylov method with its "
                  "preconditioner, run alone (as balsa solve --method)")
      ->check(one_of(methods))
      ->option_text(" NAME")
      ->capture_default_str();
  add_tolerance_options(cmd, o->tolerance, o->absolute_tolerance);
  cmd->add_option("--max-iterations", o->max_iterations, "Most iterations")
      ->check(between(0, 1e8))
      ->capture_default_str();
  add_renamed_option(cmd, "--maxit", "--max-iterations");
  cmd->add_option("--seed", o->seed, "Seed of the true solution")->check(at_least(0))->capture_default_str();
  add_json_option(cmd, o->json, "Print the result as JSON");
  add_progress_option(cmd, o->progress);
  cmd->callback([o] { o->precision == "float" ? run_job<float>(*o) : run_job<double>(*o); });
}

}  // namespace balsa::app
