// balsa-bench solve (bench/bench.hpp).
#include "bench.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "apps/number_format.hpp"
#include "balsa/config.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/stats.hpp"
#include "bench_output.hpp"
#include "pcg_baseline.hpp"
#include "core/clock.hpp"

namespace balsa::bench {

namespace {

struct SolveCase {
  std::string name;
  std::vector<std::string> methods;
  std::function<Csr<double>()> build;
};

std::vector<SolveCase> suite(const SolveBenchOptions& o) {
  std::vector<SolveCase> cases;
  const std::vector<std::string> pcg = {"pcg-ic0"}, nonsym = {"bicgstab-ilu0", "bicgstab2-ilu0"};
  // The Laplacians (the time-to-solution targets): PCG-IC(0) in the
  // natural and the multicolour order and PCG-Chebyshev against plain CG and
  // Jacobi-PCG; the real symmetric matrices with the same preconditioned
  // methods against plain CG.
  const std::vector<std::string> laplacian = {"pcg-ic0", "pcg-ic0-mc", "pcg-chebyshev", "cg", "pcg-jacobi"};
  const std::vector<std::string> symmetric = {"pcg-ic0", "pcg-chebyshev", "cg"};
  auto lap3d = [](index_t g) { return [g] { return laplacian_3d<double>(g, g, g); }; };
  auto banded = [](index_t n, double mu) { return [n, mu] { return thesis_banded_spd<double>(n, mu); }; };
  if (o.suite == "quick") {
    cases.push_back({"lap3d-7pt-20^3", laplacian, lap3d(20)});
    cases.push_back({"thesis-banded-1e3-mu1e-4", pcg, banded(1000, 1e-4)});
  } else if (o.suite == "default") {
    cases.push_back({"lap3d-7pt-100^3", laplacian, lap3d(100)});
    cases.push_back({"lap3d-7pt-160^3", laplacian, lap3d(160)});
    for (const index_t n : {index_t(10000), index_t(1000000)})
      for (const double mu : {1e-6, 1e-4, 1e-2})
        cases.push_back({fmt::format("thesis-banded-{:g}-mu{:g}", double(n), mu), pcg, banded(n, mu)});
  }
  // Real matrices: symmetric ones with PCG-IC(0), the others with BiCGStab(l).
  std::vector<std::string> files = o.files;
  if (o.suite != "none" && std::filesystem::is_directory(o.data_dir)) {
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(o.data_dir))
      if (e.path().extension() == ".mtx") found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    if (o.suite == "quick") found.erase(std::remove_if(found.begin(), found.end(), [](const std::string& f) {
                                          return f.find("bcsstk13") == std::string::npos;
                                        }), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  for (const std::string& f : files) {
    auto A = std::make_shared<const Csr<double>>(read_bench_matrix(f));  // read once
    if (A->rows != A->cols) continue;
    const std::string name = std::filesystem::path(f).stem().string();
    cases.push_back({name, structure_stats(*A).values_symmetric ? symmetric : nonsym, [A] { return *A; }});
  }
  if (!o.only.empty())
    cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const SolveCase& c) {
                  return std::none_of(o.only.begin(), o.only.end(),
                                      [&](const std::string& s) { return c.name.find(s) != std::string::npos; });
                }), cases.end());
  return cases;
}

struct Run {
  bool ran = false;
  std::string outcome = "-";
  int iterations = 0;
  double setup = 0, solve = 0, error = 0, true_residual = 0;
  double spmv = 0, precond = 0, vector = 0;
  double factor = 0, lower_analysis = 0, upper_analysis = 0, ordering = 0;
  index_t colours = 0;  // multicolour ordering
  std::string trsv;  // the preconditioner's triangular solvers
  double shift = 0;
  double per_iteration() const { return iterations > 0 ? solve / iterations : 0.0; }
  double total() const { return setup + solve; }
};

double error_of(const std::vector<double>& x, const std::vector<double>& x_true) {
  return relative_error(std::span<const double>(x), std::span<const double>(x_true));
}

