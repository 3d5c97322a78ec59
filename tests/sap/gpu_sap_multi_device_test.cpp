// SaP spread over several device slots (sap/multi_device.hpp) against the
// one-device solver: the same answer to rounding and the same iterations,
// SaP-D and SaP-C, float, double and the float preconditioner, 1 to several
// partitions per slot, odd n, k = 1, 50 and > 64 (both factor kernels).
// One GPU suffices: the slots repeat device 0 (SlotOverride), each with its
// own stream and buffers, so the peer copies, events and the SaP-C
// neighbour blocks all run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "balsa/generators.hpp"
#include "balsa/sap.hpp"
#include "sap/gpu.hpp"
#include "sap/multi_device.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

struct Case {
  index_t n, k, P;
};
// k = 1 and 5: the sliding-window factorisation; 50 and 70: the wide one.
// n = 20011, k = 70: slices over 8 MB, uploaded through the staging buffers.
const Case kCases[] = {{5003, 1, 6}, {4001, 50, 7}, {6007, 70, 4}, {3001, 5, 3}, {20011, 70, 6}};

template <class T>
std::vector<T> rhs_of(const Banded<T>& A) {
  std::vector<T> x(std::size_t(A.n)), b(std::size_t(A.n));
  for (index_t i = 0; i < A.n; ++i) x[std::size_t(i)] = T(1.0 + std::sin(0.01 * double(i)));
  spmv(A, std::span<const T>(x), std::span<T>(b));
  return b;
}

template <class T>
double tolerance_of(bool float_pre) {
  return std::is_same_v<T, float> || float_pre ? 1e-4 : 1e-9;
}

template <class T>
void spread_matches_one_device(bool float_pre) {
  for (const Case& c : kCases) {
    const Banded<T> A = banded_dominant_band<T>(c.n, c.k, 1.0, 17);
    const std::vector<T> b = rhs_of(A);
    for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled}) {
      BandedOptions o;
      o.variant = v;
      o.partitions = c.P;
      o.float_preconditioner = float_pre;
      if (std::is_same_v<T, float>) o.stopping.tolerance = 1e-5;  // reachable in float
      BandedSolver<T> one(A, o);
      std::vector<T> x1(std::size_t(c.n), T(0));
      const KrylovStats s1 = one.solve(b, x1);
      ASSERT_EQ(s1.outcome, KrylovOutcome::Converged) << s1.message;
      for (int slots : {2, 3, 4}) {
        if (slots > c.P) continue;
        SCOPED_TRACE("n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " P=" + std::to_string(c.P) + " " +
                     to_string(v) + " slots=" + std::to_string(slots) + (float_pre ? " float preconditioner" : ""));
        // 3 slots read and write the primary's vectors in place (all on it);
        // 2 and 4 take the copies of a host of several GPUs.
        const sap::SlotOverride over(std::vector<int>(std::size_t(slots), 0), slots != 3);
        BandedSolver<T> spread(A, o);
        EXPECT_EQ(spread.stats().devices, std::vector<int>(std::size_t(slots), 0));
        EXPECT_EQ(spread.stats().device_setup_seconds.size(), std::size_t(slots));
        EXPECT_EQ(spread.stats().partitions, c.P);
        std::vector<T> x = test::poisoned<T>(std::size_t(c.n));
        std::fill(x.begin(), x.end(), T(0));
        const KrylovStats s = spread.solve(b, x);
        EXPECT_EQ(s.outcome, KrylovOutcome::Converged) << s.message;
        EXPECT_NEAR(s.iterations, s1.iterations, 1);
        EXPECT_TRUE(test::matches<T>(x, x1, tolerance_of<T>(float_pre)));
      }
    }
  }
}

