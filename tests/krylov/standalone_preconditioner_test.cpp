// balsa::Preconditioner on the CPU (solve/precondition.cpp):
// apply equals the triangular solves of IncompleteFactorization's factors
// (written out here, row by row), Jacobi's D^{-1} r, the direct solve; Auto's
// rule; update_values reuses the analysis; SaP-D/SaP-C through the sparse
// pipeline; bad input is a balsa error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <limits>
#include <vector>

#include "balsa/factor.hpp"
#include "balsa/fields.hpp"
#include "balsa/generators.hpp"
#include "balsa/precondition.hpp"
#include "support/krylov_cases.hpp"

namespace balsa {
namespace {

// z = (L U)^{-1} r for the ILU(0) factors F (A's pattern: L unit lower, U
// the diagonal and above).
std::vector<double> ilu0_solve(const Csr<double>& F, const std::vector<double>& r) {
  const index_t n = F.rows;
  std::vector<double> y(r), z(std::size_t(n), 0.0);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = F.row_ptr[i]; p < F.row_ptr[i + 1]; ++p)
      if (F.col_idx[p] < i) y[i] -= F.values[p] * y[F.col_idx[p]];
  for (index_t i = n - 1; i >= 0; --i) {
    double s = y[i], d = 0;
    for (index_t p = F.row_ptr[i]; p < F.row_ptr[i + 1]; ++p) {
      if (F.col_idx[p] > i) s -= F.values[p] * z[F.col_idx[p]];
      if (F.col_idx[p] == i) d = F.values[p];
    }
    z[i] = s / d;
  }
  return z;
}

// z = (L L^T)^{-1} r for the IC(0) factor L (A's lower triangle, diagonal last in each row).
std::vector<double> ic0_solve(const Csr<double>& L, const std::vector<double>& r) {
  const index_t n = L.rows;
  std::vector<double> y(r);
  for (index_t i = 0; i < n; ++i) {
    const index_t last = L.row_ptr[i + 1] - 1;
    for (index_t p = L.row_ptr[i]; p < last; ++p) y[i] -= L.values[p] * y[L.col_idx[p]];
    y[i] /= L.values[last];
  }
  for (index_t i = n - 1; i >= 0; --i) {
    const index_t last = L.row_ptr[i + 1] - 1;
    y[i] /= L.values[last];
    for (index_t p = L.row_ptr[i]; p < last; ++p) y[L.col_idx[p]] -= L.values[p] * y[i];
  }
  return y;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * scale) << "entry " << i;
}

std::vector<double> applied(Preconditioner<double>& M, const std::vector<double>& r) {
  std::vector<double> z(r.size());
  M.apply(std::span<const double>(r), std::span<double>(z));
  return z;
}

const PreconditionOptions kCpu{.device = Device::Cpu, .direct_max_rows = 0};

// M's apply (method m) equals `reference` on IncompleteFactorization's factors of A (kind k).
template <class Reference>
void expect_applies_factors(const Csr<double>& A, PreconditionMethod m, IncompleteKind k, Reference reference) {
  const std::vector<double> r = random_vector<double>(A.rows, 5);
  PreconditionOptions o = kCpu;
  o.method = m;
  Preconditioner<double> M(A, o);
  const IncompleteFactorization<double> F(A, {.kind = k, .device = Device::Cpu});
  expect_near_all(applied(M, r), reference(F.factors(), r), 1e-12);
  EXPECT_EQ(M.stats().method, m);
  EXPECT_EQ(M.stats().device, Device::Cpu);
  EXPECT_EQ(M.stats().applications, 1);
}

TEST(StandalonePreconditioner, Ilu0AppliesTheFactorsTriangularSolves) {
  expect_applies_factors(test::convection_diffusion<double>(20, 30.0), PreconditionMethod::Ilu0, IncompleteKind::Ilu0,
                         ilu0_solve);
}

TEST(StandalonePreconditioner, Ic0AppliesTheFactorsTriangularSolves) {
  expect_applies_factors(laplacian_3d<double>(8, 9, 10), PreconditionMethod::Ic0, IncompleteKind::Ic0, ic0_solve);
}

