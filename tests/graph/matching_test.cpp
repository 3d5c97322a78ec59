// DB, diagonal boosting (include/balsa/reorder.hpp; report sec. 2.2.1, 3.3)
// on the CPU: optimality by the dual certificate and by brute force, the
// I-matrix form after apply_boosting, structural rank against SuiteSparse
// BTF's maximum transversal, and bad input.
#include <gtest/gtest.h>

#include <btf.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/reorder.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// The CPU path (Device::Auto would take the GPU's stages where one is).
MatchingOptions cpu(bool scaling = true) {
  MatchingOptions o;
  o.scaling = scaling;
  o.device = Device::Cpu;
  return o;
}
template <class T>
DiagonalBoosting boost(const Csr<T>& A) {
  return diagonal_boosting(A, cpu());
}

std::vector<index_t> identity(index_t n) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// c_ij of eq. (12), recomputed here: log(a_i / |a_ij|), +inf for a zero.
template <class T>
std::vector<double> weights(const Csr<T>& A) {
  std::vector<double> c(A.values.size());
  for (index_t i = 0; i < A.rows; ++i) {
    double m = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) m = std::max(m, std::abs(double(A.values[p])));
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const double a = std::abs(double(A.values[p]));
      c[p] = a == 0 ? INFINITY : std::log(m) - std::log(a);
    }
  }
  return c;
}

template <class T>
Csr<T> without_zeros(const Csr<T>& A) {
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.values[p] != T(0)) {
        B.col_idx.push_back(A.col_idx[p]);
        B.values.push_back(A.values[p]);
      }
    B.row_ptr.push_back(index_t(B.col_idx.size()));
  }
  return B;
}

// The dual certificate: u_i + v_j <= c_ij on every entry, equality on the
// matching, row_perm a permutation onto nonzeros, and log_product its sum.
template <class T>
void expect_optimal(const Csr<T>& A, const DiagonalBoosting& db) {
  const index_t n = A.rows;
  ASSERT_EQ(db.n, n);
  ASSERT_EQ(db.row_perm.size(), std::size_t(n));
  ASSERT_EQ(db.u.size(), std::size_t(n));
  ASSERT_EQ(db.v.size(), std::size_t(n));
  EXPECT_EQ(db.structural_rank, n);
  EXPECT_NO_THROW(check_permutation(db.row_perm, n));
  std::vector<index_t> col_of(std::size_t(n), -1);
  for (index_t j = 0; j < n; ++j) col_of[db.row_perm[j]] = j;
  const std::vector<double> c = weights(A);
  double scale = 1;
  for (index_t i = 0; i < n; ++i) scale = std::max({scale, std::abs(db.u[i]), std::abs(db.v[i])});
  const double eps = 1e-11 * scale;
  int violations = 0, matched = 0;
  double log_product = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t j = A.col_idx[p];
      if (db.u[i] + db.v[j] > c[p] + eps && ++violations < 5)
        ADD_FAILURE() << "dual infeasible at (" << i << ", " << j << "): u + v - c = " << db.u[i] + db.v[j] - c[p];
      if (col_of[i] == j) {
        ++matched;
        EXPECT_NEAR(db.u[i] + db.v[j], c[p], eps) << "matched (" << i << ", " << j << ") not tight";
        log_product += std::log(std::abs(double(A.values[p])));
      }
    }
  EXPECT_EQ(matched, n) << "the matching uses entries that are not stored (or zeros)";
  EXPECT_NEAR(db.log_product, log_product, 1e-12 * std::max(1.0, std::abs(log_product)));
  EXPECT_EQ(db.stats.initial_matches + db.stats.augmentations, n);
}

// |b_ii| = 1 and |b_ij| <= 1 for B = D_r Q A D_c.
template <class T>
void expect_i_matrix(const Csr<T>& A, const DiagonalBoosting& db, double tol) {
  const Csr<T> B = apply_boosting(A, db);
  ASSERT_TRUE(is_canonical(B));
  ASSERT_EQ(B.nnz(), A.nnz());
  int bad = 0;
  for (index_t i = 0; i < B.rows; ++i) {
    bool diagonal = false;
    for (index_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p) {
      const double b = std::abs(double(B.values[p]));
      if (B.col_idx[p] == i) {
        diagonal = true;
        if (std::abs(b - 1) > tol && ++bad < 5) ADD_FAILURE() << "|b_" << i << i << "| = " << b;
      } else if (b > 1 + tol && ++bad < 5) {
        ADD_FAILURE() << "|b(" << i << ", " << B.col_idx[p] << ")| = " << b;
      }
    }
    if (!diagonal && ++bad < 5) ADD_FAILURE() << "no diagonal in row " << i;
  }
}