TEST(SapMultiDevice, DoubleMatchesOneDevice) {
  BALSA_REQUIRE_GPU();
  spread_matches_one_device<double>(false);
}
TEST(SapMultiDevice, FloatPreconditionerMatchesOneDevice) {
  BALSA_REQUIRE_GPU();
  spread_matches_one_device<double>(true);
}
TEST(SapMultiDevice, FloatMatchesOneDevice) {
  BALSA_REQUIRE_GPU();
  spread_matches_one_device<float>(false);
}

// One application of M^{-1} and of A on poisoned outputs: every row written
// and equal to the one-device preconditioner's and product's; with the
// driver's stop flag set, nothing written (slices copied as between
// devices, or read in place).
TEST(SapMultiDevice, ApplicationsWriteEveryRowAndNothingWhenStopped) {
  BALSA_REQUIRE_GPU();
  const index_t n = 4099, k = 70;
  const Banded<double> A = banded_dominant_band<double>(n, k, 0.5, 3);
  std::vector<double> rh(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) rh[std::size_t(i)] = std::cos(0.3 * double(i));
  const cuda::DeviceBuffer<double> r{std::span<const double>(rh)}, band{std::span<const double>(A.data)};
  for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled})
    for (int per_slot : {1, 2, 3}) {
      const bool copied = per_slot != 2;
      SCOPED_TRACE(std::string(to_string(v)) + " partitions per slot " + std::to_string(per_slot) +
                   (copied ? ", copied" : ", in place"));
      const sap::SlotOverride over({0, 0, 0}, copied);
      sap::Plan plan;
      plan.variant = v;
      plan.n = n;
      plan.k = k;
      plan.blocks = sap::split(n, k, 3 * per_slot, v, 1);
      plan.boost.amax = max_abs(A);
      auto one = sap::make_device_preconditioner<double, double>(band.data(), plan);
      sap::gpu::DeviceBandOperator<double> one_A(band, n, k);
      auto sys = sap::make_multi_device<double>(A, plan, {0, 0, 0}, false, true, true, 0);
      cuda::DeviceBuffer<double> z1(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n));
      for (int product : {0, 1}) {
        test::poison(z1);
        test::poison(z);
        if (product) {
          one_A.apply_device(r.data(), z1.data());
          sys.op->apply_device(r.data(), z.data());
        } else {
          one->apply_device(r.data(), z1.data());
          sys.pre->apply_device(r.data(), z.data());
        }
        EXPECT_TRUE(test::matches<double>(z.to_host(), z1.to_host(), 1e-13)) << (product ? "A x" : "M^-1 r");
        const int one_flag = 1;
        const cuda::DeviceBuffer<int> stop{std::span<const int>(&one_flag, 1)};
        test::poison(z);
        if (product)
          sys.op->apply_device_unless(r.data(), z.data(), stop.data());
        else
          sys.pre->apply_device_unless(r.data(), z.data(), stop.data());
        const std::vector<double> zh = z.to_host();
        EXPECT_EQ(test::count_poisoned<double>(zh), std::size_t(n)) << "written after the stop";
      }
    }
}

// New values on every slot: the same answer as a one-device solver of them;
// a refactor that fails on one slot changes none.
TEST(SapMultiDevice, UpdateValuesRefactorsEverySlot) {
  BALSA_REQUIRE_GPU();
  const index_t n = 5001, k = 40;
  const Banded<double> A1 = banded_dominant_band<double>(n, k, 1.0, 5), A2 = banded_dominant_band<double>(n, k, 0.8, 6);
  const std::vector<double> b = rhs_of(A2);
  for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled}) {
    SCOPED_TRACE(to_string(v));
    BandedOptions o;
    o.variant = v;
    o.partitions = 6;
    BandedSolver<double> one(A2, o);
    std::vector<double> x1(std::size_t(n), 0.0), x(std::size_t(n), 0.0);
    const KrylovStats s1 = one.solve(b, x1);
    const sap::SlotOverride over({0, 0});
    o.pivot_boost = false;
    BandedSolver<double> spread(A1, o);
    spread.update_values(A2);
    // A zero pivot in the second slot's blocks only: refused, and no slot
    // (the first factored its blocks fine) keeps anything of it.
    Banded<double> bad = A2;
    for (index_t j = 4000 - k; j <= 4000 + k; ++j) bad(4000, j) = bad(j, 4000) = 0.0;
    EXPECT_THROW_MSG(spread.update_values(bad), MatrixError, "zero pivot at row");
    const KrylovStats s = spread.solve(b, x);
    EXPECT_EQ(s.outcome, KrylovOutcome::Converged) << s.message;
    EXPECT_NEAR(s.iterations, s1.iterations, 1);
    EXPECT_TRUE(test::matches<double>(x, x1, 1e-9));
    EXPECT_EQ(spread.stats().min_block_bandwidth, one.stats().min_block_bandwidth);
  }
}

