// Internal: splitmix64 (Steele, Lea & Flood, 2014), the seeding and stream
// mixing function of balsa's random number generator.
#pragma once

#include <cstdint>

namespace balsa::detail {

// The splitmix64 output for counter value z (a bijection of z).
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// One step of splitmix64: returns the output for `state` and advances it.
inline std::uint64_t splitmix64_next(std::uint64_t& state) {
  const std::uint64_t out = splitmix64_mix(state);
  state += 0x9E3779B97F4A7C15ULL;
  return out;
}

}  // namespace balsa::detail
