// Internal: the wall clock every phase time in balsa's stats (and the
// benchmarks) is read from.
#pragma once

#include <chrono>

namespace balsa {

using Clock = std::chrono::steady_clock;

// Seconds from t0 to now.
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace balsa
