// balsa-bench setup: the triangular solver's analysis, host against device
// (issue 40, item 1 and its target "the triangular solver's analysis of a
// 1e6-row factor <= 10 ms"). For the IC(0) factor L of the 3D Laplacians
// 100^3 and 160^3 and the default trsv suite (lower triangles), each the
// median of --repeat runs (fewer when one measurement passes --max-seconds):
//   host levels       balsa::level_sets (graph/levels.cpp)
//   device levels     levels_gpu::device_level_sets on the pattern already on
//                     the device (graph/levels_device.hpp): where it ran and why
//   device levels, host pattern  device_or_host_level_sets: the pattern up,
//                     the rows down (what the solvers' front ends pay)
//   set-up            the whole TriangularSolver<double> constructor per
//                     algorithm on the GPU, the level sets on the host
//                     (DeviceLevelsRule::force_host) and by the rule
//   cuSPARSE          make_cusparse: its uploads, buffer and SpSV analysis
// One run; JSON and Markdown (bench/bench_output.hpp's write_results).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "balsa/config.hpp"
#include "balsa/cuda.hpp"
#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "bench_math.hpp"
#include "bench_output.hpp"
#include "core/clock.hpp"
#include "graph/levels_device.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv_bench.hpp"

namespace balsa::bench {

namespace {

struct SetupBenchOptions {
  std::string suite = "default";  // default | quick | none (the two IC(0) factors always run)
  std::vector<std::string> only;
  std::vector<std::string> algorithms = {"level-set", "sync-free-blocks"};
  int repeat = 5;
  double max_seconds = 20.0;  // per measurement: stop repeating past this
  std::string data_dir = "tests/data";
  std::string json_path, markdown_path;
};

struct Timing {
  double median = 0.0;
  int runs = 0;
};

// The median of up to o.repeat runs of f (seconds), fewer once max_seconds have passed.
Timing timed(const SetupBenchOptions& o, const std::function<void()>& f) {
  std::vector<double> t;
  const auto start = Clock::now();
  while (int(t.size()) < o.repeat && (t.empty() || seconds_since(start) < o.max_seconds)) {
    const auto t0 = Clock::now();
    f();
    t.push_back(seconds_since(t0));
  }
  return {median(t), int(t.size())};
}

nlohmann::json ms(const Timing& t) { return {{"ms", t.median * 1e3}, {"runs", t.runs}}; }

// The IC(0) factors (L: the lower triangle's pattern with IC(0)'s values) and the default suite.
std::vector<BenchCase> cases_of(const SetupBenchOptions& o, std::vector<std::string>& warnings) {
  TrsvBenchOptions chains;
  chains.suite = "chains";
  chains.data_dir = "";
  std::vector<BenchCase> out;
  std::vector<std::string> unused;  // the chains suite's real matrices are not taken
  for (BenchCase& c : make_suite(chains, unused))
    if (c.name.starts_with("lap3d-7pt-") && c.name.ends_with("-ic0-L")) out.push_back(std::move(c));
  if (o.suite != "none") {
    TrsvBenchOptions suite;
    suite.suite = o.suite;
    suite.data_dir = o.data_dir;
    for (BenchCase& c : make_suite(suite, warnings)) out.push_back(std::move(c));
  }
  if (o.only.empty()) return out;
  std::vector<BenchCase> kept;
  for (BenchCase& c : out)
    if (std::any_of(o.only.begin(), o.only.end(),
                    [&](const std::string& s) { return c.name.find(s) != std::string::npos; }))
      kept.push_back(std::move(c));
  return kept;
}

// The level-set analyses of L: host, device (pattern on the device), device from the host pattern.
void time_level_sets(const SetupBenchOptions& o, const Csr<double>& L, nlohmann::json& row) {
  row["host_levels"] = ms(timed(o, [&] { (void)level_sets(L, Triangle::Lower); }));
  const cuda::DeviceBuffer<index_t> rp{std::span<const index_t>(L.row_ptr)}, ci{std::span<const index_t>(L.col_idx)};
  levels_gpu::DeviceLevels d;
  row["device_levels"] =
      ms(timed(o, [&] { levels_gpu::device_level_sets(L.rows, rp.data(), ci.data(), Triangle::Lower, d); }));
  row["device_levels_ran_on_device"] = d.on_device;
  row["device_levels_reason"] = d.reason;
  row["chain_bound"] = d.chain_bound;
  levels_gpu::PlacedLevels p;
  row["placed_levels"] = ms(timed(
      o, [&] { p = levels_gpu::device_or_host_level_sets(L.rows, L.row_ptr, L.col_idx, Triangle::Lower, true); }));
  row["placed_levels_where"] = to_string(p.where);
  row["levels"] = p.sets.count();
}

// The whole set-up per algorithm, the level sets on the host and by the rule; cuSPARSE's.
void time_set_ups(const SetupBenchOptions& o, const Csr<double>& L, nlohmann::json& row) {
  for (const std::string& name : o.algorithms) {
    const TrsvOptions to{.algorithm = from_string<TrsvAlgorithm>(name), .device = Device::Cuda, .auto_trial = false};
    TrsvStats st;
    {
      const levels_gpu::ScopedRule host({.force_host = true});
      row["setup_host_levels"][name] = ms(timed(o, [&] { st = TriangularSolver<double>(L, to).stats(); }));
    }
    row["setup_host_levels"][name]["level_sets_ms"] = st.level_sets_seconds * 1e3;
    row["setup_rule"][name] = ms(timed(o, [&] { st = TriangularSolver<double>(L, to).stats(); }));
    row["setup_rule"][name]["level_sets_ms"] = st.level_sets_seconds * 1e3;
    row["setup_rule"][name]["level_sets_device"] = to_string(st.level_sets_device);
  }
  row["cusparse_analysis"] = ms(timed(o, [&] {
    auto s = trsv_gpu::make_cusparse(L, Triangle::Lower, DiagonalKind::NonUnit);
    cuda::detail::synchronize();
  }));
}

std::string cell(const nlohmann::json& t) { return t.is_object() ? fmt::format("{:.2f}", t["ms"].get<double>()) : "-"; }

std::string markdown_of(const SetupBenchOptions& o, const nlohmann::json& rows) {
  std::string md =
      "| case | rows | nnz | levels | host levels ms | device levels ms | where (chain bound) | "
      "device from host pattern ms |";
  for (const std::string& a : o.algorithms) md += fmt::format(" {} set-up ms, host / rule levels |", a);
  md += " cuSPARSE analysis ms |\n|---|---|---|---|---|---|---|---|";
  for (std::size_t k = 0; k <= o.algorithms.size(); ++k) md += "---|";
  md += "\n";
  for (const nlohmann::json& r : rows) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} ({}) | {} |", r["case"].get<std::string>(),
                      r["rows"].get<index_t>(), r["nnz"].get<index_t>(), r["levels"].get<index_t>(),
                      cell(r["host_levels"]), cell(r["device_levels"]),
                      r["device_levels_ran_on_device"].get<bool>() ? "device" : "host", r["chain_bound"].get<index_t>(),
                      cell(r["placed_levels"]));
    for (const std::string& a : o.algorithms)
      md += fmt::format(" {} / {} |", cell(r["setup_host_levels"][a]), cell(r["setup_rule"][a]));
    md += fmt::format(" {} |\n", cell(r["cusparse_analysis"]));
  }
  return md;
}

