// Cuthill-McKee ordering (graph/cuthill_mckee.cpp; the SaP report's CM,
// sec. 2.2.1 and 3.3): permutations, the reported half-bandwidths against a
// recomputation, bandwidth recovered from scrambled banded matrices and
// grids, disconnected and unsymmetric patterns, reverse, bad input, and the
// real matrices of tests/data.
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <set>

#include "balsa/generators.hpp"
#include "balsa/reorder.hpp"
#include "balsa/sparse.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// The pattern of A + A^T (values 1): what CM orders.
template <class T>
Csr<double> symmetric_pattern(const Csr<T>& A) {
  Coo<double> c;
  c.rows = c.cols = A.rows;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      for (const auto& [r, s] : {std::pair{i, A.col_idx[p]}, std::pair{A.col_idx[p], i}}) {
        c.row_idx.push_back(r);
        c.col_idx.push_back(s);
        c.values.push_back(1.0);
      }
  return to_csr(c);
}

// Checks what every ordering must satisfy and returns it.
template <class T>
Ordering check_ordering(const Csr<T>& A, const CuthillMcKeeOptions& options = {}) {
  const Ordering o = cuthill_mckee(A, options);
  EXPECT_EQ(o.perm.size(), std::size_t(A.rows));
  EXPECT_NO_THROW(check_permutation(o.perm, A.rows));
  const Csr<double> S = symmetric_pattern(A);
  EXPECT_EQ(o.bandwidth_before, half_bandwidth(S));
  EXPECT_EQ(o.bandwidth_after, half_bandwidth(permute_symmetric(S, o.perm)));
  EXPECT_GE(o.starts, o.components);
  EXPECT_LE(o.starts, std::int64_t(o.components) * options.max_starts);
  EXPECT_GE(o.seconds, 0.0);
  return o;
}

template <class T>
Csr<T> scrambled(const Csr<T>& A, std::uint64_t seed) {
  return permute_symmetric(A, random_permutation(A.rows, seed));
}

// Block-diagonal matrix of the given blocks (square, any sizes).
Csr<double> block_diagonal(const std::vector<Csr<double>>& blocks) {
  Coo<double> c;
  for (const Csr<double>& B : blocks) {
    for (index_t i = 0; i < B.rows; ++i)
      for (index_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p) {
        c.row_idx.push_back(c.rows + i);
        c.col_idx.push_back(c.rows + B.col_idx[p]);
        c.values.push_back(B.values[p]);
      }
    c.rows += B.rows;
  }
  c.cols = c.rows;
  return to_csr(c);
}

Csr<double> identity(index_t n) {
  Csr<double> I;
  I.rows = I.cols = n;
  for (index_t i = 0; i < n; ++i) I.row_ptr.push_back(i + 1), I.col_idx.push_back(i), I.values.push_back(1.0);
  return I;
}

// A plain CM with one start per component, written the obvious way (sets,
// a sort per node): components by their least (degree, index) node, the
// search from it, neighbours by (degree, index).
std::vector<index_t> reference_cm_one_start(const Csr<double>& A) {
  const std::size_t n = std::size_t(A.rows);
  std::vector<std::set<index_t>> adj(n);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (const index_t j = A.col_idx[p]; j != i) adj[std::size_t(i)].insert(j), adj[std::size_t(j)].insert(i);
  auto key = [&](index_t v) { return std::pair{adj[std::size_t(v)].size(), v}; };
  auto by_key = [&](index_t a, index_t b) { return key(a) < key(b); };
  std::vector<index_t> nodes(n), perm;
  std::iota(nodes.begin(), nodes.end(), 0);
  std::sort(nodes.begin(), nodes.end(), by_key);
  std::vector<char> seen(n, 0);
  for (const index_t s : nodes) {
    if (seen[std::size_t(s)]) continue;
    seen[std::size_t(s)] = 1;
    perm.push_back(s);
    for (std::size_t head = perm.size() - 1; head < perm.size(); ++head) {
      const std::set<index_t>& around = adj[std::size_t(perm[head])];
      std::vector<index_t> next(around.begin(), around.end());
      std::sort(next.begin(), next.end(), by_key);
      for (const index_t v : next)
        if (!seen[std::size_t(v)]) seen[std::size_t(v)] = 1, perm.push_back(v);
    }
  }
  return perm;
}

template <class T>
class CuthillMcKeeTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CuthillMcKeeTyped, ValueTypes);

TYPED_TEST(CuthillMcKeeTyped, RecoversTheBandOfAScrambledBandedMatrix) {
  for (const index_t k : {1, 3, 10}) {
    const Csr<TypeParam> A = banded_dominant<TypeParam>(3000, k, 1.0);
    const Csr<TypeParam> B = scrambled(A, 7);
    const Ordering o = check_ordering(B);
    EXPECT_GT(o.bandwidth_before, 20 * k);
    EXPECT_LE(o.bandwidth_after, 2 * k) << "k = " << k;
    EXPECT_EQ(o.components, 1);
  }
}

