// The parallel host analysis passes (core/parallel.hpp and its users)
// against simple serial versions of the same algorithms, on matrices large
// enough for the parallel code paths (more than parallel::kParallelMin
// items) and with several thread counts (3 and 4 threads even on a smaller
// machine): the transpose, triangle extraction, level sets, permutation
// inverse, diagonal split, the sync-free-blocks plan and layout, the
// incomplete factorisation's analysis and the IC(0) preconditioner built
// beside it. Every result must be the same, bit for bit, and every error
// must name the first bad entry, as the serial scans do.
#include <omp.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <numeric>
#include <utility>

#include "balsa/balsa.hpp"
#include "krylov/preconditioner.hpp"
#include "core/parallel.hpp"
#include "sparse/transpose.hpp"
#include "sparse/triangle_pattern.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "trsv/off_diagonal.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_plan.hpp"

namespace balsa {
namespace {

using trsv_gpu::detail::kStepOverflow;
using trsv_gpu::detail::OffDiagonal;
using trsv_gpu::detail::SyncFreeBlocksLayout;
using trsv_gpu::detail::SyncFreeBlocksPlan;

// Runs the test body under 1, 3 and 4 OpenMP threads (restored afterwards).
template <class F>
void for_thread_counts(F&& f) {
  const int saved = omp_get_max_threads();
  for (const int threads : {1, 3, 4}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    omp_set_num_threads(threads);
    f();
  }
  omp_set_num_threads(saved);
}

// ---- serial references: the algorithms as they were before the parallel passes

Csr<double> serial_transpose(const Csr<double>& A) {
  Csr<double> B;
  B.rows = A.cols;
  B.cols = A.rows;
  B.row_ptr.assign(std::size_t(A.cols) + 1, 0);
  for (const index_t c : A.col_idx) ++B.row_ptr[std::size_t(c) + 1];
  std::partial_sum(B.row_ptr.begin(), B.row_ptr.end(), B.row_ptr.begin());
  B.col_idx.resize(A.col_idx.size());
  B.values.resize(A.values.size());
  std::vector<index_t> next(B.row_ptr.begin(), B.row_ptr.end() - 1);
  for (index_t r = 0; r < A.rows; ++r)
    for (index_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      const index_t q = next[std::size_t(A.col_idx[k])]++;
      B.col_idx[std::size_t(q)] = r;
      B.values[std::size_t(q)] = A.values[std::size_t(k)];
    }
  return B;
}

Csr<double> serial_triangle(const Csr<double>& A, Triangle tri, Diag diag) {
  Csr<double> B;
  B.rows = A.rows;
  B.cols = A.cols;
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const index_t j = A.col_idx[k];
      if (j == i ? diag == Diag::Include : (tri == Triangle::Lower ? j < i : j > i)) {
        B.col_idx.push_back(j);
        B.values.push_back(A.values[k]);
      }
    }
    B.row_ptr.push_back(index_t(B.col_idx.size()));
  }
  return B;
}

LevelSets serial_level_sets(const std::vector<index_t>& level) {
  LevelSets s;
  const index_t levels = level.empty() ? 0 : *std::max_element(level.begin(), level.end()) + 1;
  s.level_ptr.assign(std::size_t(levels) + 1, 0);
  for (const index_t l : level) ++s.level_ptr[std::size_t(l) + 1];
  std::partial_sum(s.level_ptr.begin(), s.level_ptr.end(), s.level_ptr.begin());
  std::vector<index_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  s.rows.resize(level.size());
  for (std::size_t i = 0; i < level.size(); ++i) s.rows[std::size_t(next[std::size_t(level[i])]++)] = index_t(i);
  return s;
}

OffDiagonal serial_split(const Csr<double>& A, DiagonalKind diag, std::span<const index_t> order) {
  OffDiagonal s;
  s.n = A.rows;
  s.diag_pos.assign(std::size_t(A.rows), -1);
  for (index_t k = 0; k < A.rows; ++k) {
    const index_t i = order.empty() ? k : order[std::size_t(k)];
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      if (A.col_idx[p] == i) {
        if (diag == DiagonalKind::NonUnit) s.diag_pos[std::size_t(k)] = p;
        continue;
      }
      s.col_idx.push_back(A.col_idx[p]);
      s.value_pos.push_back(p);
    }
    s.row_ptr.push_back(index_t(s.col_idx.size()));
  }
  return s;
}