void run_setup_bench(const SetupBenchOptions& o, const std::string& command_line) {
  if (!cuda::available()) throw CudaError("balsa-bench setup: no CUDA GPU (the device analysis is what it measures)");
  nlohmann::json meta = {{"date", utc_now_iso()},
                         {"balsa_version", BALSA_VERSION},
                         {"command_line", command_line},
                         {"repeat", o.repeat},
                         {"max_seconds", o.max_seconds}};
  add_cuda_device(meta);
  std::vector<std::string> warnings;
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchCase& c : cases_of(o, warnings)) {
    std::fprintf(stderr, "setup: %s\n", c.name.c_str());
    try {
      std::string note;
      index_t fixed = 0;
      const Csr<double> L = c.build(note, fixed);
      nlohmann::json row = {{"case", c.name}, {"rows", L.rows}, {"nnz", L.nnz()}};
      time_level_sets(o, L, row);
      time_set_ups(o, L, row);
      rows.push_back(std::move(row));
    } catch (const Error& e) {
      warnings.push_back(c.name + ": " + e.what());
    }
  }
  meta["warnings"] = warnings;
  const std::string md = markdown_of(o, rows);
  write_results(o.json_path, {{"meta", meta}, {"rows", rows}}, o.markdown_path,
                "# balsa-bench setup\n\n" +
                    fmt::format("{}, {}\n\n", meta.value("gpu", "GPU"), meta["date"].get<std::string>()) + md,
                md);
}

}  // namespace

}  // namespace balsa::bench

namespace balsa::app {

// balsa-bench setup and its options (registered in bench/bench_cli.cpp).
void add_setup_bench(CLI::App& app) {
  auto o = std::make_shared<bench::SetupBenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "setup", "Triangular-solver analysis, host vs device: level sets, the set-up per algorithm, cuSPARSE's analysis");
  cmd->add_option("--suite", o->suite, "The trsv suite after the two IC(0) factors: default, quick or none")
      ->check(CLI::IsMember({"default", "quick", "none"}))
      ->capture_default_str();
  cmd->add_option("--only", o->only, "Run only the cases whose name contains one of these")->delimiter(',')->option_text(" NAME,...");
  cmd->add_option("--algorithms", o->algorithms, "Algorithms of the set-up timings (GPU)")
      ->delimiter(',')
      ->check(CLI::IsMember({"level-set", "sync-free", "sync-free-blocks", "tassl", "spike", "auto"}))
      ->option_text(" NAME,...");
  cmd->add_option("--repeat", o->repeat, "Runs per measurement (the median is reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--max-seconds", o->max_seconds, "Stop repeating a measurement past this many seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--data-dir", o->data_dir, "Folder of the real matrices (skipped if missing)")->capture_default_str();
  cmd->add_option("--json", o->json_path, "Write the results as JSON (to FILE; no FILE or '-': standard output)")
      ->expected(0, 1)
      ->default_str("-")
      ->option_text(" [FILE]");
  cmd->add_option("--markdown", o->markdown_path, "Write the Markdown table here ('-': standard output)")
      ->option_text(" FILE");
  cmd->callback([o] { bench::run_setup_bench(*o, bench::process_command_line()); });
}

}  // namespace balsa::app
