// Host memory: physical size, what is available now (meminfo and cgroup
// limits), and the check before an input-sized allocation (core/memory.hpp).
#include "core/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "balsa/error.hpp"
#include "core/exceptions.hpp"

namespace balsa {
namespace {

// The first unsigned number in a small file ("max" and unreadable: none).
std::optional<std::uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word.empty() || word.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  try {
    return std::stoull(word);
  } catch (...) {
    return std::nullopt;
  }
}

// MemAvailable of /proc/meminfo in bytes.
std::optional<std::uint64_t> meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024;
  }
  return std::nullopt;
}

// The value of `key` in a memory.stat file (bytes), 0 when absent.
std::uint64_t stat_value(const std::string& path, const char* key) {
  std::ifstream in(path);
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

// The room left under the cgroup limits of every level from `dir` up to
// `root` (limit minus usage, the smallest over the levels). The usage
// counts the page cache, which the kernel reclaims before it refuses memory
// (a build's or a read file's pages can fill a cgroup's limit): the cache
// in memory.stat (`cache_key`) is not counted as used, as MemAvailable does.
std::optional<std::uint64_t> cgroup_room(const std::string& root, std::string dir, const char* limit_file,
                                         const char* usage_file, const char* cache_key) {
  std::optional<std::uint64_t> room;
  for (;;) {
    const std::string base = root + dir;
    const auto limit = read_number(base + "/" + limit_file);
    // cgroup v1 writes "no limit" as a huge number (about 2^63).
    if (limit && *limit < (std::uint64_t(1) << 60)) {
      const std::uint64_t usage = read_number(base + "/" + usage_file).value_or(0);
      const std::uint64_t cache = stat_value(base + "/memory.stat", cache_key);
      const std::uint64_t used = usage > cache ? usage - cache : 0;
      const std::uint64_t left = *limit > used ? *limit - used : 0;
      room = room ? std::min(*room, left) : left;
    }
    if (dir.empty() || dir == "/") break;
    const std::size_t slash = dir.find_last_of('/');
    dir = slash == std::string::npos || slash == 0 ? std::string() : dir.substr(0, slash);
  }
  return room;
}

// The room under the process's cgroup memory limits (v2 and v1), if any.
std::optional<std::uint64_t> cgroup_available() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::optional<std::uint64_t> room;
  auto take = [&](std::optional<std::uint64_t> r) {
    if (r) room = room ? std::min(*room, *r) : *r;
  };
  while (std::getline(in, line)) {
    // "hierarchy-id:controllers:path"
    const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string_view controllers = std::string_view(line).substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (path == "/") path.clear();
    if (line.compare(0, a, "0") == 0 && controllers.empty()) {  // v2, the unified hierarchy
      take(cgroup_room("/sys/fs/cgroup", path, "memory.max", "memory.current", "file"));
    } else {
      bool memory = false;  // v1: a comma-separated list of controllers
      for (std::size_t p = 0; p <= controllers.size();) {
        const std::size_t q = std::min(controllers.find(',', p), controllers.size());
        memory = memory || controllers.substr(p, q - p) == "memory";
        p = q + 1;
      }
      if (memory) take(cgroup_room("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_cache"));
    }
  }
  return room;
}

}  // namespace

std::size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? std::size_t(pages) * std::size_t(size) : std::size_t(1) << 34;
}

namespace {
std::size_t read_available_memory() {
  std::optional<std::uint64_t> avail = meminfo_available();
  // A cgroup whose usage is at its limit (no room at all) is not taken as
  // one: the kernel reclaims before it refuses, and the process is running.
  // Seen on the GPU host, whose cgroup counts other processes' memory too:
  // every factorisation there was refused with "0 B available".
  if (const auto room = cgroup_available(); room && *room > 0) avail = avail ? std::min(*avail, *room) : *room;
  // 0 is no answer for a running process either (seen under pytest on the
  // GPU host, cause not found): the physical memory then.
  return avail && *avail > 0 ? static_cast<std::size_t>(*avail) : physical_memory();
}
}  // namespace

// Reading the files takes about 17 us (2-core development machine): a value
// read in the last 20 ms is reused, so that the checks of a small solve
// (balsa::solve's plan, then the factorisation's) do not cost more than it.
std::size_t available_memory() {
  using Clock = std::chrono::steady_clock;
  static std::mutex mutex;
  static Clock::time_point read_at;
  static std::size_t value = 0;
  const std::lock_guard<std::mutex> lock(mutex);
  const Clock::time_point now = Clock::now();
  if (value == 0 || now - read_at > std::chrono::milliseconds(20)) {
    value = read_available_memory();
    read_at = now;
  }
  return value;
}

namespace {
std::atomic<std::size_t> process_limit{0};  // set_host_memory_limit's bytes
}  // namespace

void set_host_memory_limit(std::size_t bytes) { process_limit.store(bytes, std::memory_order_relaxed); }

std::size_t host_memory_limit() { return process_limit.load(std::memory_order_relaxed); }

std::string format_bytes(std::size_t bytes) try {
  static constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) return std::to_string(bytes) + " B";
  double v = double(bytes) / 1000;
  std::size_t u = 0;
  while (v >= 999.95 && u + 1 < std::size(kUnits)) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
} catch (...) {
  rethrow_as_balsa_error("format_bytes");
}

void require_host_memory(std::size_t bytes, const std::string& what, std::size_t limit, const std::string& purpose) {
  if (limit == 0) limit = host_memory_limit();
  const bool given = limit != 0;
  if (!given && bytes < (std::size_t(64) << 20)) return;  // every machine has that much: no look at /proc
  const std::size_t room = given ? limit : available_memory();
  if (bytes <= room) return;
  throw HostOutOfMemory(what + " needs " + format_bytes(bytes) + (purpose.empty() ? "" : " for " + purpose) + "; " +
                        (given ? "the memory limit is " + format_bytes(room) : format_bytes(room) + " of memory is available"));
}

std::string matrix_words(std::int64_t rows, std::int64_t cols, std::int64_t entries) {
  return "a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix with " + std::to_string(entries) +
         (entries == 1 ? " entry" : " entries");
}

}  // namespace balsa