Run run_balsa(const Csr<double>& A, const std::vector<double>& b, const std::vector<double>& x_true,
              KrylovOptions ko) {
  Run r;
  try {
    KrylovSolver<double> solver(A, ko);
    std::vector<double> x(b.size(), 0.0);
    KrylovStats s;
    double uploads = 0;
    if (ko.device == Device::Cuda) {
      // As the cuSPARSE baseline: b goes to the device with the set-up (timed
      // and counted there), the iterations run from device b to device x, and
      // x comes back after the timing.
      const auto t0 = Clock::now();
      cuda::DeviceBuffer<double> db{std::span<const double>(b)}, dx{std::span<const double>(x)};
      uploads = seconds_since(t0);
      s = solver.solve(db, dx);
      dx.download(std::span<double>(x));
    } else {
      s = solver.solve(b, x);
    }
    r.ran = true;
    r.outcome = to_string(s.outcome);
    r.iterations = s.iterations;
    r.setup = s.setup_seconds + uploads;
    r.solve = s.solve_seconds;
    r.error = error_of(x, x_true);
    r.true_residual = s.true_residual;
    r.spmv = s.spmv_seconds;
    r.precond = s.preconditioner_seconds;
    r.vector = s.vector_seconds;
    r.shift = s.factor.shift;
    r.factor = s.factor_seconds;
    r.ordering = s.ordering_seconds;
    r.colours = s.colours;
    r.lower_analysis = s.lower.analysis_seconds;
    r.upper_analysis = s.upper.analysis_seconds;
    if (ko.preconditioner == PreconditionerKind::Ic0 || ko.preconditioner == PreconditionerKind::Ilu0)
      r.trsv = fmt::format("{}/{}", to_string(s.lower.algorithm), to_string(s.upper.algorithm));
  } catch (const std::exception& e) {
    r.outcome = std::string("error: ") + e.what();
  }
  return r;
}

// The cuSPARSE+cuBLAS PCG-IC(0) baseline (bench/pcg_baseline.hpp); a CUDA
// error (out of memory, ...) ends the baseline, not the benchmark.
Run run_baseline(const Csr<double>& A, const std::vector<double>& b, const std::vector<double>& x_true,
                 double tolerance, int max_iterations, StoppingNorm norm) {
  Run base;
  std::vector<double> xb;
  BaselineResult br;
  try {
    br = cusparse_pcg_ic0(A, b, tolerance, max_iterations, norm, &xb);
  } catch (const std::exception& e) {
    br = {};
    br.note = std::string("error: ") + e.what();
  }
  if (!br.ran) {
    base.outcome = br.note;
    return base;
  }
  base.ran = true;
  base.outcome = br.converged ? "converged" : "max-iterations";
  base.iterations = br.iterations;
  base.setup = br.setup_seconds;
  base.solve = br.solve_seconds;
  base.true_residual = br.true_residual;
  base.error = error_of(xb, x_true);
  return base;
}

std::string ms(double s) { return s > 0 ? app::format_number(s * 1e3) : "-"; }
std::string sec(double s) { return s > 0 ? app::format_number(s) : "-"; }
std::string ratio(double a, double b) { return a > 0 && b > 0 ? fmt::format("{:.2f}x", a / b) : "-"; }

nlohmann::json to_json(const Run& r) {
  return {{"ran", r.ran},          {"outcome", r.outcome},   {"iterations", r.iterations},
          {"setup_seconds", r.setup},    {"solve_seconds", r.solve},     {"per_iteration_seconds", r.per_iteration()},
          {"error", r.error},      {"true_residual", r.true_residual}, {"spmv_seconds", r.spmv},
          {"preconditioner_seconds", r.precond}, {"vector_seconds", r.vector}, {"trsv", r.trsv}, {"shift", r.shift},
          {"factor_seconds", r.factor}, {"lower_analysis_seconds", r.lower_analysis}, {"upper_analysis_seconds", r.upper_analysis},
          {"time_to_solution_seconds", r.total()}, {"ordering_seconds", r.ordering}, {"colours", r.colours}};
}

// Every method of a case on the GPU and (--cpu, or no GPU) on the CPU.
struct Runs {
  std::string method;
  Run g, cpu;
};

