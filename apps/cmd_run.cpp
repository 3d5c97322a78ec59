// balsa run: the main job on a built-in default problem: the 3D Poisson
// equation (7-point Laplacian on a grid^3 grid, 10^6 unknowns by default),
// b = A x_true, solved by CG preconditioned with IC(0) on the GPU (on the
// CPU without one); prints iterations, residual, error and times. Exits
// non-zero unless the solve converged.
#include <fmt/core.h>

#include "../bench/solve_methods.hpp"
#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct RunOptions {
  index_t grid = 100;
  int stencil = 7;
  std::string device = "auto";
  std::string precision = "double";
  std::string method = "pcg-ic0";
  double tolerance = 0;  // 0: 1e-8 in double, 1e-5 in float
  int max_iterations = 10000;
  std::uint64_t seed = 1;
};

template <class T>
void run_job(const RunOptions& o) {
  const bool use_gpu = o.device == "cuda" || (o.device == "auto" && cuda::available());
  if (o.device == "cuda" && !cuda::available())
    throw Error(cuda::built_with_cuda() ? "--device cuda: no CUDA GPU found" : "--device cuda: balsa was built without CUDA");
  Stopwatch gen_clock;
  const Csr<T> A = laplacian_3d<T>(o.grid, o.grid, o.grid, o.stencil == 27 ? Stencil3d::Point27 : Stencil3d::Point7);
  const std::vector<T> x_true = random_vector<T>(A.rows, o.seed);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  KrylovOptions ko = bench::method_options(o.method);
  ko.device = use_gpu ? Device::Cuda : Device::Cpu;
  ko.max_iterations = o.max_iterations;
  ko.tolerance = o.tolerance > 0 ? o.tolerance : (std::is_same_v<T, float> ? 1e-5 : 1e-8);
  fmt::print("balsa run: 3D Poisson, {}-point Laplacian on a {}^3 grid (n = {}, nnz = {}), {} in {} on the {}\n",
             o.stencil, o.grid, A.rows, A.nnz(), o.method, o.precision, use_gpu ? "GPU" : "CPU");
  if (use_gpu) {
    const cuda::DeviceInfo dev = cuda::device_info();
    fmt::print("  GPU: {} ({} SMs, CUDA runtime {}.{})\n", dev.name, dev.sm_count, dev.runtime_version / 1000,
               dev.runtime_version % 1000 / 10);
  } else {
    fmt::print("  GPU: {}; running on the CPU\n",
               cuda::built_with_cuda() ? "no CUDA device found" : "balsa was built without CUDA");
  }
  fmt::print("  problem built in {:.2f} s\n", gen_clock.seconds());
  KrylovSolver<T> solver(A, ko);
  std::vector<T> x(std::size_t(A.rows), T(0));
  const KrylovStats s = solver.solve(std::span<const T>(b), std::span<T>(x));
  const double error = bench::relative_error(std::span<const T>(x), std::span<const T>(x_true));
  const bool factored = ko.preconditioner == PreconditionerKind::Ic0 || ko.preconditioner == PreconditionerKind::Ilu0;
  fmt::print("  setup {:.3f} s{}\n", s.setup_seconds,
             factored ? fmt::format(" (factorisation {:.3f} s, shift {:g}; triangular solves: {} / {})", s.factor_seconds,
                                    s.factor.shift, to_string(s.lower.algorithm), to_string(s.upper.algorithm))
                      : "");
  fmt::print("  {}: {} iterations, residual {:.2e} (inf-norm, relative), true residual {:.2e}, error {:.2e}\n",
             to_string(s.outcome), s.iterations, s.residual, s.true_residual, error);
  fmt::print("  solve {:.3f} s = {:.3f} ms per iteration (SpMV {:.3f}, preconditioner {:.3f}, vector ops {:.3f} ms)\n",
             s.solve_seconds, s.iterations ? s.solve_seconds * 1e3 / s.iterations : 0.0,
             s.iterations ? s.spmv_seconds * 1e3 / s.iterations : 0.0,
             s.iterations ? s.preconditioner_seconds * 1e3 / s.iterations : 0.0,
             s.iterations ? s.vector_seconds * 1e3 / s.iterations : 0.0);
  if (s.outcome != KrylovOutcome::Converged)
    throw NotConverged(fmt::format("the solve did not converge: {} ({})", to_string(s.outcome), s.message));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run the main job: 3D Poisson solved by PCG-IC(0) (GPU when present, CPU otherwise)");
  cmd->add_option("--grid", o->grid, "Grid points per side of the 3D Laplacian")
      ->check(CLI::Range(2, 1200))
      ->capture_default_str();
  cmd->add_option("--stencil", o->stencil, "7 or 27 points")->check(CLI::IsMember({7, 27}))->capture_default_str();
  cmd->add_option("--device", o->device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--precision", o->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_option("--method", o->method, "Krylov method and preconditioner (as balsa solve --method)")
      ->check(CLI::IsMember(bench::method_name_list()))
      ->capture_default_str();
  cmd->add_option("--tol", o->tolerance, "Relative tolerance (default 1e-8 double, 1e-5 float)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--maxit", o->max_iterations, "Most iterations")->check(CLI::Range(0, 100000000))->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the true solution")->capture_default_str();
  cmd->callback([o] { o->precision == "float" ? run_job<float>(*o) : run_job<double>(*o); });
}

}  // namespace balsa::app
