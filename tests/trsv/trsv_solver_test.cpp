// TriangularSolver on the CPU: every option against the reference.
#include <cmath>

#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"

namespace balsa {
namespace {

template <class T>
class TrsvSolverCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrsvSolverCpu, ValueTypes);

// Unit-diagonal variant of L: each row's off-diagonals divided by twice its
// diagonal, so (the cases having dominant diagonals) their absolute row sum
// stays below 1/2 and the unit-diagonal system stays well conditioned.
template <class T>
Csr<T> unit_variant(const Csr<T>& L) {
  Csr<T> U = L;
  const std::vector<T> d = diagonal(L);
  for (index_t i = 0; i < U.rows; ++i)
    for (index_t k = U.row_ptr[i]; k < U.row_ptr[i + 1]; ++k)
      if (U.col_idx[k] != i) U.values[k] /= T(2) * d[i];
  return U;
}

TYPED_TEST(TrsvSolverCpu, EveryModeMatchesTheReference) {
  using T = TypeParam;
  for (const auto& c : test::triangular_cases<T>()) {
    for (const TrsvAlgorithm alg :
         {TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet, TrsvAlgorithm::Tassl, TrsvAlgorithm::Spike,
          TrsvAlgorithm::Auto})
      for (const Operation op : {Operation::NonTranspose, Operation::Transpose})
        for (const Triangle tri : {Triangle::Lower, Triangle::Upper})
          for (const DiagonalKind diag : {DiagonalKind::NonUnit, DiagonalKind::Unit}) {
            const Csr<T> base = diag == DiagonalKind::Unit ? unit_variant(c.L) : c.L;
            const Csr<T> A = tri == Triangle::Lower ? base : transpose(base);
            const std::string what = c.name + " " + to_string(alg) + (op == Operation::Transpose ? " A^T" : " A") +
                                     (tri == Triangle::Lower ? " lower" : " upper") +
                                     (diag == DiagonalKind::Unit ? " unit" : "");
            // TASSL with small sub-graphs: many sub-graph levels and external edges.
            TriangularSolver<T> solver(A, {.algorithm = alg, .device = Device::Cpu, .triangle = tri,
                                           .diagonal = diag, .operation = op, .tassl_n_max = 97});
            const std::vector<T> b = random_vector<T>(A.rows, 7);
            std::vector<T> x = test::poisoned<T>(b.size());
            solver.solve(std::span<const T>(b), std::span<T>(x));
            // The system actually solved: A, or A^T (the other triangle).
            const Csr<T> M = op == Operation::Transpose ? transpose(A) : A;
            const Triangle mtri = op == Operation::Transpose ? (tri == Triangle::Lower ? Triangle::Upper : Triangle::Lower) : tri;
            test::expect_matches_reference<T>(M, mtri, diag, b, x, what);
            if (::testing::Test::HasFailure()) return;
          }
  }
}

TYPED_TEST(TrsvSolverCpu, StatsDescribeTheAnalysis) {
  using T = TypeParam;
  TriangularSolver<T> chain(chain_lower<T>(300), {.algorithm = TrsvAlgorithm::LevelSet, .device = Device::Cpu});
  EXPECT_EQ(chain.stats().levels, 300);
  EXPECT_EQ(chain.stats().widest_level, 1);
  EXPECT_EQ(chain.stats().algorithm, TrsvAlgorithm::LevelSet);
  EXPECT_EQ(chain.stats().rows, 300);
  EXPECT_EQ(chain.stats().nnz, 599);
  EXPECT_GE(chain.stats().analysis_seconds, 0.0);
  // A^T of the chain is upper bidiagonal: still 300 levels.
  TriangularSolver<T> chain_t(chain_lower<T>(300), {.device = Device::Cpu, .operation = Operation::Transpose});
  EXPECT_EQ(chain_t.stats().levels, 300);
  TriangularSolver<T> star(star_lower<T>(100), {.device = Device::Cpu});
  EXPECT_EQ(star.stats().levels, 2);
  EXPECT_EQ(star.stats().widest_level, 99);
  EXPECT_EQ(star.stats().tassl.subgraphs, 0);  // not a TASSL solver
  // TASSL on the chain with sub-graphs of 64: 5 sub-graphs in a chain of 5
  // sub-graph levels, 299 edges, 4 of them between sub-graphs.
  TriangularSolver<T> tassl(chain_lower<T>(300),
                            {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cpu, .tassl_n_max = 64});
  const TasslStats& t = tassl.stats().tassl;
  EXPECT_EQ(t.n_max, 64);
  EXPECT_EQ(t.subgraphs, 5);
  EXPECT_EQ(t.subgraph_levels, 5);
  EXPECT_EQ(t.external_edges, 4);
  EXPECT_EQ(t.internal_edges, 295);
  EXPECT_EQ(t.internal_slots, 295);
  EXPECT_EQ(t.isolated, 0);
  EXPECT_EQ(t.fallbacks, 0);
  EXPECT_THROW_MSG(TriangularSolver<T>(chain_lower<T>(30), {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cpu,
                                                           .tassl_n_max = -3}),
                   DimensionError, "tassl_n_max");
}

TYPED_TEST(TrsvSolverCpu, ManyRightHandSidesAndUpdateValues) {
  using T = TypeParam;
  const Csr<T> L = random_lower_banded<T>(3000, 40, 5, 4);
  for (const Operation op : {Operation::NonTranspose, Operation::Transpose})
  for (const TrsvAlgorithm alg : {TrsvAlgorithm::LevelSet, TrsvAlgorithm::Tassl, TrsvAlgorithm::Reference}) {
    SCOPED_TRACE(to_string(alg));
    // The columns are solved in parallel: each must come out right.
    TriangularSolver<T> solver(L, {.algorithm = alg, .device = Device::Cpu, .operation = op, .tassl_n_max = 300});
    DenseMatrix<T> B(L.rows, 3), X(L.rows, 3);
    test::poison(X.values);
    for (index_t j = 0; j < 3; ++j) {
      const auto col = random_vector<T>(L.rows, 10 + j);
      std::copy(col.begin(), col.end(), B.column(j).begin());
    }
    solver.solve(B, X);
    const Csr<T> M = op == Operation::Transpose ? transpose(L) : L;
    const Triangle tri = op == Operation::Transpose ? Triangle::Upper : Triangle::Lower;
    for (index_t j = 0; j < 3; ++j)
      test::expect_matches_reference<T>(M, tri, DiagonalKind::NonUnit, B.column(j), X.column(j), "column");
    // New values (same pattern): scale the off-diagonals.
    Csr<T> L2 = L;
    for (index_t i = 0; i < L2.rows; ++i)
      for (index_t k = L2.row_ptr[i]; k < L2.row_ptr[i + 1]; ++k)
        if (L2.col_idx[k] != i) L2.values[k] *= T(-0.5);
    solver.update_values(L2.values);
    std::vector<T> x(std::size_t(L.rows));
    solver.solve(B.column(0), std::span<T>(x));
    const Csr<T> M2 = op == Operation::Transpose ? transpose(L2) : L2;
    test::expect_matches_reference<T>(M2, tri, DiagonalKind::NonUnit, B.column(0), x, "after update_values");
  }
}

// The constructor that takes A's arrays: the same solver as from a copy;
// when the checks throw, A is untouched.
TYPED_TEST(TrsvSolverCpu, TakingTheMatrixSolvesLikeCopyingIt) {
  using T = TypeParam;
  for (const auto& c : test::triangular_cases<T>())
    for (const TrsvAlgorithm alg : {TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet, TrsvAlgorithm::Tassl}) {
      const TrsvOptions o{.algorithm = alg, .device = Device::Cpu, .tassl_n_max = 97};
      TriangularSolver<T> copied(c.L, o);
      Csr<T> L = c.L;
      TriangularSolver<T> taken(std::move(L), o);
      const std::vector<T> b = random_vector<T>(c.L.rows, 3);
      std::vector<T> x1(b.size()), x2(b.size());
      copied.solve(std::span<const T>(b), std::span<T>(x1));
      taken.solve(std::span<const T>(b), std::span<T>(x2));
      EXPECT_EQ(x1, x2) << c.name << " " << to_string(alg);
      EXPECT_EQ(taken.stats().levels, copied.stats().levels);
    }
  Csr<T> U = transpose(test::triangular_cases<T>().front().L);
  const Csr<T> before = U;
  EXPECT_THROW_MSG(TriangularSolver<T>(std::move(U), {.device = Device::Cpu}), MatrixError, "not lower triangular");
  EXPECT_EQ(U.col_idx, before.col_idx);
  EXPECT_EQ(U.values, before.values);
}

// A prechecked pattern without values (the IC(0)/ILU(0) preconditioners'
// path, detail::PrecheckedMatrix): solves are refused until update_values,
// after which the solver gives the reference's answer; a transposed solve of
// such a pattern is refused at construction.
TYPED_TEST(TrsvSolverCpu, PatternWithoutValuesWaitsForThem) {
  using T = TypeParam;
  for (const auto& c : test::triangular_cases<T>())
    for (const TrsvAlgorithm alg : {TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet, TrsvAlgorithm::Tassl, TrsvAlgorithm::Spike}) {
      if (c.L.nnz() == 0) continue;  // nothing to wait for
      const std::string what = c.name + " " + to_string(alg);
      TriangularSolver<T> solver(Csr<T>{c.L.rows, c.L.cols, c.L.row_ptr, c.L.col_idx, {}},
                                 {.algorithm = alg, .device = Device::Cpu, .tassl_n_max = 97},
                                 detail::PrecheckedMatrix());
      const std::vector<T> b = random_vector<T>(c.L.rows, 11);
      std::vector<T> x = test::poisoned<T>(b.size());
      EXPECT_THROW_MSG(solver.solve(std::span<const T>(b), std::span<T>(x)), Error, "no values yet");
      EXPECT_THROW_MSG(solver.update_values(std::span<const T>(c.L.values).first(c.L.values.size() - 1)),
                       DimensionError, "values for a pattern of");
      EXPECT_THROW_MSG(solver.solve(std::span<const T>(b), std::span<T>(x)), Error, "no values yet");
      solver.update_values(std::span<const T>(c.L.values));
      solver.solve(std::span<const T>(b), std::span<T>(x));
      test::expect_matches_reference<T>(c.L, Triangle::Lower, DiagonalKind::NonUnit, b, x, what);
      if (::testing::Test::HasFailure()) return;
    }
  const Csr<T> L = test::triangular_cases<T>().back().L;
  ASSERT_GT(L.nnz(), 0);
  EXPECT_THROW_MSG(TriangularSolver<T>(Csr<T>{L.rows, L.cols, L.row_ptr, L.col_idx, {}},
                                       {.device = Device::Cpu, .operation = Operation::Transpose},
                                       detail::PrecheckedMatrix()),
                   Error, "without values must be solved as it is");
}

// TrsvOptions::threads: Auto on the CPU with one thread substitutes serially
// (trsv/auto_choice.cpp), the calls leave the caller's OpenMP setting as it
// was, and a count outside [0, hardware_threads()] is an Error.
TEST(TrsvSolverCpuThreads, OneThreadIsSerialAndTheCallerKeepsItsSetting) {
  const Csr<double> L = extract_triangle(laplacian_3d<double>(60, 60, 60), Triangle::Lower);  // 178 levels of 1,213 rows
  const int before = current_threads();
  TriangularSolver<double> solver(L, {.device = Device::Cpu, .threads = 1});
  EXPECT_EQ(solver.stats().algorithm, TrsvAlgorithm::Reference);
  EXPECT_EQ(current_threads(), before);
  const std::vector<double> b = random_vector<double>(L.rows, 3);
  std::vector<double> x(b.size());
  solver.solve(std::span<const double>(b), std::span<double>(x));
  EXPECT_EQ(current_threads(), before);
  test::expect_matches_reference<double>(L, Triangle::Lower, DiagonalKind::NonUnit, b, x, "threads = 1");
}

TEST(TrsvSolverCpuThreads, OutOfRangeIsAnError) {
  const Csr<double> L = random_lower_banded<double>(100, 10, 3, 1);
  EXPECT_THROW_MSG(TriangularSolver<double>(L, {.device = Device::Cpu, .threads = -1}), Error,
                   "TrsvOptions::threads = -1: must be 0");
  const int too_many = hardware_threads() + 1;
  EXPECT_THROW_MSG(TriangularSolver<double>(L, {.device = Device::Cpu, .threads = too_many}), Error,
                   "or 1 to " + std::to_string(too_many - 1) + " (this machine's hardware threads)");
  EXPECT_THROW_MSG(set_threads(0), Error, "set_threads(0): must be 1 to");
}

TEST(TrsvSolverCpuErrors, BadInputIsNamed) {
  const Csr<double> L = random_lower_banded<double>(100, 10, 3, 1);
  const TrsvOptions cpu{.device = Device::Cpu};
  EXPECT_THROW_MSG(TriangularSolver<double>(transpose(L), cpu), MatrixError, "not lower triangular: entry at (row 0");
  Csr<double> Z = L;
  Z.values[Z.row_ptr[6] - 1] = 0.0;  // row 5's diagonal (last in its sorted row)
  EXPECT_THROW_MSG(TriangularSolver<double>(Z, cpu), MatrixError, "zero diagonal entry at (row 5, column 5)");
  Csr<double> N = L;
  N.values[3] = INFINITY;
  EXPECT_THROW_MSG(TriangularSolver<double>(N, cpu), MatrixError, "Inf value at");
  EXPECT_THROW_MSG(TriangularSolver<double>(L, {.algorithm = TrsvAlgorithm::SyncFree, .device = Device::Cpu}), Error,
                   "runs on the GPU only");
  if (!cuda::available())
    EXPECT_THROW_MSG(TriangularSolver<double>(L, {.device = Device::Cuda}), CudaError, "Device::Cuda");

  TriangularSolver<double> solver(L, cpu);
  std::vector<double> b(100, 1.0), x(100), short_x(99);
  EXPECT_THROW_MSG(solver.solve(std::span<const double>(b), std::span<double>(short_x)), DimensionError,
                   "x has 99 entries, the matrix 100 rows");
  b[42] = std::nan("");
  EXPECT_THROW_MSG(solver.solve(std::span<const double>(b), std::span<double>(x)), Error,
                   "NaN in right-hand side at index 42");
  std::vector<double> values = L.values;
  values[L.row_ptr[1] - 1] = 0.0;  // row 0's diagonal
  EXPECT_THROW_MSG(solver.update_values(values), MatrixError, "zero diagonal entry at (row 0, column 0)");
  EXPECT_THROW_MSG(solver.update_values(std::vector<double>(5)), DimensionError, "5 values for a pattern of");
  // A failed update keeps the old values: the solver still solves L.
  b[42] = 1.0;
  solver.solve(std::span<const double>(b), std::span<double>(x));
  test::expect_matches_reference<double>(L, Triangle::Lower, DiagonalKind::NonUnit, b, x, "after a failed update");
  cuda::DeviceBuffer<double> db, dx;
  EXPECT_THROW_MSG(solver.solve(db, dx), Error, "need a solver on Device::Cuda");
  EXPECT_THROW_MSG(solver.solve(db, dx, 3), Error, "need a solver on Device::Cuda");
  // Blocks of right-hand sides: wrong row count, values not rows x cols, NaN.
  DenseMatrix<double> B(99, 2), X;
  EXPECT_THROW_MSG(solver.solve(B, X), DimensionError, "B has 99 entries");
  B = DenseMatrix<double>(100, 2, 1.0);
  B.values.pop_back();
  EXPECT_THROW_MSG(solver.solve(B, X), DimensionError, "B holds 199 values for 100 x 2");
  B = DenseMatrix<double>(100, 2, 1.0);
  B(7, 1) = std::nan("");
  EXPECT_THROW_MSG(solver.solve(B, X), Error, "NaN in right-hand side at index 107");
  // A moved-from solver is an error, not a crash.
  TriangularSolver<double> moved = std::move(solver);
  EXPECT_EQ(moved.rows(), 100);
  EXPECT_THROW_MSG(solver.solve(std::span<const double>(b), std::span<double>(x)), Error, "moved from");
  EXPECT_THROW_MSG((void)solver.stats(), Error, "moved from");
}

}  // namespace
}  // namespace balsa
