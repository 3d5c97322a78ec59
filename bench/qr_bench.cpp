// balsa-bench qr (bench/bench.hpp): for each matrix, balsa::SparseQR
// on the CPU and on the GPU against SPQR (SuiteSparseQR_symbolic / _numeric
// / the solve through SuiteSparseQR on the same b, SPQR's own phase timers,
// all host cores), medians of --repeat runs, with ranks and least-squares
// residuals, the flop/byte intensity and the GPU's GFlop/s, and a table of
// the GPU's speedup by intensity (the sparse QR paper's Table V). The GPU's
// factorisation time is a refactorisation (same pattern, new values: the
// plan and the device memory are the analysis'); its first one is reported
// beside it. Matrices: Franz6, lp_e226 both ways, bayer10 (tests/data),
// well1850, illc1033, ash219 (the suite folder), generated problems (2D and
// 3D Laplacians, [L; I] with L the 2D Laplacian, tall random sparse).
// --device-memory-limit BYTES or --stage-fraction F: a "staged GPU" run too
// (sec. 3.4: QrOptions::device_memory_limit below the one-arena factor's
// bytes), its own table: stages, bytes to the host, time against SPQR.
// --fronts: the task kernel against cuSOLVER's dgeqrf per dense front class,
// both inside balsa's GPU path (QrOptions::gpu_dense_front_flops), on
// block-diagonal matrices of dense random blocks (one front each).
#include "bench.hpp"

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "balsa/config.hpp"
#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/qr.hpp"
#include "bench_output.hpp"
#include "spqr_baseline.hpp"

