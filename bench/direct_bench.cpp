// balsa-bench direct (bench/bench.hpp): balsa::DirectSolver's
// methods on every square Matrix Market file of a folder (or the files
// given): CHOLMOD where A is symmetric with a positive diagonal, UMFPACK,
// KLU and Auto. Per (matrix, method): the analysis' prediction and the
// factorisation's counts (factor entries, flops, peak bytes), the median
// analyse / factor / solve seconds of --repeat runs, rcond, and the
// backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) of
// b = A x_true. The JSON records feed a time model t = f(flops,
// factor_entries, nnz) and the fit of Auto's UMFPACK/KLU rule
// (direct/direct_choice.cpp), so each also holds the rule's features.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench.hpp"
#include "balsa/direct.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "bench_math.hpp"
#include "balsa/config.hpp"
#include "bench_output.hpp"
#include "direct/direct_choice.hpp"
#include "apps/fields_json.hpp"

namespace balsa::bench {

namespace {

namespace fs = std::filesystem;

// The square matrices to run: the files given, else the folder's *.mtx[.gz].
std::vector<fs::path> matrix_files(const DirectBenchOptions& o) {
  std::vector<fs::path> out(o.files.begin(), o.files.end());
  if (out.empty() && fs::is_directory(o.dir))
    for (const auto& e : fs::directory_iterator(o.dir)) {
      const std::string f = e.path().filename().string();
      if (f.ends_with(".mtx") || f.ends_with(".mtx.gz")) out.push_back(e.path());
    }
  std::sort(out.begin(), out.end());
  std::erase_if(out, [&](const fs::path& p) {
    const std::string name = p.filename().string();
    return !o.only.empty() && std::none_of(o.only.begin(), o.only.end(),
                                           [&](const std::string& s) { return name.find(s) != std::string::npos; });
  });
  return out;
}

double backward_error(const Csr<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> r(b);
  spmv(-1.0, A, std::span<const double>(x), 1.0, std::span<double>(r));
  double a = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    double row = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) row += std::abs(A.values[p]);
    a = std::max(a, row);
  }
  const auto inf = [](const std::vector<double>& v) { return norm_inf(std::span<const double>(v)); };
  return inf(r) / (a * inf(x) + inf(b));
}

// One method on A: --repeat runs (analysis, factorisation, one solve; no
// more once they have taken --budget seconds), medians.
nlohmann::json run_method(const Csr<double>& A, DirectMethod m, const DirectBenchOptions& o) {
  const std::vector<double> x_true = random_vector<double>(A.rows, 1, 1.0, 2.0);
  const std::vector<double> b = multiply(A, std::span<const double>(x_true));
  std::vector<double> analyse, factor, solve, x(b.size());
  nlohmann::json rec = {{"method", to_string(m)}};
  try {
    double spent = 0;
    for (int r = 0; r < o.repeat && (r == 0 || spent < o.budget_seconds); ++r) {
      DirectSolver<double> s(A, {.method = m, .threads = o.threads, .factorize = false});
      rec["predicted"] = app::fields_json(s.stats());
      if (o.max_flops > 0 && s.stats().flops > o.max_flops) {
        rec.update({{"status", "skipped"}, {"error", fmt::format("predicted {:.3g} flops > --max-flops", s.stats().flops)}});
        return rec;
      }
      s.factorize();
      s.solve(std::span<const double>(b), std::span<double>(x));
      const DirectStats& st = s.stats();
      analyse.push_back(st.analyse_seconds);
      factor.push_back(st.factor_seconds);
      solve.push_back(st.solve_seconds);
      spent += st.analyse_seconds + st.factor_seconds + st.solve_seconds;
      rec.update({{"chosen", to_string(st.method)}, {"factorized", app::fields_json(st)}, {"rcond", st.rcond}, {"note", st.note}});
    }
    rec.update({{"status", "ok"}, {"runs", analyse.size()}, {"analyse_seconds", median(analyse)},
                {"factor_seconds", median(factor)}, {"solve_seconds", median(solve)}, {"backward_error", backward_error(A, x, b)},
                {"forward_error", relative_error(std::span<const double>(x), std::span<const double>(x_true))}});
  } catch (const Error& e) {
    rec.update({{"status", "error"}, {"error", e.what()}});
  }
  return rec;
}