// The maximum of sum_j log|a(p_j, j)| over every permutation p (n <= 8).
double brute_force_log_product(const Csr<double>& A) {
  const DenseMatrix<double> D = to_dense(A);
  std::vector<index_t> p(std::size_t(A.rows));
  std::iota(p.begin(), p.end(), 0);
  double best = -INFINITY;
  do {
    double s = 0;
    for (index_t j = 0; j < A.rows && s > -INFINITY; ++j) s += std::log(std::abs(D(p[j], j)));
    best = std::max(best, s);
  } while (std::next_permutation(p.begin(), p.end()));
  return best;
}

// A random n x n matrix of about `density` n^2 entries plus a random
// permutation's entries (so a perfect matching exists, off the diagonal).
Csr<double> random_nonsingular(index_t n, double density, std::uint64_t seed, double spread = 1) {
  Csr<double> R = test::random_sparse<double>(n, n, density, seed);
  Coo<double> coo = to_coo(R);
  const std::vector<index_t> perm = random_permutation(n, seed + 7);
  Random rng(seed + 11);
  for (index_t j = 0; j < n; ++j) {
    coo.row_idx.push_back(perm[j]);
    coo.col_idx.push_back(j);
    coo.values.push_back(rng.uniform(-1, 1));
  }
  for (double& x : coo.values) x *= std::pow(10.0, spread * rng.uniform(-3, 3));  // a wide range of magnitudes
  return to_csr(coo);
}

// Structural rank by SuiteSparse BTF (the pattern of A^T: the same rank).
template <class T>
index_t btf_rank(const Csr<T>& A) {
  std::vector<int> ptr(A.row_ptr.begin(), A.row_ptr.end()), idx(A.col_idx.begin(), A.col_idx.end());
  std::vector<int> match(std::size_t(std::max(A.cols, 1))), work(5 * std::size_t(std::max(A.rows, 1)));
  double w = 0;
  return btf_maxtrans(A.cols, A.rows, ptr.data(), idx.data(), 0.0, &w, match.data(), work.data());
}

TEST(Matching, BruteForceOnSmallMatrices) {
  int cases = 0;
  for (index_t n = 1; n <= 8; ++n)
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      const Csr<double> A = random_nonsingular(n, seed % 3 == 0 ? 0.9 : 0.35, seed * 31 + std::uint64_t(n));
      const DiagonalBoosting db = boost(A);
      EXPECT_NEAR(db.log_product, brute_force_log_product(A), 1e-10);
      expect_optimal(A, db);
      expect_i_matrix(A, db, 1e-12);
      ++cases;
    }
  EXPECT_EQ(cases, 96);
}

TEST(Matching, DualCertificateOnRandomMatrices) {
  for (const index_t n : {50, 400, 3000}) {
    for (const double density : {2.0 / n, 8.0 / n}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " density=" + std::to_string(density));
      const Csr<double> A = random_nonsingular(n, density, std::uint64_t(n) * 3 + std::uint64_t(density * n));
      const DiagonalBoosting db = boost(A);
      expect_optimal(A, db);
      expect_i_matrix(A, db, 1e-12);
      EXPECT_EQ(db.stats.device, Device::Cpu);
      EXPECT_EQ(diagonal_boosting(A).row_perm, db.row_perm);  // Device::Auto: the same matching
      EXPECT_GE(db.stats.t_total, db.stats.t_s3);
    }
  }
}

TEST(Matching, FloatMatrices) {
  const Csr<double> Ad = random_nonsingular(500, 0.01, 5);
  const Csr<float> A = convert_values<float>(Ad);
  const DiagonalBoosting db = boost(A);
  expect_optimal(A, db);
  expect_i_matrix(A, db, 1e-6);
}

TEST(Matching, RealMatrices) {
  int boosted = 0;
  int singular = 0;
  const int square = test::for_each_square_real_matrix<double>([&](const Csr<double>& A) {
    EXPECT_EQ(structural_rank(A), btf_rank(A));
    // DB's graph has the nonzeros only (zenios.mtx stores 14375 zeros).
    const index_t r = structural_rank(without_zeros(A));
    EXPECT_EQ(r, btf_rank(without_zeros(A)));
    if (r < A.rows) {
      EXPECT_THROW_MSG(boost(A), StructurallySingular,
                       "structural rank " + std::to_string(r) + " < " + std::to_string(A.rows));
      ++singular;
      return;
    }
    const DiagonalBoosting db = boost(A);
    expect_optimal(A, db);
    expect_i_matrix(A, db, 1e-12);
    ++boosted;
  });
  EXPECT_GE(square, 10);
  EXPECT_GE(boosted, 8);
  EXPECT_GE(singular, 1);
}