namespace balsa::bench {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

double residual_norm(const Csr<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> r(b);
  spmv(-1.0, A, std::span<const double>(x), 1.0, std::span<double>(r));
  return norm2(std::span<const double>(r));
}

// SPQR on A (min2norm when m < n): its own phase timers, medians.
nlohmann::json run_spqr(const Csr<double>& A, const std::vector<double>& b, int repeat) {
  std::vector<double> analyse, factor, solve;
  SpqrResult r;
  for (int k = 0; k < repeat; ++k) {
    r = spqr_solve(A, b, A.rows < A.cols);
    analyse.push_back(r.analyse_s);
    factor.push_back(r.factorise_s);
    solve.push_back(r.solve_s);
  }
  return {{"analyse_seconds", median_of(analyse)}, {"factorise_seconds", median_of(factor)}, {"solve_seconds", median_of(solve)},
          {"residual", residual_norm(A, r.x, b)}, {"flops", r.flops}, {"rank", r.rank}};
}

// balsa on `device`: analyse + factorise + solve, then (GPU) refactorisations.
// limit: QrOptions::device_memory_limit (staging).
nlohmann::json run_balsa(const Csr<double>& A, const std::vector<double>& b, int repeat, Device device,
                         std::size_t limit = 0) {
  QrOptions o;
  o.device = device;
  o.device_memory_limit = limit;
  std::vector<double> analyse, factor, first, solve, again;
  nlohmann::json out;
  const int runs = device == Device::Cuda ? 1 : repeat;
  for (int r = 0; r < runs; ++r) {
    SparseQR qr(A, o);
    std::vector<double> x = qr.solve(b);
    const QrStats& st = qr.stats();
    analyse.push_back(st.t_order + st.t_analyse);
    first.push_back(st.t_factorise);
    factor.push_back(st.t_factorise);
    solve.push_back(st.t_solve);
    qr.solve(b);  // the R solver is set up: Q^T b and the triangular solve only
    again.push_back(st.t_solve);
    if (device == Device::Cuda && st.device == Device::Cuda) {  // refactorisations: the plan and memory stay
      factor.clear();
      solve.clear();
      for (int k = 0; k < std::max(3, repeat); ++k) {
        qr.factorise(A);
        factor.push_back(st.t_factorise);
        x = qr.solve(b);
        solve.push_back(st.t_solve);
      }
    }
    out = {{"residual", residual_norm(A, x, b)}, {"rank", st.rank}, {"fronts", st.fronts}, {"flops", st.flops_done},
           {"r_nnz", st.r_nnz}, {"intensity", st.intensity}, {"flops_dense_fronts", st.dense_flops},
           {"singletons", st.singletons}, {"factor_mb", double(st.factor_bytes) / 1e6},
           {"max_front", fmt::format("{} x {}", st.max_front_rows, st.max_front_cols)},
           {"device", to_string(st.device)}, {"fallback", st.fallback}, {"gpu_launches", st.gpu_launches},
           {"gpu_tasks", st.gpu_tasks}, {"gpu_bundles", st.gpu_bundles}, {"device_mb", double(st.device_bytes) / 1e6},
           {"gpu_stages", st.gpu_stages}, {"staged_mb_to_host", double(st.staged_bytes_to_host) / 1e6},
           {"gpu_plan_seconds", st.t_gpu_plan}};
  }
  out["analyse_seconds"] = median_of(analyse);
  out["factorise_seconds"] = median_of(factor);
  out["first_factorise_seconds"] = median_of(first);
  out["solve_seconds"] = median_of(solve);
  out["solve_again_seconds"] = median_of(again);
  out["gflops"] = out["flops"].get<double>() / out["factorise_seconds"].get<double>() / 1e9;
  return out;
}

// m x n, `per_row` random entries a row plus 4 on the first n rows' diagonal (full column rank).
Csr<double> tall_random(index_t m, index_t n, index_t per_row, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Coo<double> c;
  c.rows = m;
  c.cols = n;
  for (index_t i = 0; i < m; ++i) {
    for (index_t k = 0; k < per_row; ++k) {
      c.row_idx.push_back(i);
      c.col_idx.push_back(index_t(g() % std::uint64_t(n)));
      c.values.push_back(u(g));
    }
    if (i < n) {
      c.row_idx.push_back(i);
      c.col_idx.push_back(i);
      c.values.push_back(4.0);
    }
  }
  return to_csr(c);  // (duplicates summed)
}

// `count` dense random m x n blocks on the diagonal.
Csr<double> dense_blocks(index_t m, index_t n, index_t count, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Csr<double> A;
  A.rows = m * count;
  A.cols = n * count;
  A.row_ptr.reserve(std::size_t(A.rows) + 1);  // (row_ptr starts as {0})
  A.col_idx.reserve(std::size_t(m) * std::size_t(n) * std::size_t(count));
  A.values.reserve(A.col_idx.capacity());
  for (index_t b = 0; b < count; ++b)
    for (index_t i = 0; i < m; ++i) {
      for (index_t j = 0; j < n; ++j) {
        A.col_idx.push_back(b * n + j);
        A.values.push_back(u(g));
      }
      A.row_ptr.push_back(index_t(A.col_idx.size()));
    }
  return A;
}

double flops_of(double m, double n) { return 2 * m * n * n - 2 * n * n * n / 3; }

bool wanted(const QrBenchOptions& o, const std::string& name) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return name.find(s) != std::string::npos; });
}

std::string cell(const nlohmann::json& j, const char* key, const char* format = "{:.4f}") {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(format), j[key].get<double>());
}