TEST(StandalonePreconditioner, JacobiAndDirect) {
  const Csr<double> A = test::convection_diffusion<double>(12, 10.0);
  const std::vector<double> r = random_vector<double>(A.rows, 7);
  PreconditionOptions o = kCpu;
  o.method = PreconditionMethod::Jacobi;
  Preconditioner<double> J(A, o);
  const std::vector<double> d = diagonal(A);
  std::vector<double> want(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) want[i] = r[i] / d[i];
  expect_near_all(applied(J, r), want, 1e-15);
  o.method = PreconditionMethod::Direct;
  Preconditioner<double> D(A, o);
  const std::vector<double> z = applied(D, r);
  expect_near_all(multiply(A, std::span<const double>(z)), r, 1e-10);  // M = A
}

TEST(StandalonePreconditioner, AutoRule) {
  PreconditionOptions o = kCpu;
  Preconditioner<double> spd(laplacian_2d<double>(30, 30), o);
  EXPECT_EQ(spd.stats().method, PreconditionMethod::Ic0);
  EXPECT_EQ(spd.stats().rule, "symmetric with a positive diagonal");
  Preconditioner<double> cd(test::convection_diffusion<double>(30, 20.0), o);
  EXPECT_EQ(cd.stats().method, PreconditionMethod::Ilu0);
  o.direct_max_rows = 2000;
  Preconditioner<double> small(laplacian_2d<double>(30, 30), o);
  EXPECT_EQ(small.stats().method, PreconditionMethod::Direct);
}

TEST(StandalonePreconditioner, UpdateValuesReusesTheAnalysis) {
  const Csr<double> A = laplacian_2d<double>(25, 25);
  Csr<double> B = A;
  for (index_t i = 0; i < B.rows; ++i)
    for (index_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p)
      if (B.col_idx[p] == i) B.values[p] += 1.0;  // still SPD, other factors
  const std::vector<double> r = random_vector<double>(A.rows, 8);
  for (PreconditionMethod m : {PreconditionMethod::Ic0, PreconditionMethod::Ilu0, PreconditionMethod::Direct}) {
    SCOPED_TRACE(to_string(m));
    PreconditionOptions o = kCpu;
    o.method = m;
    Preconditioner<double> M(A, o);
    EXPECT_FALSE(M.stats().analysis_reused);
    M.update_values(std::span<const double>(B.values));
    EXPECT_TRUE(M.stats().analysis_reused);
    EXPECT_EQ(M.stats().updates, 1);
    Preconditioner<double> fresh(B, o);
    expect_near_all(applied(M, r), applied(fresh, r), 1e-12);
  }
}

// ||A z - r|| / ||r|| for z = M^{-1} r.
double preconditioned_residual(const Csr<double>& A, Preconditioner<double>& M, const std::vector<double>& r) {
  const std::vector<double> Az = multiply(A, std::span<const double>(applied(M, r)));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < r.size(); ++i) num += (Az[i] - r[i]) * (Az[i] - r[i]), den += r[i] * r[i];
  return std::sqrt(num / den);
}

PreconditionOptions sap_options(PreconditionMethod m, index_t partitions) {
  PreconditionOptions o = kCpu;
  o.method = m;
  o.sap.partitions = partitions;
  o.sap.drop_tolerance = 0;  // the whole band kept
  return o;
}

// SaP's preconditioner of A (DB, CM, the banded factors) applied alone: with
// one partition and nothing dropped it is A's LU, so A z = r; with several,
// SaP-C (the coupling kept) beats SaP-D (dropped) and both precondition.
TEST(StandalonePreconditioner, SapAppliesTheSparsePipeline) {
  const Csr<double> A = scramble(banded_dominant<double>(400, 5, 1.0, 3), 4);  // DB and CM must undo it
  const std::vector<double> r = random_vector<double>(A.rows, 9);
  for (PreconditionMethod m : {PreconditionMethod::SapD, PreconditionMethod::SapC}) {
    Preconditioner<double> M(A, sap_options(m, 1));
    EXPECT_EQ(M.stats().method, m);
    EXPECT_EQ(M.stats().sap.banded.partitions, 1);
    EXPECT_LT(preconditioned_residual(A, M, r), 1e-10) << to_string(m);
  }
  const Csr<double> B = banded_dominant<double>(2000, 6, 0.6, 5);
  const std::vector<double> rb = random_vector<double>(B.rows, 10);
  Preconditioner<double> D(B, sap_options(PreconditionMethod::SapD, 8)), C(B, sap_options(PreconditionMethod::SapC, 8));
  const double rd = preconditioned_residual(B, D, rb), rc = preconditioned_residual(B, C, rb);
  EXPECT_LT(rc, rd);
  EXPECT_LT(rd, 1.0);
}

