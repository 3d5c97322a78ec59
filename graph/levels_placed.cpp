// Level sets where they are cheaper, for a pattern on the host
// (graph/levels_device.hpp): the device analysis (graph/levels_device.cu)
// or the host's (graph/levels.cpp), and the thread's rule that chooses.
#include <string>
#include <utility>

#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "graph/levels_device.hpp"

namespace balsa::levels_gpu {

namespace {
thread_local const DeviceLevelsRule* active_rule = nullptr;
}  // namespace

const DeviceLevelsRule& current_rule() {
  static const DeviceLevelsRule defaults{};
  return active_rule ? *active_rule : defaults;
}

ScopedRule::ScopedRule(const DeviceLevelsRule& rule) : rule_(rule), previous_(active_rule) { active_rule = &rule_; }
ScopedRule::~ScopedRule() { active_rule = previous_; }

// The device path: the pattern up, the device analysis (which may hand the
// work back to the host, reading the host pattern), the rows down. The
// pattern's upload counts towards the memory the rule allows.
PlacedLevels device_or_host_level_sets(index_t n, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                       Triangle tri, bool gpu) try {
  const auto t0 = Clock::now();
  PlacedLevels out;
  auto on_host = [&](std::string why) {
    out.sets = level_sets(dependency_levels(n, row_ptr, col_idx, tri));
    out.where = Device::Cpu;
    out.reason = std::move(why);
    out.seconds = seconds_since(t0);
    return std::move(out);
  };
  if (!gpu || !cuda::available()) return on_host("no GPU in use");
  if (n < kDeviceLevelsMinRows)
    return on_host(std::to_string(n) + " rows (the device from " + std::to_string(kDeviceLevelsMinRows) + ")");
  DeviceLevelsRule rule = current_rule();
  if (rule.force_host) return on_host("the host asked for (DeviceLevelsRule::force_host)");
  const std::size_t pattern_bytes = (row_ptr.size() + col_idx.size()) * sizeof(index_t);
  const std::size_t budget = rule.memory_budget > 0 ? rule.memory_budget : cuda::memory_info().first;
  if (pattern_bytes + device_level_sets_bytes(n) > budget)
    return on_host("device memory: the analysis needs " + std::to_string(pattern_bytes + device_level_sets_bytes(n)) +
                   " bytes, " + std::to_string(budget) + " available");
  rule.memory_budget = budget - pattern_bytes;
  try {
    const cuda::DeviceBuffer<index_t> d_row_ptr(row_ptr), d_col_idx(col_idx);
    DeviceLevels d;
    detail::device_level_sets(n, d_row_ptr.data(), d_col_idx.data(), tri, rule, row_ptr, col_idx, d);
    out.sets.level_ptr = std::move(d.host_level_ptr);
    out.sets.rows.resize(std::size_t(n));
    d.rows.download(out.sets.rows);
    out.where = d.on_device ? Device::Cuda : Device::Cpu;
    out.reason = std::move(d.reason);
  } catch (const DeviceOutOfMemory& e) {
    return on_host(std::string("device memory: ") + e.what());
  }
  out.seconds = seconds_since(t0);
  return out;
} catch (...) {
  rethrow_as_balsa_error("device_or_host_level_sets");
}

}  // namespace balsa::levels_gpu
