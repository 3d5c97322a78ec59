// The simplex basis factorisation's LU (lp/basis/basis_factor_lu.cpp): FTRAN/BTRAN
// against a dense LU with partial pivoting of the same basis on random sparse
// bases (logicals and structurals), all-singleton triangular bases, bad bases
// refused with the factor kept, singular bases (repaired with logicals), and
// random bases of the Netlib matrix lp_e226. Helpers: support/basis_factor_cases.hpp.
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/basis_factor_cases.hpp"

namespace balsa::lp {
namespace {

using namespace basis_cases;

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

// ---- a real LP matrix ---------------------------------------------------------------

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

}  // namespace
}  // namespace balsa::lp
