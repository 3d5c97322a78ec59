// The simplex basis factorisation (lp/basis/basis_factor.hpp): FTRAN/BTRAN against
// a dense LU with partial pivoting of the same basis, on random sparse bases
// (logicals and structurals), through sequences of Forrest-Tomlin updates,
// on singular bases (repaired with logicals), the exported slot-space factors
// against FTRAN/BTRAN done by hand, hypersparse vs dense paths, and random
// bases of the Netlib matrix lp_e226.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "balsa/matrix_market.hpp"
#include "balsa/sparse.hpp"
#include "lp/basis/basis_factor.hpp"
#include "support/test_support.hpp"

namespace balsa::lp {
namespace {

using Dense = std::vector<double>;
using Rng = std::mt19937_64;

double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
index_t pick(Rng& rng, index_t n) { return std::uniform_int_distribution<index_t>(0, n - 1)(rng); }

// Column j of [A | I], dense.
Dense column(const Csc<double>& A, index_t j) {
  Dense a(std::size_t(A.rows), 0.0);
  if (j >= A.cols) {
    a[j - A.cols] = 1.0;
    return a;
  }
  for (index_t p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) a[A.row_idx[p]] += A.values[p];
  return a;
}

// The basis, column-major.
Dense basis_matrix(const Csc<double>& A, const std::vector<index_t>& basic) {
  const index_t m = A.rows;
  Dense B(std::size_t(m) * m, 0.0);
  for (index_t k = 0; k < m; ++k) {
    const Dense a = column(A, basic[k]);
    std::copy(a.begin(), a.end(), B.begin() + std::size_t(k) * m);
  }
  return B;
}

// Dense LU with partial pivoting: the oracle.
class DenseLu {
 public:
  explicit DenseLu(Dense B) : m_(index_t(std::sqrt(double(B.size())) + 0.5)), a_(std::move(B)), norm1_(0.0) {
    for (index_t j = 0; j < m_; ++j) {
      double s = 0.0;
      for (index_t i = 0; i < m_; ++i) s += std::abs(at(i, j));
      norm1_ = std::max(norm1_, s);
    }
    piv_.resize(static_cast<std::size_t>(m_));
    for (index_t k = 0; k < m_; ++k) {
      index_t p = k;
      for (index_t i = k + 1; i < m_; ++i)
        if (std::abs(at(i, k)) > std::abs(at(p, k))) p = i;
      piv_[k] = p;
      if (p != k)
        for (index_t j = 0; j < m_; ++j) std::swap(at(k, j), at(p, j));
      if (at(k, k) == 0.0) {
        singular_ = true;
        continue;
      }
      for (index_t i = k + 1; i < m_; ++i) at(i, k) /= at(k, k);
      for (index_t j = k + 1; j < m_; ++j) {
        const double u = at(k, j);
        if (u == 0.0) continue;
        for (index_t i = k + 1; i < m_; ++i) at(i, j) -= at(i, k) * u;
      }
    }
  }
  bool singular() const { return singular_; }
  Dense solve(Dense b) const {  // B x = b
    for (index_t k = 0; k < m_; ++k) std::swap(b[k], b[piv_[k]]);
    for (index_t j = 0; j < m_; ++j)
      for (index_t i = j + 1; i < m_; ++i) b[i] -= at(i, j) * b[j];
    for (index_t j = m_ - 1; j >= 0; --j) {
      b[j] /= at(j, j);
      for (index_t i = 0; i < j; ++i) b[i] -= at(i, j) * b[j];
    }
    return b;
  }
  Dense solve_transposed(Dense c) const {  // B^T y = c
    for (index_t j = 0; j < m_; ++j) {
      for (index_t i = 0; i < j; ++i) c[j] -= at(i, j) * c[i];
      c[j] /= at(j, j);
    }
    for (index_t j = m_ - 1; j >= 0; --j)
      for (index_t i = j + 1; i < m_; ++i) c[j] -= at(i, j) * c[i];
    for (index_t k = m_ - 1; k >= 0; --k) std::swap(c[k], c[piv_[k]]);
    return c;
  }
  // ||B||_1 ||B^{-1}||_1 (infinite when singular).
  double condition() const {
    if (singular_) return INFINITY;
    double inv = 0.0;
    for (index_t j = 0; j < m_; ++j) {
      Dense e(std::size_t(m_), 0.0);
      e[j] = 1.0;
      const Dense x = solve(e);
      double s = 0.0;
      for (double v : x) s += std::abs(v);
      inv = std::max(inv, s);
    }
    return norm1_ * inv;
  }

