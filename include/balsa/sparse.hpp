// balsa: sparse and dense matrix types and the operations on them
// (conversions, transpose, permutations, triangles, diagonal checks, SpMV).
//
// Conventions
//  * Indices are 32-bit (index_t); a size that does not fit is an IndexOverflow.
//  * CSR/CSC arrays are zero-based. Functions that *produce* CSR/CSC produce
//    canonical storage: indices sorted within each row (column), no duplicates.
//  * Dense matrices are column-major (LAPACK order).
//  * A permutation `perm` maps new positions to old ones: row i of the result
//    is row perm[i] of the input (perm[new] = old).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "balsa/core.hpp"

namespace balsa {

using index_t = std::int32_t;
inline constexpr std::int64_t max_index = std::numeric_limits<index_t>::max();

// Returns n as index_t, or throws IndexOverflow saying that `what` is too large.
index_t checked_index(std::int64_t n, std::string_view what);

template <class T>
using DenseVector = std::vector<T>;

// Coordinate (triplet) storage; entries in any order, duplicates allowed.
template <class T>
struct Coo {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_idx;
  std::vector<index_t> col_idx;
  std::vector<T> values;
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
};

// Compressed sparse row storage.
template <class T>
struct Csr {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr = {0};
  std::vector<index_t> col_idx;
  std::vector<T> values;
  index_t nnz() const { return row_ptr.back(); }
};

// Compressed sparse column storage.
template <class T>
struct Csc {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> col_ptr = {0};
  std::vector<index_t> row_idx;
  std::vector<T> values;
  index_t nnz() const { return col_ptr.back(); }
};

// Dense column-major matrix.
template <class T>
struct DenseMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<T> values;  // size rows * cols, column-major

  DenseMatrix() = default;
  DenseMatrix(index_t r, index_t c, T fill = T(0));
  T& operator()(index_t i, index_t j) { return values[static_cast<std::size_t>(j) * rows + i]; }
  const T& operator()(index_t i, index_t j) const {
    return values[static_cast<std::size_t>(j) * rows + i];
  }
  std::span<T> column(index_t j) { return {values.data() + static_cast<std::size_t>(j) * rows, std::size_t(rows)}; }
  std::span<const T> column(index_t j) const {
    return {values.data() + static_cast<std::size_t>(j) * rows, std::size_t(rows)};
  }
};

// Dense banded storage of a square n x n matrix with half-bandwidth k
// (a_ij = 0 for |i - j| > k), LAPACK's band layout with equal lower and
// upper bandwidth: column j of A is the contiguous run of 2k + 1 values
// data[j * (2k + 1) + (k + i - j)], i = j - k .. j + k (rows outside 0..n-1
// are padding, kept 0). Entry (i, j) therefore sits at k + i + 2k j: any
// window of the band is a column-major matrix with leading dimension 2k,
// and the whole array reversed is the band of J A J (J the exchange matrix:
// the SaP report's UL factorisation is the LU of that). Offsets are 64-bit:
// n (2k + 1) may exceed 2^31.
template <class T>
struct Banded {
  index_t n = 0;
  index_t k = 0;
  std::vector<T> data;  // n * (2k + 1) values

  Banded() = default;
  // Zero matrix; throws DimensionError for k < 0, n < 0 or k >= n (n > 0),
  // and Error naming the bytes when the array cannot be allocated.
  Banded(index_t n_, index_t k_);
  std::int64_t ld() const { return 2 * std::int64_t(k) + 1; }
  static std::int64_t offset(index_t i, index_t j, index_t k) { return std::int64_t(j) * (2 * std::int64_t(k) + 1) + k + i - j; }
  T& operator()(index_t i, index_t j) { return data[std::size_t(offset(i, j, k))]; }
  const T& operator()(index_t i, index_t j) const { return data[std::size_t(offset(i, j, k))]; }
  bool in_band(index_t i, index_t j) const { return i - j <= k && j - i <= k; }
};

enum class Triangle { Lower, Upper };
template <>
struct EnumNames<Triangle> {
  static constexpr const char* what = "triangle";
  static constexpr EnumName<Triangle> names[] = {{Triangle::Lower, "lower"}, {Triangle::Upper, "upper"}};
};
// Whether extract_triangle keeps the diagonal.
enum class Diag { Include, Exclude };
template <>
struct EnumNames<Diag> {
  static constexpr const char* what = "diagonal choice";
  static constexpr EnumName<Diag> names[] = {{Diag::Include, "include"}, {Diag::Exclude, "exclude"}};
};

