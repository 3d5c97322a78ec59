// Poison and compare: every GPU (and CPU) output is filled with a value no
// correct run writes before the run, then compared with its reference in the
// working precision. An entry the run forgot to write stays poisoned and
// fails the comparison (NaN compares false with everything).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "balsa/cuda.hpp"
#include "support/test_support.hpp"

namespace balsa::test {

// NaN for floating-point types; all bits set (-1) for integers, which the
// byte fill of device memory gives too.
template <class T>
T poison_value() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return static_cast<T>(~static_cast<std::make_unsigned_t<T>>(0));
}

// A host output of n entries, poisoned.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  return std::vector<T>(n, poison_value<T>());
}

template <class T>
void poison(std::span<T> x) {
  for (T& v : x) v = poison_value<T>();
}
template <class T>
void poison(std::vector<T>& x) {
  poison(std::span<T>(x));
}

// A device output, poisoned with all bits set (NaN for float and double, -1
// for integers); asynchronous on the calling thread's stream, like the
// kernels that follow it.
template <class T>
void poison(cuda::DeviceBuffer<T>& x) {
  x.fill_bytes(0xFF);
}

// How many entries still hold the poison (NaN for floating types).
template <class T>
std::size_t count_poisoned(std::span<const T> x) {
  std::size_t count = 0;
  for (const T& v : x) {
    if constexpr (std::is_floating_point_v<T>)
      count += std::isnan(v) ? 1 : 0;
    else
      count += v == poison_value<T>() ? 1 : 0;
  }
  return count;
}

// x against ref: the same length, no entry left poisoned, and
// test::relative_error(x, ref) <= tol (tolerance<T>(k) gives a tolerance in
// the working precision; a non-finite difference fails, as there).
template <class T>
::testing::AssertionResult matches(std::span<const T> x, std::span<const T> ref, double tol) {
  if (x.size() != ref.size())
    return ::testing::AssertionFailure() << "length " << x.size() << ", reference " << ref.size();
  if (const std::size_t left = count_poisoned(x); left > 0)
    return ::testing::AssertionFailure() << left << " of " << x.size() << " entries were never written";
  const double rel = relative_error(x, ref);
  if (!(rel <= tol)) return ::testing::AssertionFailure() << "relative error " << rel << " > " << tol;
  return ::testing::AssertionSuccess();
}
template <class T>
::testing::AssertionResult matches(const std::vector<T>& x, const std::vector<T>& ref, double tol) {
  return matches(std::span<const T>(x), std::span<const T>(ref), tol);
}

}  // namespace balsa::test