TEST(CuthillMcKee, RecoversTheBandOfRandomlyOrderedGrids) {
  // Natural order: half-bandwidth nx. CM should find about min(nx, ny).
  for (const auto& [nx, ny] : {std::pair{40, 40}, std::pair{60, 20}, std::pair{25, 80}}) {
    const Csr<double> A = laplacian_2d<double>(nx, ny, GridOrdering::Random, 3);
    const Ordering o = check_ordering(A);
    const index_t natural = half_bandwidth(laplacian_2d<double>(nx, ny));
    EXPECT_LE(o.bandwidth_after, natural * 3 / 2) << nx << " x " << ny;
    EXPECT_LE(o.bandwidth_after, std::min(nx, ny) * 3 / 2) << nx << " x " << ny;
  }
}

TEST(CuthillMcKee, PathStartsAtAnEndAndStopsWhenNoTaller) {
  // A path: the least-degree node is an end (node 0); the second search,
  // from the other end, is no taller, so the report's rules stop there.
  const Csr<double> A = scrambled(laplacian_2d<double>(50, 1), 5);
  const Ordering o = check_ordering(A);
  EXPECT_EQ(o.bandwidth_after, 1);
  EXPECT_EQ(o.starts, 2);
}

TEST(CuthillMcKee, OneStartBeginsAtALeastDegreeNode) {
  const Csr<double> A = scrambled(laplacian_2d<double>(12, 9), 11);
  const Ordering o = check_ordering(A, {.reverse = false, .max_starts = 1});
  EXPECT_EQ(o.starts, 1);
  // Grid corners have 2 neighbours, the least.
  const index_t first = o.perm[0];
  EXPECT_EQ(A.row_ptr[first + 1] - A.row_ptr[first], 3);  // two neighbours and the diagonal
}

TEST(CuthillMcKee, OneStartMatchesAPlainCuthillMcKee) {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5})
    for (const double density : {0.001, 0.003, 0.01}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", density " << density);
      const Csr<double> A = test::random_sparse<double>(400, 400, density, seed);
      const Ordering o = check_ordering(A, {.reverse = false, .max_starts = 1});
      EXPECT_EQ(o.perm, reference_cm_one_start(A));
      EXPECT_EQ(o.starts, o.components);
    }
}

TEST(CuthillMcKee, ReverseGivesTheSameBandwidthAndTheReversedOrder) {
  const Csr<double> A = scrambled(laplacian_2d<double>(30, 17), 2);
  const Ordering cm = check_ordering(A);
  const Ordering rcm = check_ordering(A, {.reverse = true});
  EXPECT_EQ(rcm.bandwidth_after, cm.bandwidth_after);
  std::vector<index_t> reversed(cm.perm.rbegin(), cm.perm.rend());
  EXPECT_EQ(rcm.perm, reversed);
}

TEST(CuthillMcKee, DisconnectedGraphs) {
  const Csr<double> grid = laplacian_2d<double>(20, 10, GridOrdering::Random, 4);
  const Csr<double> band = scrambled(banded_dominant<double>(300, 4, 1.0), 9);
  const Csr<double> A = scrambled(block_diagonal({grid, identity(5), band, identity(1)}), 13);
  const Ordering o = check_ordering(A);
  EXPECT_EQ(o.components, 2 + 6);  // two blocks and six isolated nodes
  EXPECT_LE(o.bandwidth_after, 15);
  // Components are ordered by their least-degree node: isolated ones first.
  for (index_t i = 0; i < 6; ++i) EXPECT_EQ(A.row_ptr[o.perm[i] + 1] - A.row_ptr[o.perm[i]], 1);

  const Ordering d = check_ordering(identity(100));  // only isolated nodes
  EXPECT_EQ(d.components, 100);
  EXPECT_EQ(d.bandwidth_after, 0);
  EXPECT_EQ(d.starts, 100);

  Csr<double> empty;  // n = 0
  const Ordering e = check_ordering(empty);
  EXPECT_TRUE(e.perm.empty());
  EXPECT_EQ(e.components, 0);
  EXPECT_EQ(e.starts, 0);

  Csr<double> one_empty_row;  // n = 1 with no entry
  one_empty_row.rows = one_empty_row.cols = 1;
  one_empty_row.row_ptr = {0, 0};
  const Ordering one = check_ordering(one_empty_row);
  EXPECT_EQ(one.perm, std::vector<index_t>{0});
  EXPECT_EQ(one.components, 1);
  EXPECT_EQ(one.bandwidth_after, 0);
  EXPECT_EQ(check_ordering(identity(1)).perm, std::vector<index_t>{0});
}

