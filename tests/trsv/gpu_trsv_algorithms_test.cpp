// The GPU triangular-solve algorithms behind balsa::TriangularSolver
// (trsv/level_set/level_set.cu, sync_free_csr.cu, sync_free_csc.cu), called through
// their factories and checked against trsv_reference: float and double,
// Lower and Upper (Upper as the transpose of the lower matrices), NonUnit and
// Unit, generated and real matrices. x is poisoned with NaN before every
// solve; every system is solved three times (three epochs), then twice more
// after update_values. Label `gpu`: every test skips when no GPU is present.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "trsv/gpu_algorithm.hpp"

namespace balsa {
namespace {

template <class T>
using Factory = std::unique_ptr<trsv_gpu::Algorithm<T>> (*)(const Csr<T>&, Triangle, DiagonalKind);

// The sync-free solvers' watchdog: BALSA_TEST_WATCHDOG_MS when set (the
// sanitizer runs of scripts/gpu-host.sh raise it), else the library's default.
int watchdog_ms() {
  static const int ms = [] {
    const char* e = std::getenv("BALSA_TEST_WATCHDOG_MS");
    return e && std::atoi(e) > 0 ? std::atoi(e) : trsv_gpu::kDefaultWatchdogMs;
  }();
  return ms;
}

template <class T>
struct NamedAlgorithm {
  const char* name;
  Factory<T> make;
};

// The level-set solver's register-prefetch thin-run kernel (no staging) with
// a 64-thread block, up to 64 passes of it per thin level and a 256-entry x
// ring: with small matrices this reaches multi-pass levels, ring wrap-around
// and the global-x fallback of entries whose ring slot may already be reused.
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_level_set_small_ring(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_level_set(
      A, tri, diag, level_sets(A, tri),
      trsv_gpu::LevelSetTuning{.thin_block = 64, .thin_passes = 64, .ring_entries = 256, .staging_bytes = 0});
}

// The staged thin-run kernel with a 4 KB staging area (tens of positions a
// chunk, so every run has many chunks) and a 128-entry ring.
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_level_set_small_chunks(const Csr<T>& A, Triangle tri,
                                                                    DiagonalKind diag) {
  return trsv_gpu::make_level_set(
      A, tri, diag, level_sets(A, tri),
      trsv_gpu::LevelSetTuning{.thin_block = 1024, .thin_passes = 4, .ring_entries = 128, .staging_bytes = 4096});
}

// TASSL with the default n_max (the whole of a block's shared memory), and
// with sub-graphs of at most 64 / 500 vertices and at most 32 / 1024 round
// lanes (staged and not): with small matrices these give many sub-graphs, many
// sub-graph levels, external edges, slots split over several rounds, and
// (staged) many chunks of rounds.
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_tassl_default(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_tassl(A, tri, diag);
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_tassl_small_warp(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_tassl(A, tri, diag, {.n_max = 64, .max_width = 32});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_tassl_small_warp_unstaged(const Csr<T>& A, Triangle tri,
                                                                       DiagonalKind diag) {
  return trsv_gpu::make_tassl(A, tri, diag, {.n_max = 64, .max_width = 32, .stage = false});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_tassl_small_wide(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_tassl(A, tri, diag, {.n_max = 500, .max_width = 1024});
}

// The sync-free solvers with the test's watchdog.
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_sync_free(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_csr(A, tri, diag, level_sets(A, tri), watchdog_ms());
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_sync_free_csc(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_csc(A, tri, diag, watchdog_ms());
}

// Sync-free blocks with the default chunking (one chunk per multiprocessor,
// at least 256 rows), and with chunks of about 7 rows: many chunks, so most
// dependencies cross chunks (the sync-free waits) and many chunks share a
// level; and with more chunks than rows of most cases (one row each).
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_default(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri), {.watchdog_ms = watchdog_ms()});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_small(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.chunks = std::max<index_t>(1, A.rows / 7), .watchdog_ms = watchdog_ms()});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_per_row(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.chunks = 1 << 20, .watchdog_ms = watchdog_ms()});
}

// The same with the block size, lanes per row and shared-memory ring set by
// the tuning (trsv/gpu_algorithm.hpp): 64 threads and one lane (steps of
// several passes, overflow rows past 4 entries); 64 threads and 8 lanes (8
// rows a pass, group shuffles); 512 threads and 32 lanes (a warp a row); and
// a 16-entry ring with about 7-row chunks and with one chunk (values of the
// chunk read from global memory, early and late).
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_few_threads(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.min_chunk_rows = 64, .threads = 64, .lanes = 1, .watchdog_ms = watchdog_ms()});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_lanes(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.chunks = std::max<index_t>(1, A.rows / 50), .threads = 64, .lanes = 8, .watchdog_ms = watchdog_ms()});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_warp_rows(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.threads = 512, .lanes = 32, .watchdog_ms = watchdog_ms()});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_small_ring(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.chunks = std::max<index_t>(1, A.rows / 7), .ring = 16, .watchdog_ms = watchdog_ms()});
}
template <class T>
std::unique_ptr<trsv_gpu::Algorithm<T>> make_blocks_one_chunk(const Csr<T>& A, Triangle tri, DiagonalKind diag) {
  return trsv_gpu::make_sync_free_blocks(A, tri, diag, level_sets(A, tri),
                                         {.chunks = 1, .threads = 1024, .ring = 16, .watchdog_ms = watchdog_ms()});
}

