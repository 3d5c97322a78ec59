// TriangularSolver on the GPU: every GPU algorithm through the front end,
// against the reference, outputs poisoned before each solve.
#include <cmath>

#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"

namespace balsa {
namespace {

template <class T>
class TrsvSolverGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrsvSolverGpu, ValueTypes);

constexpr TrsvAlgorithm kGpuAlgorithms[] = {TrsvAlgorithm::LevelSet, TrsvAlgorithm::SyncFree,
                                            TrsvAlgorithm::SyncFreeCsc, TrsvAlgorithm::Cusparse,
                                            TrsvAlgorithm::Tassl, TrsvAlgorithm::SyncFreeBlocks, TrsvAlgorithm::Spike,
                                            TrsvAlgorithm::Auto};

TYPED_TEST(TrsvSolverGpu, EveryAlgorithmMatchesTheReference) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  for (const auto& c : test::triangular_cases<T>())
    for (const TrsvAlgorithm alg : kGpuAlgorithms)
      for (const Operation op : {Operation::NonTranspose, Operation::Transpose}) {
        const std::string what = c.name + " " + to_string(alg) + (op == Operation::Transpose ? " A^T" : " A");
        SCOPED_TRACE(what);
        TriangularSolver<T> solver(c.L, {.algorithm = alg, .device = Device::Cuda, .operation = op});
        const Csr<T> M = op == Operation::Transpose ? transpose(c.L) : c.L;
        const Triangle tri = op == Operation::Transpose ? Triangle::Upper : Triangle::Lower;
        // Device vectors, three right-hand sides in a row (the sync-free epochs advance).
        cuda::DeviceBuffer<T> db(std::size_t(c.L.rows)), dx(std::size_t(c.L.rows));
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          const std::vector<T> b = random_vector<T>(c.L.rows, seed);
          db.upload(b);
          test::poison(dx);
          solver.solve(db, dx);
          test::expect_matches_reference<T>(M, tri, DiagonalKind::NonUnit, b, dx.to_host(), what);
        }
        // Host vectors.
        const std::vector<T> b = random_vector<T>(c.L.rows, 9);
        std::vector<T> x = test::poisoned<T>(b.size());
        solver.solve(std::span<const T>(b), std::span<T>(x));
        test::expect_matches_reference<T>(M, tri, DiagonalKind::NonUnit, b, x, what + " host");
        if (::testing::Test::HasFailure()) return;
      }
}

TYPED_TEST(TrsvSolverGpu, UpperUnitAndUpdatedValues) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> L = random_lower_banded<T>(20000, 60, 5, 3);
  Csr<T> U = transpose(L);  // upper, non-unit
  for (const TrsvAlgorithm alg : kGpuAlgorithms) {
    SCOPED_TRACE(to_string(alg));
    for (const DiagonalKind diag : {DiagonalKind::NonUnit, DiagonalKind::Unit}) {
      Csr<T> A = U;
      if (diag == DiagonalKind::Unit) {  // keep the unit system well conditioned
        const std::vector<T> d = diagonal(U);
        for (index_t i = 0; i < A.rows; ++i)
          for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
            if (A.col_idx[k] != i) A.values[k] /= T(2) * d[i];
      }
      TriangularSolver<T> solver(A, {.algorithm = alg, .device = Device::Cuda, .triangle = Triangle::Upper,
                                     .diagonal = diag});
      const std::vector<T> b = random_vector<T>(A.rows, 5);
      std::vector<T> x = test::poisoned<T>(b.size());
      solver.solve(std::span<const T>(b), std::span<T>(x));
      test::expect_matches_reference<T>(A, Triangle::Upper, diag, b, x, "upper");
      // update_values: negate the off-diagonals.
      Csr<T> A2 = A;
      for (index_t i = 0; i < A2.rows; ++i)
        for (index_t k = A2.row_ptr[i]; k < A2.row_ptr[i + 1]; ++k)
          if (A2.col_idx[k] != i) A2.values[k] = -A2.values[k];
      solver.update_values(A2.values);
      test::poison(x);
      solver.solve(std::span<const T>(b), std::span<T>(x));
      test::expect_matches_reference<T>(A2, Triangle::Upper, diag, b, x, "upper after update_values");
    }
  }
}

template <class T>
DenseMatrix<T> random_columns(index_t rows, index_t cols, std::uint64_t seed) {
  DenseMatrix<T> B(rows, cols);
  for (index_t j = 0; j < cols; ++j) {
    const auto col = random_vector<T>(rows, seed + std::uint64_t(j));
    std::copy(col.begin(), col.end(), B.column(j).begin());
  }
  return B;
}

