// balsa-bench precond (bench/bench.hpp): the per-rank work of balsa's PETSc
// plugin (plugins/petsc: PC type balsa) measured without PETSc, since the
// GPU host has none: balsa::Preconditioner (include/balsa/precondition.hpp)
// on the local block one rank holds in the target, the 7-point 3D
// Poisson on a grid^3 box (and the convection-diffusion of the example,
// Peclet 100, upwind). Per (problem, method, place): the set-up (the
// constructor: analysis and first factorisation), update_values (the same
// pattern, new values: what PCSetUp pays on a new matrix of the same
// pattern), and one application z = M^-1 r, the median of --applies calls
// (GPU: a batch of --applies apply_device calls timed as a whole, then
// divided; the queue waited for). Places: cpu-1 (one thread: one rank per
// core, the plugin's default), cpu-all (every host thread) and gpu. The
// vendor reference on the GPU: cuSPARSE's IC(0) PCG (bench/pcg_baseline.hpp)
// on the Poisson block, its set-up and its time per iteration (an SpMV, two
// SpSV solves and the vector work), beside balsa's application.
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>

#include "balsa/config.hpp"
#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/precondition.hpp"
#include "bench.hpp"
#include "bench_math.hpp"
#include "bench_output.hpp"
#include "core/clock.hpp"
#include "pcg_baseline.hpp"

namespace balsa::bench {

namespace {

struct Place {
  const char* name;
  Device device;
  int threads;  // 0: every host thread
};
constexpr Place kPlaces[] = {{"cpu-1", Device::Cpu, 1}, {"cpu-all", Device::Cpu, 0}, {"gpu", Device::Cuda, 0}};

// Median seconds of one apply: host calls one by one; device calls as a
// batch ended by a wait for the stream.
double apply_seconds(Preconditioner<double>& M, bool gpu, int applies) {
  const auto n = std::size_t(M.rows());
  const std::vector<double> r = random_vector<double>(index_t(n), 7);
  std::vector<double> z(n);
  if (!gpu) {
    std::vector<double> t;
    for (int i = 0; i < applies; ++i) {
      const auto t0 = Clock::now();
      M.apply(r, z);
      t.push_back(seconds_since(t0));
    }
    return median(t);
  }
  cuda::DeviceBuffer<double> dr{std::span<const double>(r)}, dz(n);
  M.apply_device(dr.data(), dz.data());  // warm-up
  cuda::detail::synchronize();
  std::vector<double> t;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = Clock::now();
    for (int i = 0; i < applies; ++i) M.apply_device(dr.data(), dz.data());
    cuda::detail::synchronize();
    t.push_back(seconds_since(t0) / applies);
  }
  return median(t);
}

nlohmann::json run_place(const Csr<double>& A, PreconditionMethod method, const Place& p, const PrecondBenchOptions& o) {
  nlohmann::json rec = {{"method", to_string(method)}, {"place", p.name}};
  try {
    const PreconditionOptions po{.method = method, .device = p.device, .threads = p.threads};
    std::vector<double> setup, update;
    std::optional<Preconditioner<double>> M;
    for (int r = 0; r < o.repeat; ++r) {
      const auto t0 = Clock::now();
      M.emplace(A, po);
      setup.push_back(seconds_since(t0));
    }
    for (int r = 0; r < o.repeat; ++r) {
      const auto t0 = Clock::now();
      M->update_values(A.values);
      update.push_back(seconds_since(t0));
    }
    const double apply = apply_seconds(*M, p.device == Device::Cuda, o.applies);
    rec.update({{"status", "ok"}, {"setup_seconds", median(setup)}, {"update_seconds", median(update)},
                {"apply_seconds", apply}, {"chosen", to_string(M->stats().method)},
                {"device", to_string(M->stats().device)}, {"analysis_seconds", M->stats().analysis_seconds}});
  } catch (const Error& e) {
    rec.update({{"status", "error"}, {"error", e.what()}});
  }
  return rec;
}

// cuSPARSE's PCG-IC(0) on A: its set-up and seconds per iteration.
nlohmann::json run_cusparse(const Csr<double>& A) {
  const std::vector<double> b = random_vector<double>(A.rows, 3);
  const BaselineResult r = cusparse_pcg_ic0(A, b, 1e-8, 2000, StoppingNorm::Two);
  if (!r.ran) return {{"status", "not run"}, {"note", r.note}};
  return {{"status", "ok"}, {"setup_seconds", r.setup_seconds}, {"iterations", r.iterations},
          {"iteration_seconds", r.iterations > 0 ? r.solve_seconds / r.iterations : 0.0}};
}

struct Problem {
  std::string name;
  Csr<double> A;
  std::vector<PreconditionMethod> methods;
};

std::vector<Problem> problems(const PrecondBenchOptions& o) {
  const index_t g = o.grid;
  std::vector<Problem> v;
  v.push_back({fmt::format("poisson-{}^3", g), laplacian_3d<double>(g, g, g),
               {PreconditionMethod::Ic0, PreconditionMethod::Ilu0, PreconditionMethod::Jacobi}});
  v.push_back({fmt::format("convdiff-{}^3-pe100", g), convection_diffusion_3d<double>(g, g, g, 100.0),
               {PreconditionMethod::Ilu0, PreconditionMethod::Jacobi}});
  return v;
}

std::string cell(const nlohmann::json& r) {
  if (r["status"] != "ok") return "error: " + r["error"].get<std::string>();
  return fmt::format("{:.3f} | {:.3f} | {:.3f}", 1e3 * r["setup_seconds"].get<double>(),
                     1e3 * r["update_seconds"].get<double>(), 1e3 * r["apply_seconds"].get<double>());
}

}  // namespace