TEST(SapMultiDevice, SparseSolverOverTwoSlots) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = laplacian_2d<double>(70, 70);
  std::vector<double> b(std::size_t(A.rows));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 + 0.001 * double(i % 97);
  for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled}) {
    SCOPED_TRACE(to_string(v));
    SparseSapOptions o;
    o.variant = v;
    o.partitions = 5;
    SparseSapSolver<double> one(A, o);
    std::vector<double> x1(b.size(), 0.0), x(b.size(), 0.0);
    const KrylovStats s1 = one.solve(b, x1);
    const sap::SlotOverride over({0, 0});
    SparseSapSolver<double> spread(A, o);
    EXPECT_EQ(spread.stats().banded.devices, (std::vector<int>{0, 0}));
    const KrylovStats s = spread.solve(b, x);
    EXPECT_EQ(s.outcome, KrylovOutcome::Converged) << s.message;
    EXPECT_NEAR(s.iterations, s1.iterations, 1);
    EXPECT_TRUE(test::matches<double>(x, x1, 1e-9));
  }
}

// Small cases for compute-sanitizer (memcheck, racecheck, synccheck): three
// slots on one device, a set-up, an update and a solve against the CPU path.
void small_solve_for_the_sanitizers(SapVariant v) {
  const Banded<double> A = banded_dominant_band<double>(701, 12, 1.0, 8);
  const std::vector<double> b = rhs_of(A);
  BandedOptions o;
  o.variant = v;
  o.partitions = 5;
  o.device = Device::Cpu;
  BandedSolver<double> cpu(A, o);
  std::vector<double> x1(b.size(), 0.0), x(b.size(), 0.0);
  cpu.solve(b, x1);
  o.device = Device::Cuda;
  const sap::SlotOverride over({0, 0, 0});
  BandedSolver<double> spread(A, o);
  spread.update_values(A);
  const KrylovStats s = spread.solve(b, x);
  EXPECT_EQ(s.outcome, KrylovOutcome::Converged) << s.message;
  EXPECT_TRUE(test::matches<double>(x, x1, 1e-8));
}
TEST(SapMultiDevice, SmallDecoupledForTheSanitizers) {
  BALSA_REQUIRE_GPU();
  small_solve_for_the_sanitizers(SapVariant::Decoupled);
}
TEST(SapMultiDevice, SmallCoupledForTheSanitizers) {
  BALSA_REQUIRE_GPU();
  small_solve_for_the_sanitizers(SapVariant::Coupled);
}

TEST(SapMultiDevice, DeviceListsChecked) {
  BALSA_REQUIRE_GPU();
  const Banded<double> A = banded_dominant_band<double>(3000, 10, 1.0, 2);
  BandedOptions o;
  o.devices = {cuda::device_count()};
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "does not exist");
  o.devices = {0, 0};
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "listed twice");
  o.devices = {0};
  BandedSolver<double> one(A, o);
  EXPECT_EQ(one.stats().devices, std::vector<int>{0});
  // More slots than blocks.
  const sap::SlotOverride over({0, 0, 0});
  o.devices = {};
  o.partitions = 2;
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "3 device slots but only 2 blocks");
}

}  // namespace
}  // namespace balsa