TEST(Matching, PermutedScaledLaplacianIsUndone) {
  // Q A with A's diagonal dominant in every row and column: DB finds Q^-1.
  const Csr<double> L = laplacian_3d<double>(12, 10, 9, Stencil3d::Point7, GridOrdering::Random, 3);
  const index_t n = L.rows;
  const std::vector<index_t> q = random_permutation(n, 9);
  Csr<double> A = permute(L, q, identity(n));
  Random rng(4);
  double log_diagonal = 0;  // log |diag(L)| of the scaled rows
  for (index_t i = 0; i < n; ++i) {
    const double f = std::pow(10.0, rng.uniform(-5, 5));
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) A.values[p] *= f;
    log_diagonal += std::log(6 * f);
  }
  const DiagonalBoosting db = boost(A);
  expect_optimal(A, db);
  expect_i_matrix(A, db, 1e-12);
  const std::vector<index_t> qinv = inverse_permutation(q);
  EXPECT_EQ(db.row_perm, qinv);
  EXPECT_EQ(db.stats.initial_matches, n);  // every column's minimum is its own diagonal entry
  EXPECT_NEAR(db.log_product, log_diagonal, 1e-9);
}

TEST(Matching, BestDiagonalGivesTheIdentity) {
  // Diagonally dominant by rows and columns: the diagonal is the unique optimum.
  const Csr<double> A = random_spd<double>(300, 6, 21);
  const DiagonalBoosting db = boost(A);
  EXPECT_EQ(db.row_perm, identity(300));
  expect_optimal(A, db);
}

TEST(Matching, WithoutScalingTheFactorsAreOne) {
  const Csr<double> A = random_nonsingular(100, 0.05, 8);
  const DiagonalBoosting db = diagonal_boosting(A, cpu(false));
  EXPECT_EQ(db.row_scale, std::vector<double>(100, 1.0));
  EXPECT_EQ(db.col_scale, std::vector<double>(100, 1.0));
  EXPECT_EQ(db.row_perm, boost(A).row_perm);
  const Csr<double> B = apply_boosting(A, db);  // Q A
  for (index_t i = 0; i < 100; ++i) EXPECT_NE(diagonal(B)[std::size_t(i)], 0.0);
}

TEST(Matching, TinySizes) {
  const Csr<double> empty;
  const DiagonalBoosting d0 = boost(empty);
  EXPECT_EQ(d0.n, 0);
  EXPECT_TRUE(d0.row_perm.empty());
  EXPECT_EQ(structural_rank(empty), 0);
  EXPECT_EQ(apply_boosting(empty, d0).rows, 0);

  const Csr<double> one{1, 1, {0, 1}, {0}, {-4.0}};
  const DiagonalBoosting d1 = boost(one);
  EXPECT_EQ(d1.row_perm, std::vector<index_t>{0});
  EXPECT_NEAR(d1.log_product, std::log(4.0), 1e-15);
  EXPECT_NEAR(apply_boosting(one, d1).values[0], -1.0, 1e-15);

  const Csr<double> zero{1, 1, {0, 1}, {0}, {0.0}};
  EXPECT_THROW_MSG(boost(zero), StructurallySingular, "structural rank 0 < 1");
}

TEST(Matching, StructurallySingularInput) {
  // Rows 0..3 only reach columns 0..2 (a Hall violation) in a 6 x 6 matrix.
  Coo<double> coo;
  coo.rows = coo.cols = 6;
  const auto add = [&](index_t i, index_t j, double x) {
    coo.row_idx.push_back(i);
    coo.col_idx.push_back(j);
    coo.values.push_back(x);
  };
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) add(i, j, 1.0 + i + 2 * j);
  for (index_t i = 4; i < 6; ++i)
    for (index_t j = 0; j < 6; ++j) add(i, j, 2.0 - j);  // (4, 2) and (5, 2) hold 0 -> stored zeros
  const Csr<double> A = to_csr(coo);
  EXPECT_EQ(structural_rank(A), 5);
  EXPECT_EQ(btf_rank(A), 5);
  try {
    (void)boost(A);
    ADD_FAILURE() << "no exception";
  } catch (const StructurallySingular& e) {
    EXPECT_EQ(e.structural_rank(), 5);
    EXPECT_EQ(e.n(), 6);
    EXPECT_NE(std::string(e.what()).find("A (6 x 6) is structurally singular: structural rank 5 < 6"),
              std::string::npos)
        << e.what();
  }
}

