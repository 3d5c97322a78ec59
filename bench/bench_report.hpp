// balsa-bench: the result rows of `balsa-bench trsv` and their JSON and
// Markdown forms. Pure functions of the rows (no GPU, no timing), header-only
// so that tests/bench/bench_trsv_test.cpp checks them without linking anything new.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bench_math.hpp"

namespace balsa::bench {

inline constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

// Algorithm names of the baselines (rows of every case x precision).
inline constexpr const char* cpu_serial_name = "reference";  // CPU serial substitution
inline constexpr const char* cusparse_name = "cusparse";     // cuSPARSE SpSV
inline constexpr const char* spmv_name = "cusparse-spmv";    // one cuSPARSE SpMV of L
inline constexpr const char* auto_name = "auto";

// One measurement: case x precision x algorithm.
struct BenchRow {
  std::string case_name, source, precision, algorithm, device;
  std::string chosen;  // the algorithm Auto chose (empty otherwise)
  std::string analysis;  // what the algorithm's analysis found (TASSL: sub-graphs, levels, rounds, phases)
  nlohmann::json stats;  // balsa's solvers: their TrsvStats after set-up (apps/fields_json.hpp); null otherwise
  std::int64_t n = 0, nnz = 0, levels = 0, widest_level = 0;
  std::int64_t diag_fixed = 0;  // rows given a diagonal (files only)
  std::string note;             // what was done to the input (block, diagonal)
  std::string status = "ok";    // "ok", "FAILED" (wrong result) or "error" (threw)
  std::string error;
  double analysis_ms = nan_value;   // stats().analysis_seconds
  double construct_ms = nan_value;  // constructor wall time (GPU: until the device is idle)
  std::vector<double> samples_ms;   // timed solves, in order
  int warmup = 0;
  double bytes = 0.0, floor_ms = nan_value;
  double backward_error = nan_value, tolerance = nan_value;
  double rel_diff_reference = nan_value, rel_error_true = nan_value;
  // Filled by fill_ratios from the baseline rows of the same case x precision.
  double speedup_vs_cusparse = nan_value, ratio_vs_spmv = nan_value, speedup_vs_cpu_serial = nan_value;

