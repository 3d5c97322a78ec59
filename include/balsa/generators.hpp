// balsa: test and benchmark matrix generators. Every generator is
// deterministic from its seed (same matrix on every platform: balsa uses its
// own random number generator, not <random>'s distributions) and returns
// canonical CSR.
#pragma once

#include <cstdint>

#include "balsa/sparse.hpp"

namespace balsa {

// Order in which grid points become unknowns.
//  Natural:  lexicographic (x fastest).
//  RedBlack: points with (i+j+k) even first, then odd, each lexicographic.
//            (An independent-set colouring for the 5- and 7-point stencils;
//            for the 27-point stencil it is only an ordering.)
//  Random:   a random permutation of the natural order (from the seed).
enum class GridOrdering { Natural, RedBlack, Random };
template <>
struct EnumNames<GridOrdering> {
  static constexpr const char* what = "grid ordering";
  static constexpr EnumName<GridOrdering> names[] = {
      {GridOrdering::Natural, "natural"}, {GridOrdering::RedBlack, "red-black"}, {GridOrdering::Random, "random"}};
};
enum class Stencil3d { Point7, Point27 };
template <>
struct EnumNames<Stencil3d> {
  static constexpr const char* what = "3D stencil";
  // The points of the stencil: `balsa run --stencil 27`.
  static constexpr EnumName<Stencil3d> names[] = {{Stencil3d::Point7, "7"}, {Stencil3d::Point27, "27"}};
};

// 2D 5-point Laplacian on an nx x ny grid, Dirichlet boundary: 4 on the
// diagonal, -1 per neighbour. Symmetric positive definite.
template <class T>
Csr<T> laplacian_2d(index_t nx, index_t ny, GridOrdering ordering = GridOrdering::Natural,
                    std::uint64_t seed = 1);
// 3D Laplacian on an nx x ny x nz grid: 7-point (6 on the diagonal) or
// 27-point (26 on the diagonal), -1 per neighbour. Symmetric positive definite.
template <class T>
Csr<T> laplacian_3d(index_t nx, index_t ny, index_t nz, Stencil3d stencil = Stencil3d::Point7,
                    GridOrdering ordering = GridOrdering::Natural, std::uint64_t seed = 1);

// [L; I]: the 2D Laplacian L (laplacian_2d, natural order) stacked over the
// identity, 2 nx ny x nx ny: a tall full-rank least-squares problem (the
// QR tests' and `balsa-bench qr`'s).
template <class T>
Csr<T> laplacian_2d_over_identity(index_t nx, index_t ny);

// Random lower-triangular banded matrix: row i has min(per_row, window, i)
// distinct off-diagonal entries in columns [i - window, i - 1], values
// uniform in [-1, 1), and a positive diagonal 1 + sum |l_ij| (row diagonally
// dominant, so the solve is well conditioned however deep the dependency chain).
template <class T>
Csr<T> random_lower_banded(index_t rows, index_t window, index_t per_row, std::uint64_t seed = 1);

// The TASSL paper's block-diagonal lower-triangular matrix: `blocks` diagonal
// blocks of `block_size` rows; in each block, every strictly-lower position is
// nonzero with probability `density` (row i of a block gets round(i * density)
// entries on average at uniformly random columns of the block). Diagonal as
// in random_lower_banded.
template <class T>
Csr<T> random_block_diagonal_lower(index_t blocks, index_t block_size, double density, std::uint64_t seed = 1);

// Lower bidiagonal chain: row i depends on row i-1 (n levels). Diagonal 2,
// sub-diagonal -1.
template <class T> Csr<T> chain_lower(index_t n);
// Lower star: every row i > 0 depends on row 0 (2 levels). Diagonal 2,
// entries (i, 0) = -1.
template <class T> Csr<T> star_lower(index_t n);

// Banded matrix with half-bandwidth K (every |i - j| <= K stored), random
// off-diagonal entries uniform in [-1, 1), and diagonal a_ii = d * sum_{j != i}
// |a_ij| (the SaP report's degree of diagonal dominance d, its eq. 11).
template <class T>
Csr<T> banded_dominant(index_t n, index_t half_bandwidth, double d, std::uint64_t seed = 1);
// The same matrix (same values for the same seed) in band storage, without
// the CSR arrays: the SaP benchmark's input (k = min(half_bandwidth, n - 1)).
template <class T>
Banded<T> banded_dominant_band(index_t n, index_t half_bandwidth, double d, std::uint64_t seed = 1);

// Picciau's thesis' banded SPD family (sec. 5.1.2, 5.3.2): A = Q Q^T, Q
// tridiagonal with ones plus the value mu at offsets +-w (w = 10 there).
// mu from 1e-6 to 1e-2 spans good to poor IC(0)/ILU(0) preconditioning.
template <class T>
Csr<T> thesis_banded_spd(index_t n, double mu, index_t w = 10);

// Random sparse symmetric positive definite matrix: about `per_row`
// off-diagonal entries per row at random columns, values uniform in [-1, 1),
// diagonal 1 + sum |a_ij| (strictly diagonally dominant, hence SPD).
template <class T>
Csr<T> random_spd(index_t n, index_t per_row, std::uint64_t seed = 1);

// Small deterministic random number generator (xoshiro256** seeded through
// splitmix64), exposed so tests and benchmarks draw reproducible data.
class Random {
 public:
  explicit Random(std::uint64_t seed);
  std::uint64_t next();
  double uniform();                        // [0, 1)
  double uniform(double lo, double hi);    // [lo, hi)
  std::uint64_t below(std::uint64_t n);    // [0, n), unbiased