// The front classes: the task kernel against cuSOLVER's dgeqrf (Q^T b by
// dormqr), each inside balsa's GPU path on the same block-diagonal matrix.
void run_fronts(const QrBenchOptions& o, const std::string& command_line) {
  if (!cuda::available()) throw Error("balsa-bench qr --fronts: no CUDA GPU is available");
  const cuda::DeviceInfo dev = cuda::device_info();
  std::string md = fmt::format(
      "## balsa-bench qr --fronts\n\n- date (UTC): {}; GPU: {}; command: `{}`\n- per class, `count` dense random m x n "
      "blocks on the diagonal (one front each); balsa's GPU path with every front on the task kernel "
      "(gpu_dense_front_flops = inf) and with every front on cuSOLVER dgeqrf (= 0); factorisation: a "
      "refactorisation (plan and device memory kept), median of {}; solve: Q^T b + R x = y, one right-hand side. "
      "GFlop/s from the fronts' dense QR flops (2 m n^2 - 2 n^3 / 3 each). Roofline: the task kernel's bound, "
      "min({} TFlop/s FP64 without tensor cores, intensity x {} GB/s), intensity = the flops over the front's "
      "bytes read and written once (16 m n); % = tiles' GFlop/s of it.\n\n"
      "| front class m x n | count | tiles factorise s | tiles GFlop/s | cuSOLVER factorise s | cuSOLVER GFlop/s | "
      "faster | tiles solve s | cuSOLVER solve s | intensity | roofline GFlop/s | tiles % |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      utc_now_iso(), dev.name, command_line, std::max(3, o.repeat), o.fp64_tflops, o.peak_gbs);
  nlohmann::json rows = nlohmann::json::array();
  const std::pair<index_t, index_t> classes[] = {{64, 32},    {128, 64},    {256, 128},  {512, 256},
                                                 {1024, 512}, {2048, 1024}, {4096, 2048}};
  for (const auto& [m, n] : classes) {
    const double f = flops_of(m, n);
    const index_t count = index_t(std::clamp(std::min(2e10 / f, 1.6e7 / (double(m) * n)), 1.0, 4096.0));
    const Csr<double> A = dense_blocks(m, n, count, 3);
    const std::vector<double> b(static_cast<std::size_t>(A.rows), 1.0);
    const double intensity = f / (16.0 * double(m) * double(n));
    const double roofline = std::min(o.fp64_tflops * 1e3, intensity * o.peak_gbs);  // GFlop/s
    nlohmann::json row = {{"m", m}, {"n", n}, {"count", count}, {"flops", f * count}, {"intensity", intensity},
                          {"roofline_gflops", roofline}};
    for (const auto& [key, threshold] : {std::pair<const char*, double>{"tiles", INFINITY}, {"cusolver", 0.0}}) {
      QrOptions qo;
      qo.device = Device::Cuda;
      qo.gpu_dense_front_flops = threshold;
      SparseQR qr = SparseQR::analyse(A, qo);
      qr.factorise(A);
      std::vector<double> t, ts;
      for (int k = 0; k < std::max(3, o.repeat); ++k) {
        qr.factorise(A);
        t.push_back(qr.stats().t_factorise);
        qr.solve(b);
        ts.push_back(qr.stats().t_solve);
      }
      row[key] = {{"factorise_seconds", median_of(t)}, {"solve_seconds", median_of(ts)}, {"gflops", f * count / median_of(t) / 1e9},
                  {"fronts", qr.stats().fronts}, {"device", to_string(qr.stats().device)},
                  {"max_front", fmt::format("{} x {}", qr.stats().max_front_rows, qr.stats().max_front_cols)}};
    }
    const nlohmann::json &a = row["tiles"], &c = row["cusolver"];
    const bool tiles_win = a["factorise_seconds"].get<double>() < c["factorise_seconds"].get<double>();
    md += fmt::format("| {} x {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.0f} | {:.1f} |\n", m, n, count,
                      cell(a, "factorise_seconds"), cell(a, "gflops", "{:.1f}"), cell(c, "factorise_seconds"),
                      cell(c, "gflops", "{:.1f}"), tiles_win ? "tiles" : "cuSOLVER", cell(a, "solve_seconds"),
                      cell(c, "solve_seconds"), intensity, roofline, 100 * a["gflops"].get<double>() / roofline);
    std::fprintf(stderr, "  %d x %d (%d): tiles %.4f s, cuSOLVER %.4f s\n", int(m), int(n), int(count),
                 a["factorise_seconds"].get<double>(), c["factorise_seconds"].get<double>());
    rows.push_back(row);
  }
  const nlohmann::json meta = {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line},
                               {"gpu", dev.name}};
  write_results(o.json_path, {{"meta", meta}, {"classes", rows}}, o.markdown_path, md, md);
}

using QrCases = std::vector<std::pair<std::string, Csr<double>>>;

