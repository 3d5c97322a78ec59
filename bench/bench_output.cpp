// balsa-bench: metadata and output files (see bench_output.hpp).
#include "bench_output.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>

#include "balsa/atomic_file.hpp"
#include "balsa/config.hpp"
#include "balsa/cuda.hpp"

namespace balsa::bench {

std::string cuda_version_string(int v) { return v <= 0 ? "-" : fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string process_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out, arg;
  auto flush = [&] {
    const bool quote = arg.empty() || arg.find_first_of(" \t\"'$`\\|&;<>()*?") != std::string::npos;
    if (!out.empty()) out += ' ';
    out += quote ? "'" + arg + "'" : arg;
    arg.clear();
  };
  for (char ch : raw) {
    if (ch == '\0')
      flush();
    else
      arg += ch;
  }
  if (!arg.empty()) flush();
  return out;
}

namespace {
std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}
}  // namespace

nlohmann::json bench_meta(const BenchOptions& o, bool use_gpu, const std::string& command_line,
                          const std::vector<std::string>& warnings) {
  nlohmann::json m = {{"date", utc_now_iso()},
                      {"balsa_version", BALSA_VERSION},
                      {"cuda_built", cuda::built_with_cuda()},
                      {"device", use_gpu ? "cuda" : "cpu"},
                      {"host_cpu", host_cpu()},
                      {"host_cores", std::thread::hardware_concurrency()},
                      {"command_line", command_line},
                      {"suite", o.suite},
                      {"precision", o.precision},
                      {"repeat", o.repeat},
                      {"rhs", o.rhs},
                      {"tassl_n_max", o.tassl_n_max},
                      {"cpu_repeat", o.cpu_repeat < 0 ? o.repeat : o.cpu_repeat},
                      {"warmup", o.warmup},
                      {"rhs_rotation", 4},
                      {"timing", "GPU: CUDA events around each solve (default stream); CPU: steady_clock"},
                      {"peak_gbs", o.peak_gbs},
                      {"level_latency_us", o.level_latency_us},
                      {"bytes_formula", trsv_bytes_formula},
                      {"floor_model", "max(bytes / peak_gbs, levels * level_latency_us): a model, not a measurement"},
                      {"warnings", warnings}};
  m["gpu"] = "none";
  if (cuda::available()) {
    try {
      const cuda::DeviceInfo d = cuda::device_info();
      m["gpu"] = d.name;
      m["compute_capability"] = fmt::format("{}.{}", d.major, d.minor);
      m["gpu_sm_count"] = d.sm_count;
      m["gpu_memory_bytes"] = d.global_memory;
      m["driver_version"] = cuda_version_string(d.driver_version);
      m["runtime_version"] = cuda_version_string(d.runtime_version);
    } catch (const std::exception& e) {
      m["gpu"] = std::string("unknown (") + e.what() + ")";
    }
  }
  return m;
}

void add_cuda_device(nlohmann::json& meta) {
  cuda::DeviceBuffer<char> warm_up(1);  // the CUDA context before any timing
  const cuda::DeviceInfo d = cuda::device_info();
  meta["gpu"] = d.name;
  meta["driver"] = cuda_version_string(d.driver_version);
  meta["runtime"] = cuda_version_string(d.runtime_version);
}

void write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

void write_results(const std::string& json_path, const nlohmann::json& json, const std::string& markdown_path,
                   const std::string& markdown, const std::string& summary) {
  if (!json_path.empty()) write_file(json_path, json.dump(2) + "\n");
  if (!markdown_path.empty()) write_file(markdown_path, markdown);
  std::FILE* out = json_path == "-" || markdown_path == "-" ? stderr : stdout;
  std::fwrite(summary.data(), 1, summary.size(), out);
  std::fflush(out);
  for (const std::string& path : {json_path, markdown_path})
    if (!path.empty() && path != "-") fmt::print(stderr, "balsa-bench: wrote {}\n", path);
}

void write_outputs(const BenchOptions& o, const nlohmann::json& meta, const std::vector<BenchRow>& rows,
                   const std::vector<Skipped>& skipped, bool final) {
  const MarkdownText md = markdown(meta, rows, skipped);
  if (final) {
    write_results(o.json_path, results_json(meta, rows, skipped), o.markdown_path, md.summary + "\n" + md.details,
                  md.summary);
    return;
  }
  // Results so far, after each case (not to standard output: it takes the final write only).
  if (!o.json_path.empty() && o.json_path != "-") write_file(o.json_path, results_json(meta, rows, skipped).dump(2) + "\n");
  if (!o.markdown_path.empty() && o.markdown_path != "-") write_file(o.markdown_path, md.summary + "\n" + md.details);
}

}  // namespace balsa::bench
