// The simplex basis factorisation's Forrest-Tomlin updates
// (lp/basis/basis_factor_forrest_tomlin.cpp): random sequences of basis changes
// checked against a dense LU after every change, refactorisation at
// max_updates and on a bad pivot, and updates (with timings) on a random basis
// of the Netlib matrix lp_e226. Helpers: support/basis_factor_cases.hpp.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "support/basis_factor_cases.hpp"

namespace balsa::lp {
namespace {

using namespace basis_cases;

// ---- Forrest-Tomlin updates --------------------------------------------------------

TEST(LpBasisFactor, ForrestTomlinSequences) {
  Rng rng(7);
  for (index_t m : {8, 30, 100})
    for (double density : {2.0 / m, 0.1})
      for (double logicals : {0.2, 0.7}) {
        SCOPED_TRACE("m " + std::to_string(m) + " density " + std::to_string(density) + " logicals " +
                     std::to_string(logicals));
        const Csc<double> A = random_structurals(m, density, rng);
        std::vector<index_t> basic = random_basis(m, logicals, rng);
        BasisFactor F({.max_updates = 150});
        ASSERT_EQ(F.factorize(A, basic).rank, m);
        const int steps = m < 30 ? 50 : 150;
        const UpdateRun run = run_updates(A, basic, F, steps, rng);
        EXPECT_EQ(run.updates + run.refactors, steps);
        EXPECT_GT(run.updates, steps / 2);  // growth refactors only now and then
        EXPECT_LE(F.slots(), m + 150);
      }
}

TEST(LpBasisFactor, RefactorAtMaxUpdates) {
  Rng rng(9);
  const index_t m = 40;
  const Csc<double> A = random_structurals(m, 0.05, rng);
  std::vector<index_t> basic = random_basis(m, 0.5, rng);
  BasisFactor F({.max_updates = 5});
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  const UpdateRun run = run_updates(A, basic, F, 5, rng);
  ASSERT_EQ(run.updates, 5);
  EXPECT_EQ(F.stats().updates, 5);
  EXPECT_EQ(F.slots(), m + 5);
  index_t q = 0;
  while (std::find(basic.begin(), basic.end(), q) != basic.end()) ++q;
  const Dense alpha = ftran(F, column(A, q), true, true);
  index_t r = 0;
  for (index_t k = 0; k < m; ++k)
    if (std::abs(alpha[k]) > std::abs(alpha[r])) r = k;
  EXPECT_EQ(F.forrest_tomlin_update(r, alpha[r]), UpdateResult::Refactor);
  EXPECT_EQ(F.slots(), m + 5);
  check_solves(F, A, basic, rng);  // unchanged: still the factor of `basic`
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  EXPECT_EQ(F.stats().updates, 0);
  EXPECT_EQ(F.slots(), m);
}

TEST(LpBasisFactor, RefactorOnBadPivot) {
  Rng rng(13);
  const index_t m = 60;
  const Csc<double> A = random_structurals(m, 0.04, rng);
  std::vector<index_t> basic = random_basis(m, 0.5, rng);
  BasisFactor F;
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  index_t q = 0;
  while (std::find(basic.begin(), basic.end(), q) != basic.end()) ++q;
  const Dense alpha = ftran(F, column(A, q), true, true);
  index_t r = 0, zero = -1;
  for (index_t k = 0; k < m; ++k) {
    if (std::abs(alpha[k]) > std::abs(alpha[r])) r = k;
    if (alpha[k] == 0.0) zero = k;
  }
  // alpha_r that disagrees with the spike: refused, factor unchanged.
  EXPECT_EQ(F.forrest_tomlin_update(r, 2.0 * alpha[r]), UpdateResult::Refactor);
  EXPECT_EQ(F.stats().updates, 0);
  check_solves(F, A, basic, rng);
  // A zero pivot (the new basis would be singular).
  ASSERT_GE(zero, 0);
  EXPECT_EQ(F.forrest_tomlin_update(zero, 0.0), UpdateResult::Refactor);
  EXPECT_EQ(F.slots(), m);
  // The spike is still there: the right pivot goes through.
  EXPECT_EQ(F.forrest_tomlin_update(r, alpha[r]), UpdateResult::Ok);
  basic[r] = q;
  check_solves(F, A, basic, rng);
  // The spike is consumed.
  EXPECT_THROW(F.forrest_tomlin_update(r, 1.0), Error);
}

// ---- a real LP matrix ---------------------------------------------------------------

TEST(LpBasisFactor, NetlibE226UpdatesAndTimings) {
  const Csc<double> A = read_e226();
  const index_t m = A.rows, n = A.cols;
  Rng rng(29);
  std::vector<index_t> basic = random_lp_basis(m, n, 150, rng);
  BasisFactor F({.max_updates = 100});
  F.factorize(A, basic);  // repaired if need be
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  // Unscaled, cond up to 1e10, random leaving rows: the FT row etas reach
  // multipliers of 1e6 and the backward error 1e-13 after ~80 updates.
  const UpdateRun run = run_updates(A, basic, F, 120, rng, 4, 1e10, 1e-11);
  EXPECT_EQ(run.updates + run.refactors, 120);
  EXPECT_GE(run.refactors, 1);  // max_updates = 100

  // Timings (informative): factorize, FTRAN of structural columns, BTRAN of unit vectors.
  using Clock = std::chrono::steady_clock;
  const int reps = 200;
  auto t0 = Clock::now();
  for (int q = 0; q < reps; ++q) {
    std::vector<index_t> b = basic;
    F.factorize(A, b);
  }
  const double t_factor = std::chrono::duration<double>(Clock::now() - t0).count() / reps;
  SparseVector v;
  v.resize(m);
  std::int64_t out_nnz = 0;
  t0 = Clock::now();
  for (int q = 0; q < 20 * reps; ++q) {
    const index_t j = q % n;
    for (index_t p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) v.set(A.row_idx[p], A.values[p]);
    F.ftran(v);
    out_nnz += v.count;
    v.clear();
  }
  const double t_ftran = std::chrono::duration<double>(Clock::now() - t0).count() / (20 * reps);
  const double ftran_density = double(out_nnz) / (20.0 * reps * m);
  out_nnz = 0;
  t0 = Clock::now();
  for (int q = 0; q < 20 * reps; ++q) {
    v.set(q % m, 1.0);
    F.btran(v);
    out_nnz += v.count;
    v.clear();
  }
  const double t_btran = std::chrono::duration<double>(Clock::now() - t0).count() / (20 * reps);
  const double btran_density = double(out_nnz) / (20.0 * reps * m);
  // forrest_tomlin_update(): 90 basis changes (largest |alpha_r| leaves) after a fresh factorisation.
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  const BasisFactorStats fresh = F.stats();
  std::vector<char> is_basic(std::size_t(n + m), 0);
  for (index_t j : basic) is_basic[j] = 1;
  double t_update = 0.0;
  int updates = 0;
  for (index_t j = 0; j < n && updates < 90; ++j) {
    if (is_basic[j]) continue;
    for (index_t p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) v.set(A.row_idx[p], A.values[p]);
    F.ftran(v, true);
    index_t r = -1;
    for (index_t k = 0; k < v.count; ++k)
      if (r < 0 || std::abs(v.values[v.index[k]]) > std::abs(v.values[r])) r = v.index[k];
    if (r >= 0 && std::abs(v.values[r]) > 1e-3) {
      const double alpha = v.values[r];
      t0 = Clock::now();
      const UpdateResult res = F.forrest_tomlin_update(r, alpha);
      t_update += std::chrono::duration<double>(Clock::now() - t0).count();
      ASSERT_EQ(res, UpdateResult::Ok);
      is_basic[basic[r]] = 0;
      is_basic[j] = 1;
      basic[r] = j;
      ++updates;
    }
    v.clear();
  }
  check_solves(F, A, basic, rng, 1e-10, 1e-11);
  std::printf("lp_e226 basis: nnz(B) %lld  L %lld  U %lld  singletons %d  bump %d\n",
              (long long)fresh.nnz_basis, (long long)fresh.nnz_L, (long long)fresh.nnz_U, fresh.singletons,
              fresh.bump);
  std::printf("  factorize %.1f us, ftran(column) %.2f us (out density %.2f), btran(unit) %.2f us (out density %.2f)\n",
              t_factor * 1e6, t_ftran * 1e6, ftran_density, t_btran * 1e6, btran_density);
  std::printf("  update %.2f us (%d updates: U %lld, R %lld)\n", t_update / std::max(updates, 1) * 1e6, updates,
              (long long)F.stats().nnz_U, (long long)F.stats().nnz_R);
}

}  // namespace
}  // namespace balsa::lp
