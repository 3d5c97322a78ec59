// balsa::DirectSolver (include/balsa/direct.hpp): CHOLMOD, UMFPACK and KLU
// against known solutions, the phases (analysis only, update_values), the
// n x k solves, float, and every error the header promises.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "balsa/direct.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using test::tolerance;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

DirectOptions with_method(DirectMethod m) {
  DirectOptions o;
  o.method = m;
  return o;
}

template <class T>
Csr<T> from_entries(index_t n, const std::vector<std::tuple<index_t, index_t, double>>& entries) {
  Coo<T> c;
  c.rows = c.cols = n;
  for (const auto& [i, j, v] : entries) {
    c.row_idx.push_back(i);
    c.col_idx.push_back(j);
    c.values.push_back(T(v));
  }
  return to_csr(c);
}

// A well-conditioned unsymmetric matrix: upwind convection-diffusion, its
// rows and columns permuted (zeros on the diagonal), not scaled.
template <class T>
Csr<T> unsymmetric(index_t m = 9) {
  return scramble(convection_diffusion_3d<T>(m, m, m, 20.0), 7, {.scale_decades = 0.0});
}

// x (poisoned with NaN) = A^-1 (A x_true): the error in T's precision.
template <class T>
double solve_error(DirectSolver<T>& solver, const Csr<T>& A) {
  const std::vector<T> x_true = random_vector<T>(A.rows, 3, 1.0, 2.0);
  const std::vector<T> b = multiply(A, std::span<const T>(x_true));
  std::vector<T> x = test::poisoned<T>(x_true.size());
  solver.solve(std::span<const T>(b), std::span<T>(x));
  return test::relative_error(std::span<const T>(x), std::span<const T>(x_true));
}

// ||b - A x||_2 / (||A||_F ||x||_2 + ||b||_2): a backward stable solve's is O(eps).
double backward_error(const Csr<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  const double nb = norm2(std::span<const double>(b));
  return relative_residual(A, std::span<const double>(x), std::span<const double>(b)) * nb /
         (norm2(std::span<const double>(A.values)) * norm2(std::span<const double>(x)) + nb);
}

void expect_factorized_stats(const DirectStats& st, DirectMethod m, index_t n) {
  EXPECT_EQ(st.method, m);
  EXPECT_EQ(st.device, Device::Cpu);
  EXPECT_EQ(st.n, n);
  EXPECT_TRUE(st.factorized);
  EXPECT_EQ(st.factorizations, 1);
  EXPECT_GE(st.factor_entries, n);
  EXPECT_GT(st.flops, 0);
  EXPECT_GT(st.peak_bytes, 0);
  EXPECT_GT(st.rcond, 0);
  EXPECT_LE(st.rcond, 1);
}