 private:
  double& at(index_t i, index_t j) { return a_[std::size_t(j) * m_ + i]; }
  double at(index_t i, index_t j) const { return a_[std::size_t(j) * m_ + i]; }
  index_t m_;
  Dense a_;
  double norm1_;
  std::vector<index_t> piv_;
  bool singular_ = false;
};

Csc<double> make_csc(index_t m, const std::vector<std::vector<std::pair<index_t, double>>>& cols) {
  Csc<double> A;
  A.rows = m;
  A.cols = index_t(cols.size());
  for (auto c : cols) {
    std::sort(c.begin(), c.end());
    for (const auto& [i, v] : c) {
      A.row_idx.push_back(i);
      A.values.push_back(v);
    }
    A.col_ptr.push_back(index_t(A.row_idx.size()));
  }
  return A;
}

// m x 2m: column j has a strong entry (|v| in [1, 4]) in row j % m and other
// entries in [-1, 1] with probability `density`.
Csc<double> random_structurals(index_t m, double density, Rng& rng) {
  std::vector<std::vector<std::pair<index_t, double>>> cols(static_cast<std::size_t>(2 * m));
  for (index_t j = 0; j < 2 * m; ++j) {
    const index_t strong = j % m;
    cols[j].push_back({strong, (pick(rng, 2) ? 1 : -1) * uniform(rng, 1.0, 4.0)});
    for (index_t i = 0; i < m; ++i)
      if (i != strong && uniform(rng, 0.0, 1.0) < density) cols[j].push_back({i, uniform(rng, -1.0, 1.0)});
  }
  return make_csc(m, cols);
}

// Row i is covered by its logical (probability logical_fraction) or by
// structural i or i + m; positions shuffled.
std::vector<index_t> random_basis(index_t m, double logical_fraction, Rng& rng) {
  std::vector<index_t> basic(static_cast<std::size_t>(m));
  for (index_t i = 0; i < m; ++i)
    basic[i] = uniform(rng, 0.0, 1.0) < logical_fraction ? 2 * m + i : i + (pick(rng, 2) ? m : 0);
  std::shuffle(basic.begin(), basic.end(), rng);
  return basic;
}

SparseVector to_sparse(const Dense& x, bool listed = true) {
  SparseVector v;
  v.resize(index_t(x.size()));
  for (index_t i = 0; i < index_t(x.size()); ++i)
    if (x[i] != 0.0) v.set(i, x[i]);
  if (!listed) v.count = -1;
  return v;
}

// The listed output: every nonzero listed once, nothing else nonzero.
void expect_listed(const SparseVector& v) {
  ASSERT_GE(v.count, 0);
  std::vector<char> seen(v.values.size(), 0);
  for (index_t k = 0; k < v.count; ++k) {
    ASSERT_GE(v.index[k], 0);
    ASSERT_LT(v.index[k], v.size());
    ASSERT_FALSE(seen[v.index[k]]) << "index " << v.index[k] << " listed twice";
    seen[v.index[k]] = 1;
  }
  for (index_t i = 0; i < v.size(); ++i)
    if (!seen[i]) {
      ASSERT_EQ(v.values[i], 0.0) << "unlisted nonzero at " << i;
    }
}

double rel_err(const Dense& x, const Dense& ref) {
  double d = 0.0, r = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d = std::max(d, std::abs(x[i] - ref[i]));
    r = std::max(r, std::abs(ref[i]));
  }
  return d / std::max(r, 1e-300);
}

Dense ftran(BasisFactor& F, const Dense& a, bool listed = true, bool keep = false) {
  SparseVector v = to_sparse(a, listed);
  F.ftran(v, keep);
  expect_listed(v);
  return v.values;
}
Dense btran(BasisFactor& F, const Dense& c, bool listed = true) {
  SparseVector v = to_sparse(c, listed);
  F.btran(v);
  expect_listed(v);
  return v.values;
}

// FTRAN and BTRAN of unit, sparse, column and dense right-hand sides against
// the dense oracle; B x = a by residual too.
void check_solves(BasisFactor& F, const Csc<double>& A, const std::vector<index_t>& basic, Rng& rng,
                  double tol = 1e-10, double backward_tol = 1e-13) {
  const index_t m = A.rows;
  const Dense B = basis_matrix(A, basic);
  const DenseLu lu(B);
  ASSERT_FALSE(lu.singular());
  const double cond = lu.condition();
  const double eff = std::max(tol, cond * 1e-14);
  std::vector<Dense> rhs;
  for (int q = 0; q < 3; ++q) {
    Dense e(std::size_t(m), 0.0);
    e[pick(rng, m)] = 1.0;
    rhs.push_back(e);
  }
  {
    Dense s(std::size_t(m), 0.0);
    for (int q = 0; q < 3; ++q) s[pick(rng, m)] = uniform(rng, -2.0, 2.0);
    rhs.push_back(s);
  }
  {  // a column of A, scaled to max 1
    Dense a = column(A, pick(rng, A.cols));
    double amax = 0.0;
    for (double v : a) amax = std::max(amax, std::abs(v));
    if (amax > 0.0)
      for (double& v : a) v /= amax;
    rhs.push_back(a);
  }
  {
    Dense d(static_cast<std::size_t>(m));
    for (double& v : d) v = uniform(rng, -1.0, 1.0);
    rhs.push_back(d);
  }
  for (std::size_t q = 0; q < rhs.size(); ++q) {
    SCOPED_TRACE("rhs " + std::to_string(q) + ", cond " + std::to_string(cond));
    const bool listed = q % 2 == 0;
    const Dense x = ftran(F, rhs[q], listed);
    EXPECT_LT(rel_err(x, lu.solve(rhs[q])), eff) << "ftran";
    // normwise backward error |B x - a| / (|B| |x| + |a|), infinity norms
    double res = 0.0, an = 0.0, xn = 0.0, bn = 0.0;
    for (index_t i = 0; i < m; ++i) {
      double s = -rhs[q][i], row = 0.0;
      for (index_t k = 0; k < m; ++k) {
        s += B[std::size_t(k) * m + i] * x[k];
        row += std::abs(B[std::size_t(k) * m + i]);
      }
      res = std::max(res, std::abs(s));
      an = std::max(an, std::abs(rhs[q][i]));
      xn = std::max(xn, std::abs(x[i]));
      bn = std::max(bn, row);
    }
    EXPECT_LE(res, backward_tol * (bn * xn + an)) << "backward error of ftran";
    const Dense y = btran(F, rhs[q], listed);
    EXPECT_LT(rel_err(y, lu.solve_transposed(rhs[q])), eff) << "btran";
  }
}

// ---- SparseVector ------------------------------------------------------------------

TEST(LpSparseVector, Methods) {
  SparseVector v;
  v.resize(6);
  EXPECT_EQ(v.size(), 6);
  EXPECT_EQ(v.count, 0);
  v.set(4, 2.0);
  v.set(1, -1.0);
  EXPECT_EQ(v.count, 2);
  EXPECT_EQ(v.index[0], 4);
  EXPECT_EQ(v.index[1], 1);
  v.clear();
  EXPECT_EQ(v.count, 0);
  for (double x : v.values) EXPECT_EQ(x, 0.0);
  v.values = {0.0, 1e-20, 3.0, 0.0, -1e-3, 0.0};
  v.count = -1;
  EXPECT_TRUE(v.dense());
  v.rebuild_index(1e-10);
  EXPECT_EQ(v.count, 2);
  EXPECT_EQ(v.index[0], 2);
  EXPECT_EQ(v.index[1], 4);
  EXPECT_EQ(v.values[1], 0.0);
  v.count = -1;
  v.clear();
  for (double x : v.values) EXPECT_EQ(x, 0.0);
  EXPECT_EQ(v.count, 0);
}

// ---- factorisation and solves ------------------------------------------------------

TEST(LpBasisFactor, RandomBasesSolveLikeDenseLu) {
  Rng rng(11);
  int cases = 0;
  for (index_t m : {5, 12, 40, 120, 300})
    for (double logicals : {0.0, 0.3, 0.8})
      for (double density : {1.5 / m, 0.05, 0.3})
        for (double hyper : {0.0, 0.1, 1.0}) {
          SCOPED_TRACE("m " + std::to_string(m) + " logicals " + std::to_string(logicals) + " density " +
                       std::to_string(density) + " hyper " + std::to_string(hyper));
          const Csc<double> A = random_structurals(m, density, rng);
          std::vector<index_t> basic = random_basis(m, logicals, rng);
          if (DenseLu(basis_matrix(A, basic)).condition() > 1e8) continue;
          BasisFactor F({.hypersparse_density = hyper});
          const FactorResult r = F.factorize(A, basic);
          ASSERT_EQ(r.rank, m);
          EXPECT_TRUE(r.missing_positions.empty());
          EXPECT_EQ(F.rows(), m);
          EXPECT_EQ(F.slots(), m);
          EXPECT_EQ(F.stats().singletons + F.stats().bump, m);
          EXPECT_GE(F.stats().nnz_U, m);
          check_solves(F, A, basic, rng);
          ++cases;
        }
  EXPECT_GT(cases, 120);
}

TEST(LpBasisFactor, TriangularBasisIsAllSingletons) {
  // Upper bidiagonal structurals: column singletons peel it without a bump.
  const index_t m = 50;
  std::vector<std::vector<std::pair<index_t, double>>> cols(static_cast<std::size_t>(m));
  for (index_t j = 0; j < m; ++j) {
    cols[j].push_back({j, 2.0 + j % 3});
    if (j > 0) cols[j].push_back({j - 1, -1.0});
  }
  const Csc<double> A = make_csc(m, cols);
  std::vector<index_t> basic(static_cast<std::size_t>(m));
  std::iota(basic.begin(), basic.end(), 0);
  BasisFactor F;
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  EXPECT_EQ(F.stats().singletons, m);
  EXPECT_EQ(F.stats().bump, 0);
  EXPECT_EQ(F.stats().nnz_L, 0);
  Rng rng(3);
  check_solves(F, A, basic, rng);
}

TEST(LpBasisFactor, HypersparseAndDensePathsAgree) {
  Rng rng(5);
  for (index_t m : {30, 200}) {
    const Csc<double> A = random_structurals(m, 3.0 / m, rng);
    std::vector<index_t> basic = random_basis(m, 0.4, rng);
    std::vector<index_t> basic2 = basic;
    BasisFactor hyper({.hypersparse_density = 1.0}), dense({.hypersparse_density = 0.0});
    ASSERT_EQ(hyper.factorize(A, basic).rank, m);
    ASSERT_EQ(dense.factorize(A, basic2).rank, m);
    // a few updates on both
    for (int u = 0; u < 10; ++u) {
      const index_t q = pick(rng, A.cols + m);
      if (std::find(basic.begin(), basic.end(), q) != basic.end()) continue;
      const Dense a = column(A, q);
      const Dense x1 = ftran(hyper, a, true, true), x2 = ftran(dense, a, true, true);
      EXPECT_LT(rel_err(x1, x2), 1e-13);
      index_t r = 0;
      for (index_t k = 0; k < m; ++k)
        if (std::abs(x1[k]) > std::abs(x1[r])) r = k;
      ASSERT_EQ(hyper.forrest_tomlin_update(r, x1[r]), UpdateResult::Ok);
      ASSERT_EQ(dense.forrest_tomlin_update(r, x2[r]), UpdateResult::Ok);
      basic[r] = q;
    }
    for (int q = 0; q < 20; ++q) {
      Dense a(std::size_t(m), 0.0);
      const int nz = q < 10 ? 1 + q % 3 : m;
      for (int k = 0; k < nz; ++k) a[pick(rng, m)] = uniform(rng, -1.0, 1.0);
      EXPECT_LT(rel_err(ftran(hyper, a), ftran(dense, a)), 1e-13);
      EXPECT_LT(rel_err(btran(hyper, a), btran(dense, a)), 1e-13);
    }
    check_solves(hyper, A, basic, rng);
    check_solves(dense, A, basic, rng);
  }
}

// ---- Forrest-Tomlin updates --------------------------------------------------------

struct UpdateRun {
  int updates = 0, refactors = 0;
};

// `steps` basis changes with random entering columns; the leaving position
// is a random one with |alpha_r| >= 0.1 max |alpha| whose new basis the
// oracle finds well conditioned. Every solve is checked after each change
// (the backward error more loosely than after a factorisation: the FT row
// etas' multipliers are not bounded, 1e3 is common on these bases).
UpdateRun run_updates(const Csc<double>& A, std::vector<index_t>& basic, BasisFactor& F, int steps, Rng& rng,
                      int check_every = 1, double max_cond = 1e7, double backward_tol = 1e-11,
                      double forward_tol = 1e-10) {
  const index_t m = A.rows, n = A.cols;
  UpdateRun run;
  std::vector<char> is_basic(std::size_t(n + m), 0);
  for (index_t j : basic) is_basic[j] = 1;
  int attempts = 0;
  while (run.updates + run.refactors < steps && attempts < 20 * steps) {
    ++attempts;
    const index_t q = pick(rng, n + m);
    if (is_basic[q]) continue;
    const Dense a = column(A, q);
    const Dense alpha = ftran(F, a, true, true);
    double amax = 0.0;
    for (double v : alpha) amax = std::max(amax, std::abs(v));
    if (amax == 0.0) continue;
    std::vector<index_t> cand;
    for (index_t k = 0; k < m; ++k)
      if (std::abs(alpha[k]) >= 0.1 * amax) cand.push_back(k);
    const index_t r = cand[pick(rng, index_t(cand.size()))];
    std::vector<index_t> next = basic;
    next[r] = q;
    if (DenseLu(basis_matrix(A, next)).condition() > max_cond) continue;
    const UpdateResult res = F.forrest_tomlin_update(r, alpha[r]);
    is_basic[basic[r]] = 0;
    is_basic[q] = 1;
    basic = next;
    if (res == UpdateResult::Refactor) {
      EXPECT_EQ(F.factorize(A, basic).rank, m);
      ++run.refactors;
    } else {
      ++run.updates;
    }
    if ((run.updates + run.refactors) % check_every == 0) {
      SCOPED_TRACE("after change " + std::to_string(run.updates + run.refactors));
      check_solves(F, A, basic, rng, forward_tol, backward_tol);
      if (::testing::Test::HasFatalFailure()) return run;
    }
  }
  return run;
}

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

TEST(LpBasisFactor, BadBasisIsRefusedAndTheFactorKept) {
  Rng rng(31);
  const index_t m = 20;
  const Csc<double> A = random_structurals(m, 0.1, rng);
  std::vector<index_t> basic = random_basis(m, 0.5, rng);
  BasisFactor F;
  ASSERT_EQ(F.factorize(A, basic).rank, m);
  std::vector<index_t> bad = basic;
  bad[1] = bad[0];
  EXPECT_THROW(F.factorize(A, bad), Error);
  bad = basic;
  bad[2] = 3 * m;  // n + m: out of range
  EXPECT_THROW(F.factorize(A, bad), Error);
  bad.pop_back();
  EXPECT_THROW(F.factorize(A, bad), DimensionError);
  check_solves(F, A, basic, rng);  // still the factor of `basic`
  SparseVector wrong;
  wrong.resize(m + 1);
  EXPECT_THROW(F.ftran(wrong), DimensionError);
  EXPECT_THROW(F.btran(wrong), DimensionError);
  BasisFactor empty;
  SparseVector v;
  v.resize(m);
  EXPECT_THROW(empty.ftran(v), Error);
}

// ---- singular bases ---------------------------------------------------------------

// After a repair: the report is consistent, basic[] holds the logicals, and
// the factor solves the repaired (nonsingular) basis.
void expect_repaired(BasisFactor& F, const FactorResult& r, const Csc<double>& A, const std::vector<index_t>& before,
                     const std::vector<index_t>& after, index_t expected_rank, Rng& rng) {
  const index_t m = A.rows, n = A.cols;
  EXPECT_EQ(r.rank, expected_rank);
  ASSERT_EQ(index_t(r.missing_positions.size()), m - r.rank);
  ASSERT_EQ(index_t(r.missing_rows.size()), m - r.rank);
  std::set<index_t> pos(r.missing_positions.begin(), r.missing_positions.end());
  std::set<index_t> rows(r.missing_rows.begin(), r.missing_rows.end());
  EXPECT_EQ(index_t(pos.size()), m - r.rank);
  EXPECT_EQ(index_t(rows.size()), m - r.rank);
  for (std::size_t q = 0; q < r.missing_positions.size(); ++q)
    EXPECT_EQ(after[r.missing_positions[q]], n + r.missing_rows[q]);
  for (index_t k = 0; k < m; ++k)
    if (!pos.count(k)) {
      EXPECT_EQ(after[k], before[k]);
    }
  const DenseLu lu(basis_matrix(A, after));
  ASSERT_FALSE(lu.singular());
  EXPECT_LT(lu.condition(), 1e10);
  check_solves(F, A, after, rng);
}

TEST(LpBasisFactor, SingularBasesAreRepairedWithLogicals) {
  Rng rng(17);
  const index_t m = 30;
  Csc<double> base = random_structurals(m, 0.08, rng);
  std::vector<std::vector<std::pair<index_t, double>>> cols;
  for (index_t j = 0; j < base.cols; ++j) {
    cols.emplace_back();
    for (index_t p = base.col_ptr[j]; p < base.col_ptr[j + 1]; ++p) cols.back().push_back({base.row_idx[p], base.values[p]});
  }
  const index_t dup = index_t(cols.size());
  cols.push_back(cols[3]);  // a duplicate of column 3
  const index_t zero = index_t(cols.size());
  cols.push_back({{2, 0.0}, {7, 0.0}});  // explicit zeros only
  const index_t empty = index_t(cols.size());
  cols.push_back({});
  const index_t sum = index_t(cols.size());
  {  // column 5 + 2 * column 6
    Dense s = column(base, 5);
    const Dense c6 = column(base, 6);
    std::vector<std::pair<index_t, double>> c;
    for (index_t i = 0; i < m; ++i)
      if (s[i] + 2 * c6[i] != 0.0) c.push_back({i, s[i] + 2 * c6[i]});
    cols.push_back(c);
  }
  const index_t tiny = index_t(cols.size());
  cols.push_back({{4, 1e-13}});
  const Csc<double> A = make_csc(m, cols);
  const index_t n = A.cols;
  // A nonsingular basis to start from: structurals 0..m-1 (strong diagonal).
  std::vector<index_t> good(static_cast<std::size_t>(m));
  std::iota(good.begin(), good.end(), 0);
  ASSERT_FALSE(DenseLu(basis_matrix(A, good)).singular());

  struct Case {
    const char* name;
    std::vector<std::pair<index_t, index_t>> replace;  // position, variable
    index_t rank;
  };
  const std::vector<Case> cases = {
      {"duplicate column", {{10, dup}}, m - 1},
      {"explicit zeros and empty column", {{11, zero}, {12, empty}}, m - 2},
      {"numerical dependency", {{13, sum}}, m - 1},
      {"tiny column singleton", {{14, tiny}}, m - 1},
      {"all of them", {{10, dup}, {11, zero}, {12, empty}, {13, sum}, {14, tiny}}, m - 5},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<index_t> basic = good;
    for (auto [p, j] : c.replace) basic[p] = j;
    if (c.replace[0].second == dup) {
      ASSERT_NE(std::find(basic.begin(), basic.end(), 3), basic.end());
    }
    const std::vector<index_t> before = basic;
    for (double hyper : {0.0, 1.0}) {
      basic = before;
      BasisFactor F({.hypersparse_density = hyper});
      const FactorResult r = F.factorize(A, basic);
      expect_repaired(F, r, A, before, basic, c.rank, rng);
    }
  }
  // Structurally rank deficient: three columns living in rows {0, 1} only.
  {
    std::vector<std::vector<std::pair<index_t, double>>> c3 = {
        {{0, 1.0}, {1, 2.0}}, {{0, -1.0}, {1, 1.0}}, {{0, 3.0}, {1, -0.5}}, {{2, 1.0}, {3, 1.0}}, {{3, 2.0}, {4, 1.0}}};
    const Csc<double> A3 = make_csc(6, c3);
    std::vector<index_t> basic = {0, 1, 2, 3, 4, 5 + 5};  // logical of row 5
    const std::vector<index_t> before = basic;
    BasisFactor F;
    const FactorResult r = F.factorize(A3, basic);
    expect_repaired(F, r, A3, before, basic, 5, rng);
    ASSERT_EQ(r.missing_positions.size(), 1u);
    EXPECT_LE(r.missing_positions[0], 2);
  }
  // Nothing but zero columns: every position gets a logical.
  {
    std::vector<index_t> basic(static_cast<std::size_t>(m));
    basic[0] = zero;
    basic[1] = empty;
    for (index_t k = 2; k < m; ++k) basic[k] = n + (k + 5) % m;  // logicals of rows 7.., 0..4 skipped twice
    std::set<index_t> distinct(basic.begin(), basic.end());
    ASSERT_EQ(index_t(distinct.size()), m);
    const std::vector<index_t> before = basic;
    BasisFactor F;
    const FactorResult r = F.factorize(A, basic);
    expect_repaired(F, r, A, before, basic, m - 2, rng);
  }
  // Updates on a repaired factor.
  {
    std::vector<index_t> basic = good;
    basic[10] = dup;
    BasisFactor F;
    ASSERT_EQ(F.factorize(A, basic).rank, m - 1);
    const UpdateRun run = run_updates(A, basic, F, 20, rng);
    EXPECT_EQ(run.updates + run.refactors, 20);
  }
}

// ---- the exported slot-space factors -------------------------------------------------

// FTRAN/BTRAN done densely with lower_factor, apply_row_etas, upper_factor
// and the slot arrays.
void expect_exported_factors_solve(BasisFactor& F, Rng& rng) {
  const index_t m = F.rows(), S = F.slots() + 2;
  const Csr<double> L = F.lower_factor(), U = F.upper_factor(S);
  ASSERT_TRUE(is_canonical(L));
  ASSERT_TRUE(is_canonical(U));
  ASSERT_EQ(L.rows, m);
  ASSERT_EQ(U.rows, S);
  for (index_t s = 0; s < m; ++s) {  // unit lower, diagonal last
    const index_t e = L.row_ptr[s + 1] - 1;
    ASSERT_EQ(L.col_idx[e], s);
    ASSERT_EQ(L.values[e], 1.0);
  }
  for (index_t s = 0; s < S; ++s) {  // upper, diagonal first
    ASSERT_GT(U.row_ptr[s + 1], U.row_ptr[s]);
    ASSERT_EQ(U.col_idx[U.row_ptr[s]], s);
    ASSERT_NE(U.values[U.row_ptr[s]], 0.0);
  }
  const auto sor = F.slot_of_row();
  const auto pos = F.position_of_slot();
  ASSERT_EQ(index_t(sor.size()), m);
  ASSERT_EQ(index_t(pos.size()), F.slots());
  std::vector<index_t> row_of(static_cast<std::size_t>(m)), slot_of_pos(static_cast<std::size_t>(m), -1);
  for (index_t i = 0; i < m; ++i) row_of[sor[i]] = i;
  index_t vacated = 0;
  for (index_t s = 0; s < F.slots(); ++s) {
    if (pos[s] < 0) {
      ++vacated;
      continue;
    }
    ASSERT_EQ(slot_of_pos[pos[s]], -1);
    slot_of_pos[pos[s]] = s;
  }
  EXPECT_EQ(vacated, F.stats().updates);
  for (int q = 0; q < 4; ++q) {
    Dense a(std::size_t(m), 0.0);
    for (index_t k = 0; k < (q < 2 ? 2 : m); ++k) a[pick(rng, m)] = uniform(rng, -1.0, 1.0);
    // FTRAN by hand
    Dense z(std::size_t(S), 0.0);
    for (index_t i = 0; i < m; ++i) z[sor[i]] = a[i];
    for (index_t s = 0; s < m; ++s)
      for (index_t p = L.row_ptr[s]; p < L.row_ptr[s + 1] - 1; ++p) z[s] -= L.values[p] * z[L.col_idx[p]];
    F.apply_row_etas(z);
    for (index_t s = S - 1; s >= 0; --s) {
      for (index_t p = U.row_ptr[s] + 1; p < U.row_ptr[s + 1]; ++p) z[s] -= U.values[p] * z[U.col_idx[p]];
      z[s] /= U.values[U.row_ptr[s]];
    }
    Dense x(std::size_t(m), 0.0);
    for (index_t s = 0; s < F.slots(); ++s) {
      if (pos[s] >= 0) x[pos[s]] = z[s];
      else EXPECT_NEAR(z[s], 0.0, 1e-12);
    }
    EXPECT_LT(rel_err(x, ftran(F, a)), 1e-11);
    // BTRAN by hand
    Dense y(std::size_t(S), 0.0);
    for (index_t k = 0; k < m; ++k) y[slot_of_pos[k]] = a[k];
    for (index_t s = 0; s < S; ++s) {
      y[s] /= U.values[U.row_ptr[s]];
      for (index_t p = U.row_ptr[s] + 1; p < U.row_ptr[s + 1]; ++p) y[U.col_idx[p]] -= U.values[p] * y[s];
    }
    F.apply_row_etas_transposed(y);
    for (index_t s = F.slots(); s < S; ++s) EXPECT_EQ(y[s], 0.0);
    for (index_t s = m - 1; s >= 0; --s)
      for (index_t p = L.row_ptr[s]; p < L.row_ptr[s + 1] - 1; ++p) y[L.col_idx[p]] -= L.values[p] * y[s];
    Dense r(std::size_t(m), 0.0);
    for (index_t s = 0; s < m; ++s) r[row_of[s]] = y[s];
    EXPECT_LT(rel_err(r, btran(F, a)), 1e-11);
  }
}

// Dense copy of a square CSR.
Dense dense_of(const Csr<double>& M) {
  Dense D(std::size_t(M.rows) * M.cols, 0.0);
  for (index_t i = 0; i < M.rows; ++i)
    for (index_t p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p) D[std::size_t(M.col_idx[p]) * M.rows + i] = M.values[p];
  return D;
}

TEST(LpBasisFactor, ExportedFactorsMatchTheSolves) {
  Rng rng(19);
  for (index_t m : {10, 60}) {
    const Csc<double> A = random_structurals(m, 0.08, rng);
    std::vector<index_t> basic = random_basis(m, 0.3, rng);
    BasisFactor F({.max_updates = 40});
    ASSERT_EQ(F.factorize(A, basic).rank, m);
    expect_exported_factors_solve(F, rng);
    EXPECT_TRUE(F.changed_upper_columns().empty());
    std::vector<char> is_basic(std::size_t(A.cols + m), 0);
    for (index_t j : basic) is_basic[j] = 1;
    int done = 0;
    for (int attempt = 0; attempt < 400 && done < 30; ++attempt) {
      const index_t q = pick(rng, A.cols + m);
      if (is_basic[q]) continue;
      const Dense alpha = ftran(F, column(A, q), true, true);
      index_t r = 0;
      for (index_t k = 0; k < m; ++k)
        if (std::abs(alpha[k]) > std::abs(alpha[r])) r = k;
      if (alpha[r] == 0.0) continue;
      std::vector<index_t> next = basic;
      next[r] = q;
      if (DenseLu(basis_matrix(A, next)).condition() > 1e7) continue;
      const index_t size = F.slots() + 1;
      const Dense before = dense_of(F.upper_factor(size));
      const index_t t = [&] {
        const auto pos = F.position_of_slot();
        for (index_t s = 0; s < index_t(pos.size()); ++s)
          if (pos[s] == r) return s;
        return index_t(-1);
      }();
      const UpdateResult res = F.forrest_tomlin_update(r, alpha[r]);
      is_basic[basic[r]] = 0;
      is_basic[q] = 1;
      basic = next;
      if (res != UpdateResult::Ok) {  // growth: nnz(U) + nnz(R) > 3 (nnz(U_0) + m)
        ASSERT_EQ(F.factorize(A, basic).rank, m);
        continue;
      }
      ++done;
      const Dense after = dense_of(F.upper_factor(size));
      const auto changed = F.changed_upper_columns();
      ASSERT_TRUE(std::is_sorted(changed.begin(), changed.end()));
      EXPECT_TRUE(std::binary_search(changed.begin(), changed.end(), t));
      EXPECT_TRUE(std::binary_search(changed.begin(), changed.end(), F.slots() - 1));
      for (index_t j = 0; j < size; ++j) {
        bool differs = false;
        for (index_t i = 0; i < size; ++i) differs |= before[std::size_t(j) * size + i] != after[std::size_t(j) * size + i];
        if (differs) {
          EXPECT_TRUE(std::binary_search(changed.begin(), changed.end(), j)) << "column " << j;
        }
      }
      // upper_columns gives the changed columns exactly as upper_factor has them.
      std::vector<index_t> ptr, rows;
      std::vector<double> vals;
      F.upper_columns(changed, ptr, rows, vals);
      const Csc<double> Uc = to_csc(F.upper_factor(size));
      ASSERT_EQ(ptr.size(), changed.size() + 1);
      for (std::size_t c = 0; c < changed.size(); ++c) {
        const index_t j = changed[c];
        ASSERT_EQ(ptr[c + 1] - ptr[c], Uc.col_ptr[j + 1] - Uc.col_ptr[j]) << "column " << j;
        for (index_t k = 0; k < ptr[c + 1] - ptr[c]; ++k) {
          EXPECT_EQ(rows[ptr[c] + k], Uc.row_idx[Uc.col_ptr[j] + k]);
          EXPECT_EQ(vals[ptr[c] + k], Uc.values[Uc.col_ptr[j] + k]);
        }
      }
      expect_exported_factors_solve(F, rng);
      check_solves(F, A, basic, rng);
    }
    EXPECT_EQ(done, 30);
  }
}

// ---- a real LP matrix ---------------------------------------------------------------

Csc<double> read_e226() { return to_csc(to_csr(read_matrix_market<double>(test::data_file("lp_e226.mtx")))); }

// A random basis of k structurals and m - k logicals.
std::vector<index_t> random_lp_basis(index_t m, index_t n, index_t k, Rng& rng) {
  std::vector<index_t> cols(static_cast<std::size_t>(n)), rows(static_cast<std::size_t>(m));
  std::iota(cols.begin(), cols.end(), 0);
  std::iota(rows.begin(), rows.end(), n);
  std::shuffle(cols.begin(), cols.end(), rng);
  std::shuffle(rows.begin(), rows.end(), rng);
  std::vector<index_t> basic(cols.begin(), cols.begin() + k);
  basic.insert(basic.end(), rows.begin(), rows.begin() + (m - k));
  std::shuffle(basic.begin(), basic.end(), rng);
  return basic;
}

TEST(LpBasisFactor, NetlibE226RandomBases) {
  const Csc<double> A = read_e226();
  const index_t m = A.rows, n = A.cols;
  ASSERT_EQ(m, 223);
  Rng rng(23);
  for (index_t k : {50, 120, 180, 223}) {
    for (int trial = 0; trial < 3; ++trial) {
      SCOPED_TRACE("structurals " + std::to_string(k) + " trial " + std::to_string(trial));
      std::vector<index_t> basic = random_lp_basis(m, n, k, rng);
      const std::vector<index_t> before = basic;
      BasisFactor F;
      const FactorResult r = F.factorize(A, basic);
      // The repaired basis must be nonsingular; the report consistent.
      ASSERT_EQ(index_t(r.missing_positions.size()), m - r.rank);
      for (std::size_t q = 0; q < r.missing_positions.size(); ++q)
        EXPECT_EQ(basic[r.missing_positions[q]], n + r.missing_rows[q]);
      const DenseLu lu(basis_matrix(A, basic));
      ASSERT_FALSE(lu.singular());
      if (r.rank == m) {
        EXPECT_EQ(basic, before);
      }
      check_solves(F, A, basic, rng, 1e-9);
      // The repaired basis factorises with full rank.
      std::vector<index_t> again = basic;
      BasisFactor G({.hypersparse_density = 1.0});
      EXPECT_EQ(G.factorize(A, again).rank, m);
      EXPECT_EQ(again, basic);
    }
  }
}

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