std::string markdown_row(const nlohmann::json& r) {
  if (r["status"] != "ok")
    return fmt::format("| {} | {} | {} | {} | {}: {} |||||||\n", r["matrix"].get<std::string>(), r["n"].get<long>(),
                       r["nnz"].get<long>(), r["method"].get<std::string>(), r["status"].get<std::string>(),
                       r["error"].get<std::string>());
  const nlohmann::json& f = r["factorized"];
  return fmt::format("| {} | {} | {} | {}{} | {:.2e} | {:.2e} | {:.2e} | {} | {:.2e} | {:.1e} | {:.1e} |\n",
                     r["matrix"].get<std::string>(), r["n"].get<long>(), r["nnz"].get<long>(),
                     r["method"].get<std::string>(),
                     r["method"] == "auto" ? " (" + r["chosen"].get<std::string>() + ")" : std::string(),
                     r["analyse_seconds"].get<double>(), r["factor_seconds"].get<double>(), r["solve_seconds"].get<double>(),
                     f["factor_entries"].get<long>(), f["flops"].get<double>(), r["rcond"].get<double>(),
                     r["backward_error"].get<double>());
}

// The methods that apply to A: CHOLMOD only where Auto would pick it.
std::vector<DirectMethod> methods_for(const Csr<double>& A) {
  std::vector<DirectMethod> m;
  if (direct::cholesky_suits(A)) m.push_back(DirectMethod::Cholmod);
  for (DirectMethod x : {DirectMethod::Umfpack, DirectMethod::Klu, DirectMethod::Auto}) m.push_back(x);
  return m;
}

}  // namespace

void run_direct_bench(const DirectBenchOptions& o, const std::string& command_line) {
  nlohmann::json meta = {{"date", utc_now_iso()}, {"balsa_version", BALSA_VERSION}, {"command_line", command_line},
                         {"host_cores", std::thread::hardware_concurrency()}, {"repeat", o.repeat},
                         {"threads", o.threads}};
  nlohmann::json records = nlohmann::json::array();
  std::string md = fmt::format("# balsa-bench direct\n\n`{}`\n\n{}, {} cores, median of {} runs (seconds)\n\n"
                               "| matrix | n | nnz | method | analyse | factor | solve | factor entries | flops | rcond | "
                               "backward error |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
                               command_line, meta["date"].get<std::string>(), std::thread::hardware_concurrency(), o.repeat);
  for (const fs::path& file : matrix_files(o)) {
    const std::string name = file.filename().string();
    Csr<double> A;
    try {
      A = read_bench_matrix(file);
    } catch (const Error& e) {
      std::fprintf(stderr, "  %s: skipped (%s)\n", name.c_str(), e.what());
      continue;
    }
    if (A.rows != A.cols) continue;
    const direct::LuFeatures f = direct::lu_features(A);
    for (DirectMethod m : methods_for(A)) {
      nlohmann::json r = run_method(A, m, o);
      r.update({{"matrix", name}, {"n", A.rows}, {"nnz", A.nnz()},
                {"features", {{"nnz_per_row", f.nnz_per_row}, {"pattern_symmetry", f.pattern_symmetry},
                              {"zero_diagonal", f.zero_diagonal}}}});
      md += markdown_row(r);
      std::fprintf(stderr, "  %s %s: %s\n", name.c_str(), to_string(m),
                   r["status"] == "ok" ? fmt::format("factor {:.3g} s", r["factor_seconds"].get<double>()).c_str()
                                       : r["error"].get<std::string>().c_str());
      records.push_back(r);
    }
  }
  write_results(o.json_path, {{"meta", meta}, {"records", records}}, o.markdown_path, md, md);
}

}  // namespace balsa::bench