template <class T>
std::vector<NamedAlgorithm<T>> every_algorithm() {
  return {{"LevelSet", &trsv_gpu::make_level_set<T>},
          {"LevelSetSmallRing", &make_level_set_small_ring<T>},
          {"LevelSetSmallChunks", &make_level_set_small_chunks<T>},
          {"SyncFree", &make_sync_free<T>},
          {"SyncFreeCsc", &make_sync_free_csc<T>},
          {"Tassl", &make_tassl_default<T>},
          {"TasslSmallWarp", &make_tassl_small_warp<T>},
          {"TasslSmallWarpUnstaged", &make_tassl_small_warp_unstaged<T>},
          {"TasslSmallWide", &make_tassl_small_wide<T>},
          {"SyncFreeBlocks", &make_blocks_default<T>},
          {"SyncFreeBlocksSmall", &make_blocks_small<T>},
          {"SyncFreeBlocksPerRow", &make_blocks_per_row<T>},
          {"SyncFreeBlocksFewThreads", &make_blocks_few_threads<T>},
          {"SyncFreeBlocksLanes", &make_blocks_lanes<T>},
          {"SyncFreeBlocksWarpRows", &make_blocks_warp_rows<T>},
          {"SyncFreeBlocksSmallRing", &make_blocks_small_ring<T>},
          {"SyncFreeBlocksOneChunk", &make_blocks_one_chunk<T>}};
}

// Every algorithm, or those named in BALSA_TEST_ALGORITHMS (comma-separated,
// e.g. "Tassl,TasslSmallWarp": the sanitizer runs check one kernel at a time).
template <class T>
std::vector<NamedAlgorithm<T>> algorithms() {
  std::vector<NamedAlgorithm<T>> all = every_algorithm<T>();
  const char* only = std::getenv("BALSA_TEST_ALGORITHMS");
  if (!only || !*only) return all;
  const std::string list = std::string(",") + only + ",";
  std::erase_if(all, [&](const NamedAlgorithm<T>& a) { return list.find(std::string(",") + a.name + ",") == std::string::npos; });
  return all;
}


constexpr Triangle kTriangles[] = {Triangle::Lower, Triangle::Upper};
constexpr DiagonalKind kDiagonals[] = {DiagonalKind::NonUnit, DiagonalKind::Unit};

// Generated matrices: relative error against the reference. Real triangles
// may be ill-conditioned: normwise backward error instead.
enum class Check { RelativeError, BackwardError };

// For Unit solves: the off-diagonals of row i divided by 1 + sum_j |a_ij|, so
// the unit-diagonal system stays well conditioned. The stored diagonal is
// left as it is (a Unit solve must ignore it).
template <class T>
Csr<T> unit_friendly(Csr<T> A) {
  for (index_t i = 0; i < A.rows; ++i) {
    double s = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) s += std::abs(double(A.values[p]));
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) A.values[p] = T(double(A.values[p]) / (1.0 + s));
  }
  return A;
}

// For NonUnit solves of real triangles: a missing or zero diagonal entry
// becomes 1 + sum_j |a_ij| (the other entries are kept).
template <class T>
Csr<T> with_nonzero_diagonal(const Csr<T>& A, Triangle tri) {
  Csr<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  for (index_t i = 0; i < A.rows; ++i) {
    double s = 1;
    T d = T(0);
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) s += std::abs(double(A.values[p]));
      else d = A.values[p];
    if (d == T(0)) d = T(s);
    auto put = [&](index_t j, T v) {
      B.col_idx.push_back(j);
      B.values.push_back(v);
    };
    if (tri == Triangle::Upper) put(i, d);
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) put(A.col_idx[p], A.values[p]);
    if (tri == Triangle::Lower) put(i, d);
    B.row_ptr.push_back(index_t(B.col_idx.size()));
  }
  return B;
}