  bool ok() const { return status == "ok"; }
  bool gpu() const { return device == "cuda"; }
  double solve_ms() const { return ok() ? median(samples_ms) : nan_value; }
  std::string key() const { return case_name + '\n' + precision; }
};

struct Skipped {
  std::string case_name, precision, reason;
};

// Median solve time of `algorithm` in the rows of `key`, NaN if not ok or absent.
inline double solve_ms_of(const std::vector<BenchRow>& rows, const std::string& key, const std::string& algorithm) {
  for (const BenchRow& r : rows)
    if (r.key() == key && r.algorithm == algorithm) return r.solve_ms();
  return nan_value;
}

// speedup_vs_cusparse = t(cuSPARSE SpSV) / t; ratio_vs_spmv = t / t(SpMV);
// speedup_vs_cpu_serial = t(CPU serial) / t.
inline void fill_ratios(std::vector<BenchRow>& rows) {
  for (BenchRow& r : rows) {
    const double t = r.solve_ms();
    r.speedup_vs_cusparse = solve_ms_of(rows, r.key(), cusparse_name) / t;
    r.ratio_vs_spmv = t / solve_ms_of(rows, r.key(), spmv_name);
    r.speedup_vs_cpu_serial = solve_ms_of(rows, r.key(), cpu_serial_name) / t;
  }
}

inline nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

// Milliseconds (as measured) to seconds (as the JSON writes times).
inline std::vector<double> seconds_of(const std::vector<double>& ms) {
  std::vector<double> s;
  s.reserve(ms.size());
  for (double x : ms) s.push_back(x * 1e-3);
  return s;
}

// Times in seconds (`*_seconds`), as balsa's own JSON writes them.
inline nlohmann::json row_json(const BenchRow& r) {
  const double t = r.solve_ms();
  nlohmann::json j = {{"case", r.case_name},
                      {"source", r.source},
                      {"precision", r.precision},
                      {"algorithm", r.algorithm},
                      {"device", r.device},
                      {"status", r.status},
                      {"n", r.n},
                      {"nnz", r.nnz},
                      {"levels", r.levels},
                      {"widest_level", r.widest_level},
                      {"diag_fixed", r.diag_fixed},
                      {"note", r.note},
                      {"analysis_seconds", number_or_null(r.analysis_ms * 1e-3)},
                      {"construct_seconds", number_or_null(r.construct_ms * 1e-3)},
                      {"solve_seconds", number_or_null(t * 1e-3)},
                      {"solve_seconds_min", number_or_null(r.ok() ? min_of(r.samples_ms) * 1e-3 : nan_value)},
                      {"solve_seconds_max", number_or_null(r.ok() ? max_of(r.samples_ms) * 1e-3 : nan_value)},
                      {"timed_solves", r.samples_ms.size()},
                      {"warmup_solves", r.warmup},
                      {"samples_seconds", seconds_of(r.samples_ms)},
                      {"gflops", number_or_null(gflops(r.nnz, t * 1e-3))},
                      {"bytes", r.bytes},
                      {"gbs", number_or_null(gbytes_per_second(r.bytes, t * 1e-3))},
                      {"model_floor_seconds", number_or_null(r.floor_ms * 1e-3)},
                      {"speedup_vs_cusparse", number_or_null(r.speedup_vs_cusparse)},
                      {"ratio_vs_spmv", number_or_null(r.ratio_vs_spmv)},
                      {"speedup_vs_cpu_serial", number_or_null(r.speedup_vs_cpu_serial)},
                      {"backward_error", number_or_null(r.backward_error)},
                      {"tolerance", number_or_null(r.tolerance)},
                      {"rel_diff_vs_reference", number_or_null(r.rel_diff_reference)},
                      {"rel_error_vs_true", number_or_null(r.rel_error_true)}};
  if (!r.chosen.empty()) j["chosen"] = r.chosen;
  if (!r.analysis.empty()) j["analysis"] = r.analysis;
  if (!r.stats.is_null()) j["stats"] = r.stats;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

inline nlohmann::json results_json(const nlohmann::json& meta, const std::vector<BenchRow>& rows,
                                   const std::vector<Skipped>& skipped) {
  nlohmann::json j = {{"meta", meta}, {"results", nlohmann::json::array()}, {"skipped", nlohmann::json::array()}};
  for (const BenchRow& r : rows) j["results"].push_back(row_json(r));
  for (const Skipped& s : skipped)
    j["skipped"].push_back({{"case", s.case_name}, {"precision", s.precision}, {"reason", s.reason}});
  return j;
}

// ---- Markdown -----------------------------------------------------------------------

// Keys (case x precision) and algorithm names in order of first appearance.
inline std::vector<std::string> ordered_keys(const std::vector<BenchRow>& rows) {
  std::vector<std::string> keys;
  for (const BenchRow& r : rows)
    if (std::find(keys.begin(), keys.end(), r.key()) == keys.end()) keys.push_back(r.key());
  return keys;
}
inline std::vector<std::string> ordered_algorithms(const std::vector<BenchRow>& rows) {
  std::vector<std::string> names;
  for (const BenchRow& r : rows)
    if (r.algorithm != spmv_name && std::find(names.begin(), names.end(), r.algorithm) == names.end())
      names.push_back(r.algorithm);
  return names;
}

// The fastest correct balsa algorithm of a key: among the GPU ones when any
// ran on the GPU (cuSPARSE and Auto excluded: a baseline and a duplicate),
// else among the CPU ones other than the serial reference. nullptr if none.
inline const BenchRow* best_row(const std::vector<BenchRow>& rows, const std::string& key) {
  bool any_gpu = false;
  for (const BenchRow& r : rows) any_gpu = any_gpu || (r.key() == key && r.gpu() && r.algorithm != spmv_name);
  const BenchRow* best = nullptr;
  for (const BenchRow& r : rows) {
    if (r.key() != key || !r.ok() || r.gpu() != any_gpu) continue;
    if (r.algorithm == cusparse_name || r.algorithm == spmv_name || r.algorithm == auto_name ||
        r.algorithm == cpu_serial_name || !r.chosen.empty())  // chosen: a fallback's duplicate
      continue;
    if (!best || r.solve_ms() < best->solve_ms()) best = &r;
  }
  return best;
}

// How Auto did: within 5% of the fastest balsa algorithm, and at least 0.95x
// of cuSPARSE SpSV, on how many cases; the worst of each, named.
inline std::string auto_summary(const std::vector<std::pair<std::string, double>>& vs_best,
                                const std::vector<std::pair<std::string, double>>& vs_cusparse) {
  if (vs_best.empty() && vs_cusparse.empty()) return {};
  auto worst = [](const std::vector<std::pair<std::string, double>>& v, bool highest) {
    const auto it = std::max_element(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return highest ? a.second < b.second : a.second > b.second;
    });
    return it == v.end() ? std::string("-") : it->first + " " + format_ratio(it->second);
  };
  const auto within = std::count_if(vs_best.begin(), vs_best.end(), [](const auto& p) { return p.second <= 1.05; });
  const auto not_below =
      std::count_if(vs_cusparse.begin(), vs_cusparse.end(), [](const auto& p) { return p.second >= 0.95; });
  std::vector<double> speedups;
  for (const auto& p : vs_cusparse) speedups.push_back(p.second);
  std::string s = "\n**Auto**: within 5% of the fastest balsa algorithm (auto / best <= 1.05) on " +
                  std::to_string(within) + " of " + std::to_string(vs_best.size()) + " cases (worst: " +
                  worst(vs_best, true) + "); at least 0.95x of cuSPARSE SpSV on " + std::to_string(not_below) +
                  " of " + std::to_string(vs_cusparse.size()) + " (worst: " + worst(vs_cusparse, false) +
                  "); geomean speedup over cuSPARSE " + format_ratio(geomean(speedups)) + ".\n";
  return s;
}

struct MarkdownText {
  std::string summary;  // the headline table, the geomeans and the notes
  std::string details;  // one line per measurement
};

inline std::string md_row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const std::string& c : cells) s += " " + c + " |";
  return s + "\n";
}