SyncFreeBlocksPlan serial_plan(std::span<const index_t> level, std::span<const index_t> row_work, Triangle tri,
                               index_t chunks) {
  const index_t n = index_t(level.size());
  SyncFreeBlocksPlan p;
  p.chunks = n == 0 ? 0 : std::clamp<index_t>(chunks, 1, n);
  p.order.resize(std::size_t(n));
  p.chunk_ptr.assign(std::size_t(p.chunks) + 1, 0);
  p.chunk_step.assign(std::size_t(p.chunks) + 1, 0);
  p.step_ptr.assign(1, 0);
  if (n == 0) return p;
  auto row_at = [&](index_t t) { return tri == Triangle::Lower ? t : n - 1 - t; };
  std::int64_t total = 0;
  for (index_t i = 0; i < n; ++i) total += row_work[std::size_t(i)];
  std::int64_t done = 0;
  index_t t = 0;
  for (index_t c = 0; c < p.chunks; ++c) {
    p.chunk_ptr[std::size_t(c)] = t;
    const std::int64_t goal = total * (c + 1) / p.chunks;
    const index_t last_start = n - (p.chunks - c);
    do {
      done += row_work[std::size_t(row_at(t))];
      ++t;
    } while (t <= last_start && done < goal);
  }
  p.chunk_ptr[std::size_t(p.chunks)] = n;
  std::vector<index_t> count;
  for (index_t c = 0; c < p.chunks; ++c) {
    const index_t begin = p.chunk_ptr[std::size_t(c)], end = p.chunk_ptr[std::size_t(c) + 1];
    index_t lo = level[std::size_t(row_at(begin))], hi = lo;
    for (index_t q = begin; q < end; ++q) {
      lo = std::min(lo, level[std::size_t(row_at(q))]);
      hi = std::max(hi, level[std::size_t(row_at(q))]);
    }
    count.assign(std::size_t(hi - lo) + 2, 0);
    for (index_t q = begin; q < end; ++q) ++count[std::size_t(level[std::size_t(row_at(q))] - lo) + 1];
    for (std::size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
    p.chunk_step[std::size_t(c)] = p.steps();
    for (std::size_t l = 0; l + 1 < count.size(); ++l) {
      if (count[l + 1] == count[l]) continue;
      p.step_ptr.push_back(begin + count[l + 1]);
      p.widest_step = std::max(p.widest_step, count[l + 1] - count[l]);
    }
    p.most_steps = std::max(p.most_steps, p.steps() - p.chunk_step[std::size_t(c)]);
    for (index_t q = begin; q < end; ++q) {
      const index_t i = row_at(q);
      p.order[std::size_t(begin + count[std::size_t(level[std::size_t(i)] - lo)]++)] = i;
    }
  }
  p.chunk_step[std::size_t(p.chunks)] = p.steps();
  return p;
}

SyncFreeBlocksLayout serial_layout(const SyncFreeBlocksPlan& plan, const OffDiagonal& pattern, int lanes, int cap) {
  const index_t n = index_t(plan.order.size());
  SyncFreeBlocksLayout L;
  L.lanes = lanes;
  L.cap = cap;
  L.diag_pos = pattern.diag_pos;
  std::vector<index_t> pos_of(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) pos_of[std::size_t(plan.order[std::size_t(k)])] = k;
  const index_t G = lanes;
  std::int64_t slots = 0;
  L.steps.resize(std::size_t(plan.steps()));
  for (index_t s = 0; s < plan.steps(); ++s) {
    auto& st = L.steps[std::size_t(s)];
    st.begin = plan.step_ptr[std::size_t(s)];
    st.end = plan.step_ptr[std::size_t(s) + 1];
    index_t longest = 0;
    for (index_t k = st.begin; k < st.end; ++k) longest = std::max(longest, pattern.row_ptr[k + 1] - pattern.row_ptr[k]);
    const index_t width = std::min<index_t>((longest + G - 1) / G, cap);
    st.ell_base = index_t(slots);
    st.flags = width | (longest > width * G ? kStepOverflow : 0);
    slots += std::int64_t(width) * (st.end - st.begin) * G;
  }
  L.ell_dep.assign(std::size_t(slots), -1);
  L.ell_value_pos.assign(std::size_t(slots), -1);
  L.ovf_ptr.assign(std::size_t(n) + 1, 0);
  for (const auto& st : L.steps) {
    const index_t W = st.end - st.begin, width = st.flags & trsv_gpu::detail::kStepWidthMask;
    for (index_t j = 0; j < W; ++j) {
      const index_t k = st.begin + j;
      const index_t p0 = pattern.row_ptr[k], len = pattern.row_ptr[k + 1] - p0;
      for (index_t r = 0; r < len; ++r) {
        const index_t p = p0 + r, dep = pos_of[std::size_t(pattern.col_idx[p])];
        if (r < width * G) {
          const std::size_t slot = std::size_t(st.ell_base) + std::size_t(((r / G) * W + j) * G + r % G);
          L.ell_dep[slot] = dep;
          L.ell_value_pos[slot] = pattern.value_pos[p];
        } else {
          L.ovf_dep.push_back(dep);
          L.ovf_value_pos.push_back(pattern.value_pos[p]);
        }
      }
      L.ovf_ptr[std::size_t(k) + 1] = index_t(L.ovf_dep.size());
    }
  }
  return L;
}

void expect_same(const Csr<double>& got, const Csr<double>& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.row_ptr, want.row_ptr);
  EXPECT_EQ(got.col_idx, want.col_idx);
  EXPECT_EQ(got.values, want.values);
}

