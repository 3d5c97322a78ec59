// Tests of balsa's random number generator (sparse/generators/random.cpp,
// include/balsa/generators.hpp): pinned outputs, streams, ranges, uniformity,
// permutations and random vectors.
#include "balsa/generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "support/generator_checks.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using namespace generator_checks;

// ---- Random ------------------------------------------------------------------
// Pinned values computed once with an independent Python implementation of
// splitmix64 / xoshiro256** / Lemire's method.

TEST(Random, PinnedOutputs) {
  Random r0(0);
  EXPECT_EQ(r0.next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(r0.next(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(r0.next(), 0x1a5f849d4933e6e0ULL);
  EXPECT_EQ(r0.next(), 0x6aa594f1262d2d2cULL);
  Random r42(42);
  EXPECT_EQ(r42.next(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(r42.next(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(r42.next(), 0xae17533239e499a1ULL);
  EXPECT_EQ(r42.next(), 0xecb8ad4703b360a1ULL);
  Random u(42);
  EXPECT_EQ(u.uniform(), 0.08386297105988216);
  EXPECT_EQ(u.uniform(), 0.3789802506626686);
  EXPECT_EQ(u.uniform(), 0.6800434110281394);
  Random v(42);  // uniform(lo, hi) = lo + (hi - lo) * uniform()
  EXPECT_EQ(v.uniform(-1.0, 1.0), -1.0 + 2.0 * 0.08386297105988216);
  EXPECT_EQ(v.uniform(10.0, 14.0), 10.0 + 4.0 * 0.3789802506626686);
  Random b(7);
  const std::vector<std::uint64_t> small = {7, 2, 8, 9, 9, 8, 0, 1, 4, 1};
  for (auto expected : small) EXPECT_EQ(b.below(10), expected);
  const std::uint64_t big = 4052555153018976267ULL;  // 3^39
  EXPECT_EQ(b.below(big), 2193922051134236161ULL);
  EXPECT_EQ(b.below(big), 2965895748241931381ULL);
  EXPECT_EQ(b.below(big), 3805209875582465419ULL);
  EXPECT_EQ(random_permutation(10, 1), (std::vector<index_t>{3, 6, 1, 5, 0, 9, 2, 8, 4, 7}));
}

TEST(Random, SameSeedSameStreamDifferentSeedDifferent) {
  Random a(123), b(123), c(124);
  bool differs = false;
  for (int k = 0; k < 100; ++k) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(Random, BelowStaysInRangeAndIsUniform) {
  Random r(5);
  const std::uint64_t ns[] = {1, 2, 3, 7, 1000, (1ULL << 63) + 1, std::numeric_limits<std::uint64_t>::max()};
  for (auto n : ns)
    for (int k = 0; k < 2000; ++k) ASSERT_LT(r.below(n), n) << "n = " << n;
  for (int k = 0; k < 100; ++k) EXPECT_EQ(r.below(1), 0u);
  std::vector<int> counts(6, 0);
  const int draws = 600000;
  for (int k = 0; k < draws; ++k) ++counts[r.below(6)];
  for (int c : counts) EXPECT_NEAR(c, draws / 6, 1000);  // ~ 3.4 sigma
  EXPECT_THROW_MSG(r.below(0), Error, "positive");
}

TEST(Random, UniformRangeAndMean) {
  Random r(9);
  double sum = 0.0;
  const int draws = 1000000;
  for (int k = 0; k < draws; ++k) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / draws, 0.5, 0.002);
  for (int k = 0; k < 10000; ++k) {
    const double v = r.uniform(-3.0, 2.0);
    ASSERT_GE(v, -3.0);
    ASSERT_LT(v, 2.0);
  }
}

TEST(Random, Permutation) {
  for (index_t n : {0, 1, 2, 10, 1000}) {
    auto p = random_permutation(n, 3);
    ASSERT_EQ(p.size(), std::size_t(n));
    EXPECT_EQ(p, random_permutation(n, 3));
    std::sort(p.begin(), p.end());
    for (index_t i = 0; i < n; ++i) EXPECT_EQ(p[i], i);
  }
  EXPECT_NE(random_permutation(1000, 3), random_permutation(1000, 4));
  EXPECT_THROW_MSG(random_permutation(-1, 3), Error, "n must be non-negative");
}

TYPED_TEST(GeneratorsTyped, RandomVector) {
  using T = TypeParam;
  const auto x = random_vector<T>(10000, 11, -2.0, 5.0);
  ASSERT_EQ(x.size(), 10000u);
  for (T v : x) {
    EXPECT_GE(v, T(-2));
    EXPECT_LT(v, T(5));
  }
  EXPECT_EQ(x, random_vector<T>(10000, 11, -2.0, 5.0));
  EXPECT_NE(x, random_vector<T>(10000, 12, -2.0, 5.0));
  EXPECT_EQ(random_vector<T>(0, 1).size(), 0u);
  EXPECT_THROW_MSG(random_vector<T>(-5, 1), Error, "n must be non-negative");
  EXPECT_THROW_MSG(random_vector<T>(5, 1, 1.0, 1.0), Error, "lo < hi");
}

}  // namespace
}  // namespace balsa
