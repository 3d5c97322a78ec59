// balsa bench: the run's metadata and writing the results (JSON, Markdown, stdout).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_report.hpp"
#include "trsv_bench.hpp"

namespace balsa::bench {

// {date (UTC, ISO 8601), balsa_version, cuda_built, gpu, driver/runtime
// versions (when a GPU is present), host_cpu, host_cores, command_line, the
// run's settings and the floor model's parameters, warnings}.
nlohmann::json bench_meta(const BenchOptions& o, bool use_gpu, const std::string& command_line,
                          const std::vector<std::string>& warnings);

// Writes --json and --markdown (when given); `final`: also prints the
// Markdown summary to stdout and says where the files went (stderr).
void write_outputs(const BenchOptions& o, const nlohmann::json& meta, const std::vector<BenchRow>& rows,
                   const std::vector<Skipped>& skipped, bool final);

// "13.0" from 13000 (CUDA's version encoding).
std::string cuda_version_string(int v);
// The UTC time now as 2026-11-22T10:01:02Z.
std::string utc_now_iso();
// The command line of this process (/proc/self/cmdline), arguments quoted when needed.
std::string process_command_line();

}  // namespace balsa::bench