// New values for update_values: off-diagonals scaled by 1/4, 1/2 or 3/4 and
// diagonals by 1, 3/2 or 2 (varying with the position, so a wrong value map
// shows; dominance, where there was some, is kept).
template <class T>
std::vector<T> rescaled_values(const Csr<T>& A) {
  std::vector<T> v = A.values;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      v[p] *= A.col_idx[p] == i ? T(1.0 + 0.5 * (i % 3)) : T(0.25 * (1 + p % 3));
  return v;
}

// max_i |b - A x|_i / max_i (|b_i| + sum_j |a_ij x_j|), with a_ii = 1 for Unit.
template <class T>
double backward_error(const Csr<T>& A, DiagonalKind diag, std::span<const T> x, std::span<const T> b) {
  double num = 0, den = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    double sum = diag == DiagonalKind::Unit ? double(x[i]) : 0.0, mag = std::abs(sum) + std::abs(double(b[i]));
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      if (diag == DiagonalKind::Unit && A.col_idx[p] == i) continue;
      const double t = double(A.values[p]) * double(x[A.col_idx[p]]);
      sum += t;
      mag += std::abs(t);
    }
    num = std::max(num, std::abs(double(b[i]) - sum));
    den = std::max(den, mag);
  }
  return num / std::max(den, 1e-300);
}

std::string describe(const char* algorithm, Triangle tri, DiagonalKind diag) {
  return std::string(algorithm) + (tri == Triangle::Lower ? " Lower" : " Upper") +
         (diag == DiagonalKind::Unit ? " Unit" : " NonUnit");
}

// Builds the algorithm's solver for A and checks its solves: three
// right-hand sides, two after update_values, many at once, and one after
// update_values_device back to A's values. Returns the number of
// solves skipped because the reference itself over/underflowed to non-finite.
template <class T>
int expect_solves(const NamedAlgorithm<T>& algorithm, const Csr<T>& A, Triangle tri, DiagonalKind diag,
                  Check check) {
  SCOPED_TRACE(describe(algorithm.name, tri, diag) + ", " + std::to_string(A.rows) + " rows, " +
               std::to_string(A.nnz()) + " entries");
  const std::size_t n = std::size_t(A.rows);
  std::unique_ptr<trsv_gpu::Algorithm<T>> solver = algorithm.make(A, tri, diag);
  int skipped = 0;
  // `columns` right-hand sides (seeds seed, seed + 1, ...): one column through
  // solve(), more through solve_many() in one call; outputs poisoned.
  auto solve_and_check = [&](const Csr<T>& M, std::uint64_t seed, index_t columns) {
    std::vector<T> Bs(n * std::size_t(columns));
    for (index_t c = 0; c < columns; ++c) {
      const std::vector<T> b = random_vector<T>(A.rows, seed + std::uint64_t(c));
      std::copy(b.begin(), b.end(), Bs.begin() + std::ptrdiff_t(std::size_t(c) * n));
    }
    cuda::DeviceBuffer<T> B_dev{std::span<const T>(Bs)}, X_dev(Bs.size());
    test::poison(X_dev);
    if (columns == 1)
      solver->solve(B_dev.data(), X_dev.data());
    else
      solver->solve_many(B_dev.data(), X_dev.data(), A.rows, columns);
    const std::vector<T> X = X_dev.to_host();
    for (index_t c = 0; c < columns; ++c) {
      const std::string what = "seed " + std::to_string(seed + std::uint64_t(c)) + ", column " + std::to_string(c) +
                               " of " + std::to_string(columns);
      const std::span<const T> b = std::span<const T>(Bs).subspan(std::size_t(c) * n, n);
      const std::span<const T> x = std::span<const T>(X).subspan(std::size_t(c) * n, n);
      std::vector<T> ref(n);
      trsv_reference<T>(M, tri, diag, b, ref);
      if (!std::all_of(ref.begin(), ref.end(), [](T r) { return std::isfinite(r); })) {
        ++skipped;
        continue;
      }
      ASSERT_EQ(test::count_poisoned(x), 0u) << "x not fully written (" << what << ")";
      if (check == Check::RelativeError)
        EXPECT_TRUE(test::matches<T>(x, ref, test::tolerance<T>(1e3))) << what;
      else
        EXPECT_LE(backward_error<T>(M, diag, x, b), test::tolerance<T>(1e3)) << what;
    }
  };
  for (std::uint64_t seed = 1; seed <= 3; ++seed) solve_and_check(A, seed, 1);
  Csr<T> B = A;
  B.values = rescaled_values(A);
  solver->update_values(B.values);
  for (std::uint64_t seed = 4; seed <= 5; ++seed) solve_and_check(B, seed, 1);
  // Many right-hand sides in one call: 34 columns on small matrices (more
  // than TASSL's 32-column grid, so its blocks loop over columns), 3 otherwise.
  solve_and_check(B, 40, n <= 4096 ? 34 : 3);
  // The first values again, from device memory (update_values_device: device
  // gathers for level-set, sync-free-blocks and cuSPARSE, a host round trip
  // for the others).
  const cuda::DeviceBuffer<T> A_values{std::span<const T>(A.values)};
  solver->update_values_device(A_values.data(), A_values.size());
  solve_and_check(A, 41, 1);
  return skipped;
}

