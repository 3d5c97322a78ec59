// The GPU QR's staging (qr/gpu_stages.hpp, sparse QR paper sec. 3.4) run
// by the host oracle (no GPU needed): the staged plan gives R bitwise equal
// to the one-arena plan's (the same tile arithmetic on the same values,
// moved through window arrays and a host cb store), and the same Q^T B and
// Q Z, for budgets that make one stage, two, and many; a budget below the
// largest front is a DeviceOutOfMemory naming it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "balsa/error.hpp"
#include "balsa/generators.hpp"
#include "qr/gpu_multifrontal_cpu.hpp"
#include "qr/gpu_plan.hpp"
#include "qr/gpu_stages.hpp"
#include "qr/ordering.hpp"
#include "qr/symbolic.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

std::vector<double> random_block(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

struct Case {
  Csr<double> A;
  qr::Symbolic s;
  qr::GpuPlan plan;
  qr::HostTileFactor whole;
  std::vector<double> R, QtB, QZ, B, Z;
  static constexpr index_t nrhs = 3;
};

Case unstaged(const Csr<double>& A, double dense_flops) {
  Case c{A, qr::analyse(A, qr::column_ordering(A, QrOrdering::Colamd)), {}, {}, {}, {}, {}, {}, {}};
  c.plan = qr::make_gpu_plan(A, c.s, dense_flops);
  c.whole = qr::factorise_plan_host(c.plan, A.values);
  c.R = qr::r_values_host(c.plan, c.whole);
  c.B = random_block(std::size_t(A.rows) * Case::nrhs, 7);
  c.Z = random_block(c.plan.y_row.size() * Case::nrhs, 8);
  c.QtB = qr::q_transpose_host(c.plan, c.whole, c.B, A.rows, Case::nrhs);
  c.QZ = qr::q_times_host(c.plan, c.whole, c.Z, A.rows, Case::nrhs);
  return c;
}

// The staged run against the one-arena run: bitwise. Returns the stages.
std::size_t expect_staged_equal(const Case& c, std::size_t budget) {
  const qr::StagedPlan sp = qr::make_staged_plan(c.plan, c.s, c.A.nnz(), budget);
  EXPECT_LE(sp.device_bytes(c.A.nnz()), budget);
  EXPECT_EQ(sp.stages.front().f0, 0);
  EXPECT_EQ(sp.stages.back().f1, index_t(c.s.fronts.size()));
  std::size_t exported = 0, imported = 0;
  for (std::size_t k = 0; k < sp.stages.size(); ++k) {
    if (k > 0) {
      EXPECT_EQ(sp.stages[k].f0, sp.stages[k - 1].f1);
    }
    exported += sp.stages[k].exports.size();
    imported += sp.stages[k].imports.size();
  }
  EXPECT_EQ(exported, imported);
  if (sp.stages.size() == 1) {
    EXPECT_EQ(exported, 0u);
  }
  const qr::StagedHostFactor f = qr::factorise_staged_host(c.plan, sp, c.A.values);
  EXPECT_EQ(f.R, c.R) << sp.stages.size() << " stages";
  EXPECT_EQ(f.whole.arena, c.whole.arena);
  EXPECT_EQ(f.whole.vt, c.whole.vt);
  EXPECT_EQ(f.whole.tau, c.whole.tau);
  EXPECT_EQ(qr::q_transpose_staged_host(c.plan, sp, f, c.B, c.A.rows, Case::nrhs), c.QtB);
  EXPECT_EQ(qr::q_times_staged_host(c.plan, sp, f, c.Z, c.A.rows, Case::nrhs), c.QZ);
  return sp.stages.size();
}

// The front named by a staging error: "front k (m x n)" as the analysis has it.
void expect_names_a_front(const std::string& what, const qr::Symbolic& s, std::size_t budget) {
  const std::size_t at = what.find("front ");
  ASSERT_NE(at, std::string::npos) << what;
  const std::size_t f = std::stoul(what.substr(at + 6));
  ASSERT_LT(f, s.fronts.size());
  const qr::Front& F = s.fronts[f];
  EXPECT_NE(what.find("front " + std::to_string(f) + " (" + std::to_string(F.m()) + " x " + std::to_string(F.n()) + ") alone needs"),
            std::string::npos) << what;
  EXPECT_NE(what.find("(" + std::to_string(budget) + " bytes)"), std::string::npos) << what;
}

// Budgets from the whole plan's bytes down by 3/4: (above it) one stage,
// then two to four, then many (>= `many`), until a front alone no longer
// fits: a DeviceOutOfMemory naming it. many = 1: a tree whose root alone
// takes more than half of the plan (two windows of it do not fit).
void expect_staging_works(const Csr<double>& A, double dense_flops = INFINITY, std::size_t many = 5) {
  SCOPED_TRACE(std::to_string(A.rows) + " x " + std::to_string(A.cols) + ", dense fronts from " + std::to_string(dense_flops));
  const Case c = unstaged(A, dense_flops);
  const std::size_t whole = c.plan.device_bytes(A.nnz());
  EXPECT_EQ(expect_staged_equal(c, 4 * whole), 1u);
  std::size_t most = 1, two_to_four = 0;
  for (std::size_t budget = whole; budget > 0; budget = budget * 3 / 4) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    std::size_t stages = 0;
    try {
      stages = expect_staged_equal(c, budget);
    } catch (const DeviceOutOfMemory& e) {
      expect_names_a_front(e.what(), c.s, budget);
      break;
    }
    most = std::max(most, stages);
    if (stages >= 2 && stages <= 4) ++two_to_four;
  }
  if (many > 1) {
    EXPECT_GE(two_to_four, 1u);
  }
  EXPECT_GE(most, many);
}