// Every method first (the cuSPARSE+cuBLAS PCG-IC(0) baseline once per case,
// right after balsa's pcg-ic0 as ever, to `base`), then the rows: the
// baseline's columns on the pcg-ic0 row, its time to solution the yardstick
// of every method of the case.
std::vector<Runs> run_methods(const SolveCase& c, const Csr<double>& A, const std::vector<double>& b,
                              const std::vector<double>& x_true, const SolveBenchOptions& o, bool gpu, Run& base) {
  std::vector<Runs> runs;
  const StoppingNorm norm = o.norm;
  const TrsvAlgorithm trsv = o.trsv;
  for (const std::string& m : c.methods) {
    KrylovOptions ko = krylov_options(from_string<KrylovPreset>(m));
    ko.stopping.tolerance = o.tolerance;
    ko.stopping.max_iterations = o.max_iterations;
    ko.stopping.norm = norm;
    ko.trsv = trsv;
    ko.float_preconditioner = o.float_preconditioner;
    Runs& r = runs.emplace_back(Runs{m, {}, {}});
    if (gpu) {
      ko.device = Device::Cuda;
      r.g = run_balsa(A, b, x_true, ko);
      if (o.baseline && m == "pcg-ic0") base = run_baseline(A, b, x_true, o.tolerance, o.max_iterations, norm);
    }
    if (o.cpu || !gpu) {
      ko.device = Device::Cpu;
      ko.trsv = TrsvAlgorithm::Auto;
      r.cpu = run_balsa(A, b, x_true, ko);
    }
  }
  return runs;
}

// One method's JSON row, its Markdown line appended to md, and its progress line.
nlohmann::json method_row(const SolveCase& c, const Csr<double>& A, const Runs& runs, const Run& base, std::string& md) {
  const auto& [m, g, cpu] = runs;
  const Run row_base = m == "pcg-ic0" ? base : Run{};  // the baseline's own columns: on its row
  nlohmann::json row = {{"case", c.name}, {"n", A.rows}, {"nnz", A.nnz()}, {"method", m}, {"gpu", to_json(g)},
                  {"cusparse_baseline", to_json(row_base)}, {"cpu", to_json(cpu)},
                  {"baseline_time_to_solution_seconds", base.ran ? base.total() : 0.0},
                  {"gpu_time_to_solution_vs_baseline", base.ran && g.ran ? base.total() / g.total() : 0.0}};
  const double it = std::max(1, g.iterations);
  const auto count = [](const Run& r) { return r.ran ? std::to_string(r.iterations) : std::string("-"); };
  md += fmt::format(
      "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} "
      "| {} | {} | {} | {} | {} | {} | {:g} |\n",
      c.name, A.rows, A.nnz(), m, count(g), ms(g.per_iteration()), sec(g.setup), sec(g.solve), sec(g.total()),
      g.trsv.empty() ? "-" : g.trsv, count(row_base), ms(row_base.per_iteration()), sec(row_base.setup),
      sec(row_base.solve), sec(row_base.total()), count(cpu), ms(cpu.per_iteration()), sec(cpu.setup),
      sec(cpu.solve), sec(cpu.total()), ratio(row_base.per_iteration(), g.per_iteration()),
      ratio(base.total(), g.total()), ratio(cpu.total(), g.total()),
      g.ran ? fmt::format("{:.1e}", g.error) : "-", g.outcome + " / " + row_base.outcome + " / " + cpu.outcome,
      g.ran ? fmt::format("{:.3f} / {:.3f} / {:.3f}", g.spmv * 1e3 / it, g.precond * 1e3 / it, g.vector * 1e3 / it)
            : "-",
      g.ran ? fmt::format("{:.3f} / {:.3f} / {:.3f} / {:.3f}", g.ordering, g.factor, g.lower_analysis,
                          g.upper_analysis)
            : "-",
      g.ran ? g.colours : cpu.colours, g.ran ? g.shift : cpu.shift);
  std::cerr << "  " << m << ": GPU " << g.outcome << " " << g.iterations << " it " << ms(g.per_iteration())
            << " ms/it, " << sec(g.total()) << " s to the solution; cuSPARSE " << row_base.outcome << " "
            << row_base.iterations << " it " << ms(row_base.per_iteration()) << " ms/it; CPU " << cpu.outcome
            << " " << cpu.iterations << " it " << ms(cpu.per_iteration()) << " ms/it, " << sec(cpu.total())
            << " s to the solution" << std::endl;
  return row;
}

}  // namespace