void expect_same(const SyncFreeBlocksPlan& got, const SyncFreeBlocksPlan& want) {
  EXPECT_EQ(got.chunks, want.chunks);
  EXPECT_EQ(got.order, want.order);
  EXPECT_EQ(got.chunk_ptr, want.chunk_ptr);
  EXPECT_EQ(got.chunk_step, want.chunk_step);
  EXPECT_EQ(got.step_ptr, want.step_ptr);
  EXPECT_EQ(got.most_steps, want.most_steps);
  EXPECT_EQ(got.widest_step, want.widest_step);
}

void expect_same(const SyncFreeBlocksLayout& got, const SyncFreeBlocksLayout& want) {
  ASSERT_EQ(got.steps.size(), want.steps.size());
  for (std::size_t s = 0; s < got.steps.size(); ++s) {
    EXPECT_EQ(got.steps[s].begin, want.steps[s].begin);
    EXPECT_EQ(got.steps[s].end, want.steps[s].end);
    EXPECT_EQ(got.steps[s].ell_base, want.steps[s].ell_base);
    EXPECT_EQ(got.steps[s].flags, want.steps[s].flags);
  }
  EXPECT_EQ(got.ell_dep, want.ell_dep);
  EXPECT_EQ(got.ell_value_pos, want.ell_value_pos);
  EXPECT_EQ(got.ovf_ptr, want.ovf_ptr);
  EXPECT_EQ(got.ovf_dep, want.ovf_dep);
  EXPECT_EQ(got.ovf_value_pos, want.ovf_value_pos);
  EXPECT_EQ(got.diag_pos, want.diag_pos);
}

// The matrices: a 3D Laplacian's triangles (narrow column ranges per block
// of rows), a random banded one, a random one (wide ranges: the transpose
// takes one block) and a star (one dense column).
Csr<double> lap3d() { return laplacian_3d<double>(52, 50, 48); }  // 124,800 rows

TEST(ParallelAnalysis, TransposeMatchesSerialCountingSort) {
  const Csr<double> L = extract_triangle(lap3d(), Triangle::Lower);
  const Csr<double> B = random_lower_banded<double>(150000, 3000, 5, 7);
  const Csr<double> R = test::random_sparse<double>(40000, 30000, 1e-4, 3);
  const Csr<double> S = star_lower<double>(120000);
  for_thread_counts([&] {
    for (const Csr<double>* A : {&L, &B, &R, &S}) {
      expect_same(transpose(*A), serial_transpose(*A));
      const TransposedPattern t = transpose_pattern(A->rows, A->cols, A->row_ptr, A->col_idx);
      for (std::size_t q = 0; q < t.source.size(); ++q)
        ASSERT_EQ(A->col_idx[std::size_t(t.source[q])],
                  index_t(std::upper_bound(t.row_ptr.begin(), t.row_ptr.end(), index_t(q)) - t.row_ptr.begin()) - 1);
    }
    // The transpose of one triangle: that of the extracted triangle, the
    // source map pointing into the whole matrix (values: the positions).
    Csr<double> A = lap3d();
    std::iota(A.values.begin(), A.values.end(), 0.0);
    for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
      const TransposedPattern t = transpose_pattern(A.rows, A.cols, A.row_ptr, A.col_idx, tri);
      const Csr<double> want = serial_transpose(serial_triangle(A, tri, Diag::Include));
      EXPECT_EQ(t.row_ptr, want.row_ptr);
      EXPECT_EQ(t.col_idx, want.col_idx);
      std::vector<double> values(t.source.size());
      for (std::size_t q = 0; q < values.size(); ++q) values[q] = A.values[std::size_t(t.source[q])];
      EXPECT_EQ(values, want.values);
    }
  });
}

