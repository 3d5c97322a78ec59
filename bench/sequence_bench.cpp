// balsa-bench sequence (bench/bench.hpp): Picciau's thesis Sect. 6.3
// experiment. For each lower-triangular start matrix, a sequence of `steps`
// matrices, each made from the previous by moving the off-diagonal entries
// of `columns` random columns to random rows of the triangle
// (random_column_replacement). Per step: TASSL's incremental update
// (TriangularSolver::replace_columns) against a fresh TASSL analysis of the
// same matrix and cuSPARSE SpSV's analysis (balsa's Cusparse solver: its
// constructor), and the solve after the update against the solve after the
// fresh analysis (device vectors, CUDA events, medians). Start matrices: the
// L factors of LU factorisations of Netlib LP bases (bench/data/lp-basis-L),
// unit lower ILU(0) factors of the real matrices of --data-dir, and
// generated matrices.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "balsa/config.hpp"
#include "balsa/cuda.hpp"
#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "bench_math.hpp"
#include "bench_output.hpp"
#include "core/clock.hpp"

namespace balsa::bench {

namespace {

struct Start {
  std::string name, source;
  Csr<double> L;  // lower triangular
  DiagonalKind diagonal = DiagonalKind::NonUnit;
};

std::vector<Start> starts(const SequenceBenchOptions& o) {
  std::vector<Start> out;
  auto wanted = [&](const std::string& name) {
    if (o.only.empty()) return true;
    return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return name.find(s) != std::string::npos; });
  };
  namespace fs = std::filesystem;
  auto sorted_files = [](const fs::path& dir, const char* ending) {
    std::vector<fs::path> files;
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().ends_with(ending)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
  };
  if (o.suite == "all" || o.suite == "lp")
    for (const fs::path& f : sorted_files(o.lp_dir, "-L.mtx.gz")) {
      const std::string name = "lp:" + f.filename().string().substr(0, f.filename().string().find("-L.mtx"));
      if (wanted(name)) out.push_back({name, "LU of an optimal LP basis", read_bench_matrix(f), DiagonalKind::Unit});
    }
  if (o.suite == "all" || o.suite == "ilu")
    for (const fs::path& f : sorted_files(o.data_dir, ".mtx")) {
      const std::string name = "ilu0:" + f.filename().string().substr(0, f.filename().string().find(".mtx"));
      if (!wanted(name)) continue;
      try {
        const Csr<double> A = read_bench_matrix(f);
        if (A.rows != A.cols || A.rows < 500) continue;
        IncompleteFactorization<double> F(A, {.device = Device::Cpu});
        out.push_back({name, "unit lower ILU(0) factor", extract_triangle(F.factors(), Triangle::Lower), DiagonalKind::Unit});
      } catch (const std::exception& e) {
        fmt::print(stderr, "{}: skipped: {}\n", name, e.what());
      }
    }
  if (o.suite == "all" || o.suite == "generated") {
    const std::pair<std::string, Csr<double>> gen[] = {
        {"gen:block-diagonal 16x2000 0.1%", random_block_diagonal_lower<double>(16, 2000, 0.001, 1)},
        {"gen:block-diagonal 16x20000 0.1%", random_block_diagonal_lower<double>(16, 20000, 0.001, 2)},
        {"gen:banded 200k/50/4", random_lower_banded<double>(200000, 50, 4, 3)},
        {"gen:laplacian-3d 60^3 lower", extract_triangle(laplacian_3d<double>(60, 60, 60), Triangle::Lower)},
    };
    for (const auto& [name, L] : gen)
      if (wanted(name)) out.push_back({name, "generated", L, DiagonalKind::NonUnit});
  }
  return out;
}

// Median time (ms) of `repeat` solves on device vectors.
double solve_ms(TriangularSolver<double>& s, cuda::DeviceBuffer<double>& b, cuda::DeviceBuffer<double>& x, int repeat) {
  for (int w = 0; w < 3; ++w) s.solve(b, x);
  cuda::detail::synchronize();
  std::vector<double> t;
  cuda::EventTimer timer;
  for (int r = 0; r < repeat; ++r) {
    timer.start();
    s.solve(b, x);
    timer.stop();
    t.push_back(timer.milliseconds());
  }
  return median(t);
}

