// Helpers shared by the CPU Krylov tests (tests/krylov/krylov_*_test.cpp):
// the working-precision tolerance and a solve of A x = A x_true checked for
// the solution, the stats and the stopping logic.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cases.hpp"
#include "support/test_support.hpp"

namespace balsa::krylov_cpu_cases {

template <class T>
inline double tol_for() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-10;
}

// Solves A x = A x_true from x0 = 0 and checks the solution, the stats and
// the stopping logic (every earlier history entry above the tolerance).
template <class T>
KrylovStats expect_solves(const Csr<T>& A, const KrylovOptions& o, double error_bound, std::uint64_t seed = 3) {
  const std::vector<T> x_true = random_vector<T>(A.rows, seed);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  std::vector<T> x(b.size(), T(0));
  KrylovSolver<T> solver(A, o);
  const KrylovStats st = solver.solve(std::span<const T>(b), std::span<T>(x));
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_LE(st.residual, o.stopping.tolerance);
  EXPECT_EQ(st.history.size(), std::size_t(st.iterations) + 1);
  if (!st.history.empty()) {
    EXPECT_DOUBLE_EQ(st.history.front(), 1.0);  // x0 = 0: r0 = b
    EXPECT_EQ(st.history.back(), st.residual);
    for (std::size_t k = 0; k + 1 < st.history.size(); ++k)
      EXPECT_GT(st.history[k], o.stopping.tolerance) << "k = " << k;
  }
  EXPECT_LE(test::relative_error<T>(x, x_true), error_bound) << st.message;
  EXPECT_LT(st.true_residual, 100 * o.stopping.tolerance + test::tolerance<T>(1000));
  EXPECT_EQ(solver.stats().iterations, st.iterations);
  return st;
}

// The typed suite of the CPU tests, float and double.
template <class T>
class KrylovCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KrylovCpu, ValueTypes);

}  // namespace balsa::krylov_cpu_cases
