// The simplex basis factorisation's solves (lp/basis/basis_factor_solve.cpp):
// SparseVector, hypersparse vs dense FTRAN/BTRAN paths, and the exported
// slot-space factors against FTRAN/BTRAN done by hand. Helpers:
// support/basis_factor_cases.hpp.
#include <cmath>
#include <vector>

#include "support/basis_factor_cases.hpp"

namespace balsa::lp {
namespace {

using namespace basis_cases;

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

// ---- solves ------------------------------------------------------------------------

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

}  // namespace
}  // namespace balsa::lp