// ---- structure validation ---------------------------------------------------
// Throws MatrixError (naming the row and the offending index) unless the arrays
// are consistent: sizes, monotone row_ptr, indices in range. With
// `require_sorted`, also unless columns are strictly increasing in every row.
template <class T> void validate(const Csr<T>& A, bool require_sorted = false);
template <class T> void validate(const Csc<T>& A, bool require_sorted = false);
template <class T> void validate(const Coo<T>& A);
template <class T> bool is_canonical(const Csr<T>& A);  // sorted, no duplicates

// ---- entry census (sparse/census.cpp) ---------------------------------------
// What a Coo's triplets occupy, found from the triplets alone in O(nnz log
// nnz) time and O(nnz) memory, whatever the declared rows and columns: the
// cheap structural facts to check before any work sized by them. Positions
// count structurally (a stored zero occupies its position; duplicates count
// once). Indices are 0-based, as everywhere in the library; -1: none. A
// message to a user reading the file adds 1 (Matrix Market counts from 1).
struct EntryCensus {
  index_t rows = 0, cols = 0;
  std::int64_t entries = 0;    // triplets, duplicates included
  std::int64_t positions = 0;  // distinct (row, column) positions
  index_t occupied_rows = 0, occupied_cols = 0;
  index_t diagonal = 0;        // distinct (i, i) positions, i < min(rows, cols)
  index_t first_empty_row = -1, first_empty_col = -1;
  index_t first_missing_diagonal = -1;  // smallest i < min(rows, cols) with no (i, i)
  std::int64_t below = 0, on = 0, above = 0;    // distinct positions by side of the diagonal
  index_t lower_bandwidth = 0, upper_bandwidth = 0;  // max i - j, max j - i over the positions
  index_t empty_rows() const { return rows - occupied_rows; }
  index_t empty_cols() const { return cols - occupied_cols; }
  index_t missing_diagonal() const { return (rows < cols ? rows : cols) - diagonal; }
};
// Throws MatrixError (validate) when an index is out of range.
template <class T> EntryCensus entry_census(const Coo<T>& A);

// ---- conversions (sparse/convert.cpp) ---------------------------------------
// COO -> CSR sums duplicate entries (the Matrix Market convention).
template <class T> Csr<T> to_csr(const Coo<T>& A);
template <class T> Csr<T> to_csr(const Csc<T>& A);
template <class T> Csr<T> to_csr(const DenseMatrix<T>& A);  // drops exact zeros
template <class T> Csc<T> to_csc(const Csr<T>& A);
template <class T> Coo<T> to_coo(const Csr<T>& A);
// COO -> COO sorted by (row, column), duplicates summed: O(nnz log nnz) time,
// nothing sized by the rows or columns (a 1-entry matrix of any declared size).
template <class T> Coo<T> sorted_coo(const Coo<T>& A);
template <class T> DenseMatrix<T> to_dense(const Csr<T>& A);
template <class T> Csr<T> transpose(const Csr<T>& A);
// Same pattern, values converted to another precision.
template <class To, class From> Csr<To> convert_values(const Csr<From>& A);

// ---- banded storage (sparse/banded.cpp) -------------------------------------
// The smallest k with a_ij = 0 (not stored) for |i - j| > k.
template <class T> index_t half_bandwidth(const Csr<T>& A);
// CSR -> band of half-bandwidth k (k < 0: half_bandwidth(A)). Square and
// valid A; DimensionError when a stored entry lies outside the band or k >= n.
template <class T> Banded<T> to_banded(const Csr<T>& A, index_t k = -1);
// Band -> CSR storing every in-band position (zeros included).
template <class T> Csr<T> to_csr(const Banded<T>& A);
template <class To, class From> Banded<To> convert_values(const Banded<From>& A);
// y = A x (OpenMP over rows), and ||b - A x||_2 / ||b||_2 in double.
template <class T> void spmv(const Banded<T>& A, std::span<const T> x, std::span<T> y);
template <class T> double relative_residual(const Banded<T>& A, std::span<const T> x, std::span<const T> b);
// MatrixError naming the first (row, column) holding NaN or Inf.
template <class T> void require_finite(const Banded<T>& A);
// max |a_ij| over the band.
template <class T> double max_abs(const Banded<T>& A);

