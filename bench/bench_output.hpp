// balsa-bench: the run's metadata and writing the results (JSON, Markdown, stdout).
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

// Creates the CUDA context (before any timing) and sets meta's gpu, driver
// and runtime from the device.
void add_cuda_device(nlohmann::json& meta);

// "13.0" from 13000 (CUDA's version encoding).
std::string cuda_version_string(int v);
// The UTC time now as 2026-11-22T10:01:02Z.
std::string utc_now_iso();
// Writes `text` to `path` ("-": standard output), a file whole or not at all
// (balsa/atomic_file.hpp); an Error naming the path when it cannot be written.
void write_file(const std::string& path, const std::string& text);
// The end of a benchmark run: the JSON and the Markdown to their paths (each
// when given; "-": standard output) and the Markdown summary to standard
// output, unless one of them went there (then to standard error).
void write_results(const std::string& json_path, const nlohmann::json& json, const std::string& markdown_path,
                   const std::string& markdown, const std::string& summary);

}  // namespace balsa::bench