// Every algorithm, Lower (L) and Upper (L^T), NonUnit and Unit.
template <class T>
void expect_all_from_lower(const Csr<T>& L) {
  const Csr<T> U = transpose(L);
  for (const NamedAlgorithm<T>& a : algorithms<T>())
    for (const Triangle tri : kTriangles) {
      const Csr<T>& M = tri == Triangle::Lower ? L : U;
      expect_solves(a, M, tri, DiagonalKind::NonUnit, Check::RelativeError);
      expect_solves(a, unit_friendly(M), tri, DiagonalKind::Unit, Check::RelativeError);
    }
}

template <class T>
class GpuTrsvAlgorithms : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuTrsvAlgorithms, ValueTypes);

TYPED_TEST(GpuTrsvAlgorithms, RandomBandedManyLevels) {
  BALSA_REQUIRE_GPU();
  expect_all_from_lower(random_lower_banded<TypeParam>(20000, 50, 4, 7));
}

TYPED_TEST(GpuTrsvAlgorithms, ChainOneRowPerLevel) {
  BALSA_REQUIRE_GPU();
  expect_all_from_lower(chain_lower<TypeParam>(5000));
}

TYPED_TEST(GpuTrsvAlgorithms, StarTwoLevels) {
  BALSA_REQUIRE_GPU();
  expect_all_from_lower(star_lower<TypeParam>(10000));  // Upper: row 0 has 9999 dependencies
}

TYPED_TEST(GpuTrsvAlgorithms, Laplacian3dLowerTriangle) {
  BALSA_REQUIRE_GPU();
  expect_all_from_lower(extract_triangle(laplacian_3d<TypeParam>(20, 20, 20), Triangle::Lower));
}

TYPED_TEST(GpuTrsvAlgorithms, BlockDiagonal) {
  BALSA_REQUIRE_GPU();
  expect_all_from_lower(random_block_diagonal_lower<TypeParam>(8, 500, 0.01, 3));
}

// Mean row lengths of about 2, 6, 12, 24 and 48 off-diagonal entries: every
// lanes-per-row variant (1, 4, 8, 16, 32) of the kernels.
TYPED_TEST(GpuTrsvAlgorithms, EveryRowGranularity) {
  BALSA_REQUIRE_GPU();
  for (const index_t per_row : {2, 6, 12, 24, 48}) {
    SCOPED_TRACE("per_row " + std::to_string(per_row));
    expect_all_from_lower(random_lower_banded<TypeParam>(3000, 64, per_row, 11));
  }
}

// Levels wider than the level-set solver's own-launch threshold: the middle
// levels of a 60^3 natural-order Laplacian (mixed wide and thin), and the two
// huge levels of a red-black ordered one.
TYPED_TEST(GpuTrsvAlgorithms, WideLevels) {
  BALSA_REQUIRE_GPU();
  expect_all_from_lower(extract_triangle(laplacian_3d<TypeParam>(60, 60, 60), Triangle::Lower));
  expect_all_from_lower(extract_triangle(
      laplacian_3d<TypeParam>(40, 40, 40, Stencil3d::Point27, GridOrdering::RedBlack), Triangle::Lower));
}

TYPED_TEST(GpuTrsvAlgorithms, RealMatrixTriangles) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  int tested = 0, skipped = 0;
  test::for_each_square_real_matrix<T>([&](const Csr<T>& A) {
    for (const Triangle tri : kTriangles) {
      const Csr<T> part = extract_triangle(A, tri);
      const Csr<T> non_unit = with_nonzero_diagonal(part, tri);
      const Csr<T> unit = unit_friendly(part);
      for (const NamedAlgorithm<T>& a : algorithms<T>()) {
        skipped += expect_solves(a, non_unit, tri, DiagonalKind::NonUnit, Check::BackwardError);
        skipped += expect_solves(a, unit, tri, DiagonalKind::Unit, Check::BackwardError);
        tested += 2;
      }
    }
  });
  EXPECT_GT(tested, 0);
  std::printf("%d systems, %d solves skipped (reference not finite)\n", tested, skipped);
}

