// Numbers in text, as the balsa command and balsa-bench print them: the one
// formatter of both (bench/bench_math.hpp uses it). Header-only and free of
// fmt and the library.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace balsa::app {

// "-" for NaN (not measured), otherwise three significant-ish digits:
// 0.00123, 0.0123, 0.123, 1.23, 12.3, 123, 1234.
inline std::string format_number(double x) {
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(x);
  if (a == 0.0)
    std::snprintf(buf, sizeof buf, "0");
  else if (a >= 100.0)
    std::snprintf(buf, sizeof buf, "%.0f", x);
  else if (a >= 10.0)
    std::snprintf(buf, sizeof buf, "%.1f", x);
  else if (a >= 1.0)
    std::snprintf(buf, sizeof buf, "%.2f", x);
  else if (a >= 1e-3)
    std::snprintf(buf, sizeof buf, "%#.3g", x);
  else
    std::snprintf(buf, sizeof buf, "%.2e", x);
  return buf;
}

// Seconds in the unit that reads best: "1.23 s", "12.3 ms", "456 us", "78.0 ns".
inline std::string format_seconds(double s) {
  if (std::isnan(s) || std::isinf(s)) return format_number(s);
  const double a = std::fabs(s);
  if (a >= 1.0 || a == 0.0) return format_number(s) + " s";
  if (a >= 1e-3) return format_number(s * 1e3) + " ms";
  if (a >= 1e-6) return format_number(s * 1e6) + " us";
  return format_number(s * 1e9) + " ns";
}

}  // namespace balsa::app