// The matrices: the files found (data dir, suite dir, --file) and the
// generated ones (--generated, --large), those --only names.
QrCases qr_cases(const QrBenchOptions& o) {
  std::vector<std::pair<std::string, Csr<double>>> cases;
  auto add_file = [&](const std::filesystem::path& f, const std::string& name) {
    if (!wanted(o, name)) return;
    if (!std::filesystem::exists(f)) {
      std::fprintf(stderr, "  skipped %s (not found)\n", f.c_str());
      return;
    }
    const Csr<double> A = read_bench_matrix(f);
    if (name == "lp_e226") cases.emplace_back("lp_e226 (transposed)", transpose(A));
    cases.emplace_back(name, A);
  };
  add_file(std::filesystem::path(o.data_dir) / "Franz6_id1959_aug.mtx", "Franz6_id1959_aug");
  add_file(std::filesystem::path(o.data_dir) / "lp_e226.mtx", "lp_e226");
  add_file(std::filesystem::path(o.data_dir) / "bayer10.mtx", "bayer10");
  for (const char* name : {"well1850", "illc1033", "ash219"})
    add_file(std::filesystem::path(o.suite_dir) / (std::string(name) + ".mtx.gz"), name);
  for (const std::string& f : o.files) add_file(f, f);
  auto gen = [&](const std::string& name, auto make) {
    if (wanted(o, name)) cases.emplace_back(name, make());
  };
  if (o.generated) {
    gen("laplacian_2d 300^2", [] { return laplacian_2d<double>(300, 300); });
    gen("laplacian_3d 30^3", [] { return laplacian_3d<double>(30, 30, 30); });
    gen("[laplacian_2d 300^2; I]", [] { return laplacian_2d_over_identity<double>(300, 300); });
    gen("tall random 20000 x 2000", [] { return tall_random(20000, 2000, 4, 1); });
  }
  if (o.large) {
    gen("laplacian_2d 1000^2", [] { return laplacian_2d<double>(1000, 1000); });
    gen("laplacian_3d 40^3", [] { return laplacian_3d<double>(40, 40, 40); });
    gen("laplacian_3d 50^3", [] { return laplacian_3d<double>(50, 50, 50); });
    gen("[laplacian_2d 1000^2; I]", [] { return laplacian_2d_over_identity<double>(1000, 1000); });
    gen("tall random 40000 x 5000", [] { return tall_random(40000, 5000, 4, 2); });
  }
  return cases;
}

std::string qr_markdown_head(const QrBenchOptions& o, const nlohmann::json& meta, const std::string& gpu_name,
                             const std::string& command_line) {
  return fmt::format(
      "## balsa-bench qr\n\n- date (UTC): {}; host cores: {}, OpenMP threads: {}; GPU: {}\n- command: `{}`\n"
      "- b = ones; SPQR: SuiteSparseQR (min2norm for m < n), default ordering and tolerance, its own phase timers, "
      "all host cores; balsa CPU: SparseQR (COLAMD), device cpu; balsa GPU: device cuda, factorisation = a "
      "refactorisation (same pattern: the plan and device memory kept; the first one, with them, in parentheses). "
      "Seconds, medians of {} runs. Solve: balsa's Q^T b and R x = y (the R solver's set-up included); SPQR's is "
      "R's solve only (b rides along its factorisation). Least squares = factorise + solve. GFlop/s: the analysis' "
      "staircase flops / the GPU factorisation.\n\n"
      "| matrix | m x n | nnz | intensity | SPQR factorise | CPU factorise | GPU factorise (first) | GPU GFlop/s | "
      "GPU vs SPQR | least squares SPQR / GPU | ratio | rank SPQR / CPU / GPU | residual SPQR / CPU / GPU | GPU "
      "launches |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      meta["date"].get<std::string>(), std::thread::hardware_concurrency(), omp_get_max_threads(), gpu_name,
      command_line, o.repeat);
}

bool staging(const QrBenchOptions& o) { return o.device_memory_limit > 0 || o.stage_fraction > 0; }

