// Helpers shared by the basis factorisation tests (tests/lp/lp_basis_factor_*_test.cpp,
// after lp/basis/basis_factor_*.cpp): dense columns and bases of [A | I], a
// dense LU with partial pivoting as the oracle, random sparse bases, FTRAN
// and BTRAN checked against the oracle (check_solves), sequences of
// Forrest-Tomlin updates (run_updates), and the Netlib matrix lp_e226.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "balsa/matrix_market.hpp"
#include "balsa/sparse.hpp"
#include "lp/basis/basis_factor.hpp"
#include "support/test_support.hpp"

namespace balsa::lp::basis_cases {

using Dense = std::vector<double>;
using Rng = std::mt19937_64;

inline double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
inline index_t pick(Rng& rng, index_t n) { return std::uniform_int_distribution<index_t>(0, n - 1)(rng); }

// Column j of [A | I], dense.
inline Dense column(const Csc<double>& A, index_t j) {
  Dense a(std::size_t(A.rows), 0.0);
  if (j >= A.cols) {
    a[j - A.cols] = 1.0;
    return a;
  }
  for (index_t p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) a[A.row_idx[p]] += A.values[p];
  return a;
}

// The basis, column-major.
inline Dense basis_matrix(const Csc<double>& A, const std::vector<index_t>& basic) {
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

inline Csc<double> make_csc(index_t m, const std::vector<std::vector<std::pair<index_t, double>>>& cols) {
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
inline Csc<double> random_structurals(index_t m, double density, Rng& rng) {
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
inline std::vector<index_t> random_basis(index_t m, double logical_fraction, Rng& rng) {
  std::vector<index_t> basic(static_cast<std::size_t>(m));
  for (index_t i = 0; i < m; ++i)
    basic[i] = uniform(rng, 0.0, 1.0) < logical_fraction ? 2 * m + i : i + (pick(rng, 2) ? m : 0);
  std::shuffle(basic.begin(), basic.end(), rng);
  return basic;
}

inline SparseVector to_sparse(const Dense& x, bool listed = true) {
  SparseVector v;
  v.resize(index_t(x.size()));
  for (index_t i = 0; i < index_t(x.size()); ++i)
    if (x[i] != 0.0) v.set(i, x[i]);
  if (!listed) v.count = -1;
  return v;
}

// The listed output: every nonzero listed once, nothing else nonzero.
inline void expect_listed(const SparseVector& v) {
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

inline double rel_err(const Dense& x, const Dense& ref) {
  double d = 0.0, r = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d = std::max(d, std::abs(x[i] - ref[i]));
    r = std::max(r, std::abs(ref[i]));
  }
  return d / std::max(r, 1e-300);
}

inline Dense ftran(BasisFactor& F, const Dense& a, bool listed = true, bool keep = false) {
  SparseVector v = to_sparse(a, listed);
  F.ftran(v, keep);
  expect_listed(v);
  return v.values;
}
inline Dense btran(BasisFactor& F, const Dense& c, bool listed = true) {
  SparseVector v = to_sparse(c, listed);
  F.btran(v);
  expect_listed(v);
  return v.values;
}

// FTRAN and BTRAN of unit, sparse, column and dense right-hand sides against
// the dense oracle; B x = a by residual too.
inline void check_solves(BasisFactor& F, const Csc<double>& A, const std::vector<index_t>& basic, Rng& rng,
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

struct UpdateRun {
  int updates = 0, refactors = 0;
};

// `steps` basis changes with random entering columns; the leaving position
// is a random one with |alpha_r| >= 0.1 max |alpha| whose new basis the
// oracle finds well conditioned. Every solve is checked after each change
// (the backward error more loosely than after a factorisation: the FT row
// etas' multipliers are not bounded, 1e3 is common on these bases).
inline UpdateRun run_updates(const Csc<double>& A, std::vector<index_t>& basic, BasisFactor& F, int steps, Rng& rng,
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

// ---- a real LP matrix ---------------------------------------------------------------

inline Csc<double> read_e226() { return to_csc(to_csr(read_matrix_market<double>(test::data_file("lp_e226.mtx")))); }

// A random basis of k structurals and m - k logicals.
inline std::vector<index_t> random_lp_basis(index_t m, index_t n, index_t k, Rng& rng) {
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

}  // namespace balsa::lp::basis_cases