TEST(CuthillMcKee, UnsymmetricPatternsOrderAPlusATranspose) {
  const Csr<double> A = scrambled(laplacian_2d<double>(25, 25), 21);
  const Ordering full = check_ordering(A);
  // Only the upper or the strictly lower part stored: the same graph.
  const Csr<double> upper = extract_triangle(A, Triangle::Upper);
  const Csr<double> strict_lower = extract_triangle(A, Triangle::Lower, Diag::Exclude);
  for (const Csr<double>* part : {&upper, &strict_lower}) {
    const Ordering o = check_ordering(*part);
    EXPECT_EQ(o.perm, full.perm);
    EXPECT_EQ(o.bandwidth_after, full.bandwidth_after);
  }
  // A one-sided arrow: only the first row stored (A^T gives the column).
  Csr<double> arrow;
  arrow.rows = arrow.cols = 200;
  for (index_t j = 0; j < 200; ++j) arrow.col_idx.push_back(j), arrow.values.push_back(1.0);
  arrow.row_ptr.assign(201, 200);
  arrow.row_ptr[0] = 0;
  const Ordering o = check_ordering(arrow);
  EXPECT_EQ(o.components, 1);
  EXPECT_EQ(o.bandwidth_before, 199);
  // A random unsymmetric pattern.
  check_ordering(test::random_sparse<double>(500, 500, 0.004, 17));
}

TEST(CuthillMcKee, DuplicatesAndUnsortedRowsAreAccepted) {
  Csr<double> A;  // path 0 - 2 - 1 with repeated and unsorted entries
  A.rows = A.cols = 3;
  A.row_ptr = {0, 3, 4, 7};
  A.col_idx = {2, 0, 2, 2, 1, 0, 1};
  A.values.assign(7, 1.0);
  const Ordering o = check_ordering(A);
  EXPECT_EQ(o.bandwidth_before, 2);
  EXPECT_EQ(o.bandwidth_after, 1);
}

TEST(CuthillMcKee, StartsPerComponentAtMostMaxStarts) {
  const Csr<double> A = scrambled(laplacian_2d<double>(40, 40), 8);
  for (const int m : {1, 2, 3, 20}) {
    const Ordering o = check_ordering(A, {.reverse = false, .max_starts = m});
    EXPECT_LE(o.starts, m);
  }
}

TEST(CuthillMcKee, BadInput) {
  Csr<double> rect;
  rect.rows = 2;
  rect.cols = 3;
  rect.row_ptr = {0, 1, 1};
  rect.col_idx = {2};
  rect.values = {1.0};
  EXPECT_THROW_MSG(cuthill_mckee(rect), DimensionError, "2 x 3");
  EXPECT_THROW_MSG(cuthill_mckee(identity(4), {.reverse = false, .max_starts = 0}), Error, "max_starts");
  Csr<double> bad = identity(3);
  bad.col_idx[1] = 7;  // out of range
  EXPECT_THROW(cuthill_mckee(bad), MatrixError);
  Csr<float> short_ptr;
  short_ptr.rows = short_ptr.cols = 3;
  EXPECT_THROW(cuthill_mckee(short_ptr), MatrixError);
}

TEST(CuthillMcKee, RealMatrices) {
  const int count = test::for_each_square_real_matrix<double>([](const Csr<double>& A) {
    const Ordering o = check_ordering(A);
    const Ordering r = check_ordering(A, {.reverse = true});
    EXPECT_EQ(r.bandwidth_after, o.bandwidth_after);
    // More starts keep the first one's ordering unless another is narrower.
    EXPECT_LE(o.bandwidth_after, check_ordering(A, {.reverse = false, .max_starts = 1}).bandwidth_after);
    // From a random order, CM gets within a small factor of what it finds
    // from the file's order (the orders tie-break differently).
    const Ordering s = check_ordering(scrambled(A, 31));
    EXPECT_LE(s.bandwidth_after, 2 * o.bandwidth_after + 2);
    EXPECT_EQ(s.components, o.components);
  });
  EXPECT_GE(count, 10);
}

TEST(CuthillMcKee, MeshesFromTheCollectionGetNarrower) {
  for (const char* name : {"bcsstk13.mtx", "dwt_992.mtx", "jagmesh7.mtx"}) {
    SCOPED_TRACE(name);
    const std::optional<Csr<double>> A = test::real_matrix_as<double>(test::data_file(name));
    ASSERT_TRUE(A);
    const Ordering o = check_ordering(scrambled(*A, 5));
    EXPECT_LT(o.bandwidth_after * 4, o.bandwidth_before);
  }
}

}  // namespace
}  // namespace balsa
