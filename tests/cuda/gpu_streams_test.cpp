// CUDA streams (README, "Threads"; include/balsa/core.hpp, StreamHandle):
// objects on two streams in two threads set up and solve at the same time;
// balsa's work never waits for the legacy default stream nor for the whole
// device; the device-pointer entry points agree with the DeviceBuffer ones.
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "balsa/config.hpp"
#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"

#if BALSA_HAS_CUDA
#include <cuda_runtime.h>

namespace balsa {
namespace {


#define CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

// A non-blocking stream of the test's own (never ordered with the legacy
// default stream), destroyed with it.
class OwnStream {
 public:
  OwnStream() { (void)cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
  ~OwnStream() { (void)cudaStreamDestroy(s_); }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// A GPU triangular solver on `stream` (device vectors made there too, so
// that nothing of this solve touches another stream), solved twice with x
// poisoned before each solve, against the CPU reference.
void check_trsv_on(cudaStream_t stream, const Csr<double>& L, TrsvAlgorithm algorithm, const std::string& what) {
  SCOPED_TRACE(what);
  const cuda::StreamScope on(stream);
  TriangularSolver<double> solver(L, {.algorithm = algorithm, .device = Device::Cuda, .stream = stream});
  const std::vector<double> b = random_vector<double>(L.rows, std::uint64_t(L.rows));
  const cuda::DeviceBuffer<double> db{std::span<const double>(b)};
  cuda::DeviceBuffer<double> dx(b.size());
  for (int k = 0; k < 2; ++k) {
    test::poison(dx);
    solver.solve(db, dx);
    const std::vector<double> x = dx.to_host();  // waits for `stream`, where the solve ran
    test::expect_matches_reference(L, Triangle::Lower, DiagonalKind::NonUnit, std::span<const double>(b),
                                   std::span<const double>(x), what);
  }
}

KrylovOptions pcg_ic0(Device device, cudaStream_t stream) {
  KrylovOptions o = krylov_options(KrylovPreset::PcgIc0);
  o.device = device;
  o.stopping.tolerance = 1e-10;
  o.stream = stream;
  return o;
}

// PCG-IC(0) on `stream` with device vectors, against the CPU path. x is the
// initial guess (0, not NaN: a NaN guess is an input error); the CPU path's
// answer shows any entry the GPU left unwritten or wrong.
void check_pcg_on(cudaStream_t stream, const Csr<double>& A, const std::string& what) {
  SCOPED_TRACE(what);
  const std::vector<double> b = multiply(A, std::span<const double>(random_vector<double>(A.rows, 7)));
  std::vector<double> expected(b.size(), 0.0);
  KrylovSolver<double>(A, pcg_ic0(Device::Cpu, nullptr)).solve(std::span<const double>(b), std::span<double>(expected));
  const cuda::StreamScope on(stream);
  KrylovSolver<double> solver(A, pcg_ic0(Device::Cuda, stream));
  const cuda::DeviceBuffer<double> db{std::span<const double>(b)};
  cuda::DeviceBuffer<double> dx(b.size());
  dx.fill_bytes(0);
  const KrylovStats st = solver.solve(db, dx);
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_TRUE(test::matches<double>(dx.to_host(), expected, 1e-6));
}

Csr<double> lower_case(int thread, int round) {
  return random_lower_banded<double>(3000 + 700 * thread + 150 * round, 48, 5, std::uint64_t(100 * thread + round));
}
Csr<double> spd_case(int thread, int round) { return laplacian_2d<double>(30 + 3 * round, 24 + 5 * thread); }

// Two threads, each with its own stream, building and solving at the same
// time, round after round (TASSL and Auto capture CUDA graphs in their
// set-up; the IC(0) preconditioner builds two triangular solvers on threads
// of its own): no lock serialises them, and no capture is disturbed.
TEST(StreamsGpu, TwoThreadsTwoStreamsSetUpAndSolveConcurrently) {
  BALSA_REQUIRE_GPU();
  constexpr int kThreads = 2, kRounds = 6;
  std::atomic<int> ready{0};
  std::string errors[kThreads];  // a thread's exception, reported after the join (not std::terminate)
  auto work = [&](int t) {
    const OwnStream stream;
    ++ready;
    while (ready.load() < kThreads) std::this_thread::yield();  // start together
    for (int r = 0; r < kRounds; ++r) {
      const std::string what = "thread " + std::to_string(t) + ", round " + std::to_string(r);
      try {
        check_trsv_on(stream.get(), lower_case(t, r), r % 2 ? TrsvAlgorithm::Auto : TrsvAlgorithm::Tassl, what);
        check_pcg_on(stream.get(), spd_case(t, r), what);
      } catch (const std::exception& e) {
        errors[t] = what + ": " + e.what();
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (std::thread& th : threads) th.join();
  for (const std::string& e : errors) EXPECT_TRUE(e.empty()) << e;
}

// The legacy default stream blocked by a host function that spins until
// released; a watchdog releases it after kHold. Meanwhile solvers are built
// and solved on a non-blocking stream: had balsa put work on the legacy
// stream, or waited for the whole device (cudaDeviceSynchronize, a plain
// cudaFree, a copy on a blocking stream), it would still be waiting when
// the watchdog lets go.
constexpr auto kHold = std::chrono::seconds(10);

void CUDART_CB spin_until_released(void* flag) {
  auto* released = static_cast<std::atomic<bool>*>(flag);
  while (!released->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void build_and_solve_on(cudaStream_t stream) {
  const Csr<double> L = lower_case(0, 0);
  check_trsv_on(stream, L, TrsvAlgorithm::Tassl, "tassl");
  check_trsv_on(stream, L, TrsvAlgorithm::Auto, "auto");
  check_pcg_on(stream, spd_case(0, 0), "pcg-ic0");
}

TEST(StreamsGpu, NothingWaitsForTheLegacyDefaultStream) {
  BALSA_REQUIRE_GPU();
  const OwnStream stream;
  // Once first: what a process initialises on first use (lazily loaded
  // kernels, library handles, the pools of pinned blocks and stream-ordered
  // memory) may wait for the device, and is not what this test is about.
  build_and_solve_on(stream.get());
  std::atomic<bool> released{false};
  CHECK_CUDA(cudaLaunchHostFunc(cudaStreamLegacy, spin_until_released, &released));
  std::thread watchdog([&] {
    const auto until = std::chrono::steady_clock::now() + kHold;
    while (!released.load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    released = true;
  });
  build_and_solve_on(stream.get());
  CHECK_CUDA(cudaStreamSynchronize(stream.get()));
  const bool in_time = !released.exchange(true);  // the legacy stream was still blocked
  watchdog.join();
  CHECK_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
  EXPECT_TRUE(in_time) << "the solvers' work finished only after the watchdog released the legacy default stream: "
                          "balsa waited for it";
}

// solve_device with many right-hand sides (device arrays, column-major)
// against the host DenseMatrix solve, and each column against the reference.
TEST(StreamsGpu, SolveDeviceManyColumnsMatchesTheDenseMatrixSolve) {
  BALSA_REQUIRE_GPU();
  const OwnStream stream;
  const cuda::StreamScope on(stream.get());
  const Csr<double> L = lower_case(1, 2);
  for (const TrsvAlgorithm algorithm : {TrsvAlgorithm::Tassl, TrsvAlgorithm::LevelSet, TrsvAlgorithm::Cusparse}) {
    for (const index_t columns : {index_t(1), index_t(5), index_t(40)}) {  // 40: beyond TASSL's 32 grid columns
      SCOPED_TRACE(std::string(to_string(algorithm)) + ", " + std::to_string(columns) + " columns");
      TriangularSolver<double> solver(L, {.algorithm = algorithm, .device = Device::Cuda, .stream = stream.get()});
      DenseMatrix<double> B(L.rows, columns), X;
      B.values = random_vector<double>(L.rows * columns, std::uint64_t(columns));
      solver.solve(B, X);
      const cuda::DeviceBuffer<double> dB{std::span<const double>(B.values)};
      cuda::DeviceBuffer<double> dX(B.values.size());
      test::poison(dX);
      solver.solve_device(dB.data(), dX.data(), columns);
      const std::vector<double> got = dX.to_host();
      EXPECT_TRUE(test::matches<double>(got, X.values, test::tolerance<double>()));
      for (const index_t j : {index_t(0), columns - 1}) {
        const std::span<const double> x(got.data() + std::size_t(j) * std::size_t(L.rows), std::size_t(L.rows));
        test::expect_matches_reference(L, Triangle::Lower, DiagonalKind::NonUnit, std::span<const double>(B.column(j)),
                                       x, "column " + std::to_string(j));
      }
    }
  }
}

TEST(StreamsGpu, SolveDeviceRejectsBadArrays) {
  BALSA_REQUIRE_GPU();
  const Csr<double> L = chain_lower<double>(50);
  TriangularSolver<double> solver(L, {.device = Device::Cuda});
  cuda::DeviceBuffer<double> B(100);
  EXPECT_THROW_MSG(solver.solve_device(B.data(), B.data(), 2), Error, "must be different");
  EXPECT_THROW_MSG(solver.solve_device(nullptr, B.data(), 2), Error, "null device arrays");
  EXPECT_THROW_MSG(solver.solve_device(B.data(), B.data() + 50, -1), DimensionError, "-1 right-hand sides");
  KrylovSolver<double> pcg(spd_case(0, 0), pcg_ic0(Device::Cuda, nullptr));
  EXPECT_THROW_MSG(pcg.solve_device(B.data(), B.data()), Error, "different device arrays");
  EXPECT_THROW_MSG(pcg.solve_device(nullptr, B.data()), Error, "null device array");
}

// KrylovSolver::solve_device and the DeviceBuffer overload: the same solve.
TEST(StreamsGpu, KrylovSolveDeviceMatchesTheDeviceBufferSolve) {
  BALSA_REQUIRE_GPU();
  const OwnStream stream;
  const cuda::StreamScope on(stream.get());
  const Csr<double> A = spd_case(1, 1);
  KrylovSolver<double> solver(A, pcg_ic0(Device::Cuda, stream.get()));
  const std::vector<double> b = multiply(A, std::span<const double>(random_vector<double>(A.rows, 11)));
  const std::vector<double> x0 = random_vector<double>(A.rows, 12);
  const cuda::DeviceBuffer<double> db{std::span<const double>(b)};
  cuda::DeviceBuffer<double> x_buffer{std::span<const double>(x0)}, x_pointer{std::span<const double>(x0)};
  const KrylovStats by_buffer = solver.solve(db, x_buffer);
  const KrylovStats by_pointer = solver.solve_device(db.data(), x_pointer.data());
  EXPECT_EQ(by_pointer.outcome, KrylovOutcome::Converged) << by_pointer.message;
  EXPECT_EQ(by_pointer.outcome, by_buffer.outcome);
  EXPECT_EQ(by_pointer.iterations, by_buffer.iterations);
  EXPECT_TRUE(test::matches<double>(x_pointer.to_host(), x_buffer.to_host(), test::tolerance<double>()));
  EXPECT_EQ(solver.stats().iterations, by_pointer.iterations);
}

}  // namespace
}  // namespace balsa

#else  // a build without CUDA: nothing to run

TEST(StreamsGpu, NeedsACudaBuild) { GTEST_SKIP() << "balsa was built without CUDA"; }

#endif
