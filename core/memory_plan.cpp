// The public side of the memory checks (include/balsa/memory.hpp): byte
// counts as users write them, the estimates of the input-sized steps, and
// the check of a command's steps held at once.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "balsa/error.hpp"
#include "balsa/memory.hpp"
#include "core/exceptions.hpp"
#include "core/memory.hpp"

namespace balsa {
namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kIndex = 4;  // sizeof(index_t)

// a + b and a * b, saturating at SIZE_MAX (negative counts read as 0).
std::size_t add(std::size_t a, std::size_t b) { return a > kMax - b ? kMax : a + b; }
std::size_t mul(std::size_t a, std::size_t b) { return a != 0 && b > kMax / a ? kMax : a * b; }
std::size_t count(std::int64_t n) { return n > 0 ? std::size_t(n) : 0; }

// The power of 1024 a suffix names ("", "K", "KB", "KiB", "k", ...), or -1.
int suffix_power(std::string_view s) {
  if (s.empty()) return 0;
  if (s == "B" || s == "b") return 0;
  static constexpr std::string_view kLetters = "KMGT";
  const std::size_t p = kLetters.find(char(std::toupper(static_cast<unsigned char>(s[0]))));
  if (p == std::string_view::npos) return -1;
  const std::string_view rest = s.substr(1);
  return rest.empty() || rest == "B" || rest == "iB" ? int(p) + 1 : -1;
}

}  // namespace

std::size_t parse_byte_count(std::string_view text) try {
  const auto bad = [&](const char* why) {
    return Error("memory size '" + std::string(text) + "': " + why +
                 " (bytes as digits, with an optional suffix K, M, G or T: powers of 1024, e.g. 512M or 4G)");
  };
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  const std::string number(text.substr(0, end));
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1)
    throw bad("not a number");
  const int power = suffix_power(text.substr(end));
  if (power < 0) throw bad("unknown suffix");
  const long double bytes = std::stold(number) * std::pow(1024.0L, power);
  if (!(bytes < 18446744073709551616.0L)) throw bad("more than 2^64 - 1 bytes");
  return static_cast<std::size_t>(bytes);  // whole bytes, rounded down
} catch (...) {
  rethrow_as_balsa_error("parse_byte_count");
}

std::size_t csr_bytes(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes) {
  return add(mul(count(rows) + 1, kIndex), mul(count(nnz), kIndex + value_bytes));
}

// to_csr (sparse/convert.cpp): ptr and next (rows + 1 and rows indices), the
// scattered copy (nnz indices and values), then the result.
std::size_t coo_to_csr_bytes(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes) {
  const std::size_t sort = add(mul(2 * count(rows) + 1, kIndex), mul(count(nnz), kIndex + value_bytes));
  return add(sort, csr_bytes(rows, nnz, value_bytes));
}

// transpose_pattern (sparse/convert.cpp): a counter per column, the new row
// pointers, indices and source map; then the values gathered.
std::size_t transpose_bytes(std::int64_t cols, std::int64_t nnz, std::size_t value_bytes) {
  return add(add(mul(count(cols), kIndex), csr_bytes(cols, nnz, value_bytes)), mul(count(nnz), kIndex));
}

std::size_t vectors_bytes(std::int64_t vectors, std::int64_t n, std::size_t value_bytes) {
  return mul(mul(count(vectors), count(n)), value_bytes);
}

MemoryPlan& MemoryPlan::add(std::string name, std::size_t bytes) {
  steps.push_back({std::move(name), bytes});
  return *this;
}

std::size_t MemoryPlan::total() const {
  std::size_t sum = 0;
  for (const MemoryStep& s : steps) sum = balsa::add(sum, s.bytes);
  return sum;
}

void require_memory(const MemoryPlan& plan, std::size_t limit) try {
  const std::size_t total = plan.total();
  // Small needs skip the look at /proc without a limit: every machine has that much.
  if (limit == 0 && host_memory_limit() == 0 && total < (std::size_t(64) << 20)) return;
  std::vector<MemoryStep> steps = plan.steps;
  std::stable_sort(steps.begin(), steps.end(), [](const MemoryStep& a, const MemoryStep& b) { return a.bytes > b.bytes; });
  std::string list;
  for (const MemoryStep& s : steps)
    if (s.bytes > 0) list += (list.empty() ? "" : ", ") + s.name + " " + format_bytes(s.bytes);
  require_host_memory(total, plan.what, limit, list.empty() ? std::string() : "the steps held at once (" + list + ")");
} catch (...) {
  rethrow_as_balsa_error("require_memory");
}

}  // namespace balsa