std::string staged_markdown_head() {
  return "\n### Staged GPU (sec. 3.4: device_memory_limit below the one-arena factor)\n\n"
         "Factorisation = a refactorisation (first in parentheses); the budget holds two stage windows, A's values "
         "and the stages' maps; the windows (R, the fronts and reflectors for Q) and the crossing contribution blocks "
         "go to pinned host memory at every factorisation.\n\n"
         "| matrix | limit MB | one-arena MB | staged MB | stages | MB to host | staged factorise (first) | vs SPQR | "
         "vs one arena | least squares staged | vs SPQR | residual |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
}

// The staged GPU run of one matrix (after its one-arena run g): JSON, and its line in md.
nlohmann::json run_staged(const std::string& name, const Csr<double>& A, const std::vector<double>& b,
                          const QrBenchOptions& o, const nlohmann::json& s, const nlohmann::json& g, std::string& md) {
  const double one_mb = g["device_mb"].get<double>();
  const std::size_t limit = o.device_memory_limit > 0 ? o.device_memory_limit : std::size_t(o.stage_fraction * one_mb * 1e6);
  nlohmann::json t;
  try {
    t = run_balsa(A, b, o.repeat, Device::Cuda, limit);
  } catch (const DeviceOutOfMemory& e) {  // a front alone over the limit
    md += fmt::format("| {} | {:.4g} | {:.4g} | {} |\n", name, double(limit) / 1e6, one_mb, e.what());
    return {{"limit_bytes", limit}, {"error", e.what()}};
  }
  t["limit_bytes"] = limit;
  const double f = t["factorise_seconds"].get<double>(), lsq = f + t["solve_seconds"].get<double>();
  const double lsq_s = s["factorise_seconds"].get<double>() + s["solve_seconds"].get<double>();
  t["staged_vs_spqr"] = s["factorise_seconds"].get<double>() / f;
  md += fmt::format("| {} | {:.4g} | {:.4g} | {:.4g} | {} | {:.4g} | {:.4f} ({:.4f}){} | {:.2f} | {:.2f} | {:.4f} | {:.2f} | {:.3e} |\n",
                    name, double(limit) / 1e6, one_mb, t["device_mb"].get<double>(), t["gpu_stages"].get<long>(),
                    t["staged_mb_to_host"].get<double>(), f, t["first_factorise_seconds"].get<double>(),
                    t["device"] == "cuda" ? "" : " [" + t["fallback"].get<std::string>() + "]",
                    s["factorise_seconds"].get<double>() / f, g["factorise_seconds"].get<double>() / f, lsq, lsq_s / lsq,
                    t["residual"].get<double>());
  return t;
}

