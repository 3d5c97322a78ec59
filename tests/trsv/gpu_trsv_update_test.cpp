// Pattern updates on the GPU (thesis ch. 6): TASSL's patched layout and
// values against a fresh analysis and the reference after every update,
// outputs poisoned before each solve; the counters of what was patched.
#include <cmath>
#include <limits>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"

namespace balsa {
namespace {

template <class T>
class TrsvUpdateGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrsvUpdateGpu, ValueTypes);

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-4 : 1e-11;
}

// `steps` updates of `columns` random columns of A; after each, the solve of
// host and device vectors against the reference and a fresh GPU analysis.
template <class T>
TrsvUpdateStats run_sequence(Csr<T> A, const TrsvOptions& o, int steps, index_t columns, std::uint64_t seed,
                             const std::string& what) {
  SCOPED_TRACE(what);
  TriangularSolver<T> solver(A, o);
  const bool transposed = o.operation == Operation::Transpose;
  const Triangle mt = transposed ? (o.triangle == Triangle::Lower ? Triangle::Upper : Triangle::Lower) : o.triangle;
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    ColumnReplacement<T> c = random_column_replacement(A, o.triangle, columns, seed + std::uint64_t(step));
    for (std::size_t t = 0; t < c.columns.size(); ++t)  // new diagonal values too
      for (index_t p = c.col_ptr[t]; p < c.col_ptr[t + 1]; ++p)
        if (c.row_idx[std::size_t(p)] == c.columns[t]) c.values[std::size_t(p)] *= T(1.5);
    solver.replace_columns(c.columns, c.col_ptr, c.row_idx, c.values);
    A = with_columns_replaced(A, c);
    const Csr<T> M = transposed ? transpose(A) : A;
    const std::vector<T> b = random_vector<T>(A.rows, 3 + std::uint64_t(step));
    std::vector<T> x = test::poisoned<T>(b.size()), ref(b.size());
    solver.solve(b, x);
    trsv_reference<T>(M, mt, o.diagonal, b, ref);
    EXPECT_TRUE(test::matches(x, ref, tolerance<T>()));
    cuda::DeviceBuffer<T> db(b.size()), dx(b.size());
    db.upload(b);
    test::poison(dx);
    solver.solve(db, dx);
    EXPECT_TRUE(test::matches(dx.to_host(), ref, tolerance<T>()));
    TriangularSolver<T> fresh(A, o);
    std::vector<T> y = test::poisoned<T>(b.size());
    fresh.solve(b, y);
    EXPECT_TRUE(test::matches(x, y, tolerance<T>()));
  }
  // New values for the final pattern still reach the patched layout.
  std::vector<T> values = A.values;
  for (T& v : values) v *= T(0.5);
  solver.update_values(values);
  for (T& v : A.values) v *= T(0.5);
  const Csr<T> M = transposed ? transpose(A) : A;
  const std::vector<T> b = random_vector<T>(A.rows, 99);
  std::vector<T> x = test::poisoned<T>(b.size()), ref(b.size());
  solver.solve(b, x);
  trsv_reference<T>(M, mt, o.diagonal, b, ref);
  EXPECT_TRUE(test::matches(x, ref, tolerance<T>()));
  return solver.stats().updates;
}

