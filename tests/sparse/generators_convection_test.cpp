// Tests of the convection-diffusion generator and scramble
// (include/balsa/generators.hpp): structure and size, unsymmetry, row sums
// and diagonal dominance of the upwind scheme, the skew-symmetric convection
// of the central one, determinism from the seed, and nonsingularity (a dense
// LU from LAPACK) before and after scrambling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "balsa/generators.hpp"
#include "core/lapack.hpp"

namespace balsa {
namespace {

// A(i, j), 0 when not stored (A canonical).
double at(const Csr<double>& A, index_t i, index_t j) {
  for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
    if (A.col_idx[p] == j) return A.values[p];
  return 0.0;
}

bool symmetric(const Csr<double>& A) {
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (at(A, A.col_idx[p], i) != A.values[p]) return false;
  return true;
}

// A * inv(A) == I to `tol` after a dense LU (getrf) and inverse (getri):
// A is nonsingular and not nearly singular.
void expect_invertible(const Csr<double>& A, double tol) {
  const int n = A.rows;
  DenseMatrix<double> D = to_dense(A), Inv = D;
  std::vector<int> ipiv(std::size_t(n), 0);
  int info = -1;
  lapack::getrf(n, Inv.values.data(), ipiv.data(), &info);
  ASSERT_EQ(info, 0) << "LU found an exactly zero pivot: singular";
  lapack::getri(n, Inv.values.data(), ipiv.data(), &info);
  ASSERT_EQ(info, 0);
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += D(i, k) * Inv(k, j);
      worst = std::max(worst, std::fabs(s - (i == j ? 1.0 : 0.0)));
    }
  EXPECT_LT(worst, tol);
}

TEST(ConvectionDiffusion, SizeStructureAndUnsymmetry) {
  const Csr<double> A = convection_diffusion_3d<double>(7, 5, 4, 100.0);
  ASSERT_EQ(A.rows, 140);
  ASSERT_EQ(A.cols, 140);
  // n diagonal entries plus two per grid edge along each axis.
  EXPECT_EQ(A.nnz(), 140 + 2 * (6 * 5 * 4 + 7 * 4 * 4 + 7 * 5 * 3));
  EXPECT_TRUE(is_canonical(A));
  EXPECT_FALSE(symmetric(A));
  // Every interior point has its 6 neighbours and the diagonal.
  const index_t interior = 3 + 7 * (2 + 5 * 2);  // (3, 2, 2)
  EXPECT_EQ(A.row_ptr[interior + 1] - A.row_ptr[interior], 7);
  // Neighbours sit at strides 1, nx, nx*ny.
  for (const index_t d : {1, 7, 35}) {
    EXPECT_NE(at(A, interior, interior - d), 0.0);
    EXPECT_NE(at(A, interior, interior + d), 0.0);
  }
  // Without convection: the symmetric 7-point diffusion operator.
  EXPECT_TRUE(symmetric(convection_diffusion_3d<double>(7, 5, 4, 0.0)));
}

TEST(ConvectionDiffusion, UpwindRowSumsAndDiagonalDominance) {
  const index_t nx = 6, ny = 5, nz = 4;
  const Csr<double> A = convection_diffusion_3d<double>(nx, ny, nz, 500.0);
  index_t strict = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    const index_t x = i % nx, y = i / nx % ny, z = i / (nx * ny);
    const bool boundary = x == 0 || x == nx - 1 || y == 0 || y == ny - 1 || z == 0 || z == nz - 1;
    double sum = 0, off = 0;
    const double d = at(A, i, i);
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      sum += A.values[p];
      if (A.col_idx[p] != i) {
        EXPECT_LT(A.values[p], 0.0) << "an M-matrix: row " << i;
        off += std::fabs(A.values[p]);
      }
    }
    ASSERT_GT(d, 0.0);
    // Interior rows sum to zero (the operator kills constants), rows next to
    // the boundary are strictly dominant.
    if (boundary) {
      EXPECT_GT(d - off, 1e-9 * d) << "row " << i;
      ++strict;
    } else {
      EXPECT_NEAR(sum, 0.0, 1e-12 * d) << "row " << i;
    }
    EXPECT_GE(d - off, -1e-12 * d) << "row " << i;
  }
  EXPECT_EQ(strict, nx * ny * nz - (nx - 2) * (ny - 2) * (nz - 2));
}

TEST(ConvectionDiffusion, CentralConvectionIsSkewSymmetric) {
  const Csr<double> A = convection_diffusion_3d<double>(5, 4, 3, 300.0, ConvectionScheme::Central);
  const Csr<double> L = convection_diffusion_3d<double>(5, 4, 3, 0.0, ConvectionScheme::Central);
  ASSERT_EQ(A.row_ptr, L.row_ptr);
  ASSERT_EQ(A.col_idx, L.col_idx);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t j = A.col_idx[p];
      const double s_ij = A.values[p] - L.values[p], s_ji = at(A, j, i) - at(L, j, i);
      EXPECT_NEAR(s_ij, -s_ji, 1e-9 * std::fabs(L.values[p] + 1)) << i << ", " << j;
    }
  // Mesh Peclet 300 / sqrt(3) * h / 2 > 1: no longer diagonally dominant.
  const index_t c = 2 + 5 * (1 + 4 * 1);
  double off = 0;
  for (index_t p = A.row_ptr[c]; p < A.row_ptr[c + 1]; ++p)
    if (A.col_idx[p] != c) off += std::fabs(A.values[p]);
  EXPECT_GT(off, at(A, c, c));
}