TEST(ParallelAnalysis, TrianglesAndDiagonalChecksMatchSerialScans) {
  const Csr<double> A = lap3d();
  for_thread_counts([&] {
    for (const Triangle tri : {Triangle::Lower, Triangle::Upper})
      for (const Diag diag : {Diag::Include, Diag::Exclude})
        expect_same(extract_triangle(A, tri, diag), serial_triangle(A, tri, diag));
    // Two bad entries far apart: the first (in row order) is named.
    Csr<double> B = A;
    B.values[std::size_t(B.row_ptr[90001]) + 1] = std::numeric_limits<double>::infinity();
    B.values[std::size_t(B.row_ptr[70001])] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW_MSG(require_finite(B), MatrixError, "NaN value at (row 70001, column ");
    EXPECT_THROW_MSG(require_triangular(A, Triangle::Lower), MatrixError, "entry at (row 0, column 1)");
    const Csr<double> L = extract_triangle(A, Triangle::Lower);
    Csr<double> U = transpose(L);
    U.col_idx[std::size_t(U.row_ptr[100000])] = 99999;  // row 100000's diagonal moved below it
    EXPECT_THROW_MSG(require_triangular(U, Triangle::Upper), MatrixError, "entry at (row 100000, column 99999)");
    Csr<double> Z = L;
    for (const index_t i : {110000, 80000, 80001}) Z.values[std::size_t(Z.row_ptr[i + 1]) - 1] = 0.0;
    const DiagonalReport r = inspect_diagonal(Z);
    EXPECT_EQ(r.zero, 3);
    EXPECT_EQ(r.first_zero, 80000);
    EXPECT_EQ(r.missing, 0);
    EXPECT_EQ(r.first_missing, -1);
  });
}

TEST(ParallelAnalysis, ValidateNamesTheFirstBadRow) {
  const Csr<double> A = lap3d();
  for_thread_counts([&] {
    Csr<double> B = A;
    std::swap(B.col_idx[std::size_t(B.row_ptr[120000])], B.col_idx[std::size_t(B.row_ptr[120000]) + 1]);
    B.col_idx[std::size_t(B.row_ptr[100000])] = A.cols;
    EXPECT_THROW_MSG(validate(B), MatrixError, "row 100000 has column index");
    B.col_idx[std::size_t(B.row_ptr[100000])] = A.col_idx[std::size_t(B.row_ptr[100000])];
    EXPECT_NO_THROW(validate(B));
    EXPECT_THROW_MSG(validate(B, true), MatrixError, "row 120000 has column indices not strictly increasing");
    Csr<double> C = A;
    C.row_ptr[110000] = C.row_ptr[110001] + 1;
    EXPECT_THROW_MSG(validate(C), MatrixError, "pointer array decreases at row 110000");
  });
}

TEST(ParallelAnalysis, LevelSetsMatchSerialCountingSort) {
  Random rng(11);
  std::vector<index_t> few(300000), many(300000), chain(200000);
  for (auto& l : few) l = index_t(rng.below(7));
  for (auto& l : many) l = index_t(rng.below(5000));
  std::iota(chain.begin(), chain.end(), 0);  // as many levels as rows: the serial sort
  const Csr<double> L = extract_triangle(lap3d(), Triangle::Lower);
  const std::vector<index_t> lap = dependency_levels(L.rows, L.row_ptr, L.col_idx, Triangle::Lower);
  for_thread_counts([&] {
    for (const std::vector<index_t>* level : {&std::as_const(few), &std::as_const(many), &std::as_const(chain), &lap}) {
      const LevelSets got = level_sets(*level), want = serial_level_sets(*level);
      EXPECT_EQ(got.level_ptr, want.level_ptr);
      EXPECT_EQ(got.rows, want.rows);
    }
    std::vector<index_t> bad = few;
    bad[250000] = -3;
    bad[260000] = -4;
    EXPECT_THROW_MSG(level_sets(bad), Error, "negative level -3");
  });
}

