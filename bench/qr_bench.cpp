// balsa bench qr (bench/qr_bench.hpp): for each matrix, balsa::SparseQR's
// ordering + analysis, factorisation and solve times against SPQR's
// (SuiteSparseQR_symbolic / _numeric / the solve through SuiteSparseQR on
// the same b, SPQR's own phase timers), medians of --repeat runs, with both
// ranks and least-squares residuals. Matrices: Franz6, lp_e226 and its
// transpose, bayer10 (tests/data), and generated problems (a 2D and a 3D
// Laplacian; a tall regularised one [L; I]).
#include "balsa/bench.hpp"

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

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
  return {{"analyse_s", median_of(analyse)}, {"factorise_s", median_of(factor)}, {"solve_s", median_of(solve)},
          {"residual", residual_norm(A, r.x, b)}, {"flops", r.flops}, {"rank", r.rank}};
}

nlohmann::json run_balsa(const Csr<double>& A, const std::vector<double>& b, int repeat) {
  std::vector<double> analyse, factor, solve, again;
  nlohmann::json out;
  for (int r = 0; r < repeat; ++r) {
    SparseQR qr(A);
    const std::vector<double> x = qr.solve(b);
    const QrStats& st = qr.stats();
    analyse.push_back(st.t_order + st.t_analyse);
    factor.push_back(st.t_factorise);
    solve.push_back(st.t_solve);
    qr.solve(b);  // the R solver is set up: Q^T b and the triangular solve only
    again.push_back(st.t_solve);
    out = {{"residual", residual_norm(A, x, b)}, {"rank", st.rank},     {"fronts", st.fronts},
           {"flops", st.flops_done},                    {"r_nnz", st.r_nnz},   {"intensity", st.intensity},
           {"flops_dense_fronts", st.dense_flops}, {"singletons", st.singletons},
           {"factor_mb", double(st.factor_bytes) / 1e6},
           {"max_front", fmt::format("{} x {}", st.max_front_rows, st.max_front_cols)}};
  }
  out["analyse_s"] = median_of(analyse);
  out["factorise_s"] = median_of(factor);
  out["solve_s"] = median_of(solve);
  out["solve_again_s"] = median_of(again);
  return out;
}

Csr<double> tall_regularised(index_t s) {  // [L; I], L the 2D Laplacian
  const Csr<double> L = laplacian_2d<double>(s, s);
  Coo<double> c = to_coo(L);
  c.rows = 2 * L.rows;
  for (index_t i = 0; i < L.rows; ++i) {
    c.row_idx.push_back(L.rows + i);
    c.col_idx.push_back(i);
    c.values.push_back(1.0);
  }
  return to_csr(c);
}

}  // namespace

void run_qr_bench(const QrBenchOptions& o, const std::string& command_line) {
  std::vector<std::pair<std::string, Csr<double>>> cases;
  for (const char* name : {"Franz6_id1959_aug.mtx", "lp_e226.mtx", "bayer10.mtx"}) {
    const std::filesystem::path f = std::filesystem::path(o.data_dir) / name;
    if (!std::filesystem::exists(f)) {
      std::fprintf(stderr, "  skipped %s (not in %s)\n", name, o.data_dir.c_str());
      continue;
    }
    const Csr<double> A = read_matrix_market_csr<double>(f);
    cases.emplace_back(name, A);
    if (std::string(name) == "lp_e226.mtx") cases.emplace_back("lp_e226.mtx (transposed)", transpose(A));
  }
  for (const std::string& f : o.files) cases.emplace_back(f, read_matrix_market_csr<double>(f));
  if (o.generated) {
    cases.emplace_back("laplacian_2d 300^2", laplacian_2d<double>(300, 300));
    cases.emplace_back("laplacian_3d 30^3", laplacian_3d<double>(30, 30, 30));
    cases.emplace_back("[laplacian_2d 300^2; I]", tall_regularised(300));
  }
  nlohmann::json meta = {{"date", utc_now_iso()}, {"command_line", command_line},
                         {"host_cores", std::thread::hardware_concurrency()}, {"omp_threads", omp_get_max_threads()},
                         {"repeat", o.repeat}};
  std::string md = fmt::format(
      "## balsa bench qr\n\n- date (UTC): {}; host cores: {}, OpenMP threads: {}\n- command: `{}`\n"
      "- b = ones; SPQR: SuiteSparseQR (min2norm for m < n), default ordering and tolerance, its own phase timers; "
      "balsa: SparseQR (COLAMD), analyse = ordering + analysis (singletons in factorise). Seconds, median of {} runs. "
      "Solve: balsa's first (Q^T b, the R solver's set-up, R x = y) / again (no set-up); SPQR's is R's solve only "
      "(b rides along its factorisation as extra columns).\n\n"
      "| matrix | m x n | nnz | balsa analyse | SPQR analyse | balsa factorise | SPQR factorise | ratio | balsa solve "
      "(first / again) | SPQR solve | rank (balsa / SPQR) | residual (balsa / SPQR) | flops done (balsa / SPQR) | "
      "intensity |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      meta["date"].get<std::string>(), std::thread::hardware_concurrency(), omp_get_max_threads(), command_line,
      o.repeat);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [name, A] : cases) {
    const std::vector<double> b(static_cast<std::size_t>(A.rows), 1.0);
    nlohmann::json row = {{"matrix", name}, {"m", A.rows}, {"n", A.cols}, {"nnz", A.nnz()}};
    row["balsa"] = run_balsa(A, b, o.repeat);
    row["spqr"] = run_spqr(A, b, o.repeat);
    const nlohmann::json &q = row["balsa"], &s = row["spqr"];
    const double ratio = q["factorise_s"].get<double>() / s["factorise_s"].get<double>();
    row["factorise_ratio"] = ratio;
    md += fmt::format("| {} | {} x {} | {} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.2f} | {:.4f} / {:.4f} | {:.4f} | {} / {} | "
                      "{:.6e} / {:.6e} | {:.3g} / {:.3g} | {:.3g} |\n",
                      name, A.rows, A.cols, A.nnz(), q["analyse_s"].get<double>(), s["analyse_s"].get<double>(),
                      q["factorise_s"].get<double>(), s["factorise_s"].get<double>(), ratio, q["solve_s"].get<double>(),
                      q["solve_again_s"].get<double>(), s["solve_s"].get<double>(), q["rank"].get<long>(), s["rank"].get<long>(),
                      q["residual"].get<double>(), s["residual"].get<double>(), q["flops"].get<double>(),
                      s["flops"].get<double>(), q["intensity"].get<double>());
    std::fprintf(stderr, "  %s: factorise balsa %.4f s, SPQR %.4f s (%.2fx)\n", name.c_str(),
                 q["factorise_s"].get<double>(), s["factorise_s"].get<double>(), ratio);
    rows.push_back(row);
  }
  write_results(o.json_path, {{"meta", meta}, {"cases", rows}}, o.markdown_path, md, md);
}

}  // namespace balsa::bench
