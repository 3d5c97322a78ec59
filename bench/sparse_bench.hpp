// balsa bench sparse (include/balsa/bench.hpp): the systems
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

#include "balsa/bench.hpp"
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
  bool rerun = true;  // the fallback run: false when the chain stopped before the fallback (copied)
};

struct SystemRecord {
  std::string name, group, source;  // group: real | generated
  std::string kind = "-", spd = "?";
  index_t n = 0;
  std::int64_t nnz = 0;
  SolverRun balsa, balsa_fallback, umfpack, superlu;
};

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
// the >= 90% target, the Fig. 12 distributions, the >= 1e6-row systems) and
// the per-system table. `summary` gets the header and summary alone.
std::string sparse_markdown(const nlohmann::json& meta, const std::vector<SystemRecord>& systems,
                            const std::vector<SkippedSystem>& skipped, double success_threshold, std::string& summary);
// The summary's numbers as JSON (counts, target, log2 time ratios).
nlohmann::json sparse_summary_json(const std::vector<SystemRecord>& systems);

}  // namespace balsa::bench