// ---- permutations (sparse/permute.cpp) --------------------------------------
// Throws MatrixError unless perm is a permutation of 0..n-1.
void check_permutation(std::span<const index_t> perm, index_t n);
std::vector<index_t> inverse_permutation(std::span<const index_t> perm);
// B = P A P^T: B(i, j) = A(perm[i], perm[j]). A must be square.
template <class T> Csr<T> permute_symmetric(const Csr<T>& A, std::span<const index_t> perm);
// B = P A Q^T: B(i, j) = A(row_perm[i], col_perm[j]).
template <class T>
Csr<T> permute(const Csr<T>& A, std::span<const index_t> row_perm, std::span<const index_t> col_perm);
// y[i] = x[perm[i]]
template <class T> std::vector<T> permute_vector(std::span<const T> x, std::span<const index_t> perm);

// ---- triangles and diagonals (sparse/triangle.cpp) --------------------------
template <class T> Csr<T> extract_triangle(const Csr<T>& A, Triangle tri, Diag diag = Diag::Include);
template <class T> bool is_triangular(const Csr<T>& A, Triangle tri);
// Throws MatrixError naming the first entry (row, column) outside the triangle.
template <class T> void require_triangular(const Csr<T>& A, Triangle tri);

struct DiagonalReport {
  index_t missing = 0;         // rows i < min(rows, cols) with no stored (i, i)
  index_t zero = 0;            // rows whose stored diagonal is exactly zero
  index_t first_missing = -1;  // smallest such row, or -1
  index_t first_zero = -1;
  bool ok() const { return missing == 0 && zero == 0; }
};
template <class T> DiagonalReport inspect_diagonal(const Csr<T>& A);
// Throws MatrixError naming the first row with a missing or zero diagonal.
template <class T> void require_nonzero_diagonal(const Csr<T>& A);
// The diagonal (zeros where missing); duplicates summed.
template <class T> std::vector<T> diagonal(const Csr<T>& A);
// For a canonical lower-triangular L (every column <= its row): each row
// whose diagonal is missing or zero (every row with `all_rows`) gets the
// diagonal sum_j |l_ij| + 1, which makes it diagonally dominant, so any
// matrix's lower triangle becomes a well-posed test system (balsa-bench
// trsv, balsa trsv --explain). Returns the rows changed; L stays canonical.
template <class T> index_t fix_diagonal(Csr<T>& L, bool all_rows = false);

// ---- values -----------------------------------------------------------------
// Throw MatrixError / Error naming the first NaN or Inf (row and column, or index).
template <class T> void require_finite(const Csr<T>& A);
template <class T> void require_finite(std::span<const T> x, std::string_view what);
template <class T> void require_square(const Csr<T>& A, std::string_view what);

// ---- symmetry (sparse/symmetry.cpp) ------------------------------------------
// The first (row-major) stored entry (row, col) whose mirror differs:
// |a_ij - a_ji| > rtol * max(|a_ij|, |a_ji|), a missing mirror counting as 0;
// row = -1 when A is symmetric. A canonical; a non-square A is reported at
// (0, 0) with value/mirror holding its rows/cols.
struct Asymmetry {
  index_t row = -1, col = -1;
  double value = 0, mirror = 0;
  bool mirror_stored = false;
  bool symmetric() const { return row < 0; }
};
template <class T> Asymmetry first_asymmetry(const Csr<T>& A, double rtol = 1e-12);

// ---- SpMV on the CPU (sparse/spmv_cpu.cpp, OpenMP over rows) ----------------
// y = alpha * A * x + beta * y. With beta == 0, y is not read (NaN in y is fine).
template <class T>
void spmv(T alpha, const Csr<T>& A, std::span<const T> x, T beta, std::span<T> y);
template <class T> std::vector<T> multiply(const Csr<T>& A, std::span<const T> x);

// ---- small dense-vector helpers (sparse/spmv_cpu.cpp) -----------------------
template <class T> double norm2(std::span<const T> x);
template <class T> double norm_inf(std::span<const T> x);
// ||b - A x||_2 / ||b||_2, accumulated in double.
template <class T> double relative_residual(const Csr<T>& A, std::span<const T> x, std::span<const T> b);
// ||b - y||_2 / ||b||_2 (1 in place of a zero ||b||) in double, for y = A x
// formed elsewhere (band storage, operators).
template <class T> double relative_residual_of(std::span<const T> y, std::span<const T> b);
// ||x - reference||_inf / ||reference||_inf in double (absolute when the
// reference is 0); a NaN in x gives NaN. x and reference of equal length.
template <class T> double relative_error(std::span<const T> x, std::span<const T> reference);

}  // namespace balsa
