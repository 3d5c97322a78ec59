// balsa run: the main job on a built-in default problem: the 3D Poisson
// equation (7-point Laplacian on a grid^3 grid, 10^6 unknowns by default),
// b = A x_true, solved by CG preconditioned with IC(0) on the GPU (on the
// CPU without one); prints iterations, residual, error and times (or JSON).
// Exits non-zero unless the solve converged.
#include <fmt/core.h>

#include "common.hpp"

namespace balsa::app {

namespace {

struct RunOptions {
  index_t grid = 100;
  Stencil3d stencil = Stencil3d::Point7;
  Device device = Device::Auto;
  std::string precision = "double";
  KrylovPreset method = KrylovPreset::PcgIc0;
  double tolerance = 0;  // 0: 1e-8 in double, 1e-5 in float
  int max_iterations = 10000;
  std::uint64_t seed = 1;
  bool json = false;
};

template <class T>
void run_job(const RunOptions& o) {
  const Device device = usable_device(o.device);
  const bool use_gpu = device == Device::Cuda;
  Stopwatch gen_clock;
  const Csr<T> A = laplacian_3d<T>(o.grid, o.grid, o.grid, o.stencil);
  const std::vector<T> x_true = random_vector<T>(A.rows, o.seed);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  const double build_seconds = gen_clock.seconds();
  KrylovOptions ko = krylov_options(o.method);
  ko.device = device;
  ko.max_iterations = o.max_iterations;
  ko.tolerance = o.tolerance > 0 ? o.tolerance : (std::is_same_v<T, float> ? 1e-5 : 1e-8);
  std::string gpu_line;
  nlohmann::json gpu = nullptr;
  double context_seconds = 0;
  if (use_gpu) {
    // The CUDA context is made here, before the solver, and reported on its
    // own: a process pays it once, whatever it then sets up (the benchmarks
    // make it before any timing too).
    Stopwatch context_clock;
    const cuda::DeviceBuffer<char> context(1);
    context_seconds = context_clock.seconds();
    const cuda::DeviceInfo dev = cuda::device_info();
    gpu_line = fmt::format("{} ({} SMs, CUDA runtime {}.{})", dev.name, dev.sm_count, dev.runtime_version / 1000,
                           dev.runtime_version % 1000 / 10);
    gpu = {{"name", dev.name}, {"sm_count", dev.sm_count}, {"runtime_version", dev.runtime_version}};
  }
  if (!o.json) {
    fmt::print("balsa run: 3D Poisson, {}-point Laplacian on a {}^3 grid (n = {}, nnz = {}), {} in {} on the {}\n",
               to_string(o.stencil), o.grid, A.rows, A.nnz(), to_string(o.method), o.precision, use_gpu ? "GPU" : "CPU");
    fmt::print("  GPU: {}\n", use_gpu ? gpu_line
                                      : fmt::format("{}; running on the CPU", cuda::built_with_cuda()
                                                                                  ? "no CUDA device found or chosen"
                                                                                  : "balsa was built without CUDA"));
    fmt::print("  problem built in {:.2f} s{}\n", build_seconds,
               use_gpu ? fmt::format("; CUDA context created in {:.3f} s (before the set-up)", context_seconds) : "");
  }
  KrylovSolver<T> solver(A, ko);
  std::vector<T> x(std::size_t(A.rows), T(0));
  const KrylovStats s = solver.solve(std::span<const T>(b), std::span<T>(x));
  const double error = relative_error(std::span<const T>(x), std::span<const T>(x_true));
  const bool factored = ko.preconditioner == PreconditionerKind::Ic0 || ko.preconditioner == PreconditionerKind::Ilu0;
  const auto per_iteration = [&](double seconds) { return s.iterations ? seconds * 1e3 / s.iterations : 0.0; };
  if (o.json) {
    nlohmann::json j = {{"problem", {{"grid", o.grid}, {"stencil", to_string(o.stencil)}, {"n", A.rows}, {"nnz", A.nnz()}}},
                        {"method", to_string(o.method)}, {"precision", o.precision},
                        {"device", to_string(device)}, {"gpu", gpu},
                        {"outcome", to_string(s.outcome)}, {"message", s.message},
                        {"iterations", s.iterations}, {"residual", s.residual},
                        {"true_residual", s.true_residual}, {"error", error},
                        {"build_seconds", build_seconds}, {"cuda_context_seconds", context_seconds},
                        {"setup_seconds", s.setup_seconds}, {"ordering", to_string(s.ordering)},
                        {"colours", s.colours}, {"ordering_seconds", s.ordering_seconds},
                        {"factor_seconds", s.factor_seconds}, {"solve_seconds", s.solve_seconds},
                        {"ms_per_iteration", per_iteration(s.solve_seconds)},
                        {"spmv_ms_per_iteration", per_iteration(s.spmv_seconds)},
                        {"preconditioner_ms_per_iteration", per_iteration(s.preconditioner_seconds)},
                        {"vector_ms_per_iteration", per_iteration(s.vector_seconds)}};
    if (factored)
      j["triangular_solves"] = {to_string(s.lower.algorithm), to_string(s.upper.algorithm)};
    print_json(j);
  } else {
    fmt::print("  setup {:.3f} s{}{}\n", s.setup_seconds,
               s.ordering == KrylovOrdering::Multicolour
                   ? fmt::format(" (multicolour ordering: {} colours, {:.3f} s)", s.colours, s.ordering_seconds)
                   : "",
               factored ? fmt::format(" (factorisation {:.3f} s, shift {:g}; triangular solves: {} / {})",
                                      s.factor_seconds, s.factor.shift, to_string(s.lower.algorithm),
                                      to_string(s.upper.algorithm))
                        : "");
    fmt::print("  {}: {} iterations, residual {:.2e} (inf-norm, relative), true residual {:.2e}, error {:.2e}\n",
               to_string(s.outcome), s.iterations, s.residual, s.true_residual, error);
    fmt::print("  solve {:.3f} s = {:.3f} ms per iteration (SpMV {:.3f}, preconditioner {:.3f}, vector ops {:.3f} ms)\n",
               s.solve_seconds, per_iteration(s.solve_seconds), per_iteration(s.spmv_seconds),
               per_iteration(s.preconditioner_seconds), per_iteration(s.vector_seconds));
  }
  if (s.outcome != KrylovOutcome::Converged)
    throw NotConverged(fmt::format("the solve did not converge: {} ({})", to_string(s.outcome), s.message));
  require_finite_result(std::span<const T>(x), s.true_residual, "the solution x");
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run the main job: 3D Poisson solved by PCG-IC(0) (GPU when present, CPU otherwise)");
  cmd->add_option("--grid", o->grid, "Grid points per side of the 3D Laplacian")
      ->check(between(2, 1200))
      ->capture_default_str();
  add_enum_option(cmd, "--stencil", o->stencil, "Points of the stencil");
  add_device_option(cmd, o->device);
  cmd->add_option("--precision", o->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  add_enum_option(cmd, "--method", o->method, "Krylov method and preconditioner (as balsa solve --method)");
  cmd->add_option("--tol", o->tolerance, "Relative tolerance (default 1e-8 double, 1e-5 float)")->check(positive());
  cmd->add_option("--maxit", o->max_iterations, "Most iterations")->check(between(0, 1e8))->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the true solution")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->callback([o] { o->precision == "float" ? run_job<float>(*o) : run_job<double>(*o); });
}

}  // namespace balsa::app