TEST(Matching, StoredZerosAreNoEdges) {
  // [[0 1] [1 0]] with the zeros stored: the anti-diagonal.
  const Csr<double> A{2, 2, {0, 2, 4}, {0, 1, 0, 1}, {0.0, 1.0, 3.0, 0.0}};
  const DiagonalBoosting db = boost(A);
  EXPECT_EQ(db.row_perm, (std::vector<index_t>{1, 0}));
  // A stored zero as the only entry of a column: the pattern's rank is 2,
  // the nonzeros' 1.
  const Csr<double> B{2, 2, {0, 2, 3}, {0, 1, 0}, {1.0, 0.0, 2.0}};
  EXPECT_EQ(structural_rank(B), 2);
  EXPECT_THROW_MSG(boost(B), StructurallySingular, "structural rank 1 < 2");
}

TEST(Matching, ZeroRowAndZeroColumn) {
  Csr<double> A = random_nonsingular(40, 0.1, 3);
  Csr<double> Z = A;  // row 7 emptied
  const index_t len = Z.row_ptr[8] - Z.row_ptr[7];
  Z.col_idx.erase(Z.col_idx.begin() + Z.row_ptr[7], Z.col_idx.begin() + Z.row_ptr[8]);
  Z.values.erase(Z.values.begin() + Z.row_ptr[7], Z.values.begin() + Z.row_ptr[8]);
  for (index_t i = 8; i <= 40; ++i) Z.row_ptr[i] -= len;
  EXPECT_EQ(structural_rank(Z), 39);
  EXPECT_THROW_MSG(boost(Z), StructurallySingular, "structural rank 39 < 40");
  const Csr<double> T = transpose(Z);  // a zero column
  EXPECT_THROW_MSG(boost(T), StructurallySingular, "structural rank 39 < 40");
}

TEST(Matching, RandomPatternsRankAgainstBtf) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const index_t rows = index_t(20 + seed * 37 % 300), cols = seed % 3 == 0 ? rows : index_t(15 + seed * 53 % 320);
    const double density = (0.3 + double(seed % 7)) / std::max(rows, cols);
    const Csr<double> A = test::random_sparse<double>(rows, cols, density, seed);
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + " seed " + std::to_string(seed));
    const index_t r = structural_rank(A);
    EXPECT_EQ(r, btf_rank(A));
    EXPECT_EQ(r, structural_rank(transpose(A)));
    if (rows == cols && r < rows) {
      EXPECT_THROW_MSG(boost(A), StructurallySingular,
                       "structural rank " + std::to_string(r) + " < " + std::to_string(rows));
    } else if (rows == cols) {
      expect_optimal(A, boost(A));
    }
  }
  // Larger: a 3D Laplacian with a quarter of its entries gone.
  Csr<double> L = laplacian_3d<double>(30, 30, 30);
  Coo<double> coo = to_coo(L), kept;
  kept.rows = kept.cols = L.rows;
  Random rng(2);
  for (std::size_t k = 0; k < coo.values.size(); ++k)
    if (rng.uniform() > 0.25) {
      kept.row_idx.push_back(coo.row_idx[k]);
      kept.col_idx.push_back(coo.col_idx[k]);
      kept.values.push_back(coo.values[k]);
    }
  const Csr<double> A = to_csr(kept);
  EXPECT_EQ(structural_rank(A), btf_rank(A));
}

TEST(Matching, RectangularRealMatrix) {
  const std::optional<Csr<double>> A = test::real_matrix_as<double>(test::data_file("lp_e226.mtx"));
  ASSERT_TRUE(A.has_value());
  ASSERT_NE(A->rows, A->cols);
  EXPECT_EQ(structural_rank(*A), btf_rank(*A));
  EXPECT_EQ(structural_rank(*A), structural_rank(transpose(*A)));
  EXPECT_THROW_MSG(boost(*A), DimensionError, "square");
}

TEST(Matching, BadInput) {
  Csr<double> A = random_nonsingular(30, 0.1, 4);
  Csr<double> N = A;
  N.values[std::size_t(N.row_ptr[5])] = std::numeric_limits<double>::quiet_NaN();
  const std::string where = "(row 5, column " + std::to_string(N.col_idx[std::size_t(N.row_ptr[5])]) + ")";
  EXPECT_THROW_MSG(boost(N), MatrixError, where);
  N.values[std::size_t(N.row_ptr[5])] = INFINITY;
  EXPECT_THROW(boost(N), MatrixError);

  const Csr<double> wide = test::random_sparse<double>(5, 7, 0.5, 1);
  EXPECT_THROW(boost(wide), DimensionError);

  DiagonalBoosting db = boost(A);
  db.row_perm.pop_back();
  EXPECT_THROW(apply_boosting(A, db), DimensionError);
  db = boost(A);
  db.row_perm[0] = db.row_perm[1];
  EXPECT_THROW(apply_boosting(A, db), MatrixError);

  if (!cuda::available()) {
    MatchingOptions o;
    o.device = Device::Cuda;
    EXPECT_THROW(diagonal_boosting(A, o), CudaError);
  }
}

}  // namespace
}  // namespace balsa
