// The partitioned ("spike") triangular solve on the GPU (trsv/spike/spike.cu)
// against the reference and the CPU spike: chain lengths that give one or two
// levels of the boundary recurrence and chains shorter than the bandwidth,
// upper and transposed systems, float and double, outputs poisoned before
// every solve; Auto's choice of it on deep narrow chains; Device::Auto's
// host solves of tiny triangles.
#include <limits>

#include "balsa/generators.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"

namespace balsa {
namespace {

template <class T>
class SpikeGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpikeGpu, ValueTypes);

TYPED_TEST(SpikeGpu, MatchesTheReferenceOverChainLengths) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> L = random_lower_banded<T>(50000, 50, 4, 7);
  for (const index_t m : {0, 1024, 50, 17, 50000})
    for (const Operation op : {Operation::NonTranspose, Operation::Transpose})
      for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
        const Csr<T> A = tri == Triangle::Lower ? L : transpose(L);
        const std::string what = "m " + std::to_string(m) + (op == Operation::Transpose ? " A^T" : " A") +
                                 (tri == Triangle::Lower ? " lower" : " upper");
        SCOPED_TRACE(what);
        TriangularSolver<T> gpu(A, {.algorithm = TrsvAlgorithm::Spike,
                                    .device = Device::Cuda,
                                    .triangle = tri,
                                    .operation = op,
                                    .spike_chain_rows = m});
        ASSERT_EQ(gpu.stats().algorithm, TrsvAlgorithm::Spike) << gpu.stats().spike.fallback;
        const Csr<T> M = op == Operation::Transpose ? transpose(A) : A;
        const Triangle solved =
            op == Operation::Transpose ? (tri == Triangle::Lower ? Triangle::Upper : Triangle::Lower) : tri;
        cuda::DeviceBuffer<T> db(std::size_t(A.rows)), dx(std::size_t(A.rows));
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
          const std::vector<T> b = random_vector<T>(A.rows, seed);
          db.upload(b);
          test::poison(dx);
          gpu.solve(db, dx);
          test::expect_matches_reference<T>(M, solved, DiagonalKind::NonUnit, b, dx.to_host(), what);
        }
        if (::testing::Test::HasFailure()) return;
      }
}

TYPED_TEST(SpikeGpu, DeviceValueUpdatesRecomputeTheSpikes) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> L = random_lower_banded<T>(20000, 30, 5, 2);
  TriangularSolver<T> solver(L, {.algorithm = TrsvAlgorithm::Spike, .device = Device::Cuda, .spike_chain_rows = 128});
  Csr<T> L2 = L;
  for (index_t i = 0; i < L2.rows; ++i)
    for (index_t p = L2.row_ptr[i]; p < L2.row_ptr[i + 1]; ++p)
      if (L2.col_idx[p] != i) L2.values[p] *= T(-0.7);
  const cuda::DeviceBuffer<T> values{std::span<const T>(L2.values)};
  solver.update_values(values);
  const std::vector<T> b = random_vector<T>(L.rows, 4);
  std::vector<T> x = test::poisoned<T>(b.size());
  solver.solve(std::span<const T>(b), std::span<T>(x));
  test::expect_matches_reference<T>(L2, Triangle::Lower, DiagonalKind::NonUnit, b, x, "device update");
}

// Auto: deep narrow chains (a random band, the IC(0) factor's lower
// triangle of the thesis' banded family) go to Spike; the Laplacians do not.
TEST(SpikeGpuAuto, DeepNarrowChainsChooseSpike) {
  BALSA_REQUIRE_GPU();
  const Csr<double> band = random_lower_banded<double>(400000, 50, 4, 1);
  TriangularSolver<double> a(band, {.device = Device::Cuda});
  EXPECT_EQ(a.stats().algorithm, TrsvAlgorithm::Spike);
  const std::vector<double> b = random_vector<double>(band.rows, 3);
  std::vector<double> x = test::poisoned<double>(b.size());
  a.solve(std::span<const double>(b), std::span<double>(x));
  test::expect_matches_reference<double>(band, Triangle::Lower, DiagonalKind::NonUnit, b, x, "auto band");
  const Csr<double> lap = extract_triangle(laplacian_3d<double>(40, 40, 40), Triangle::Lower);
  TriangularSolver<double> l(lap, {.device = Device::Cuda});
  EXPECT_NE(l.stats().algorithm, TrsvAlgorithm::Spike);
}

