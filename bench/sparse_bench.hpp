// balsa-bench sparse (bench/bench.hpp): the systems
// (sparse_suite.cpp), the per-system records the driver (sparse_bench.cpp)
// measures and the report (sparse_bench_report.cpp) turns into JSON and
// Markdown.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "balsa/sparse.hpp"

namespace balsa::bench {

// One solver on one system. Only `ran` runs have an error, a residual and a
// time, and only those count anywhere in the summary.
struct SolverRun {
  std::string status = "-";  // "ok", "not solved", "skipped (size)", "timed out after ...", "error: ..."
  bool ran = false;          // gave an x, measured here
  bool skipped = false;      // not run (size threshold, --no-baselines)
  bool success = false;      // ran and ||x - x*||_2 / ||x*||_2 <= the threshold
  double error = NAN, residual = NAN;  // relative error (2-norm), ||b - A x||_2 / ||b||_2
  double seconds = NAN;                // setup + solve, median of the repeats
  double factor_seconds = NAN, solve_seconds = NAN;  // the direct solvers' phases
  int repeats = 0;
  std::string detail;  // direct solvers: strategy, ordering, memory
  double lu_nnz = NAN;
  // balsa::solve only.
  bool reported_solved = false;  // SolveReport::solved (residual tolerance met)
  std::string method = "-";      // the method that produced x ("-": none did)
  bool direct = false;           // x came from the direct fallback
  int iterations = 0;
  std::string chain;             // "method: outcome; method: outcome"
  nlohmann::json chain_json = nlohmann::json::array();
  std::string message;
  // The default run alone (the time to the answer judged against the direct baselines):
  std::string device = "-";             // where the answering method ran
  double backward_error = NAN;          // SolveReport::backward_error (normwise, inf-norms)
  double componentwise_backward_error = NAN;
  std::string predicted = "-";          // the plan's first prediction: "method on device: s (basis)"
  double predicted_seconds = NAN;
};

struct SystemRecord {
  std::string name, group, source;  // group: real | generated
  std::string kind = "-", spd = "?";
  index_t n = 0;
  std::int64_t nnz = 0;
  bool cholmod_eligible = false;  // symmetric values and a positive diagonal: CHOLMOD runs
  // balsa: its own iterative methods (direct_fallback off); balsa_default:
  // SolveOptions{} with the bench's device and tolerance (Auto, fallback on).
  SolverRun balsa, balsa_default, umfpack, cholmod, superlu;
};

// T_balsa_default / min(T_umfpack, T_cholmod) over the baselines that
// succeeded (NaN when none did or balsa's default run gave no accepted answer).
double time_ratio(const SystemRecord& s);

struct SkippedSystem {
  std::string name, reason;
};

// A system of the suite, read or generated when its turn comes.
struct SparseCandidate {
  std::string name, group, source, kind = "-", spd = "?";
  index_t n = 0;
  std::function<Csr<double>()> build;
};
// The systems the options ask for (sparse_suite.cpp); those left out
// (rectangular, above --max-n, unreadable) go to `skipped`.
std::vector<SparseCandidate> sparse_suite(const SparseBenchOptions& o, std::vector<SkippedSystem>& skipped);

nlohmann::json to_json(const SolverRun& r, bool balsa);  // balsa: its method and chain, else the direct phases
nlohmann::json to_json(const SystemRecord& s);

// The Markdown report: the header from `meta`, the summary (success counts,
// the >= 90% target, the default run's time to the answer against the best
// direct baseline, the Fig. 12 distributions, the >= 1e6-row systems) and
// the per-system tables. `summary` gets the header and summary alone.
std::string sparse_markdown(const nlohmann::json& meta, const std::vector<SystemRecord>& systems,
                            const std::vector<SkippedSystem>& skipped, double success_threshold, std::string& summary);
// The summary's numbers as JSON (counts, target, the default run's time
// ratios and backward errors, log2 time ratios).
nlohmann::json sparse_summary_json(const std::vector<SystemRecord>& systems);

}  // namespace balsa::bench
