// Shared helpers for balsa's tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

namespace balsa::test {

// Path of a file in tests/data.
std::filesystem::path data_file(const std::string& name);
// The real matrices of tests/data (every *.mtx), sorted by name.
std::vector<std::filesystem::path> real_matrices();
// A real matrix from tests/data as canonical CSR in precision T, or nothing
// when a value does not fit T (temp.mtx holds -4.8e38, beyond float).
template <class T>
std::optional<Csr<T>> real_matrix_as(const std::filesystem::path& file);

// Calls f(A) for every square real matrix of tests/data that fits T (under a
// SCOPED_TRACE naming the file); returns how many it called f for.
template <class T, class F>
int for_each_square_real_matrix(F&& f) {
  int count = 0;
  for (const auto& file : real_matrices()) {
    SCOPED_TRACE(file.filename().string());
    const std::optional<Csr<T>> A = real_matrix_as<T>(file);
    if (!A || A->rows != A->cols) continue;
    f(*A);
    ++count;
  }
  return count;
}

// A fresh empty directory for a test's files (removed at process exit).
std::filesystem::path temp_dir();

// `text` written (bytes as given) to a file `name` in a fresh temp_dir(); a
// test failure when it cannot be written.
std::filesystem::path write_temp_file(const std::string& name, const std::string& text);

// Random sparse matrix with about `density` * rows * cols entries.
template <class T>
Csr<T> random_sparse(index_t rows, index_t cols, double density, std::uint64_t seed);

// A tall random matrix of full column rank (the QR tests'): random_sparse
// plus diagonal + 0.01 j at (j, j) for j < n.
Csr<double> tall_full_rank(index_t m, index_t n, double density, std::uint64_t seed, double diagonal);

// Relative error ||x - ref||_inf / max(||ref||_inf, tiny), in double.
template <class T>
double relative_error(std::span<const T> x, std::span<const T> ref);

// Tolerance for results that went through k rounding steps in precision T.
template <class T>
double tolerance(double k = 100.0) {
  return k * static_cast<double>(std::numeric_limits<T>::epsilon());
}

// Skips the current test when no GPU can be used.
#define BALSA_REQUIRE_GPU()                                       \
  do {                                                            \
    if (!::balsa::cuda::available()) GTEST_SKIP() << "no CUDA GPU"; \
  } while (0)

// Expects `stmt` to throw an exception of type E whose message contains `needle`.
#define EXPECT_THROW_MSG(stmt, E, needle)                                             \
  do {                                                                                \
    try {                                                                             \
      stmt;                                                                           \
      ADD_FAILURE() << "expected " #E " containing \"" << (needle) << "\"";          \
    } catch (const E& e__) {                                                          \
      EXPECT_NE(std::string(e__.what()).find(needle), std::string::npos)              \
          << "message was: " << e__.what();                                           \
    }                                                                                 \
  } while (0)

}  // namespace balsa::test