// Many right-hand sides in one call: host matrices and device matrices, column
// counts that change between calls (TASSL keeps a graph per grid height; 37
// columns exceed its 32-column grid, so blocks loop over columns; cuSPARSE
// re-runs the SpSM analysis), outputs poisoned, then new values.
TYPED_TEST(TrsvSolverGpu, ManyRightHandSides) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> L = random_lower_banded<T>(12000, 60, 5, 8);
  for (const TrsvAlgorithm alg : kGpuAlgorithms) {
    SCOPED_TRACE(to_string(alg));
    // n_max 1500: TASSL splits the band into sub-graphs on several levels.
    TriangularSolver<T> solver(L, {.algorithm = alg, .device = Device::Cuda, .tassl_n_max = 1500});
    for (const index_t k : {index_t(4), index_t(1), index_t(37), index_t(4)}) {
      const DenseMatrix<T> B = random_columns<T>(L.rows, k, 20 + std::uint64_t(k));
      DenseMatrix<T> X(L.rows, k);
      test::poison(X.values);
      solver.solve(B, X);
      for (index_t j = 0; j < k; ++j)
        test::expect_matches_reference<T>(L, Triangle::Lower, DiagonalKind::NonUnit, B.column(j), X.column(j),
                                          "host, column " + std::to_string(j) + " of " + std::to_string(k));
      cuda::DeviceBuffer<T> dB{std::span<const T>(B.values)}, dX(B.values.size());
      test::poison(dX);
      solver.solve(dB, dX, k);
      const std::vector<T> x = dX.to_host();
      for (index_t j = 0; j < k; ++j)
        test::expect_matches_reference<T>(L, Triangle::Lower, DiagonalKind::NonUnit, B.column(j),
                                          std::span<const T>(x).subspan(std::size_t(j) * std::size_t(L.rows),
                                                                        std::size_t(L.rows)),
                                          "device, column " + std::to_string(j) + " of " + std::to_string(k));
      if (::testing::Test::HasFailure()) return;
    }
    Csr<T> L2 = L;  // new values: the SpSM analysis and TASSL's scaled values follow
    for (index_t i = 0; i < L2.rows; ++i)
      for (index_t p = L2.row_ptr[i]; p < L2.row_ptr[i + 1]; ++p)
        if (L2.col_idx[p] != i) L2.values[p] *= T(-0.5);
    solver.update_values(L2.values);
    const DenseMatrix<T> B = random_columns<T>(L.rows, 4, 90);
    DenseMatrix<T> X(L.rows, 4);
    test::poison(X.values);
    solver.solve(B, X);
    for (index_t j = 0; j < 4; ++j)
      test::expect_matches_reference<T>(L2, Triangle::Lower, DiagonalKind::NonUnit, B.column(j), X.column(j),
                                        "after update_values");
    cuda::DeviceBuffer<T> small(std::size_t(L.rows) * 3 - 1), out(std::size_t(L.rows) * 3);
    EXPECT_THROW_MSG(solver.solve(small, out, 3), DimensionError, "rows x columns");
    EXPECT_THROW_MSG(solver.solve(out, out, 3), Error, "different device buffers");
    EXPECT_THROW_MSG(solver.solve(small, out, -1), DimensionError, "-1 right-hand sides");
  }
}

// A prechecked pattern without values (the IC(0)/ILU(0) preconditioners'
// path): every GPU algorithm refuses to solve until values come, from the
// host or from the device (sync-free blocks then never had any), and then
// matches the reference; for Lower and Upper.
TYPED_TEST(TrsvSolverGpu, PatternWithoutValuesWaitsForThem) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> lower = random_lower_banded<T>(9000, 40, 4, 12);
  for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
    const Csr<T> A = tri == Triangle::Lower ? lower : transpose(lower);
    const std::vector<T> b = random_vector<T>(A.rows, 13);
    for (const TrsvAlgorithm alg : kGpuAlgorithms)
      for (const bool from_device : {false, true}) {
        SCOPED_TRACE(std::string(to_string(alg)) + (tri == Triangle::Lower ? " lower" : " upper") +
                     (from_device ? ", device values" : ", host values"));
        TriangularSolver<T> solver(Csr<T>{A.rows, A.cols, A.row_ptr, A.col_idx, {}},
                                   {.algorithm = alg, .device = Device::Cuda, .triangle = tri, .tassl_n_max = 1500},
                                   detail::PrecheckedMatrix());
        std::vector<T> x = test::poisoned<T>(b.size());
        EXPECT_THROW_MSG(solver.solve(std::span<const T>(b), std::span<T>(x)), Error, "no values yet");
        cuda::DeviceBuffer<T> db{std::span<const T>(b)}, dx(b.size());
        EXPECT_THROW_MSG(solver.solve(db, dx), Error, "no values yet");
        if (from_device)
          solver.update_values(cuda::DeviceBuffer<T>{std::span<const T>(A.values)});
        else
          solver.update_values(std::span<const T>(A.values));
        solver.solve(std::span<const T>(b), std::span<T>(x));
        test::expect_matches_reference<T>(A, tri, DiagonalKind::NonUnit, b, x, "host solve");
        test::poison(dx);
        solver.solve(db, dx);
        test::expect_matches_reference<T>(A, tri, DiagonalKind::NonUnit, b, dx.to_host(), "device solve");
        if (::testing::Test::HasFailure()) return;
      }
  }
}