// Diagonals below 1 / max (subnormal): their reciprocals overflow, so a
// solver that multiplies by 1 / a_ii must divide for those rows (the level-set
// and sync-free-blocks solvers store 0 there). Every 7th row holds only such
// a diagonal t = 2^-1070 (double) or 2^-140 (float), the others
// 2 x_k - x_{k-1} / 2 + x_{k-2} / 4 (Lower; Upper: x_{k+1}, x_{k+2}); with
// integer x_true every b and every x is exact, so x must equal x_true. Values
// set at construction, by update_values and by update_values_device.
TYPED_TEST(GpuTrsvAlgorithms, DiagonalsWithoutFiniteReciprocal) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const T tiny = std::is_same_v<T, double> ? T(std::ldexp(1.0, -1070)) : T(std::ldexp(1.0f, -140));
  ASSERT_GT(tiny, T(0));
  ASSERT_FALSE(std::isfinite(T(1) / tiny));
  const index_t n = 3000;
  std::vector<T> x_true(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) x_true[std::size_t(k)] = T(k % 5 - 2);
  for (const Triangle tri : kTriangles) {
    Csr<T> A{n, n, {0}, {}, {}};
    auto put = [&](index_t j, T v) {
      A.col_idx.push_back(j);
      A.values.push_back(v);
    };
    for (index_t k = 0; k < n; ++k) {
      const bool plain = k % 7 != 3;
      if (tri == Triangle::Lower && plain) {
        if (k > 1) put(k - 2, T(0.25));
        if (k > 0) put(k - 1, T(-0.5));
      }
      put(k, plain ? T(2) : tiny);
      if (tri == Triangle::Upper && plain) {
        if (k + 1 < n) put(k + 1, T(-0.5));
        if (k + 2 < n) put(k + 2, T(0.25));
      }
      A.row_ptr.push_back(index_t(A.col_idx.size()));
    }
    const std::vector<T> b = multiply(A, std::span<const T>(x_true));
    for (const NamedAlgorithm<T>& a : algorithms<T>()) {
      SCOPED_TRACE(describe(a.name, tri, DiagonalKind::NonUnit));
      std::unique_ptr<trsv_gpu::Algorithm<T>> solver = a.make(A, tri, DiagonalKind::NonUnit);
      cuda::DeviceBuffer<T> b_dev{std::span<const T>(b)}, x_dev(b.size()), values_dev{std::span<const T>(A.values)};
      for (int pass = 0; pass < 3; ++pass) {
        if (pass == 1) solver->update_values(A.values);
        if (pass == 2) solver->update_values_device(values_dev.data(), values_dev.size());
        test::poison(x_dev);
        solver->solve(b_dev.data(), x_dev.data());
        const std::vector<T> x = x_dev.to_host();
        std::size_t wrong = 0, first = x.size();
        for (std::size_t i = 0; i < x.size(); ++i)
          if (x[i] != x_true[i]) {
            ++wrong;
            first = std::min(first, i);
          }
        EXPECT_EQ(wrong, 0u) << "pass " << pass << ": first wrong x[" << first
                             << "] = " << (first < x.size() ? double(x[first]) : 0.0);
      }
    }
  }
}

TYPED_TEST(GpuTrsvAlgorithms, OneByOneAndEmpty) {
  using T = TypeParam;
  BALSA_REQUIRE_GPU();
  const Csr<T> one{1, 1, {0, 1}, {0}, {T(3)}};
  const Csr<T> one_no_diagonal{1, 1, {0, 0}, {}, {}};  // Unit only
  const Csr<T> empty{0, 0, {0}, {}, {}};
  for (const NamedAlgorithm<T>& a : algorithms<T>())
    for (const Triangle tri : kTriangles) {
      for (const DiagonalKind diag : kDiagonals) {
        expect_solves(a, one, tri, diag, Check::RelativeError);
        expect_solves(a, empty, tri, diag, Check::RelativeError);
      }
      expect_solves(a, one_no_diagonal, tri, DiagonalKind::Unit, Check::RelativeError);
    }
}

}  // namespace
}  // namespace balsa