nlohmann::json run_case(const Start& s, const SequenceBenchOptions& o, index_t columns, bool gpu) {
  const Device device = gpu ? Device::Cuda : Device::Cpu;
  const TrsvOptions opt{.algorithm = TrsvAlgorithm::Tassl, .device = device, .diagonal = s.diagonal};
  Csr<double> L = s.L;
  TriangularSolver<double> solver(L, opt);
  nlohmann::json steps = nlohmann::json::array();
  const std::vector<double> b = random_vector<double>(L.rows, 7);
  cuda::DeviceBuffer<double> db, dx;
  if (gpu) {
    db = cuda::DeviceBuffer<double>(std::span<const double>(b));
    dx = cuda::DeviceBuffer<double>(b.size());
  }
  double worst = 0;
  for (int k = 0; k < o.steps; ++k) {
    const index_t count = columns > 0 ? columns : index_t(2 + (k * 7919) % 31);  // multi: 2..32 columns
    const ColumnReplacement<double> c = random_column_replacement(L, Triangle::Lower, count, o.seed + std::uint64_t(k));
    solver.replace_columns(c.columns, c.col_ptr, c.row_idx, c.values);
    L = with_columns_replaced(L, c);
    const TrsvUpdateStats& u = solver.stats().updates;
    nlohmann::json step = {{"columns", count},
                           {"update_seconds", u.last_seconds},
                           {"incremental", u.last_reason.empty()},
                           {"reason", u.last_reason},
                           {"scheduled_edges", u.last_scheduled_edges},
                           {"blocks", u.last_blocks},
                           {"uploaded_bytes", u.last_uploaded_bytes},
                           {"subgraph_levels", solver.stats().tassl.subgraph_levels}};
    std::vector<double> fresh_seconds;
    for (int r = 0; r < o.repeat_analysis; ++r) {
      TriangularSolver<double> fresh(L, opt);
      fresh_seconds.push_back(fresh.stats().analysis_seconds);
      if (r + 1 < o.repeat_analysis) continue;
      step["fresh_subgraph_levels"] = fresh.stats().tassl.subgraph_levels;
      std::vector<double> x(b.size()), y(b.size());
      solver.solve(b, x);
      fresh.solve(b, y);
      worst = std::max(worst, relative_difference(std::span<const double>(x), std::span<const double>(y)));
      if (gpu) {
        step["solve_updated_seconds"] = 1e-3 * solve_ms(solver, db, dx, o.repeat);
        step["solve_fresh_seconds"] = 1e-3 * solve_ms(fresh, db, dx, o.repeat);
      }
    }
    step["analysis_seconds"] = median(fresh_seconds);
    if (gpu) {
      std::vector<double> cus;
      for (int r = 0; r < o.repeat_analysis; ++r) {
        TriangularSolver<double> c2(L, {.algorithm = TrsvAlgorithm::Cusparse, .device = Device::Cuda, .diagonal = s.diagonal});
        cus.push_back(c2.stats().analysis_seconds);
      }
      step["cusparse_analysis_seconds"] = median(cus);
    }
    steps.push_back(step);
  }
  const TrsvUpdateStats& u = solver.stats().updates;
  return {{"case", s.name},        {"source", s.source},        {"rows", s.L.rows},
          {"nnz", s.L.nnz()},       {"columns_per_step", columns}, {"steps", steps},
          {"incremental", u.incremental}, {"reanalyses", u.reanalyses}, {"recaptures", u.recaptures},
          {"max_difference_to_fresh", worst}};
}

double mean_of(const nlohmann::json& steps, const char* key) {
  double s = 0;
  int n = 0;
  for (const auto& st : steps)
    if (st.contains(key)) s += st[key].get<double>(), ++n;
  return n ? s / n : std::nan("");
}

