// Internal to the MPS reader (not installed): the fields of a line, free or
// fixed format, the tables of names and the numbers.
//
// A data line is first split at white space (free MPS, and fixed MPS whose
// names hold no spaces: the common case). When that reading fails (wrong
// number of fields, an unknown name, a word where a number should be), the
// line is read again by the fixed columns, where names may hold spaces:
//   field 1: columns 2-3, field 2: 5-12, field 3: 15-22, field 4: 25-36,
//   field 5: 40-47, field 6: 50-61 (1-based).
// Both give the fields in order with the empty ones left out, so one parser
// serves both readings.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "balsa/sparse.hpp"
#include "sparse/io/matrix_market_lines.hpp"
#include "sparse/io/matrix_market_numbers.hpp"

namespace balsa::mps {

using Fields = std::vector<std::string_view>;

// The white-space separated words of [b, e) into `out`.
inline void split_free(const char* b, const char* e, Fields& out) {
  out.clear();
  for (;;) {
    mtx::skip_space(b, e);
    if (b == e) return;
    const char* t = mtx::token_end(b, e);
    out.emplace_back(b, static_cast<std::size_t>(t - b));
    b = t;
  }
}

// The non-empty fixed-format fields of [b, e) (trailing white space already
// cut), each trimmed, into `out`. False when the line does not have the fixed
// layout (a character between fields or past column 61), or when no field
// holds a space (then the free reading already gave these fields).
inline bool split_fixed(const char* b, const char* e, Fields& out) {
  static constexpr int kField[6][2] = {{1, 3}, {4, 12}, {14, 22}, {24, 36}, {39, 47}, {49, 61}};
  const int n = static_cast<int>(e - b);
  if (n > 61 || n == 0 || !mtx::is_space(b[0])) return false;
  out.clear();
  bool inner_space = false;
  int pos = 0;  // the first column not yet looked at
  for (const auto& [from, to] : kField) {
    for (; pos < from && pos < n; ++pos)
      if (!mtx::is_space(b[pos])) return false;  // something between the fields
    if (from >= n) break;
    const char* f = b + from;
    const char* t = b + std::min(to, n);
    while (f < t && mtx::is_space(*f)) ++f;
    while (t > f && mtx::is_space(t[-1])) --t;
    if (f == t) continue;
    if (mtx::token_end(f, t) != t) inner_space = true;
    out.emplace_back(f, static_cast<std::size_t>(t - f));
    pos = to;
  }
  return inner_space;
}

// A word without the single quotes around it ('MARKER' -> MARKER).
inline std::string_view unquote(std::string_view w) {
  if (w.size() >= 2 && w.front() == '\'' && w.back() == '\'') return w.substr(1, w.size() - 2);
  return w;
}

// Names to indices, looked up by string_view without a copy.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using NameMap = std::unordered_map<std::string, index_t, NameHash, std::equal_to<>>;

inline const index_t* find(const NameMap& m, std::string_view name) {
  const auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

// The number `w` into v; else false with the reason in `err`. NaN is always
// refused; Inf too unless allow_infinite.
inline bool number(std::string_view w, double& v, std::string& err, bool allow_infinite = false) {
  const char* p = w.data();
  switch (mtx::parse_real(p, w.data() + w.size(), v)) {
    case mtx::Num::Ok: break;
    case mtx::Num::OutOfRange: err = "value " + mtx::quote(w) + " is out of range for double"; return false;
    default: err = "value " + mtx::quote(w) + " is not a number"; return false;
  }
  if (std::isnan(v) || (!allow_infinite && std::isinf(v))) {
    err = "value " + mtx::quote(w) + " is not finite" + (allow_infinite ? ": NaN is refused" : ": NaN and Inf are refused");
    return false;
  }
  return true;
}

}  // namespace balsa::mps