inline std::string meta_text(const nlohmann::json& meta, const char* k) {
  return meta.contains(k) ? (meta[k].is_string() ? meta[k].get<std::string>() : meta[k].dump()) : std::string("-");
}

// The run (date, version, GPU, host, command, warnings) and how times were taken.
inline std::string markdown_header(const nlohmann::json& meta) {
  auto text = [&](const char* k) { return meta_text(meta, k); };
  std::string s = "## balsa-bench trsv\n\n";
  s += "- date (UTC): " + text("date") + "; balsa " + text("balsa_version") +
       "; CUDA built: " + text("cuda_built") + "\n";
  s += "- GPU: " + text("gpu") + "; driver " + text("driver_version") + ", runtime " +
       text("runtime_version") + "\n";
  s += "- host: " + text("host_cpu") + ", " + text("host_cores") + " hardware threads\n";
  s += "- command: `" + text("command_line") + "`\n";
  if (meta.contains("warnings"))
    for (const auto& w : meta["warnings"]) s += "- note: " + w.get<std::string>() + "\n";
  s += "\n";
  s += "Solve times in ms: median of the timed solves after warm-up (GPU: CUDA events around each solve, 4 "
       "right-hand sides on the device used in rotation; CPU: wall clock). L = lower triangle, non-unit "
       "diagonal.\n\n";
  if (meta.contains("rhs") && meta["rhs"].is_number() && meta["rhs"].get<long long>() > 1)
    s += "**Each solve is a block of " + text("rhs") +
         " right-hand sides in one call** (GPU: cuSPARSE SpSM for the cuSPARSE column; CPU: the columns solved in "
         "parallel over the host's cores, so *CPU serial* is the reference substitution on every core).\n\n";
  return s;
}

// What the summary table gathers while it is written: the speedups for the
// geomean rows and Auto's line, and the error footnotes.
struct SummaryTally {
  std::vector<std::string> footnotes;
  std::map<std::string, std::vector<double>> vs_cusparse, vs_cpu;  // per algorithm
  std::vector<double> best_vs_cusparse, best_vs_cpu;
  // Auto against the fastest balsa algorithm and against cuSPARSE, per key.
  std::vector<std::pair<std::string, double>> auto_vs_best, auto_vs_cusparse;
};