TEST(StandalonePreconditioner, SapUpdateValuesSetsUpAgain) {
  const Csr<double> A = banded_dominant<double>(600, 4, 0.8, 6);
  Csr<double> B = A;
  for (double& v : B.values) v *= 1.5;
  for (index_t i = 0; i < B.rows; ++i) B.values[std::size_t(B.row_ptr[i])] += 0.25;  // other factors, not a multiple
  const std::vector<double> r = random_vector<double>(A.rows, 11);
  Preconditioner<double> M(A, sap_options(PreconditionMethod::SapC, 4));
  M.update_values(std::span<const double>(B.values));
  EXPECT_FALSE(M.stats().analysis_reused);  // DB's matching follows the values
  EXPECT_EQ(M.stats().updates, 1);
  Preconditioner<double> fresh(B, sap_options(PreconditionMethod::SapC, 4));
  expect_near_all(applied(M, r), applied(fresh, r), 1e-13);
}

// The stats' visitor (include/balsa/fields.hpp) names every time with "_seconds" and the nested stats whole.
TEST(StandalonePreconditioner, StatsVisitor) {
  PreconditionOptions o = kCpu;
  Preconditioner<double> M(laplacian_2d<double>(30, 30), o);
  std::vector<std::string> names;
  bool nested = false;
  visit_fields(M.stats(), [&](const char* name, const auto& value) {
    names.emplace_back(name);
    if constexpr (HasFields<std::decay_t<decltype(value)>>) nested = true;
  });
  EXPECT_EQ(names.size(), 16u);
  EXPECT_EQ(names.front(), "method");
  EXPECT_NE(std::find(names.begin(), names.end(), "setup_seconds"), names.end());
  EXPECT_TRUE(nested);
}

TEST(StandalonePreconditioner, BadInputIsABalsaError) {
  const Csr<double> A = laplacian_2d<double>(10, 10);
  PreconditionOptions o = kCpu;
  o.method = PreconditionMethod::Ilu0;
  Preconditioner<double> M(A, o);
  std::vector<double> r(std::size_t(A.rows) - 1), z(std::size_t(A.rows));
  EXPECT_THROW(M.apply(std::span<const double>(r), std::span<double>(z)), DimensionError);
  std::vector<double> v(A.values);
  v[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(M.update_values(std::span<const double>(v)), Error);
  v.pop_back();
  EXPECT_THROW(M.update_values(std::span<const double>(v)), DimensionError);
  Csr<double> nan = A;
  nan.values[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Preconditioner<double>(nan, o), MatrixError);
  // A missing diagonal entry (row 0's (0, 0) removed).
  Csr<double> hole{2, 2, {0, 1, 3}, {1, 0, 1}, {1.0, 1.0, 2.0}};
  for (PreconditionMethod m : {PreconditionMethod::Ilu0, PreconditionMethod::Ic0, PreconditionMethod::Jacobi}) {
    o.method = m;
    EXPECT_THROW(Preconditioner<double>(hole, o), MatrixError) << to_string(m);
  }
  Csr<double> wide{1, 2, {0, 2}, {0, 1}, {1.0, 1.0}};
  EXPECT_THROW(Preconditioner<double>(wide, o), Error);
  PreconditionOptions gpu_only = kCpu;
  Preconditioner<double> cpu(A, gpu_only);
  EXPECT_THROW(cpu.apply_device(nullptr, nullptr), Error);
}

}  // namespace
}  // namespace balsa