TEST(DirectSolver, EveryMethodOnA3dLaplacian) {
  const Csr<double> A = laplacian_3d<double>(9, 8, 7);
  for (DirectMethod m : {DirectMethod::Cholmod, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    DirectSolver<double> s(A, with_method(m));
    EXPECT_LT(solve_error(s, A), tolerance<double>(1000));
    expect_factorized_stats(s.stats(), m, A.rows);
  }
  DirectSolver<double> automatic(A);
  EXPECT_EQ(automatic.stats().method, DirectMethod::Cholmod);
  EXPECT_TRUE(automatic.stats().note.empty());
}

TEST(DirectSolver, LuMethodsOnAnUnsymmetricMatrix) {
  const Csr<double> A = unsymmetric<double>();
  for (DirectMethod m : {DirectMethod::Auto, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    DirectSolver<double> s(A, with_method(m));
    EXPECT_LT(solve_error(s, A), tolerance<double>(1e4));
    EXPECT_NE(s.stats().method, DirectMethod::Cholmod);
    EXPECT_NE(s.stats().method, DirectMethod::Auto);
  }
}

// Auto's LU rule: KLU unless KLU's analysis predicts many flops.
TEST(DirectSolver, AutoKeepsKluForFewFlops) {
  DirectOptions o;
  o.factorize = false;
  DirectSolver<double> small(unsymmetric<double>(6), o);
  EXPECT_EQ(small.stats().method, DirectMethod::Klu);
  EXPECT_TRUE(small.stats().note.empty());
  DirectSolver<double> large(unsymmetric<double>(24), o);
  EXPECT_EQ(large.stats().method, DirectMethod::Umfpack);
  EXPECT_NE(large.stats().note.find("KLU's analysis predicts"), std::string::npos) << large.stats().note;
}

TEST(DirectSolver, RealMatrices) {
  const std::vector<std::pair<std::string, std::vector<DirectMethod>>> cases = {
      {"bcsstk13.mtx", {DirectMethod::Cholmod, DirectMethod::Umfpack, DirectMethod::Klu, DirectMethod::Auto}},
      {"west0479.mtx", {DirectMethod::Umfpack, DirectMethod::Klu, DirectMethod::Auto}},
      {"cryg2500.mtx", {DirectMethod::Umfpack, DirectMethod::Klu, DirectMethod::Auto}},
      {"add32.mtx.gz", {DirectMethod::Umfpack, DirectMethod::Klu, DirectMethod::Auto}},
      {"watt_2.mtx", {DirectMethod::Umfpack, DirectMethod::Klu, DirectMethod::Auto}}};
  for (const auto& [file, methods] : cases) {
    const Csr<double> A = read_matrix_market_csr<double>(test::data_file(file));
    const std::vector<double> x_true = random_vector<double>(A.rows, 5);
    const std::vector<double> b = multiply(A, std::span<const double>(x_true));
    for (DirectMethod m : methods) {
      SCOPED_TRACE(file + " " + to_string(m));
      DirectSolver<double> s(A, with_method(m));
      std::vector<double> x = test::poisoned<double>(b.size());
      s.solve(std::span<const double>(b), std::span<double>(x));
      EXPECT_LT(backward_error(A, x, b), tolerance<double>(100));
    }
  }
}

TEST(DirectSolver, ManyRightHandSidesInOneCall) {
  const Csr<double> A = unsymmetric<double>(6);
  const index_t k = 5;
  for (DirectMethod m : {DirectMethod::Cholmod, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    const Csr<double> M = m == DirectMethod::Cholmod ? laplacian_3d<double>(6, 6, 6) : A;
    DirectSolver<double> s(M, with_method(m));
    DenseMatrix<double> B(M.rows, k), X(M.rows, k, kNaN);
    for (index_t j = 0; j < k; ++j) {
      const std::vector<double> x = random_vector<double>(M.rows, 10 + std::uint64_t(j));
      const std::vector<double> b = multiply(M, std::span<const double>(x));
      std::copy(b.begin(), b.end(), B.column(j).begin());
    }
    s.solve(B, X);
    EXPECT_EQ(s.stats().columns_solved, k);
    for (index_t j = 0; j < k; ++j) {
      std::vector<double> x = test::poisoned<double>(std::size_t(M.rows));
      s.solve(std::as_const(B).column(j), std::span<double>(x));
      EXPECT_TRUE(test::matches<double>(X.column(j), x, tolerance<double>(100)));
    }
  }
}

TEST(DirectSolver, UpdateValuesFactorisesAgainWithoutANewAnalysis) {
  const Csr<double> A = unsymmetric<double>(6);
  for (DirectMethod m : {DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    DirectSolver<double> s(A, with_method(m));
    const double analyse = s.stats().analyse_seconds;
    Csr<double> A2 = A;
    for (std::size_t p = 0; p < A2.values.size(); ++p) A2.values[p] *= 1.0 + 0.5 * double(p % 3);
    s.update_values(A2);
    EXPECT_EQ(s.stats().factorizations, 2);
    EXPECT_EQ(s.stats().analyse_seconds, analyse);
    EXPECT_LT(solve_error(s, A2), tolerance<double>(1e4));
    s.update_values(std::span<const double>(A.values));
    EXPECT_EQ(s.stats().factorizations, 3);
    EXPECT_LT(solve_error(s, A), tolerance<double>(1e4));
  }
}

TEST(DirectSolver, AnalysisOnlyThenFactorize) {
  const Csr<double> A = laplacian_3d<double>(8, 8, 8);
  for (DirectMethod m : {DirectMethod::Cholmod, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    DirectOptions o = with_method(m);
    o.factorize = false;
    DirectSolver<double> s(A, o);
    EXPECT_FALSE(s.stats().factorized);
    EXPECT_EQ(s.stats().factorizations, 0);
    EXPECT_GE(s.stats().factor_entries, A.rows);
    EXPECT_GT(s.stats().flops, 0);
    EXPECT_GT(s.stats().peak_bytes, 0);
    std::vector<double> b(std::size_t(A.rows), 1.0), x(b.size());
    EXPECT_THROW_MSG(s.solve(std::span<const double>(b), std::span<double>(x)), Error, "call factorize() first");
    s.factorize();
    EXPECT_TRUE(s.stats().factorized);
    EXPECT_LT(solve_error(s, A), tolerance<double>(1000));
  }
}

TEST(DirectSolver, FloatIsFactorisedInDouble) {
  const Csr<float> L = laplacian_3d<float>(7, 7, 7);
  const Csr<float> U = unsymmetric<float>(6);
  for (DirectMethod m : {DirectMethod::Auto, DirectMethod::Cholmod, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    const Csr<float>& A = m == DirectMethod::Cholmod ? L : U;
    DirectSolver<float> s(A, with_method(m));
    EXPECT_LT(solve_error(s, A), tolerance<float>(1000));
  }
}

TEST(DirectSolver, NumericallySingular) {
  // Rows 0 and 2 equal: a full structural rank, a zero pivot.
  const Csr<double> A = from_entries<double>(3, {{0, 0, 1}, {0, 1, 2}, {1, 1, 3}, {1, 2, 1}, {2, 0, 1}, {2, 1, 2}});
  for (DirectMethod m : {DirectMethod::Auto, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    EXPECT_THROW_MSG(DirectSolver<double>(A, with_method(m)), SingularMatrix, "numerically singular");
  }
}

TEST(DirectSolver, StructurallySingular) {
  // Column 2 empty: structural rank 2.
  const Csr<double> A = from_entries<double>(3, {{0, 0, 1}, {0, 1, 2}, {1, 0, 3}, {1, 1, 1}, {2, 0, 1}, {2, 1, 5}});
  for (DirectMethod m : {DirectMethod::Auto, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    try {
      DirectSolver<double> s(A, with_method(m));
      ADD_FAILURE() << "expected StructurallySingular";
    } catch (const StructurallySingular& e) {
      EXPECT_EQ(e.structural_rank(), 2);
      EXPECT_EQ(e.n(), 3);
      EXPECT_NE(std::string(e.what()).find("structural rank 2 < 3"), std::string::npos) << e.what();
    }
  }
}

// Symmetric, positive diagonal, indefinite: the 3D Laplacian shifted by -3 I.
Csr<double> shifted_laplacian() {
  Csr<double> A = laplacian_3d<double>(6, 6, 6);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] == i) A.values[p] -= 3.0;
  return A;
}

TEST(DirectSolver, ExplicitCholmodOnAnIndefiniteMatrix) {
  EXPECT_THROW_MSG(DirectSolver<double>(shifted_laplacian(), with_method(DirectMethod::Cholmod)), MatrixError,
                   "not positive definite (column ");
  EXPECT_THROW_MSG(DirectSolver<double>(unsymmetric<double>(4), with_method(DirectMethod::Cholmod)), MatrixError,
                   "symmetric");
}

TEST(DirectSolver, AutoLeavesCholmodForUmfpack) {
  const Csr<double> A = shifted_laplacian();
  DirectSolver<double> s(A);
  EXPECT_EQ(s.stats().method, DirectMethod::Umfpack);
  EXPECT_NE(s.stats().note.find("not positive definite"), std::string::npos) << s.stats().note;
  EXPECT_LT(solve_error(s, A), tolerance<double>(1e4));
}

TEST(DirectSolver, NanValues) {
  Csr<double> A = laplacian_3d<double>(4, 4, 4);
  DirectSolver<double> s(A);
  A.values[5] = kNaN;
  EXPECT_THROW(DirectSolver<double>{A}, MatrixError);
  EXPECT_THROW(s.update_values(std::span<const double>(A.values)), Error);
  std::vector<double> b(std::size_t(A.rows), 1.0), x(b.size());
  b[3] = kNaN;
  EXPECT_THROW(s.solve(std::span<const double>(b), std::span<double>(x)), Error);
}

TEST(DirectSolver, WrongShapes) {
  const Csr<double> A = laplacian_3d<double>(4, 4, 4);
  DirectSolver<double> s(A);
  std::vector<double> b(std::size_t(A.rows) + 1, 1.0), x(std::size_t(A.rows));
  EXPECT_THROW(s.solve(std::span<const double>(b), std::span<double>(x)), DimensionError);
  DenseMatrix<double> B(A.rows, 3), X(A.rows, 2);
  EXPECT_THROW(s.solve(B, X), DimensionError);
  DenseMatrix<double> B2(A.rows - 1, 2), X2(A.rows, 2);
  EXPECT_THROW(s.solve(B2, X2), DimensionError);
  EXPECT_THROW(s.update_values(std::span<const double>(b)), DimensionError);
  EXPECT_THROW(DirectSolver<double>(test::random_sparse<double>(5, 6, 0.5, 1)), DimensionError);
  EXPECT_THROW(s.update_values(laplacian_3d<double>(4, 4, 3)), MatrixError);
}

TEST(DirectSolver, MemoryLimitRefusesBeforeFactorising) {
  const Csr<double> A = laplacian_3d<double>(6, 6, 6);
  for (DirectMethod m : {DirectMethod::Cholmod, DirectMethod::Umfpack, DirectMethod::Klu}) {
    SCOPED_TRACE(to_string(m));
    DirectOptions o = with_method(m);
    o.memory_limit = 1;
    EXPECT_THROW_MSG(DirectSolver<double>(A, o), HostOutOfMemory, "the memory limit is");
    o.factorize = false;
    DirectSolver<double> s(A, o);
    EXPECT_THROW_MSG(s.factorize(), HostOutOfMemory, "predicted peak");
    EXPECT_EQ(s.stats().factorizations, 0);
    EXPECT_FALSE(s.stats().factorized);
  }
}

TEST(DirectSolver, CudaIsAnError) {
  DirectOptions o;
  o.device = Device::Cuda;
  EXPECT_THROW_MSG(DirectSolver<double>(laplacian_3d<double>(3, 3, 3), o), Error, "run on the CPU");
}

TEST(DirectSolver, ThreadsOption) {
  const Csr<double> A = unsymmetric<double>(6);
  DirectOptions o;
  o.threads = 1;
  DirectSolver<double> s(A, o);
  EXPECT_LT(solve_error(s, A), tolerance<double>(1e4));
}

TEST(DirectSolver, MovedFrom) {
  const Csr<double> A = laplacian_3d<double>(4, 4, 4);
  DirectSolver<double> a(A);
  DirectSolver<double> b(std::move(a));
  EXPECT_LT(solve_error(b, A), tolerance<double>(100));
  EXPECT_THROW_MSG(a.stats(), Error, "moved from");  // NOLINT(bugprone-use-after-move)
  std::vector<double> rhs(std::size_t(A.rows), 1.0), x(rhs.size());
  EXPECT_THROW_MSG(a.solve(std::span<const double>(rhs), std::span<double>(x)), Error, "moved from");
}

}  // namespace
}  // namespace balsa