// One matrix: SPQR, balsa on the CPU and (gpu) on the GPU; its JSON row, its
// Markdown line appended to md (the staged run's to staged_md), the GPU's
// speedup to its intensity decade.
nlohmann::json run_qr_case(const std::string& name, const Csr<double>& A, const QrBenchOptions& o, bool gpu,
                           std::string& md, std::string& staged_md, std::map<int, std::vector<double>>& by_intensity) {
  const std::vector<double> b(static_cast<std::size_t>(A.rows), 1.0);
  nlohmann::json row = {{"matrix", name}, {"m", A.rows}, {"n", A.cols}, {"nnz", A.nnz()}};
  row["spqr"] = run_spqr(A, b, o.repeat);
  row["cpu"] = run_balsa(A, b, o.repeat, Device::Cpu);
  if (gpu) row["gpu"] = run_balsa(A, b, o.repeat, Device::Cuda);
  const nlohmann::json &s = row["spqr"], &c = row["cpu"];
  const nlohmann::json g = gpu ? row["gpu"] : nlohmann::json::object();
  const double intensity = c["intensity"].get<double>();
  std::string gpu_cells = "- | - | - | - | - |";
  std::string launches = "-";
  if (gpu) {
    const double speed = s["factorise_seconds"].get<double>() / g["factorise_seconds"].get<double>();
    const double lsq_s = s["factorise_seconds"].get<double>() + s["solve_seconds"].get<double>();
    const double lsq_g = g["factorise_seconds"].get<double>() + g["solve_seconds"].get<double>();
    row["gpu_vs_spqr"] = speed;
    row["lsq_gpu_vs_spqr"] = lsq_s / lsq_g;
    if (g["device"] == "cuda") by_intensity[int(std::floor(std::log10(std::max(intensity, 1.0))))].push_back(speed);
    gpu_cells = fmt::format("{:.4f} ({:.4f}){} | {:.1f} | {:.2f} | {:.4f} / {:.4f} | {:.2f} |", g["factorise_seconds"].get<double>(),
                            g["first_factorise_seconds"].get<double>(),
                            g["device"] == "cuda" ? "" : " [" + g["fallback"].get<std::string>() + "]",
                            g["gflops"].get<double>(), speed, lsq_s, lsq_g, lsq_s / lsq_g);
    launches = fmt::format("{}", g["gpu_launches"].get<long>());
    if (staging(o) && g["device"] == "cuda") row["staged"] = run_staged(name, A, b, o, s, g, staged_md);
  }
  md += fmt::format("| {} | {} x {} | {} | {:.3g} | {:.4f} | {:.4f} | {} {} / {} / {} | {:.3e} / {:.3e} / {} | {} |\n", name,
                    A.rows, A.cols, A.nnz(), intensity, s["factorise_seconds"].get<double>(), c["factorise_seconds"].get<double>(),
                    gpu_cells, s["rank"].get<long>(), c["rank"].get<long>(),
                    gpu ? fmt::format("{}", g["rank"].get<long>()) : "-", s["residual"].get<double>(),
                    c["residual"].get<double>(), gpu ? fmt::format("{:.3e}", g["residual"].get<double>()) : "-", launches);
  std::fprintf(stderr, "  %s: factorise SPQR %.4f s, CPU %.4f s, GPU %s s\n", name.c_str(), s["factorise_seconds"].get<double>(),
               c["factorise_seconds"].get<double>(), gpu ? fmt::format("{:.4f}", g["factorise_seconds"].get<double>()).c_str() : "-");
  return row;
}

// The paper's Table V: the GPU's factorisation speedups by intensity decade.
std::string intensity_table(std::map<int, std::vector<double>>& by_intensity) {
  std::string md = "\n### GPU factorisation speedup over SPQR by flop/byte intensity (the paper's Table V)\n\n"
                   "| intensity | problems | median speedup | min | max |\n|---|---|---|---|---|\n";
  for (auto& [decade, v] : by_intensity) {
    std::sort(v.begin(), v.end());
    md += fmt::format("| [{:g}, {:g}) | {} | {:.2f} | {:.2f} | {:.2f} |\n", std::pow(10.0, decade),
                      std::pow(10.0, decade + 1), v.size(), median_of(v), v.front(), v.back());
  }
  return md;
}

}  // namespace

void run_qr_bench(const QrBenchOptions& o, const std::string& command_line) {
  if (o.fronts) {
    run_fronts(o, command_line);
    return;
  }
  const QrCases cases = qr_cases(o);
  const bool gpu = o.gpu && cuda::available();
  const std::string gpu_name = gpu ? cuda::device_info().name : "none";
  nlohmann::json meta = {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line},
                         {"host_cores", std::thread::hardware_concurrency()}, {"omp_threads", omp_get_max_threads()},
                         {"repeat", o.repeat}, {"gpu", gpu_name}};
  std::string md = qr_markdown_head(o, meta, gpu_name, command_line);
  nlohmann::json rows = nlohmann::json::array();
  std::map<int, std::vector<double>> by_intensity;  // decade -> GPU vs SPQR factorisation speedups
  std::string staged_md = staged_markdown_head();
  for (const auto& [name, A] : cases) rows.push_back(run_qr_case(name, A, o, gpu, md, staged_md, by_intensity));
  if (gpu) md += intensity_table(by_intensity);
  if (gpu && staging(o)) md += staged_markdown_head() == staged_md ? "" : staged_md;
  write_results(o.json_path, {{"meta", meta}, {"cases", rows}}, o.markdown_path, md, md);
}

}  // namespace balsa::bench
