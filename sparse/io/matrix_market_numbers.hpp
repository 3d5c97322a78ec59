// Internal to the Matrix Market reader (not installed): tokens and numbers.
//
// Indices and sizes are parsed by hand; floating-point values by
// std::from_chars after a fast path for short integral values. Every parser
// only says *whether* a token is good (Num); the messages are built by the
// cold code that looks at a rejected line again.
#pragma once

#include <locale.h>
#include <stdlib.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "balsa/error.hpp"
#include "balsa/matrix_market.hpp"
#include "sparse/io/matrix_market_lines.hpp"

namespace balsa::mtx {

using std::uint64_t;

// ---- messages -------------------------------------------------------------

inline std::string str(int64_t v) { return std::to_string(v); }

[[noreturn]] inline void fail_at(const std::string& name, int64_t line, const std::string& msg) {
  throw ParseError(name, line, msg);
}

// A token quoted for a message (long tokens shortened).
inline std::string quote(std::string_view tok) {
  constexpr std::size_t kMax = 40;
  std::string out(1, '\'');
  out += tok.substr(0, kMax);
  if (tok.size() > kMax) out += "...";
  out += '\'';
  return out;
}

inline bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// The white-space separated tokens of [p, e).
inline std::vector<std::string_view> split(const char* p, const char* e) {
  std::vector<std::string_view> out;
  for (;;) {
    skip_space(p, e);
    if (p == e) return out;
    const char* t = token_end(p, e);
    out.emplace_back(p, static_cast<std::size_t>(t - p));
    p = t;
  }
}

template <class T>
const char* type_name() {
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

// ---- numbers --------------------------------------------------------------

enum class Num { Ok, NotNumber, Negative, OutOfRange, NotInteger };

// The value of the digits [s, p) when there are more than 18 of them: exact
// when leading zeros leave at most 18 significant digits, else UINT64_MAX
// (too large for any index or size).
[[gnu::cold]] inline uint64_t long_digits(const char* s, const char* p) {
  while (s < p && *s == '0') ++s;
  if (p - s > 18) return std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  for (; s < p; ++s) v = v * 10 + static_cast<unsigned>(*s - '0');
  return v;
}

// A non-negative decimal integer (an index or a size) that must be followed
// by white space or the end. On Ok, p is past it.
inline Num parse_uint(const char*& p, const char* e, uint64_t& out) {
  const char* s = p;
  uint64_t v = 0;
  while (p < e) {
    const unsigned d = static_cast<unsigned char>(*p) - unsigned('0');
    if (d > 9) break;
    v = v * 10 + d;
    ++p;
  }
  if (p == s || (p < e && !is_space(*p))) [[unlikely]] {
    if (p == s && s < e && *s == '-' && s + 1 < e && static_cast<unsigned>(s[1] - '0') <= 9) {
      const char* q = s + 1;
      while (q < e && static_cast<unsigned>(*q - '0') <= 9) ++q;
      if (q == e || is_space(*q)) return Num::Negative;
    }
    return Num::NotNumber;
  }
  if (p - s > 18) [[unlikely]] v = long_digits(s, p);
  out = v;
  return Num::Ok;
}

// from_chars found the decimal number [s, e) out of range for its type: true
// when it is too small (an underflow), false when too large. strtod, in the
// "C" locale whatever the program's locale, gives 0 or a tiny value for the
// former and HUGE_VAL, or a value beyond float's range, for the latter.
[[gnu::cold]] inline bool underflows(const char* s, const char* e) {
  static const locale_t c_locale = ::newlocale(LC_ALL_MASK, "C", locale_t(0));
  const std::string tok(s, e);
  const double v = c_locale ? ::strtod_l(tok.c_str(), nullptr, c_locale) : std::strtod(tok.c_str(), nullptr);
  return std::fabs(v) < 1;
}

// A real value followed by white space or the end. An optional '+' is
// accepted; values too small for T become (signed) zero; values too large
// are OutOfRange. NaN and Inf are Ok here (the caller decides).
template <class T>
inline Num parse_real(const char*& p, const char* e, T& out) {
  const char* s = p;
  if (s < e && *s == '+' && s + 1 < e && s[1] != '-') ++s;
  {
    // Fast path for short integral values ("-1", "4"): up to 15 digits
    // convert exactly (double) or with the one rounding from_chars would do.
    const char* q = s;
    const bool neg = q < e && *q == '-';
    q += neg;
    const char* d0 = q;
    int64_t v = 0;
    while (q < e && q - d0 < 15) {
      const unsigned d = static_cast<unsigned char>(*q) - unsigned('0');
      if (d > 9) break;
      v = v * 10 + d;
      ++q;
    }
    if (q > d0 && (q == e || is_space(*q))) {
      out = neg ? -static_cast<T>(v) : static_cast<T>(v);
      p = q;
      return Num::Ok;
    }
  }
  auto [ptr, ec] = std::from_chars(s, e, out);
  if (ec != std::errc()) [[unlikely]] {
    if (ec != std::errc::result_out_of_range || (ptr < e && !is_space(*ptr))) return Num::NotNumber;
    if (!underflows(s, ptr)) return Num::OutOfRange;
    out = *s == '-' ? -T(0) : T(0);
  } else if (ptr < e && !is_space(*ptr)) [[unlikely]] {
    return Num::NotNumber;
  }
  p = ptr;
  return Num::Ok;
}

// A value of an integer-field file: an optional sign and decimal digits.
template <class T>
inline Num parse_integer_value(const char*& p, const char* e, T& out) {
  const char* s = p;
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) neg = (*s++ == '-');
  const char* d0 = s;
  int64_t v = 0;
  while (s < e && s - d0 < 18) {  // 18 digits cannot overflow int64_t
    const unsigned d = static_cast<unsigned char>(*s) - unsigned('0');
    if (d > 9) break;
    v = v * 10 + d;
    ++s;
  }
  if (s == d0) return Num::NotNumber;
  if (s < e && !is_space(*s)) [[unlikely]] {
    if (static_cast<unsigned>(*s - '0') <= 9) {
      // more than 18 digits: let from_chars round it
      const char* q = s;
      while (q < e && static_cast<unsigned>(*q - '0') <= 9) ++q;
      if (q < e && !is_space(*q)) return (*q == '.' || *q == 'e' || *q == 'E') ? Num::NotInteger : Num::NotNumber;
      T big{};
      auto [ptr, ec] = std::from_chars(d0, q, big);
      if (ec != std::errc() || ptr != q) return Num::OutOfRange;
      out = neg ? -big : big;
      p = q;
      return Num::Ok;
    }
    return (*s == '.' || *s == 'e' || *s == 'E') ? Num::NotInteger : Num::NotNumber;
  }
  out = static_cast<T>(neg ? -v : v);
  p = s;
  return Num::Ok;
}

template <class T>
inline Num parse_value(MtxField field, const char*& p, const char* e, T& out) {
  return field == MtxField::Integer ? parse_integer_value(p, e, out) : parse_real(p, e, out);
}

}  // namespace balsa::mtx