TYPED_TEST(TrsvUpdateGpu, TasslSequencesMatchTheReference) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> block = random_block_diagonal_lower<T>(8, 300, 0.02, 5);
  const Csr<T> banded = random_lower_banded<T>(3000, 40, 3, 6);
  const Csr<T> sparse = random_block_diagonal_lower<T>(4, 400, 0.001, 7);  // many isolated vertices
  int incremental = 0, recaptures = 0;
  for (const index_t n_max : {index_t(0), index_t(64)})
    for (const Operation op : {Operation::NonTranspose, Operation::Transpose}) {
      const std::string tag = " n_max " + std::to_string(n_max) + (op == Operation::Transpose ? " A^T" : " A");
      const TrsvOptions lower{.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cuda, .operation = op, .tassl_n_max = n_max};
      TrsvOptions upper = lower;
      upper.triangle = Triangle::Upper;
      TrsvOptions unit = lower;
      unit.diagonal = DiagonalKind::Unit;
      for (const TrsvUpdateStats& u :
           {run_sequence<T>(block, lower, 10, 1, 10, "block" + tag), run_sequence<T>(banded, lower, 6, 4, 20, "banded" + tag),
            run_sequence<T>(sparse, lower, 10, 3, 30, "sparse" + tag),
            run_sequence<T>(transpose(block), upper, 6, 2, 40, "block upper" + tag),
            run_sequence<T>(block, unit, 4, 1, 50, "block unit" + tag)}) {
        EXPECT_EQ(u.incremental + u.reanalyses, u.updates);
        incremental += u.incremental;
        recaptures += u.recaptures;
      }
    }
  EXPECT_GT(incremental, 0);
  EXPECT_GT(recaptures, 0);  // the sparse sequences create sub-graphs
}

TYPED_TEST(TrsvUpdateGpu, RealMatrixTriangles) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  int done = 0;
  test::for_each_square_real_matrix<T>([&](const Csr<T>& A) {
    if (done >= 4 || A.rows < 200) return;
    const Csr<T> L = test::with_dominant_diagonal(extract_triangle(A, Triangle::Lower));
    const TrsvUpdateStats u =
        run_sequence<T>(L, {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cuda}, 5, 1, 60, "real");
    EXPECT_GT(u.incremental, 0);
    ++done;
  });
  EXPECT_GT(done, 0);
}

TYPED_TEST(TrsvUpdateGpu, OtherAlgorithmsAnalyseAgain) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> L = random_lower_banded<T>(2000, 30, 3, 8);
  for (const TrsvAlgorithm alg : {TrsvAlgorithm::LevelSet, TrsvAlgorithm::SyncFreeBlocks, TrsvAlgorithm::Cusparse,
                                  TrsvAlgorithm::Auto}) {
    const TrsvUpdateStats u = run_sequence<T>(L, {.algorithm = alg, .device = Device::Cuda}, 3, 2, 70, to_string(alg));
    EXPECT_EQ(u.updates, 3);
  }
}

}  // namespace
}  // namespace balsa

namespace balsa {
namespace {

// An update that both the incremental path and the full analysis reject (a
// new entry that overflows float once its row is scaled by 1/l_ii) leaves
// the solver as it was.
TEST(TrsvUpdateGpuErrors, AFailedUpdateLeavesTheSolverAsItWas) {
  BALSA_REQUIRE_GPU();
  const Csr<float> L{6, 6, {0, 1, 3, 4, 6, 8, 10}, {0, 0, 1, 2, 1, 3, 2, 4, 2, 5},
                     {2.f, 0.5f, 2.f, 2.f, 0.25f, 2.f, 0.5f, 2.f, 1e-31f, 1e-30f}};
  TriangularSolver<float> solver(L, {.algorithm = TrsvAlgorithm::Tassl, .device = Device::Cuda});
  const std::vector<float> b = {1.f, 2.f, 3.f, 4.f, 5.f, 6e-30f};
  std::vector<float> before(6), after = test::poisoned<float>(6);
  solver.solve(b, before);
  const std::vector<index_t> columns = {1}, col_ptr = {0, 3}, rows = {1, 3, 5};
  const std::vector<float> values = {2.f, 0.25f, 1e10f};
  EXPECT_THROW(solver.replace_columns(columns, col_ptr, rows, values), Error);
  solver.solve(b, after);
  EXPECT_EQ(before, after);
  EXPECT_EQ(solver.stats().updates.updates, 0);
  EXPECT_EQ(solver.stats().nnz, L.nnz());
}

}  // namespace
}  // namespace balsa
