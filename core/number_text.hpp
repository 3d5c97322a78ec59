// Numbers in the library's messages and explanations: `v` with `digits`
// significant digits (printf's %g), e.g. number_text(0.000123456, 3) is
// "0.000123". The one formatter of the library's text (the programs' own is
// apps/number_format.hpp).
#pragma once

#include <cstdio>
#include <string>

namespace balsa {

inline std::string number_text(double v, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace balsa