void run_precond_bench(const PrecondBenchOptions& o, const std::string& command_line) {
  const bool gpu = cuda::available();
  nlohmann::json meta = {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line},
                         {"host_cores", std::thread::hardware_concurrency()}, {"grid", o.grid},
                         {"applies", o.applies}, {"repeat", o.repeat}, {"gpu", "none"}};
  if (gpu) add_cuda_device(meta);
  std::string md = fmt::format(
      "# balsa-bench precond\n\n`{}`\n\n{}; GPU: {}; {} host cores. balsa::Preconditioner on one rank's block: "
      "set-up, update_values and one application in milliseconds (set-up and update: median of {} runs; "
      "apply: median of {} calls, GPU batched).\n\n| problem | n | method | place | setup ms | update ms | apply ms |\n"
      "|---|---|---|---|---|---|---|\n",
      command_line, meta["date"].get<std::string>(), meta["gpu"].get<std::string>(), std::thread::hardware_concurrency(),
      o.repeat, o.applies);
  nlohmann::json records = nlohmann::json::array();
  for (const Problem& p : problems(o)) {
    for (PreconditionMethod m : p.methods)
      for (const Place& place : kPlaces) {
        if (place.device == Device::Cuda && !gpu) continue;
        nlohmann::json r = run_place(p.A, m, place, o);
        r.update({{"problem", p.name}, {"n", p.A.rows}, {"nnz", p.A.nnz()}});
        md += fmt::format("| {} | {} | {} | {} | {} |\n", p.name, p.A.rows, to_string(m), place.name, cell(r));
        std::fprintf(stderr, "  %s %s %s: %s\n", p.name.c_str(), to_string(m), place.name, cell(r).c_str());
        records.push_back(r);
      }
    if (gpu && p.name.starts_with("poisson")) {
      nlohmann::json c = run_cusparse(p.A);
      c.update({{"problem", p.name}, {"n", p.A.rows}, {"method", "cusparse-pcg-ic0"}, {"place", "gpu"}});
      if (c["status"] == "ok")
        md += fmt::format("| {} | {} | cuSPARSE PCG-IC(0) | gpu | {:.3f} | - | {:.3f} per PCG iteration ({} iterations) |\n",
                          p.name, p.A.rows, 1e3 * c["setup_seconds"].get<double>(),
                          1e3 * c["iteration_seconds"].get<double>(), c["iterations"].get<int>());
      records.push_back(c);
    }
  }
  write_results(o.json_path, {{"meta", meta}, {"records", records}}, o.markdown_path, md, md);
}

}  // namespace balsa::bench
