// SaP over several GPUs, the CPU side (sap/multi_device.hpp): the slots'
// blocks and rows, how many devices are worth using, and the device lists
// the public options refuse (these run without a GPU too).
#include <gtest/gtest.h>

#include <cmath>

#include "balsa/generators.hpp"
#include "balsa/sap.hpp"
#include "sap/multi_device.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

sap::Plan plan_of(index_t n, index_t k, index_t P, SapVariant v) {
  sap::Plan p;
  p.variant = v;
  p.n = n;
  p.k = k;
  p.blocks = sap::split(n, k, P, v, 1);
  return p;
}

// Whole blocks, contiguous, every slot at least one, rows balanced within a
// block; SaP-C slots factor one neighbour block each side; the uploaded
// columns hold both the factored rows and the product's k-column halo.
TEST(SapMultiDevicePlace, SlotsTileTheBlocks) {
  for (SapVariant v : {SapVariant::Decoupled, SapVariant::Coupled})
    for (index_t P : {2, 3, 7, 20})
      for (int S : {1, 2, 3, 4}) {
        if (S > P) continue;
        const index_t n = 10007, k = 30;
        const sap::Plan plan = plan_of(n, k, P, v);
        const std::vector<sap::SlotRange> r = sap::place(plan, std::vector<int>(std::size_t(S), 0));
        ASSERT_EQ(r.size(), std::size_t(S));
        EXPECT_EQ(r.front().b0, 0);
        EXPECT_EQ(r.back().b1, P);
        const index_t block = plan.blocks.size(0);
        for (int j = 0; j < S; ++j) {
          const sap::SlotRange& s = r[std::size_t(j)];
          SCOPED_TRACE("P=" + std::to_string(P) + " S=" + std::to_string(S) + " slot " + std::to_string(j));
          EXPECT_LT(s.b0, s.b1);
          if (j > 0) {
            EXPECT_EQ(s.b0, r[std::size_t(j) - 1].b1);
          }
          EXPECT_EQ(s.r0, plan.blocks.start(s.b0));
          EXPECT_EQ(s.r1, plan.blocks.start(s.b1));
          EXPECT_LE(std::abs(double(s.r1) - double(n) * (j + 1) / S), double(block) * (P < 2 * S ? 2 : 1));
          const bool c = v == SapVariant::Coupled && S > 1;
          EXPECT_EQ(s.g0, c ? std::max<index_t>(s.b0 - 1, 0) : s.b0);
          EXPECT_EQ(s.g1, c ? std::min(s.b1 + 1, P) : s.b1);
          EXPECT_EQ(s.o0, std::max<index_t>(s.r0 - k, 0));
          EXPECT_EQ(s.o1, std::min(s.r1 + k, n));
          EXPECT_LE(s.c0, std::min(s.f0, s.o0));
          EXPECT_GE(s.c1, std::max(s.f1, s.o1));
          const sap::Plan lp = sap::local_plan(plan, s);
          EXPECT_EQ(lp.n, s.f1 - s.f0);
          EXPECT_EQ(lp.blocks.count(), s.g1 - s.g0);
          EXPECT_EQ(lp.blocks.starts.front(), 0);
          EXPECT_EQ(lp.blocks.starts.back(), lp.n);
        }
      }
}

TEST(SapMultiDevicePlace, MoreSlotsThanBlocksIsInternalError) {
  const sap::Plan plan = plan_of(1000, 5, 2, SapVariant::Decoupled);
  EXPECT_THROW(sap::place(plan, {0, 0, 0}), Error);
}

TEST(SapMultiDeviceChoice, SmallWorkUsesFewerDevices) {
  EXPECT_EQ(sap::choose_device_count(1000000, 50, 2, 2e9).count, 1);   // n k^2 = 2.5e9
  EXPECT_EQ(sap::choose_device_count(10000000, 50, 2, 2e9).count, 2);  // 2.5e10
  EXPECT_EQ(sap::choose_device_count(10000000, 50, 8, 2e9).count, 8);
  EXPECT_EQ(sap::choose_device_count(100, 2, 4, 0).count, 4);  // 0: all listed
  const sap::DeviceChoice c = sap::choose_device_count(1000000, 50, 4, 2e9);
  EXPECT_NE(c.reason.find("1 of 4 devices"), std::string::npos) << c.reason;
}

TEST(SapMultiDeviceOptions, BadDeviceListsAreClearErrors) {
  const Banded<double> A = banded_dominant_band<double>(2000, 5, 1.0, 1);
  BandedOptions o;
  o.devices = {0};
  o.device = Device::Cpu;
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "need the GPU; Device::Cpu was given");
  o.device = Device::Auto;
  o.devices = {1, 1};
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "device 1 is listed twice");
  o.devices = {-1};
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "device -1 does not exist");
  o.devices = {0, 1, 2};
  o.partitions = 2;
  EXPECT_THROW_MSG(BandedSolver<double>(A, o), Error, "3 devices but 2 partitions");
  o.partitions = 0;
  o.devices = {0};
  if (!cuda::available()) EXPECT_THROW_MSG(BandedSolver<double>(A, o), CudaError, "device 0 listed but");
  o.devices = {cuda::device_count() + 3};
  EXPECT_THROW(BandedSolver<double>(A, o), Error);
  SparseSapOptions so;
  so.device = Device::Cpu;
  so.devices = {0};
  EXPECT_THROW_MSG(SparseSapSolver<double>(to_csr(A), so), Error, "SaP sparse solver: devices");
  BandedOptions w;
  w.min_work_per_device = -1;
  EXPECT_THROW_MSG(BandedSolver<double>(A, w), Error, "min_work_per_device must be finite and >= 0");
  w.min_work_per_device = NAN;
  EXPECT_THROW_MSG(BandedSolver<double>(A, w), Error, "min_work_per_device must be finite and >= 0");
}

}  // namespace
}  // namespace balsa