// One algorithm's cell of a key's row: its time (or FAILED, or an error with a footnote).
inline std::string summary_cell(const std::vector<BenchRow>& rows, const std::string& key, const std::string& alg,
                                SummaryTally& tally) {
  for (const BenchRow& r : rows) {
    if (r.key() != key || r.algorithm != alg) continue;
    if (r.status == "FAILED") return "**FAILED**";
    if (r.status == "error") {
      tally.footnotes.push_back(r.case_name + " " + r.precision + " " + r.algorithm + ": " + r.error);
      std::string cell = "error [";
      cell += std::to_string(tally.footnotes.size());
      cell += ']';
      return cell;
    }
    tally.vs_cusparse[alg].push_back(r.speedup_vs_cusparse);
    tally.vs_cpu[alg].push_back(r.speedup_vs_cpu_serial);
    return format_number(r.solve_ms()) + (r.chosen.empty() ? "" : " (" + r.chosen + ")");
  }
  return "-";
}

// One key's (case x precision) row of the summary table.
inline std::string summary_row(const std::vector<BenchRow>& rows, const std::string& key,
                               const std::vector<std::string>& algs, bool have_spmv, SummaryTally& tally) {
  const BenchRow* first = nullptr;
  for (const BenchRow& r : rows)
    if (r.key() == key && !first) first = &r;
  std::vector<std::string> cells = {first->case_name,
                                    first->precision,
                                    format_count(first->n),
                                    format_count(first->nnz),
                                    format_count(first->levels),
                                    format_count(first->widest_level),
                                    format_count(first->diag_fixed),
                                    format_number(first->floor_ms)};
  for (const std::string& a : algs) cells.push_back(summary_cell(rows, key, a, tally));
  if (have_spmv) cells.push_back(summary_cell(rows, key, spmv_name, tally));
  const BenchRow* best = best_row(rows, key);
  if (best) {
    tally.best_vs_cusparse.push_back(best->speedup_vs_cusparse);
    tally.best_vs_cpu.push_back(best->speedup_vs_cpu_serial);
  }
  cells.push_back(best ? best->algorithm : "-");
  cells.push_back(best ? format_ratio(best->speedup_vs_cusparse) : "-");
  cells.push_back(best ? format_ratio(best->ratio_vs_spmv) : "-");
  cells.push_back(best ? format_ratio(best->speedup_vs_cpu_serial) : "-");
  const double t_auto = solve_ms_of(rows, key, auto_name);
  cells.push_back(best && std::isfinite(t_auto) ? format_ratio(t_auto / best->solve_ms()) : "-");
  if (best && std::isfinite(t_auto)) tally.auto_vs_best.push_back({key, t_auto / best->solve_ms()});
  const double t_cusparse = solve_ms_of(rows, key, cusparse_name);
  if (std::isfinite(t_auto) && std::isfinite(t_cusparse)) tally.auto_vs_cusparse.push_back({key, t_cusparse / t_auto});
  return md_row(cells);
}

// The headline table: one row per key, the two geomean rows and Auto's line.
inline std::string summary_table(const std::vector<BenchRow>& rows, SummaryTally& tally) {
  const std::vector<std::string> algs = ordered_algorithms(rows);
  bool have_spmv = false;
  for (const BenchRow& r : rows) have_spmv = have_spmv || r.algorithm == spmv_name;
  std::vector<std::string> head = {"case", "prec", "n", "nnz", "levels", "widest", "diag fixed", "floor ms (model)"};
  for (const std::string& a : algs) head.push_back(a + " ms");
  if (have_spmv) head.push_back("SpMV ms");
  for (const char* h : {"best", "best vs cuSPARSE", "best / SpMV", "CPU serial / best", "auto / best"})
    head.push_back(h);
  std::string s = md_row(head);
  s += md_row(std::vector<std::string>(head.size(), "---"));
  for (const std::string& key : ordered_keys(rows)) s += summary_row(rows, key, algs, have_spmv, tally);
  auto geomean_row = [&](const std::string& label, std::map<std::string, std::vector<double>>& per_alg,
                         const std::vector<double>& best) {
    std::vector<std::string> cells = {"**" + label + "**", "", "", "", "", "", "", ""};
    for (const std::string& a : algs) cells.push_back(format_ratio(geomean(per_alg[a])));
    if (have_spmv) cells.push_back("");
    cells.push_back("");
    cells.push_back(label.find("cuSPARSE") != std::string::npos ? format_ratio(geomean(best)) : "");
    cells.push_back("");
    cells.push_back(label.find("cuSPARSE") == std::string::npos ? format_ratio(geomean(best)) : "");
    cells.push_back("");
    s += md_row(cells);
  };
  geomean_row("geomean speedup over cuSPARSE SpSV", tally.vs_cusparse, tally.best_vs_cusparse);
  geomean_row("geomean speedup over CPU serial", tally.vs_cpu, tally.best_vs_cpu);
  s += auto_summary(tally.auto_vs_best, tally.auto_vs_cusparse);
  return s;
}

