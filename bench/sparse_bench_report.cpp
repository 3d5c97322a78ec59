// balsa bench sparse: the records as JSON, the summary and the Markdown
// report (bench/sparse_bench.hpp). Every number here comes from a run that
// was measured: a skipped or failed run counts in no time ratio.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bench_math.hpp"
#include "sparse_bench.hpp"

namespace balsa::bench {

nlohmann::json to_json(const SolverRun& r, bool balsa) {
  nlohmann::json j = {{"status", r.status}, {"ran", r.ran},         {"skipped", r.skipped},
                      {"success", r.success}, {"error", r.error}, {"residual", r.residual},
                      {"seconds", r.seconds}, {"repeats", r.repeats}};
  if (!balsa) {
    j["factor_s"] = r.factor_seconds;
    j["solve_s"] = r.solve_seconds;
    j["lu_nnz"] = r.lu_nnz;
    j["detail"] = r.detail;
  } else {
    j["reported_solved"] = r.reported_solved;
    j["method"] = r.method;
    j["direct"] = r.direct;
    j["iterations"] = r.iterations;
    j["chain"] = r.chain_json;
    j["message"] = r.message;
    j["rerun"] = r.rerun;
  }
  return j;
}

nlohmann::json to_json(const SystemRecord& s) {
  return {{"name", s.name},
          {"group", s.group},
          {"source", s.source},
          {"kind", s.kind},
          {"spd", s.spd},
          {"n", s.n},
          {"nnz", s.nnz},
          {"balsa", to_json(s.balsa, true)},
          {"balsa_with_fallback", to_json(s.balsa_fallback, true)},
          {"umfpack", to_json(s.umfpack, false)},
          {"superlu", to_json(s.superlu, false)}};
}

namespace {

struct Counts {
  int success = 0, failed = 0, skipped = 0;
};
Counts count(const std::vector<SystemRecord>& systems, SolverRun SystemRecord::*which) {
  Counts c;
  for (const SystemRecord& s : systems) {
    const SolverRun& r = s.*which;
    if (r.success) ++c.success;
    else if (r.skipped) ++c.skipped;
    else ++c.failed;
  }
  return c;
}

// log2(T_baseline / T_balsa) over the systems both solved (balsa: its own
// iterative methods), with the systems' names.
std::vector<std::pair<double, std::string>> speedups(const std::vector<SystemRecord>& systems,
                                                     SolverRun SystemRecord::*base) {
  std::vector<std::pair<double, std::string>> out;
  for (const SystemRecord& s : systems) {
    const SolverRun& b = s.*base;
    if (s.balsa.success && b.success && s.balsa.seconds > 0 && b.seconds > 0)
      out.emplace_back(std::log2(b.seconds / s.balsa.seconds), s.name);
  }
  return out;
}

double median_of(const std::vector<std::pair<double, std::string>>& v) {
  std::vector<double> x;
  for (const auto& p : v) x.push_back(p.first);
  return median(x);
}

// Systems UMFPACK solves; balsa's own iterative methods on them (the target: >= 90%).
std::pair<int, int> target(const std::vector<SystemRecord>& systems) {
  int both = 0, umf = 0;
  for (const SystemRecord& s : systems)
    if (s.umfpack.success) {
      ++umf;
      both += s.balsa.success;
    }
  return {both, umf};
}

std::string pct(int a, int b) { return b > 0 ? fmt::format("{:.1f}%", 100.0 * a / b) : "-"; }
std::string num(double v, const char* f = "{:.3g}") { return std::isnan(v) ? "-" : fmt::format(fmt::runtime(f), v); }
// Text for a Markdown table cell: '|' escaped, line breaks as spaces.
std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}
// "yes" / "no" for a run, else why it did not run.
std::string outcome(const SolverRun& r) {
  if (!r.ran) return cell(r.status);
  return r.success ? "yes" : (r.status == "ok" ? "no" : "no (" + cell(r.status) + ")");
}

}  // namespace