TEST(ParallelAnalysis, InversePermutationAndItsErrors) {
  Random rng(5);
  std::vector<index_t> perm(250000);
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  std::vector<index_t> want(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) want[std::size_t(perm[i])] = index_t(i);
  for_thread_counts([&] {
    EXPECT_EQ(inverse_permutation(perm), want);
    std::vector<index_t> bad = perm;
    bad[200000] = bad[150000];  // repeats at 200000
    bad[220000] = -1;
    EXPECT_THROW_MSG(check_permutation(bad, index_t(bad.size())), MatrixError,
                     "repeats " + std::to_string(perm[150000]) + " (at entry 200000)");
    bad[100000] = index_t(bad.size());  // now the first bad entry
    EXPECT_THROW_MSG(inverse_permutation(bad), MatrixError, "entry 100000 = 250000 is outside");
  });
}

TEST(ParallelAnalysis, SyncFreeBlocksPlanSplitAndLayoutMatchSerialVersions) {
  const Csr<double> L = extract_triangle(lap3d(), Triangle::Lower);
  const Csr<double> U = transpose(L);
  const Csr<double> B = random_lower_banded<double>(150000, 3000, 9, 3);
  struct Case {
    const Csr<double>* A;
    Triangle tri;
    DiagonalKind diag;
    index_t chunks;
    int lanes, cap;
  };
  const Case cases[] = {{&L, Triangle::Lower, DiagonalKind::NonUnit, 132, 1, 4},
                        {&U, Triangle::Upper, DiagonalKind::NonUnit, 132, 4, 4},
                        {&L, Triangle::Lower, DiagonalKind::Unit, 7, 1, 2},  // rows of 3 entries overflow
                        {&B, Triangle::Lower, DiagonalKind::NonUnit, 300, 4, 1},
                        {&B, Triangle::Lower, DiagonalKind::NonUnit, 16, 32, 4}};
  for_thread_counts([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE("chunks " + std::to_string(c.chunks) + " lanes " + std::to_string(c.lanes));
      const std::vector<index_t> level = dependency_levels(c.A->rows, c.A->row_ptr, c.A->col_idx, c.tri);
      std::vector<index_t> work(std::size_t(c.A->rows));
      for (index_t i = 0; i < c.A->rows; ++i) work[std::size_t(i)] = c.A->row_ptr[i + 1] - c.A->row_ptr[i] + 1;
      const SyncFreeBlocksPlan plan = trsv_gpu::detail::plan_sync_free_blocks(level, work, c.tri, c.chunks);
      expect_same(plan, serial_plan(level, work, c.tri, c.chunks));
      const OffDiagonal split = trsv_gpu::detail::split_diagonal(*c.A, c.diag, plan.order);
      const OffDiagonal want = serial_split(*c.A, c.diag, plan.order);
      EXPECT_EQ(split.row_ptr, want.row_ptr);
      EXPECT_EQ(split.col_idx, want.col_idx);
      EXPECT_EQ(split.value_pos, want.value_pos);
      EXPECT_EQ(split.diag_pos, want.diag_pos);
      const SyncFreeBlocksLayout layout = trsv_gpu::detail::layout_sync_free_blocks(plan, split, c.lanes, c.cap);
      expect_same(layout, serial_layout(plan, want, c.lanes, c.cap));
      if (c.cap == 2) {
        EXPECT_FALSE(layout.ovf_dep.empty()) << "the overflow CSR is exercised";
      }
      EXPECT_EQ(trsv_gpu::detail::diagonal_positions(*c.A, c.diag), serial_split(*c.A, c.diag, {}).diag_pos);
    }
  });
}