TEST(GpuStages, StagedHostRunIsBitwiseTheOneArenaRun) {
  expect_staging_works(laplacian_2d_over_identity<double>(24, 24));
  expect_staging_works(laplacian_2d_over_identity<double>(30, 30), INFINITY, 10);
  expect_staging_works(laplacian_3d<double>(9, 9, 9));
  // Hybrid: the fronts over 1e6 flops by LAPACK (the GPU: cuSOLVER), the rest by tiles.
  expect_staging_works(laplacian_3d<double>(9, 9, 9), 1e6, 4);
  expect_staging_works(laplacian_2d_over_identity<double>(60, 60), 1e6, 10);  // (as tests/qr/gpu_qr_test.cpp stages it)
  expect_staging_works(transpose(*test::real_matrix_as<double>(test::data_file("lp_e226.mtx"))));
  expect_staging_works(*test::real_matrix_as<double>(test::data_file("dwt_992.mtx")), INFINITY, 10);
  // Random: a banded lower triangle (a long tree), and a block-diagonal one (a forest).
  expect_staging_works(random_lower_banded<double>(3000, 40, 4, 3), INFINITY, 20);
  expect_staging_works(random_block_diagonal_lower<double>(20, 100, 0.05, 3), INFINITY, 20);
  expect_staging_works(test::tall_full_rank(700, 300, 0.01, 1, 3.0), INFINITY, 1);  // a root of 597 x 211
}

// The cases tests/qr/gpu_qr_test.cpp stages (a quarter of the one-arena
// bytes) stage here too, bitwise, so that the GPU run checks the executor.
TEST(GpuStages, TheGpuTestsCasesStageAtAQuarter) {
  for (const double dense_flops : {1e10, 1e6}) {
    const Case c = unstaged(laplacian_2d_over_identity<double>(60, 60), dense_flops);
    EXPECT_GE(expect_staged_equal(c, c.plan.device_bytes(c.A.nnz()) / 4), 5u) << dense_flops;
  }
}

// Budgets below a front's own need: the error names the front; below the
// values and maps alone, it says so.
TEST(GpuStages, ABudgetBelowAFrontNamesIt) {
  const Csr<double> A = laplacian_2d_over_identity<double>(30, 30);
  const Case c = unstaged(A, INFINITY);
  std::size_t budget = c.plan.device_bytes(A.nnz());
  for (;; budget -= budget / 20) {
    try {
      (void)qr::make_staged_plan(c.plan, c.s, A.nnz(), budget);
    } catch (const DeviceOutOfMemory& e) {
      expect_names_a_front(e.what(), c.s, budget);
      break;
    }
  }
  EXPECT_GT(budget, 1000u);
  EXPECT_THROW_MSG(qr::make_staged_plan(c.plan, c.s, A.nnz(), 1000), DeviceOutOfMemory,
                   "values and the assembly maps alone need");
}

}  // namespace
}  // namespace balsa
