// balsa: the library's own random number generator (xoshiro256** seeded via
// splitmix64), a random permutation and random vectors. Only integer
// arithmetic and one exact scaling are used, so every platform draws the same
// stream for the same seed (no <random> distributions, whose output is
// implementation-defined).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "balsa/generators.hpp"
#include "sparse/generators/splitmix.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Full 64 x 64 -> 128-bit product, portable (no __int128): returns the high
// word, stores the low word in `lo`.
inline std::uint64_t mul_hi_lo(std::uint64_t a, std::uint64_t b, std::uint64_t& lo) {
  const std::uint64_t a_lo = a & 0xFFFFFFFFULL, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xFFFFFFFFULL, b_hi = b >> 32;
  const std::uint64_t ll = a_lo * b_lo;
  const std::uint64_t lh = a_lo * b_hi;
  const std::uint64_t hl = a_hi * b_lo;
  const std::uint64_t hh = a_hi * b_hi;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFULL) + (hl & 0xFFFFFFFFULL);
  lo = (mid << 32) | (ll & 0xFFFFFFFFULL);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

}  // namespace

Random::Random(std::uint64_t seed) try {
  std::uint64_t state = seed;
  for (auto& s : s_) s = detail::splitmix64_next(state);
  // splitmix64 is a bijection of its counter, so four consecutive outputs are
  // never all zero; the all-zero xoshiro state cannot occur.
} catch (...) {
  rethrow_as_balsa_error("Random::Random");
}

std::uint64_t Random::next() try {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
} catch (...) {
  rethrow_as_balsa_error("Random::next");
}

double Random::uniform() try {
  // The top 53 bits scaled by 2^-53: exact, in [0, 1 - 2^-53].
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
} catch (...) {
  rethrow_as_balsa_error("Random::uniform");
}

double Random::uniform(double lo, double hi) try {
  // Unchecked (hot path): callers pass lo < hi. Rounding of lo + (hi-lo)*u can
  // reach hi for some ranges; keep the interval half-open.
  const double r = lo + (hi - lo) * uniform();
  return r < hi ? r : std::nextafter(hi, lo);
} catch (...) {
  rethrow_as_balsa_error("Random::uniform");
}

std::uint64_t Random::below(std::uint64_t n) try {
  if (n == 0) throw Error("Random::below: n must be positive (got 0)");
  // Lemire's multiply-shift with rejection: the high word of x * n is uniform
  // on [0, n) once draws whose low word falls below 2^64 mod n are rejected.
  std::uint64_t lo = 0;
  std::uint64_t hi = mul_hi_lo(next(), n, lo);
  if (lo < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (lo < threshold) hi = mul_hi_lo(next(), n, lo);
  }
  return hi;
} catch (...) {
  rethrow_as_balsa_error("Random::below");
}

std::vector<index_t> random_permutation(index_t n, std::uint64_t seed) try {
  if (n < 0) throw Error("random_permutation: n must be non-negative (got " + std::to_string(n) + ")");
  std::vector<index_t> perm(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
  Random rng(seed);
  // Fisher-Yates from the back: position i takes a uniform element of [0, i].
  for (index_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[j]);
  }
  return perm;
} catch (...) {
  rethrow_as_balsa_error("random_permutation");
}

template <class T>
std::vector<T> random_vector(index_t n, std::uint64_t seed, double lo, double hi) try {
  if (n < 0) throw Error("random_vector: n must be non-negative (got " + std::to_string(n) + ")");
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    throw Error("random_vector: need finite lo < hi (got lo = " + std::to_string(lo) +
                ", hi = " + std::to_string(hi) + ")");
  std::vector<T> x(static_cast<std::size_t>(n));
  Random rng(seed);
  const T top = static_cast<T>(hi);
  for (auto& v : x) {
    v = static_cast<T>(rng.uniform(lo, hi));
    // Rounding to a narrower T can land on hi itself; keep [lo, hi).
    if (!(v < top)) v = std::nextafter(top, static_cast<T>(lo));
  }
  return x;
} catch (...) {
  rethrow_as_balsa_error("random_vector");
}

template std::vector<float> random_vector<float>(index_t, std::uint64_t, double, double);
template std::vector<double> random_vector<double>(index_t, std::uint64_t, double, double);

}  // namespace balsa