TEST(ConvectionDiffusion, TwoAndOneDimensions) {
  const Csr<double> A2 = convection_diffusion_3d<double>(10, 8, 1, 50.0);
  EXPECT_EQ(A2.rows, 80);
  EXPECT_EQ(A2.nnz(), 80 + 2 * (9 * 8 + 10 * 7));  // 5-point
  const Csr<double> A1 = convection_diffusion_3d<double>(12, 1, 1, 50.0);
  EXPECT_EQ(A1.nnz(), 12 + 2 * 11);  // tridiagonal
  // Diagonal of the 2D problem: 2/h^2 per axis plus beta/h per axis (upwind).
  const double hx = 1.0 / 11, hy = 1.0 / 9, beta = 50.0 / std::sqrt(2.0);
  EXPECT_NEAR(at(A2, 0, 0), 2 / (hx * hx) + 2 / (hy * hy) + beta / hx + beta / hy, 1e-9);
  EXPECT_NEAR(at(A2, 1, 0), -1 / (hx * hx) - beta / hx, 1e-9);
  EXPECT_NEAR(at(A2, 0, 1), -1 / (hx * hx), 1e-9);
}

TEST(ConvectionDiffusion, BadArguments) {
  EXPECT_THROW(convection_diffusion_3d<double>(0, 4, 4, 1.0), DimensionError);
  EXPECT_THROW(convection_diffusion_3d<double>(4, 4, 4, -1.0), Error);
  EXPECT_THROW(convection_diffusion_3d<double>(4, 4, 4, NAN), Error);
  EXPECT_THROW(convection_diffusion_3d<double>(2000, 2000, 2000, 1.0), IndexOverflow);
  Csr<double> rect;
  rect.rows = 2;
  rect.cols = 3;
  rect.row_ptr = {0, 0, 0};
  EXPECT_THROW(scramble(rect, 1), Error);
}

TEST(Scramble, PermutesAndScalesRowsDeterministically) {
  const Csr<double> A = convection_diffusion_3d<double>(6, 5, 4, 100.0);
  const Csr<double> B = scramble(A, 42), B2 = scramble(A, 42), C = scramble(A, 43);
  EXPECT_EQ(B.row_ptr, B2.row_ptr);
  EXPECT_EQ(B.col_idx, B2.col_idx);
  EXPECT_EQ(B.values, B2.values);
  EXPECT_NE(B.col_idx, C.col_idx);
  EXPECT_TRUE(is_canonical(B));
  EXPECT_EQ(B.nnz(), A.nnz());
  // The diagonal is poor: most rows lost theirs.
  const DiagonalReport d = inspect_diagonal(B);
  EXPECT_GT(d.missing, A.rows / 2);
  // Row factors span about 10^-3 .. 10^3: compare each row's largest entry
  // with A's largest (the permuted rows of A all have one of a few maxima).
  double lo = INFINITY, hi = 0;
  for (index_t i = 0; i < B.rows; ++i) {
    double m = 0;
    for (index_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p) m = std::max(m, std::fabs(B.values[p]));
    lo = std::min(lo, m);
    hi = std::max(hi, m);
  }
  EXPECT_GT(hi / lo, 1e4);
  EXPECT_LT(hi / lo, 1e8);
  // Rows only, no scaling: each row of B is a row of A, the columns in place.
  ScrambleOptions rows_only;
  rows_only.permute_columns = false;
  rows_only.scale_decades = 0;
  const Csr<double> R = scramble(A, 7, rows_only);
  std::vector<double> x(std::size_t(A.rows));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i % 7) - 3.0;
  std::vector<double> ya = multiply(A, std::span<const double>(x)), yr = multiply(R, std::span<const double>(x));
  std::sort(ya.begin(), ya.end());
  std::sort(yr.begin(), yr.end());
  EXPECT_EQ(ya, yr);
}

TEST(Scramble, StaysNonsingular) {
  const Csr<double> up = convection_diffusion_3d<double>(5, 4, 3, 200.0);
  const Csr<double> central = convection_diffusion_3d<double>(5, 4, 3, 200.0, ConvectionScheme::Central);
  expect_invertible(up, 1e-8);
  expect_invertible(central, 1e-8);
  expect_invertible(scramble(up, 3), 1e-6);
  expect_invertible(scramble(central, 4), 1e-6);
  // Float values: same pattern and permutation as double.
  const Csr<float> f = scramble(convection_diffusion_3d<float>(5, 4, 3, 200.0), 3);
  const Csr<double> d = scramble(up, 3);
  EXPECT_EQ(f.col_idx, d.col_idx);
}

}  // namespace
}  // namespace balsa