nlohmann::json sparse_summary_json(const std::vector<SystemRecord>& systems) {
  nlohmann::json j = {{"systems", systems.size()}};
  const std::pair<const char*, SolverRun SystemRecord::*> solvers[] = {{"balsa", &SystemRecord::balsa},
                                                                      {"balsa_with_fallback", &SystemRecord::balsa_fallback},
                                                                      {"umfpack", &SystemRecord::umfpack},
                                                                      {"superlu", &SystemRecord::superlu}};
  for (const auto& [name, which] : solvers) {
    const Counts c = count(systems, which);
    j["success"][name] = {{"solved", c.success}, {"failed", c.failed}, {"skipped", c.skipped}};
  }
  const auto [both, umf] = target(systems);
  j["balsa_iterative_among_umfpack_solved"] = {{"solved", both}, {"of", umf},
                                              {"fraction", umf > 0 ? double(both) / umf : NAN}};
  for (const auto& [name, which] : {std::pair{"umfpack", &SystemRecord::umfpack}, std::pair{"superlu", &SystemRecord::superlu}}) {
    nlohmann::json v = nlohmann::json::array();
    const auto s = speedups(systems, which);
    for (const auto& [value, system] : s) v.push_back({{"system", system}, {"log2_ratio", value}});
    j["log2_time_ratio"][name] = {{"values", v}, {"median", median_of(s)}};
  }
  return j;
}