// The triangle of a sorted matrix by binary search (sparse/triangle_pattern.hpp)
// is extract_triangle's pattern, positions included: rectangular, empty,
// with empty rows and without diagonals.
TEST(ParallelAnalysis, TrianglePatternIsExtractTrianglesPattern) {
  std::vector<Csr<double>> cases = {lap3d(), test::random_sparse<double>(3000, 2000, 2e-3, 3), Csr<double>{}};
  Csr<double> holes = test::random_sparse<double>(2500, 2500, 2e-3, 8);  // rows 100-199 emptied
  for (index_t i = 100; i < 200; ++i) {
    const index_t drop = holes.row_ptr[i + 1] - holes.row_ptr[i];
    holes.col_idx.erase(holes.col_idx.begin() + holes.row_ptr[i], holes.col_idx.begin() + holes.row_ptr[i + 1]);
    holes.values.erase(holes.values.begin() + holes.row_ptr[i], holes.values.begin() + holes.row_ptr[i + 1]);
    for (index_t k = i + 1; k <= holes.rows; ++k) holes.row_ptr[k] -= drop;
  }
  cases.push_back(holes);
  for_thread_counts([&] {
    for (const Csr<double>& A : cases)
      for (const Triangle tri : {Triangle::Lower, Triangle::Upper}) {
        SCOPED_TRACE(std::to_string(A.rows) + "x" + std::to_string(A.cols) + (tri == Triangle::Lower ? " lower" : " upper"));
        const Csr<double> want = extract_triangle(A, tri);
        std::vector<index_t> positions;
        const Csr<float> got = triangle_pattern<float>(A, tri, &positions);
        EXPECT_TRUE(got.values.empty());
        ASSERT_EQ(positions.size(), got.col_idx.size());
        std::vector<double> through_positions;  // A's values picked by the positions
        for (const index_t p : positions) through_positions.push_back(A.values[std::size_t(p)]);
        expect_same(Csr<double>{got.rows, got.cols, got.row_ptr, got.col_idx, through_positions}, want);
      }
  });
}

// IC(0) on the CPU: the factorisation's parallel analysis (diagonal
// positions, the row-wise gather) gives the reference's factors, and the
// preconditioner built beside it (solvers from the pattern, then the
// factors as new values) applies exactly L^{-T} L^{-1}.
TEST(ParallelAnalysis, IncompleteCholeskyAndItsPreconditionerMatchTheReference) {
  const Csr<double> A = lap3d();
  Csr<double> F = extract_triangle(A, Triangle::Lower);
  std::vector<index_t> diag(std::size_t(F.rows));
  for (index_t i = 0; i < F.rows; ++i) diag[std::size_t(i)] = F.row_ptr[i + 1] - 1;
  ASSERT_EQ(incomplete_factor_reference<double>(IncompleteKind::Ic0, F, diag, F.values, 1e-12), -1);
  const Csr<double> Ft = serial_transpose(F);
  std::vector<double> r(std::size_t(A.rows)), y(r.size()), want(r.size()), z(r.size());
  Random rng(2);
  for (double& v : r) v = rng.uniform(-1.0, 1.0);
  trsv_reference(F, Triangle::Lower, DiagonalKind::NonUnit, std::span<const double>(r), std::span<double>(y));
  trsv_reference(Ft, Triangle::Upper, DiagonalKind::NonUnit, std::span<const double>(y), std::span<double>(want));
  // IC(0) reads A's lower triangle only: the same factors, and the same U =
  // L^T, from A with every third entry above the diagonal dropped (U is
  // then not A's upper triangle: the preconditioner must transpose L).
  Csr<double> lopsided{A.rows, A.cols, {0}, {}, {}};
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] <= i || k % 3 != 0) {
        lopsided.col_idx.push_back(A.col_idx[k]);
        lopsided.values.push_back(A.values[k]);
      }
    lopsided.row_ptr.push_back(index_t(lopsided.col_idx.size()));
  }
  ASSERT_LT(lopsided.nnz(), A.nnz());
  // As many entries above the diagonal as below, one without a mirror: row
  // 0's last entry moved one column right.
  Csr<double> skewed = A;
  ASSERT_LT(skewed.col_idx[std::size_t(A.row_ptr[1] - 1)] + 1, A.cols);
  ++skewed.col_idx[std::size_t(A.row_ptr[1] - 1)];
  for_thread_counts([&] {
    for (const Csr<double>* M_of : std::initializer_list<const Csr<double>*>{&A, &lopsided, &skewed}) {
      SCOPED_TRACE(M_of == &A ? "symmetric pattern" : M_of == &lopsided ? "lopsided pattern" : "skewed pattern");
      const IncompleteFactorization<double> f(*M_of, {.kind = IncompleteKind::Ic0, .device = Device::Cpu});
      EXPECT_EQ(f.factors().values, F.values);
      for (const TrsvAlgorithm alg : {TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet}) {
        const auto M = krylov::make_preconditioner(*M_of, {.preconditioner = PreconditionerKind::Ic0,
                                                           .device = Device::Cpu, .trsv = alg});
        test::poison(z);
        M->apply(std::span<const double>(r), std::span<double>(z));
        EXPECT_EQ(z, want) << to_string(alg);
      }
    }
  });
}

}  // namespace
}  // namespace balsa
