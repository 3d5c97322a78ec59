// balsa run: the main job on a built-in default problem. For now: the lower
// triangle L of a 3D Laplacian, b = L x_true, solve L x = b on the CPU
// (serial and level-set) and, when there is a GPU, with balsa's automatic
// choice and with cuSPARSE SpSV; report times, residual and error.
#include <fmt/core.h>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct RunOptions {
  index_t grid = 100;
  int stencil = 7;
  std::string device = "auto";
  std::string precision = "double";
  int repeat = 20;
  std::uint64_t seed = 1;
};

struct Outcome {
  double residual = 0, error = 0;
};

template <class T>
Outcome check(const Csr<T>& L, std::span<const T> x, std::span<const T> b, std::span<const T> x_true) {
  std::vector<double> diff(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) diff[i] = double(x[i]) - double(x_true[i]);
  return {relative_residual(L, x, b), norm2<double>(diff) / norm2(x_true)};
}

template <class T>
void run_job(const RunOptions& o) {
  const bool use_gpu = o.device == "cuda" || (o.device == "auto" && cuda::available());
  if (o.device == "cuda" && !cuda::available())
    throw Error(cuda::built_with_cuda() ? "--device cuda: no CUDA GPU found" : "--device cuda: balsa was built without CUDA");

  Stopwatch gen_clock;
  const Csr<T> A = laplacian_3d<T>(o.grid, o.grid, o.grid, o.stencil == 27 ? Stencil3d::Point27 : Stencil3d::Point7);
  const Csr<T> L = extract_triangle(A, Triangle::Lower);
  const std::vector<T> x_true = random_vector<T>(L.rows, o.seed);
  const std::vector<T> b = multiply(L, std::span<const T>(x_true));
  const LevelSets levels = level_sets(L, Triangle::Lower);
  index_t widest = 0;
  for (index_t k = 0; k < levels.count(); ++k) widest = std::max(widest, levels.width(k));
  fmt::print("balsa run: solve L x = b, L = lower triangle of the 3D {}-point Laplacian on a {}^3 grid ({})\n",
             o.stencil, o.grid, o.precision);
  fmt::print("  n = {}, nnz(L) = {}, dependency levels = {} (widest {}); set up in {:.2f} s\n", L.rows, L.nnz(),
             levels.count(), widest, gen_clock.seconds());

  const double tolerance = 1000.0 * std::numeric_limits<T>::epsilon();
  bool ok = true;
  auto report = [&](const char* what, double analysis_ms, double solve_ms, const Outcome& r) {
    const bool good = r.residual <= tolerance;
    ok = ok && good;
    fmt::print("  {:<28} analysis {:8.3f} ms  solve {:8.3f} ms (median of {})  residual {:.2e}  error {:.2e}{}\n", what,
               analysis_ms, solve_ms, o.repeat, r.residual, r.error, good ? "" : "  <-- FAILED");
  };

  // CPU: serial substitution (also the check of the GPU results) and level-set.
  std::vector<T> x(std::size_t(L.rows));
  std::vector<double> times;
  for (const TrsvAlgorithm algorithm : {TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet}) {
    TriangularSolver<T> solver(L, {.algorithm = algorithm, .device = Device::Cpu});
    times.clear();
    for (int k = 0; k < o.repeat; ++k) {
      Stopwatch t;
      solver.solve(std::span<const T>(b), std::span<T>(x));
      times.push_back(t.seconds() * 1e3);
    }
    const std::string name = fmt::format("cpu  {}", to_string(algorithm));
    report(name.c_str(), solver.stats().analysis_seconds * 1e3, median(times), check<T>(L, x, b, x_true));
  }

  if (use_gpu) {
    const cuda::DeviceInfo dev = cuda::device_info();
    fmt::print("  GPU: {} ({} SMs, compute capability {}.{}, CUDA runtime {}.{})\n", dev.name, dev.sm_count, dev.major,
               dev.minor, dev.runtime_version / 1000, dev.runtime_version % 1000 / 10);
    cuda::DeviceBuffer<T> d_b{std::span<const T>(b)}, d_x(b.size());
    // balsa's choice (Auto) and cuSPARSE SpSV, the baseline, on the same system.
    for (const TrsvAlgorithm algorithm : {TrsvAlgorithm::Auto, TrsvAlgorithm::Cusparse}) {
      TriangularSolver<T> solver(L, {.algorithm = algorithm, .device = Device::Cuda});
      solver.solve(d_b, d_x);  // warm-up
      times.clear();
      cuda::EventTimer timer;
      for (int k = 0; k < o.repeat; ++k) {
        cuda::fill(d_x, std::numeric_limits<T>::quiet_NaN());  // poison: every entry must be written
        timer.start();
        solver.solve(d_b, d_x);
        timer.stop();
        times.push_back(timer.milliseconds());
      }
      const std::vector<T> x_gpu = d_x.to_host();
      const std::string name = fmt::format("cuda {}{}", to_string(solver.stats().algorithm),
                                           algorithm == TrsvAlgorithm::Auto ? " (auto)" : " (baseline)");
      report(name.c_str(), solver.stats().analysis_seconds * 1e3, median(times), check<T>(L, x_gpu, b, x_true));
    }
  } else {
    fmt::print("  GPU: {}; ran on the CPU only\n",
               cuda::built_with_cuda() ? "no CUDA device found" : "balsa was built without CUDA");
  }
  if (!ok) throw Error(fmt::format("a solve's relative residual exceeds {:.1e}", tolerance));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run the main job on the built-in default problem (GPU when present)");
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
  cmd->add_option("--repeat", o->repeat, "Timed solves (median reported)")->check(CLI::Range(1, 10000))->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the true solution")->capture_default_str();
  cmd->callback([o] { o->precision == "float" ? run_job<float>(*o) : run_job<double>(*o); });
}

}  // namespace balsa::app