std::string sparse_markdown(const nlohmann::json& meta, const std::vector<SystemRecord>& systems,
                            const std::vector<SkippedSystem>& skipped, double success_threshold, std::string& summary) {
  auto m = [&](const char* key) { return meta[key].is_string() ? meta[key].get<std::string>() : meta[key].dump(); };
  std::string md = fmt::format(
      "## balsa bench sparse\n\n"
      "- date (UTC): {}; host: {}, {} cores, OpenMP threads {}, OpenBLAS threads {}; GPU: {}; balsa's device: {}\n"
      "- command: `{}`\n"
      "- the SaP report's sec. 4.3: x* on a parabola (1 at both ends, 400 in the middle), b = A x*, x0 = 0; a solver "
      "succeeds when ||x - x*||_2 / ||x*||_2 <= {:g}.\n"
      "- **balsa**: balsa::solve, method auto, its own iterative methods only (direct_fallback off), residual "
      "tolerance {:g}, at most {} iterations per method; **balsa+fallback**: the same with UMFPACK ending the chain "
      "(not rerun where the first run's chain had already stopped: the same run). **UMFPACK**: {}. **SuperLU**: {}; "
      "both on a CSC copy of A (untimed), default settings.\n"
      "- times: wall clock, seconds, set-up + solve (balsa: the whole solve() call; direct: factorisation + solve), "
      "median of up to {} runs within {} s. The direct solvers run in a child process stopped after {} s, and are "
      "skipped above {} rows (\"skipped (size)\").\n\n",
      m("date"), m("host_cpu"), m("host_cores"), m("omp_threads"), m("openblas_threads"), m("gpu"), m("balsa_device"),
      m("command_line"), success_threshold, meta["tolerance"].get<double>(), m("max_iterations"), m("umfpack"),
      m("superlu"), m("repeat"), m("budget_s"), m("timeout_s"), m("direct_max_n"));

  md += fmt::format("### Success ({} systems)\n\n| solver | solved | failed | skipped |\n|---|---|---|---|\n",
                    systems.size());
  const std::pair<const char*, SolverRun SystemRecord::*> solvers[] = {{"balsa", &SystemRecord::balsa},
                                                                      {"balsa+fallback", &SystemRecord::balsa_fallback},
                                                                      {"UMFPACK", &SystemRecord::umfpack},
                                                                      {"SuperLU", &SystemRecord::superlu}};
  for (const auto& [name, which] : solvers) {
    const Counts c = count(systems, which);
    md += fmt::format("| {} | {} | {} | {} |\n", name, c.success, c.failed, c.skipped);
  }
  const auto [both, umf] = target(systems);
  md += fmt::format("\n**balsa's own iterative methods solve {} of the {} systems UMFPACK solves ({}; target >= 90%: "
                    "{}).**\n",
                    both, umf, pct(both, umf), umf == 0 ? "no data" : both >= 0.9 * umf ? "met" : "not met");
  // Does the fallback answer every nonsingular system (one a direct baseline solved)?
  int nonsingular = 0, answered = 0;
  std::string missed;
  for (const SystemRecord& s : systems)
    if (s.umfpack.success || s.superlu.success) {
      ++nonsingular;
      if (s.balsa_fallback.success) ++answered;
      else
        missed += (missed.empty() ? "" : ", ") + s.name + " (" +
                  (s.balsa_fallback.ran ? "error " + num(s.balsa_fallback.error, "{:.1e}") : s.balsa_fallback.status) + ")";
    }
  md += fmt::format("balsa+fallback solves {} of the {} systems UMFPACK or SuperLU solves{}.\n\n", answered,
                    nonsingular, missed.empty() ? "" : "; not: " + cell(missed));

  // The report's Fig. 12: log2(T_baseline / T_balsa), integer bins.
  const auto su = speedups(systems, &SystemRecord::umfpack), ss = speedups(systems, &SystemRecord::superlu);
  md += "### Time ratios (the report's Fig. 12): S = log2(T_baseline / T_balsa), systems both solved\n\n"
        "S > 0: balsa (its iterative methods) was faster. Integer bins [k, k+1).\n\n"
        "| S bin | vs UMFPACK | vs SuperLU |\n|---|---|---|\n";
  std::map<int, std::pair<int, int>> bins;
  for (const auto& v : su) ++bins[int(std::floor(v.first))].first;
  for (const auto& v : ss) ++bins[int(std::floor(v.first))].second;
  for (const auto& [k, c] : bins) md += fmt::format("| [{}, {}) | {} | {} |\n", k, k + 1, c.first, c.second);
  auto faster = [](const std::vector<std::pair<double, std::string>>& v) {
    return std::count_if(v.begin(), v.end(), [](const auto& p) { return p.first > 0; });
  };
  md += fmt::format("| systems | {} | {} |\n| balsa faster | {} | {} |\n| median S | {} | {} |\n\n", su.size(),
                    ss.size(), faster(su), faster(ss), num(median_of(su), "{:.3f}"), num(median_of(ss), "{:.3f}"));

  // The generated systems of a million rows and more.
  std::string large;
  for (const SystemRecord& s : systems)
    if (s.group == "generated" && s.n >= 1000000) {
      std::string ratio = "-";
      if (s.balsa.success && s.umfpack.success)
        ratio = fmt::format("{:.2f}", s.umfpack.seconds / s.balsa.seconds);
      else if (s.balsa.success && s.umfpack.status.starts_with("timed out"))  // a bound, not a measured ratio
        ratio = fmt::format("> {:.1f} (UMFPACK stopped)", meta["timeout_s"].get<double>() / s.balsa.seconds);
      large += fmt::format("| {} | {} | {} | {} | {} | {} |\n", s.name, s.n, outcome(s.balsa), num(s.balsa.seconds),
                           s.umfpack.ran ? outcome(s.umfpack) + ", " + num(s.umfpack.seconds) + " s" : cell(s.umfpack.status),
                           ratio);
    }
  if (!large.empty())
    md += "### Generated systems with >= 1e6 rows\n\n| system | n | balsa solved | balsa s | UMFPACK | T_UMFPACK / "
          "T_balsa |\n|---|---|---|---|---|---|\n" + large + "\n";
  summary = md;

  md += "### Per system\n\nerror = ||x - x*||_2 / ||x*||_2, residual = ||b - A x||_2 / ||b||_2, s = seconds.\n\n"
        "| system | n | nnz | kind | SPD | balsa | error / residual | s | method | balsa+fallback | error | s | method | "
        "UMFPACK | error / residual | s | SuperLU | error / residual | s | balsa's chain |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto errors = [](const SolverRun& r) {
    return r.ran ? num(r.error, "{:.1e}") + " / " + num(r.residual, "{:.1e}") : std::string("-");
  };
  for (const SystemRecord& s : systems) {
    const SolverRun& f = s.balsa_fallback;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                      s.name, s.n, s.nnz, cell(s.kind), s.spd, outcome(s.balsa), errors(s.balsa), num(s.balsa.seconds),
                      s.balsa.method, f.rerun ? outcome(f) : "= balsa", f.rerun ? num(f.error, "{:.1e}") : "",
                      f.rerun ? num(f.seconds) : "", f.rerun ? f.method + (f.direct ? " (direct)" : "") : "",
                      outcome(s.umfpack), errors(s.umfpack), num(s.umfpack.seconds), outcome(s.superlu),
                      errors(s.superlu), num(s.superlu.seconds), cell(s.balsa.chain));
  }
  if (!skipped.empty()) {
    md += "\nNot benchmarked: ";
    for (std::size_t i = 0; i < skipped.size(); ++i)
      md += fmt::format("{}{} ({})", i ? "; " : "", skipped[i].name, cell(skipped[i].reason));
    md += ".\n";
    summary += fmt::format("{} systems not benchmarked (rectangular, too large or unreadable: see the report).\n",
                           skipped.size());
  }
  return md;
}

}  // namespace balsa::bench
