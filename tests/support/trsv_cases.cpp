#include "support/trsv_cases.hpp"

#include <cmath>

#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa::test {

template <class T>
Csr<T> with_dominant_diagonal(const Csr<T>& A) {
  Coo<T> c = to_coo(A);
  std::vector<double> row_sum(std::size_t(A.rows), 0.0);
  for (std::int64_t k = 0; k < c.nnz(); ++k)
    if (c.row_idx[k] != c.col_idx[k]) row_sum[c.row_idx[k]] += std::abs(double(c.values[k]));
  std::vector<T> keep;
  Coo<T> out{A.rows, A.cols, {}, {}, {}};
  for (std::int64_t k = 0; k < c.nnz(); ++k)
    if (c.row_idx[k] != c.col_idx[k]) {
      out.row_idx.push_back(c.row_idx[k]);
      out.col_idx.push_back(c.col_idx[k]);
      out.values.push_back(c.values[k]);
    }
  for (index_t i = 0; i < std::min(A.rows, A.cols); ++i) {
    out.row_idx.push_back(i);
    out.col_idx.push_back(i);
    out.values.push_back(T(1.0 + row_sum[i]));
  }
  return to_csr(out);
}

template <class T>
std::vector<TriangularCase<T>> triangular_cases(bool with_real_matrices) {
  std::vector<TriangularCase<T>> cases;
  cases.push_back({"banded 20000/50/4", random_lower_banded<T>(20000, 50, 4, 1)});
  cases.push_back({"chain 5000", chain_lower<T>(5000)});
  cases.push_back({"star 10000", star_lower<T>(10000)});
  cases.push_back({"laplace3d 20^3", extract_triangle(laplacian_3d<T>(20, 20, 20), Triangle::Lower)});
  cases.push_back({"laplace2d 60x40 red-black",
                   extract_triangle(laplacian_2d<T>(60, 40, GridOrdering::RedBlack), Triangle::Lower)});
  cases.push_back({"block 8x500 1%", random_block_diagonal_lower<T>(8, 500, 0.01, 2)});
  cases.push_back({"long rows 3000/400/300", random_lower_banded<T>(3000, 400, 300, 3)});
  cases.push_back({"1x1", chain_lower<T>(1)});
  cases.push_back({"empty", Csr<T>{}});
  if (with_real_matrices)
    for (const auto& path : real_matrices()) {
      const auto A = real_matrix_as<T>(path);
      if (!A || A->rows != A->cols) continue;
      cases.push_back({path.stem().string(), with_dominant_diagonal(extract_triangle(*A, Triangle::Lower))});
    }
  return cases;
}

template <class T>
void expect_matches_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b,
                              std::span<const T> x, const std::string& what) {
  std::vector<T> ref(b.size());
  trsv_reference(A, tri, diag, b, std::span<T>(ref));
  ASSERT_EQ(count_poisoned(x), 0u) << what << ": x not fully written (or NaN)";
  const double err = relative_error<T>(x, ref);
  if (err <= tolerance<T>(1e3)) return;
  // Ill-conditioned triangles amplify rounding: accept a small residual instead.
  EXPECT_LE(relative_residual(A, x, b), tolerance<T>(100)) << what << ": relative error " << err;
}

#define BALSA_INSTANTIATE(T)                                                                              \
  template Csr<T> with_dominant_diagonal(const Csr<T>&);                                                  \
  template std::vector<TriangularCase<T>> triangular_cases(bool);                                          \
  template void expect_matches_reference(const Csr<T>&, Triangle, DiagonalKind, std::span<const T>,        \
                                         std::span<const T>, const std::string&);
BALSA_INSTANTIATE(float)
BALSA_INSTANTIATE(double)

}  // namespace balsa::test