 private:
  std::uint64_t s_[4];
};

// A random permutation of 0..n-1 (Fisher-Yates with Random).
std::vector<index_t> random_permutation(index_t n, std::uint64_t seed);
// A vector of n values uniform in [lo, hi).
template <class T> std::vector<T> random_vector(index_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0);

// ---- general (unsymmetric) systems: balsa-bench sparse ---------------------------

// How convection_diffusion_3d discretises the convection term.
//  Upwind:  one-sided differences against the flow: an M-matrix, weakly
//           diagonally dominant in every row and strictly in the rows next to
//           the boundary (irreducibly diagonally dominant, hence nonsingular)
//           for every Peclet number.
//  Central: centred differences: A = L + S with L the SPD diffusion part and
//           S skew-symmetric, so x^T A x = x^T L x > 0 (nonsingular); no
//           longer diagonally dominant once the mesh Peclet number
//           |beta_d| h_d / 2 exceeds 1.
enum class ConvectionScheme { Upwind, Central };
template <>
struct EnumNames<ConvectionScheme> {
  static constexpr const char* what = "convection scheme";
  static constexpr EnumName<ConvectionScheme> names[] = {{ConvectionScheme::Upwind, "upwind"},
                                                         {ConvectionScheme::Central, "central"}};
};

// -Laplace(u) + beta . grad(u) on the unit cube with zero Dirichlet boundary:
// nx x ny x nz interior points (spacing h_d = 1 / (n_d + 1) per axis),
// 7-point finite differences, natural ordering (x fastest), unscaled
// (diffusion entries 2/h^2 and -1/h^2). The flow runs along the diagonal:
// beta = peclet / sqrt(k) on each of the k axes of the problem, so |beta| =
// peclet, the global Peclet number (unit length and diffusion). nz = 1 drops
// the z axis (the 2D problem on the unit square, 5 points), ny = nz = 1 the y
// axis too (1D, 3 points).
// Unsymmetric for peclet > 0; nonsingular (see ConvectionScheme).
template <class T>
Csr<T> convection_diffusion_3d(index_t nx, index_t ny, index_t nz, double peclet,
                               ConvectionScheme scheme = ConvectionScheme::Upwind);

// Makes a well-behaved matrix look like a real one to an iterative solver:
// B = D P A Q^T, P a random row permutation (most diagonal entries move off
// the diagonal), Q an independent random column permutation (the
// grid-ordering that ILU(0) thrives on is lost), D a random row scaling.
struct ScrambleOptions {
  bool permute_rows = true;
  bool permute_columns = true;
  // Row factors 2^e * m, e a uniform integer in [-E, E - 1] and m uniform in
  // [1, 2), E = round(scale_decades * log2(10)): about 10^-d .. 10^d,
  // log-uniform, exact on every platform. 0: no scaling.
  double scale_decades = 3.0;
};
// A square and canonical; the result is canonical, nonsingular exactly when
// A is, and deterministic from the seed.
template <class T>
Csr<T> scramble(const Csr<T>& A, std::uint64_t seed, const ScrambleOptions& options = {});

// ---- sequences of triangular matrices (TriangularSolver::replace_columns, thesis ch. 6) ----

// New entries of some columns, as TriangularSolver::replace_columns takes them.
template <class T>
struct ColumnReplacement {
  std::vector<index_t> columns, col_ptr{0}, row_idx;
  std::vector<T> values;
};

// One step of the thesis' sequences (Sect. 6.3): `count` distinct random
// columns of the triangular matrix L (entries in `tri`) among those with
// off-diagonal entries, each with its off-diagonal entries moved to as many
// random rows of its triangle (values kept, shuffled; the diagonal kept).
template <class T>
ColumnReplacement<T> random_column_replacement(const Csr<T>& L, Triangle tri, index_t count, std::uint64_t seed);

// L with those columns replaced: what replace_columns makes of it (built
// independently of the solver, by sorting entries).
template <class T>
Csr<T> with_columns_replaced(const Csr<T>& L, const ColumnReplacement<T>& c);

}  // namespace balsa