// What the columns mean, the floor model, the diagonal fix, the correctness
// check; the error footnotes and the skipped cases.
inline std::string markdown_notes(const nlohmann::json& meta, const std::vector<std::string>& footnotes,
                                  const std::vector<Skipped>& skipped) {
  std::string s =
      "\nColumns: *best* = fastest correct balsa algorithm (GPU ones when the GPU ran; cuSPARSE and auto "
      "excluded); *best vs cuSPARSE* = t(cuSPARSE SpSV) / t(best); *best / SpMV* = t(best) / t(one cuSPARSE "
      "SpMV of L); *CPU serial / best* = t(reference) / t(best); geomeans over the cases where both ran "
      "correctly. GFLOP/s = 2*nnz/t and effective GB/s = bytes/t with `" +
      std::string(trsv_bytes_formula) + "` are in the JSON and the details.\n\n";
  s += "*floor ms (model)* = max(bytes / peak bandwidth, levels x per-level latency) with peak " +
       meta_text(meta, "peak_gbs") + " GB/s and " + meta_text(meta, "level_latency_us") +
       " us per level: a model of the least time any solve needs, not a measurement.\n\n";
  s += "*diag fixed*: rows of a file's lower triangle whose diagonal was missing or zero; they were given "
       "(sum of |off-diagonal entries| of the row) + 1. Where substitution with the file's own diagonal "
       "overflows (|x| > 1e30), every row was given that diagonal (diag fixed = n). Rectangular files: the "
       "leading square block. Details in the JSON's \"note\".\n\n";
  s += "Correctness: every algorithm's x is checked (once poisoned with NaN before a solve, and the output of "
       "the last timed solve) by the componentwise backward error max_i |b - Lx|_i / (|b| + |L||x|)_i against "
       "max(1000, 16 * longest row) * eps; **FAILED** marks a wrong result. The relative difference to the CPU "
       "reference is in the JSON.\n";
  if (!footnotes.empty()) {
    s += "\nErrors:\n\n";
    for (std::size_t i = 0; i < footnotes.size(); ++i) {
      s += '[';
      s += std::to_string(i + 1);
      s += "] ";
      s += footnotes[i];
      s += '\n';
    }
  }
  if (!skipped.empty()) {
    s += "\nSkipped:\n\n";
    for (const Skipped& k : skipped) s += "- " + k.case_name + " " + k.precision + ": " + k.reason + "\n";
  }
  return s;
}

// One line per measurement.
inline std::string markdown_details(const std::vector<BenchRow>& rows) {
  std::string d = "### Details\n\n";
  d += md_row({"case", "prec", "algorithm", "device", "status", "analysis ms", "construct ms", "solve ms", "min ms",
               "GFLOP/s", "GB/s", "floor / solve", "backward error", "rel. diff vs reference"});
  d += md_row(std::vector<std::string>(14, "---"));
  for (const BenchRow& r : rows) {
    const double t = r.solve_ms();
    d += md_row({r.case_name, r.precision, r.algorithm + (r.chosen.empty() ? "" : " (" + r.chosen + ")"), r.device,
                 r.status == "ok" ? "ok" : "**" + r.status + "**", format_number(r.analysis_ms),
                 format_number(r.construct_ms), format_number(t),
                 format_number(r.ok() ? min_of(r.samples_ms) : nan_value), format_number(gflops(r.nnz, t * 1e-3)),
                 format_number(gbytes_per_second(r.bytes, t * 1e-3)), format_ratio(r.floor_ms / t),
                 format_sci(r.backward_error), format_sci(r.rel_diff_reference)});
  }
  return d;
}

inline MarkdownText markdown(const nlohmann::json& meta, const std::vector<BenchRow>& rows,
                             const std::vector<Skipped>& skipped) {
  SummaryTally tally;
  MarkdownText md;
  md.summary = markdown_header(meta);
  md.summary += summary_table(rows, tally);
  md.summary += markdown_notes(meta, tally.footnotes, skipped);
  md.details = markdown_details(rows);
  return md;
}

}  // namespace balsa::bench