// Device::Auto with a tiny triangle: host vectors are solved on the host,
// device vectors on the GPU; both right.
TEST(SpikeGpuAuto, TinyTrianglesSolveHostVectorsOnTheHost) {
  BALSA_REQUIRE_GPU();
  const Csr<double> L = random_lower_banded<double>(500, 10, 3, 1);
  TriangularSolver<double> s(L);  // Device::Auto
  EXPECT_EQ(s.stats().device, Device::Cuda);
  EXPECT_TRUE(s.stats().host_solves_on_cpu);
  TriangularSolver<double> on_gpu(L, {.device = Device::Cuda});
  EXPECT_FALSE(on_gpu.stats().host_solves_on_cpu);
  const std::vector<double> b = random_vector<double>(L.rows, 3);
  std::vector<double> x = test::poisoned<double>(b.size());
  s.solve(std::span<const double>(b), std::span<double>(x));
  test::expect_matches_reference<double>(L, Triangle::Lower, DiagonalKind::NonUnit, b, x, "host");
  cuda::DeviceBuffer<double> db{std::span<const double>(b)}, dx(b.size());
  test::poison(dx);
  s.solve(db, dx);
  test::expect_matches_reference<double>(L, Triangle::Lower, DiagonalKind::NonUnit, b, dx.to_host(), "device");
}

// Auto on small triangles times its pick against cuSPARSE and keeps the
// faster (both times reported); the answer is right either way. A pattern
// without values (the preconditioners') has nothing to time.
TEST(SpikeGpuAuto, SmallTrianglesAreTimedAgainstCusparse) {
  BALSA_REQUIRE_GPU();
  for (const auto& c : test::triangular_cases<double>()) {
    if (c.L.nnz() <= c.L.rows) continue;
    SCOPED_TRACE(c.name);
    TriangularSolver<double> s(c.L, {.device = Device::Cuda});
    if (c.L.rows > 200000) continue;
    const TrsvStats& st = s.stats();
    EXPECT_GT(st.trial_pick_seconds, 0.0) << st.trial;
    EXPECT_NE(st.trial.find("cusparse"), std::string::npos) << st.trial;
    const std::string pick = st.trial.substr(0, st.trial.find(' '));
    if (pick != "cusparse" && st.trial_cusparse_seconds < 0.95 * st.trial_pick_seconds) {
      EXPECT_NE(to_string(st.algorithm), pick) << st.trial;
    }
    TriangularSolver<double> untimed(c.L, {.device = Device::Cuda, .auto_trial = false});
    EXPECT_EQ(untimed.stats().trial_pick_seconds, 0.0);
    const std::vector<double> b = random_vector<double>(c.L.rows, 3);
    cuda::DeviceBuffer<double> db{std::span<const double>(b)}, dx(b.size());
    test::poison(dx);
    s.solve(db, dx);
    test::expect_matches_reference<double>(c.L, Triangle::Lower, DiagonalKind::NonUnit, b, dx.to_host(), c.name);
  }
  const Csr<double> L = random_lower_banded<double>(3000, 20, 4, 2);
  TriangularSolver<double> pending(Csr<double>{L.rows, L.cols, L.row_ptr, L.col_idx, {}}, {.device = Device::Cuda},
                                   detail::PrecheckedMatrix());
  EXPECT_EQ(pending.stats().trial_pick_seconds, 0.0);
}

}  // namespace
}  // namespace balsa