void run_solve_bench(const SolveBenchOptions& o, const std::string& command_line) {
  const bool gpu = resolve_device(o.device) == Device::Cuda;
  if (gpu && !cuda::available()) throw CudaError("bench solve --device cuda: no CUDA GPU found");
  nlohmann::json meta = {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line},
                         {"host_cores", std::thread::hardware_concurrency()}, {"tolerance", o.tolerance},
                         {"max_iterations", o.max_iterations}, {"norm", to_string(o.norm)}, {"trsv", to_string(o.trsv)},
                         {"float_preconditioner", o.float_preconditioner}, {"gpu", "none"}};
  // The CUDA context is created before any timing: otherwise the first GPU
  // run (balsa's) would pay it and the baseline after it not.
  if (gpu) add_cuda_device(meta);
  nlohmann::json rows = nlohmann::json::array();
  std::string md = fmt::format(
      "## balsa-bench solve\n\n- date (UTC): {}; GPU: {}; host cores: {}\n- command: `{}`\n- tolerance {:g} "
      "({}-norm of the recursive residual relative to b's), at most {} iterations, x0 = 0, b = A x_true "
      "(x_true uniform in [-1, 1))\n\n",
      meta["date"].get<std::string>(), meta["gpu"].get<std::string>(), std::thread::hardware_concurrency(),
      command_line, o.tolerance, to_string(o.norm), o.max_iterations);
  md +=
      "| case | n | nnz | method | GPU it | GPU ms/it | GPU setup s | GPU solve s | GPU total s | trsv (L/U) | "
      "cuSPARSE it | cuSPARSE ms/it | cuSPARSE setup s | cuSPARSE solve s | cuSPARSE total s | CPU it | CPU ms/it | "
      "CPU setup s | CPU solve s | CPU total s | per-it vs cuSPARSE | total vs cuSPARSE PCG-IC(0) | total vs CPU | "
      "GPU error | outcome (GPU/cuSPARSE/CPU) | GPU ms/it: SpMV / M^-1 / vector | GPU setup s: ordering / factor / L / "
      "U analysis | colours | shift |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const SolveCase& c : suite(o)) {
    std::cerr << "bench solve: " << c.name << " ..." << std::endl;
    const Csr<double> A = c.build();
    const std::vector<double> x_true = random_vector<double>(A.rows, 7);
    const std::vector<double> b = multiply(A, std::span<const double>(x_true));
    Run base;
    for (const Runs& r : run_methods(c, A, b, x_true, o, gpu, base)) rows.push_back(method_row(c, A, r, base, md));
  }
  md += "\nms/it = solve time / iterations (wall clock, setup excluded); total = time to solution = setup "
        "(checks, ordering, analyses, factorisation, uploads of A and b) + solve. GPU runs (balsa and cuSPARSE alike) iterate from b on the "
        "device to x on the device (x's download is not timed); the CUDA context exists before any timing. *per-it vs cuSPARSE* = cuSPARSE ms/it / GPU ms/it; *total vs* = "
        "their total / GPU total (*total vs cuSPARSE PCG-IC(0)*: the case's baseline run, on every method's row: "
        "above 1, faster to the solution than the baseline). Methods: pcg-ic0 (natural order), pcg-ic0-mc (the "
        "multicolour order: more iterations, triangular solves of one level per colour), pcg-chebyshev (a polynomial of degree 7 in D^{-1} A), cg, pcg-jacobi. GPU error = ||x - x_true||_inf / ||x_true||_inf.\n";
  write_results(o.json_path, {{"meta", meta}, {"rows", rows}}, o.markdown_path, md, md);
}

}  // namespace balsa::bench