double mean_ratio(const nlohmann::json& steps, const char* num, const char* den) {
  double s = 0;
  int n = 0;
  for (const auto& st : steps)
    if (st.contains(num) && st.contains(den)) s += st[num].get<double>() / st[den].get<double>(), ++n;
  return n ? s / n : std::nan("");
}

}  // namespace

void run_sequence_bench(const SequenceBenchOptions& o, const std::string& command_line) {
  const bool gpu = resolve_device(o.device) == Device::Cuda;
  const std::string gpu_name = gpu ? cuda::device_info().name : "none";
  nlohmann::json rows = nlohmann::json::array();
  const std::vector<Start> cases = starts(o);
  std::string md = fmt::format(
      "# balsa-bench sequence ({})\n\n`{}`\n\nGPU: {}. TASSL's update (replace_columns) / a full TASSL analysis, / "
      "cuSPARSE SpSV's analysis; solve after the updates / after a fresh analysis. Means over {} steps.\n\n"
      "| case | rows | nnz | columns | update ms | full ms | update/full | cuSPARSE ms | update/cuSPARSE | solve "
      "upd/fresh | incremental | re-analyses | recaptures | max diff |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      utc_now_iso(), command_line, gpu_name, o.steps);
  std::vector<double> single, multi, solve_ratio;
  for (const Start& s : cases)
    for (const index_t columns : {index_t(1), index_t(0)}) {
      if (columns == 0 && !o.multi) continue;
      nlohmann::json r;
      try {
        r = run_case(s, o, columns, gpu);
      } catch (const std::exception& e) {
        fmt::print(stderr, "{}: error: {}\n", s.name, e.what());
        rows.push_back({{"case", s.name}, {"error", e.what()}});
        continue;
      }
      const nlohmann::json& st = r["steps"];
      // ms in the table, seconds in the JSON
      const double upd = 1e3 * mean_of(st, "update_seconds"), full = 1e3 * mean_of(st, "analysis_seconds");
      const double ratio = mean_ratio(st, "update_seconds", "analysis_seconds");
      const double cus = 1e3 * mean_of(st, "cusparse_analysis_seconds");
      const double sr = mean_ratio(st, "solve_updated_seconds", "solve_fresh_seconds");
      (columns == 1 ? single : multi).push_back(ratio);
      if (!std::isnan(sr)) solve_ratio.push_back(sr);
      const std::string line = fmt::format(
          "| {} | {} | {} | {} | {:.4f} | {:.4f} | {:.3f} | {:.4f} | {:.3f} | {:.4f} | {} | {} | {} | {:.1e} |\n", s.name,
          s.L.rows, s.L.nnz(), columns == 1 ? "1" : "2-32", upd, full, ratio, cus, upd / cus, sr,
          r["incremental"].get<int>(), r["reanalyses"].get<int>(), r["recaptures"].get<int>(),
          r["max_difference_to_fresh"].get<double>());
      md += line;
      fmt::print(stderr, "{}", line);
      rows.push_back(r);
    }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += x;
    return v.empty() ? std::nan("") : s / double(v.size());
  };
  const std::string summary = fmt::format(
      "\nMean update/full over the one-column sequences: {:.3f} ({} cases; target <= 0.10; the thesis 0.40). "
      "Many columns: {:.3f} ({} cases). Solve after updates / after a fresh analysis: mean {:.4f} (target <= 1.015; "
      "the thesis 1.0174).\n",
      mean(single), single.size(), mean(multi), multi.size(), mean(solve_ratio));
  md += summary;
  const nlohmann::json json = {{"meta", {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line}, {"gpu", gpu_name},
                                         {"steps", o.steps}, {"repeat", o.repeat}}},
                               {"rows", rows},
                               {"summary", {{"update_over_full_single", mean(single)},
                                            {"update_over_full_multi", mean(multi)},
                                            {"solve_updated_over_fresh", mean(solve_ratio)}}}};
  write_results(o.json_path, json, o.markdown_path, md, summary);
}

}  // namespace balsa::bench