TEST(TrsvSolverGpuErrors, BadInputIsNamedOnTheGpuPath) {
  BALSA_REQUIRE_GPU();
  const Csr<double> L = random_lower_banded<double>(100, 10, 3, 1);
  for (const TrsvAlgorithm alg : kGpuAlgorithms) {
    SCOPED_TRACE(to_string(alg));
    const TrsvOptions gpu{.algorithm = alg, .device = Device::Cuda};
    EXPECT_THROW_MSG(TriangularSolver<double>(transpose(L), gpu), MatrixError, "not lower triangular");
    Csr<double> Z = L;
    Z.values[Z.row_ptr[4] - 1] = 0.0;
    EXPECT_THROW_MSG(TriangularSolver<double>(Z, gpu), MatrixError, "zero diagonal entry at (row 3, column 3)");
    Csr<double> N = L;
    N.values[7] = std::nan("");
    EXPECT_THROW_MSG(TriangularSolver<double>(N, gpu), MatrixError, "NaN value at");
    TriangularSolver<double> solver(L, gpu);
    std::vector<double> b(100, 1.0), x(100);
    b[3] = INFINITY;
    EXPECT_THROW_MSG(solver.solve(std::span<const double>(b), std::span<double>(x)), Error,
                     "Inf in right-hand side at index 3");
    cuda::DeviceBuffer<double> db(100), dx(99);
    EXPECT_THROW_MSG(solver.solve(db, dx), DimensionError, "x has 99 entries");
    EXPECT_THROW_MSG(solver.solve(db, db), Error, "different device buffers");
  }
  EXPECT_THROW_MSG(TriangularSolver<double>(L, {.algorithm = TrsvAlgorithm::Reference, .device = Device::Cuda}),
                   Error, "runs on the CPU only");
}

// update_values from device memory: every GPU algorithm, plain and transposed
// solves (the gather from the caller's order), then bad device values (NaN, a
// zero diagonal) are named and leave the previous values in effect.
TYPED_TEST(TrsvSolverGpu, DeviceValueUpdates) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> L = random_lower_banded<T>(5000, 40, 4, 31);
  Csr<T> L2 = L;
  for (index_t i = 0; i < L2.rows; ++i)
    for (index_t p = L2.row_ptr[i]; p < L2.row_ptr[i + 1]; ++p) L2.values[p] *= L2.col_idx[p] == i ? T(2) : T(-0.75);
  const std::vector<T> b = random_columns<T>(L.rows, 1, 7).values;
  for (const TrsvAlgorithm alg : kGpuAlgorithms) {
    for (const Operation op : {Operation::NonTranspose, Operation::Transpose}) {
      SCOPED_TRACE(std::string(to_string(alg)) + (op == Operation::Transpose ? " transposed" : ""));
      TriangularSolver<T> solver(L, {.algorithm = alg, .device = Device::Cuda, .operation = op});
      const Csr<T> M2 = op == Operation::Transpose ? transpose(L2) : L2;
      const Triangle tri2 = op == Operation::Transpose ? Triangle::Upper : Triangle::Lower;
      cuda::DeviceBuffer<T> values{std::span<const T>(L2.values)};
      solver.update_values(values);
      std::vector<T> x = test::poisoned<T>(b.size());
      solver.solve(std::span<const T>(b), std::span<T>(x));
      test::expect_matches_reference<T>(M2, tri2, DiagonalKind::NonUnit, b, x, "after a device update");
      std::vector<T> bad = L.values;
      bad[bad.size() / 2] = std::numeric_limits<T>::quiet_NaN();
      cuda::DeviceBuffer<T> bad_nan{std::span<const T>(bad)};
      EXPECT_THROW_MSG(solver.update_values(bad_nan), MatrixError, "NaN or Inf at row");
      bad = L.values;
      bad[std::size_t(L.row_ptr[77 + 1] - 1)] = T(0);  // row 77's diagonal (last in the row)
      cuda::DeviceBuffer<T> bad_diag{std::span<const T>(bad)};
      EXPECT_THROW_MSG(solver.update_values(bad_diag), MatrixError, "zero diagonal at row 77, column 77");
      cuda::DeviceBuffer<T> short_values(L.values.size() - 1);
      EXPECT_THROW_MSG(solver.update_values(short_values), DimensionError, "values for a pattern");
      test::poison(x);
      solver.solve(std::span<const T>(b), std::span<T>(x));  // still L2's values
      test::expect_matches_reference<T>(M2, tri2, DiagonalKind::NonUnit, b, x, "after rejected device updates");
    }
  }
}

}  // namespace
}  // namespace balsa
