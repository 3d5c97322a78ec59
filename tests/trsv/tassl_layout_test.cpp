// The TASSL GPU layout (trsv/tassl/tassl_layout.*), checked on the CPU by running
// it exactly as the kernel (trsv/tassl/tassl.cu) does: per launch, per block, the
// load with the external in-edges, then round by round, each round's lanes
// applied in reverse order (any order must give the same result) after
// checking that no two lanes of a round write the same x_loc entry and no
// lane reads one that the round writes; then the write-back. The result must
// match the reference substitution; positions must be a permutation; every
// off-diagonal entry must appear exactly once; widths must be powers of two.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"
#include "trsv/pattern_update.hpp"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_layout_patch.hpp"
#include "trsv/tassl/tassl_update.hpp"

namespace balsa {
namespace {

using tassl::kPadEntry;

std::vector<double> emulate(const tassl::Layout& Y, const tassl::ScaledValues<double>& V, const std::vector<double>& b) {
  std::vector<double> x = test::poisoned<double>(Y.position.size());  // one per vertex (order may hold spare positions)
  for (const tassl::LevelLaunch& L : Y.launches) {
    EXPECT_TRUE(L.width >= 32 && L.width <= 1024 && (L.width & (L.width - 1)) == 0);
    for (index_t blk = L.first_block; blk < L.last_block; ++blk) {
      const tassl::Block& B = Y.blocks[std::size_t(blk)];
      const tassl::BlockSpace& room = Y.space[std::size_t(blk)];
      EXPECT_LE(B.size, room.positions);
      EXPECT_LE(B.ext_row_end - B.ext_row_begin + 1, room.ext_rows);
      EXPECT_LE(std::int64_t(B.rounds) * L.width, room.entries);
      EXPECT_LE(B.size, L.most_size);
      std::vector<double> xl(std::size_t(B.size));
      for (index_t u = 0; u < B.size; ++u) {
        const std::size_t p = std::size_t(B.base + u);
        xl[std::size_t(u)] = b[std::size_t(Y.order[p])] / V.diag[p];
      }
      std::set<index_t> rows;  // the block's external rows: exactly its positions with external in-edges
      for (index_t r = B.ext_row_begin; r < B.ext_row_end; ++r) {
        const index_t p = Y.ext_rows[std::size_t(r)];
        EXPECT_TRUE(p >= B.base && p < B.base + B.size && rows.insert(p).second) << "external row " << p;
        double s = 0;
        EXPECT_GE(Y.ext_ptr[std::size_t(r)], room.ext_edge_begin);
        EXPECT_LE(Y.ext_ptr[std::size_t(r) + 1], room.ext_edge_begin + room.ext_edges);
        for (index_t k = Y.ext_ptr[std::size_t(r)]; k < Y.ext_ptr[std::size_t(r) + 1]; ++k) {
          const double xj = x[std::size_t(Y.ext_from[std::size_t(k)])];
          EXPECT_FALSE(std::isnan(xj)) << "external x_" << Y.ext_from[std::size_t(k)] << " read before it is solved";
          s += V.ext[std::size_t(k)] * xj;
        }
        xl[std::size_t(p - B.base)] -= s;
      }
      for (index_t r = 0; r < B.rounds; ++r) {
        const std::size_t first = std::size_t(B.entry_begin) + std::size_t(r) * std::size_t(L.width);
        std::set<std::uint32_t> writes, reads;
        for (std::size_t e = first; e < first + std::size_t(L.width); ++e) {
          const std::uint32_t key = Y.int_key[e];
          if (key == kPadEntry) continue;
          const std::uint32_t to = key >> 16, from = key & 0xFFFFu;
          EXPECT_LT(to, std::uint32_t(B.size));
          EXPECT_LT(from, std::uint32_t(B.size));
          EXPECT_TRUE(writes.insert(to).second) << "two lanes of a round write x_loc[" << to << "]";
          reads.insert(from);
        }
        for (const std::uint32_t f : reads) EXPECT_EQ(writes.count(f), 0u) << "a round reads x_loc[" << f << "] it writes";
        for (std::size_t e = first + std::size_t(L.width); e-- > first;) {
          const std::uint32_t key = Y.int_key[e];
          if (key != kPadEntry) xl[key >> 16] -= V.internal[e] * xl[key & 0xFFFFu];
        }
      }
      for (index_t u = 0; u < B.size; ++u) x[std::size_t(Y.order[std::size_t(B.base + u)])] = xl[std::size_t(u)];
    }
  }
  return x;
}

void expect_layout_solves(const Csr<double>& A, Triangle tri, DiagonalKind diag, index_t n_max, int max_width) {
  SCOPED_TRACE(std::string(tri == Triangle::Lower ? "Lower" : "Upper") + (diag == DiagonalKind::Unit ? " Unit" : "") +
               ", n_max " + std::to_string(n_max) + ", max_width " + std::to_string(max_width));
  const tassl::Partition P = tassl::partition(A, tri, n_max);
  const tassl::Schedule S = tassl::schedule(A, tri, P);
  const tassl::Layout Y = tassl::lay_out(P, S, {.max_width = max_width, .isolated_chunk = 37});
  // A permutation; each block a run of positions.
  std::vector<index_t> sorted = Y.order;
  std::sort(sorted.begin(), sorted.end());
  for (index_t v = 0; v < A.rows; ++v) ASSERT_EQ(sorted[std::size_t(v)], v);
  // Every off-diagonal entry once.
  std::multiset<index_t> used;  // global positions of the entries the layout reads (values are offsets in rows)
  for (std::size_t b = 0; b < Y.blocks.size(); ++b) {
    const tassl::Block& B = Y.blocks[b];
    for (index_t r = B.ext_row_begin; r < B.ext_row_end; ++r)
      for (index_t k = Y.ext_ptr[std::size_t(r)]; k < Y.ext_ptr[std::size_t(r) + 1]; ++k)
        used.insert(A.row_ptr[Y.order[std::size_t(Y.ext_rows[std::size_t(r)])]] + Y.ext_value[std::size_t(k)]);
    for (std::int64_t e = B.entry_begin; e < B.entry_begin + Y.space[b].entries; ++e)
      if (const std::uint32_t key = Y.int_key[std::size_t(e)]; key != kPadEntry)
        used.insert(A.row_ptr[Y.order[std::size_t(B.base + index_t(key >> 16))]] + Y.int_value[std::size_t(e)]);
  }
  std::multiset<index_t> expected;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] != i) expected.insert(p);
  EXPECT_EQ(used, expected);
  const tassl::ScaledValues<double> V =
      tassl::scale_values<double>(Y, A.row_ptr, A.values, tassl::diagonal_offsets(A, diag));
  const std::vector<double> b = random_vector<double>(A.rows, 5);
  std::vector<double> ref(b.size());
  trsv_reference<double>(A, tri, diag, b, ref);
  const std::vector<double> x = emulate(Y, V, b);
  EXPECT_TRUE(test::matches(x, ref, 1e-10));
}

void expect_all(const Csr<double>& L) {
  const Csr<double> D = test::with_dominant_diagonal(L);
  const Csr<double> U = transpose(D);
  for (const index_t n_max : {16, 300, 100000})
    for (const int width : {32, 1024}) {
      expect_layout_solves(D, Triangle::Lower, DiagonalKind::NonUnit, std::min<index_t>(n_max, 65535), width);
      expect_layout_solves(U, Triangle::Upper, DiagonalKind::NonUnit, std::min<index_t>(n_max, 65535), width);
    }
}

TEST(TasslLayout, GeneratedMatrices) {
  expect_all(random_lower_banded<double>(5000, 40, 4, 3));
  expect_all(extract_triangle(laplacian_3d<double>(12, 12, 12), Triangle::Lower));
  expect_all(random_block_diagonal_lower<double>(8, 400, 0.02, 4));
  expect_all(star_lower<double>(2000));  // slots wider than a block: many rounds per slot
  expect_all(chain_lower<double>(1000));
}

TEST(TasslLayout, IsolatedVerticesAndDiagonalMatrix) {
  // Every third row isolated; then a purely diagonal matrix (V0 only: one launch).
  Csr<double> L = random_lower_banded<double>(900, 5, 2, 7);
  auto add = [](Coo<double>& c, index_t i, index_t j, double v) {
    c.row_idx.push_back(i);
    c.col_idx.push_back(j);
    c.values.push_back(v);
  };
  Coo<double> c{L.rows, L.cols, {}, {}, {}};
  for (index_t i = 0; i < L.rows; ++i)
    for (index_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p)
      if (L.col_idx[p] == i || (i % 3 != 0 && L.col_idx[p] % 3 != 0)) add(c, i, L.col_idx[p], L.values[p]);
  expect_all(to_csr(c));
  Coo<double> d{50, 50, {}, {}, {}};
  for (index_t i = 0; i < 50; ++i) add(d, i, i, 2.0 + i);
  expect_layout_solves(to_csr(d), Triangle::Lower, DiagonalKind::NonUnit, 16, 32);
}

TEST(TasslLayout, UnitDiagonal) {
  Csr<double> L = random_lower_banded<double>(3000, 30, 3, 9);
  for (index_t i = 0; i < L.rows; ++i)
    for (index_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p)
      if (L.col_idx[p] != i) L.values[p] *= 0.1;
  expect_layout_solves(L, Triangle::Lower, DiagonalKind::Unit, 100, 64);
}

TEST(TasslLayout, RealMatrices) {
  const int tested = test::for_each_square_real_matrix<double>([](const Csr<double>& A) {
    const Csr<double> L = test::with_dominant_diagonal(extract_triangle(A, Triangle::Lower));
    expect_layout_solves(L, Triangle::Lower, DiagonalKind::NonUnit, 200, 32);
    expect_layout_solves(transpose(L), Triangle::Upper, DiagonalKind::NonUnit, 5000, 1024);
  });
  EXPECT_GT(tested, 5);
}

TEST(TasslLayout, WidthChoice) {
  // Narrow slots: one warp; slots of 1000 edges: the widest block.
  EXPECT_EQ(tassl::choose_width({{3, 5, 20, 31}}, 1024), 32);
  EXPECT_EQ(tassl::choose_width({std::vector<index_t>(50, 1000)}, 1024), 1024);
  EXPECT_EQ(tassl::choose_width({std::vector<index_t>(50, 1000)}, 256), 256);
  EXPECT_EQ(tassl::rounds_at({1, 32, 33, 64}, 32), 1 + 1 + 2 + 2);
}

// Patches after incremental updates (thesis ch. 6), as the GPU applies them:
// a "device" copy of the arrays receives only the patch's ranges (new space
// poisoned), values are scaled again only for the patch's blocks, and the
// emulated kernel on that copy must still solve every matrix of the sequence.
template <class V>
void copy_ranges(std::vector<V>& device, const std::vector<V>& host, const std::vector<tassl::Range>& ranges, V poison) {
  device.resize(host.size(), poison);
  for (const tassl::Range& g : ranges)
    std::copy(host.begin() + g.begin, host.begin() + g.end, device.begin() + g.begin);
}

void expect_patches_solve(Csr<double> A, Triangle tri, index_t n_max, int steps, index_t columns, std::uint64_t seed,
                          int width = 64, index_t chunk = 7) {
  SCOPED_TRACE(std::string(tri == Triangle::Lower ? "Lower" : "Upper") + ", n_max " + std::to_string(n_max) +
               ", width " + std::to_string(width));
  const tassl::Partition P = tassl::partition(A, tri, n_max);
  tassl::Layout Y = tassl::lay_out(P, tassl::schedule(A, tri, P), {.max_width = width, .isolated_chunk = chunk});
  tassl::Incremental inc(P, tassl::schedule(A, tri, P), tri, A.row_ptr);
  std::vector<index_t> off = tassl::diagonal_offsets(A, DiagonalKind::NonUnit);
  tassl::ScaledValues<double> V = tassl::scale_values<double>(Y, A.row_ptr, A.values, off);
  tassl::Layout D = Y;  // the device's copy
  tassl::ScaledValues<double> DV = V;
  int patched = 0, relocated = 0, relaunched = 0, in_place = 0;
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    ColumnReplacement<double> c = random_column_replacement(A, tri, columns, seed + std::uint64_t(step));
    for (std::size_t t = 0; t < c.columns.size(); ++t)  // new diagonal values too
      for (index_t p = c.col_ptr[t]; p < c.col_ptr[t + 1]; ++p)
        if (c.row_idx[std::size_t(p)] == c.columns[t]) c.values[std::size_t(p)] *= 1.5;
    const Csr<double> A2 = with_columns_replaced(A, c);
    const tassl::PatternChange change = trsv_update::pattern_difference(A, A2, tri);
    tassl::PatternChange with_values = change;  // the replaced columns' rows change values too
    for (std::size_t t = 0; t < c.columns.size(); ++t)
      for (index_t p = c.col_ptr[t]; p < c.col_ptr[t + 1]; ++p) with_values.rows.push_back(c.row_idx[std::size_t(p)]);
    std::sort(with_values.rows.begin(), with_values.rows.end());
    with_values.rows.erase(std::unique(with_values.rows.begin(), with_values.rows.end()), with_values.rows.end());
    const tassl::UpdateResult r = inc.apply(A2.row_ptr, A2.col_idx, with_values, 1 << 30);
    A = A2;
    off = tassl::diagonal_offsets(A, DiagonalKind::NonUnit);
    if (!r.feasible) {  // re-partition: a fresh layout, copied whole
      const tassl::Partition Q = tassl::partition(A, tri, n_max);
      inc = tassl::Incremental(Q, tassl::schedule(A, tri, Q), tri, A.row_ptr);
      Y = D = tassl::lay_out(Q, inc.schedule, {.max_width = width, .isolated_chunk = chunk});
      V = DV = tassl::scale_values<double>(Y, A.row_ptr, A.values, off);
    } else {
      const tassl::LayoutPatch patch = tassl::patch_layout(Y, inc, r, {.max_width = width, .isolated_chunk = chunk});
      ++patched;
      relocated += patch.relocated;
      relaunched += patch.launches_changed ? 1 : 0;
      V.diag.resize(Y.order.size(), 1.0);
      V.ext.resize(Y.ext_from.size(), 0.0);
      V.internal.resize(Y.int_key.size(), 0.0);
      for (const std::size_t b : patch.blocks) tassl::scale_block<double>(Y, b, A.row_ptr, A.values, off, V);
      for (const tassl::LayoutPatch::Partial& p : patch.partial)
        tassl::scale_block<double>(Y, p.block, A.row_ptr, A.values, off, V, &p.entries, p.ext);
      in_place += int(patch.partial.size());
      copy_ranges(D.order, Y.order, patch.positions, index_t(-7));
      copy_ranges(DV.diag, V.diag, patch.positions, test::poison_value<double>());
      copy_ranges(D.ext_rows, Y.ext_rows, patch.ext_rows, index_t(-7));
      copy_ranges(D.ext_ptr, Y.ext_ptr, patch.ext_rows, index_t(1 << 30));
      copy_ranges(D.ext_from, Y.ext_from, patch.ext_edges, index_t(-7));
      copy_ranges(DV.ext, V.ext, patch.ext_edges, test::poison_value<double>());
      copy_ranges(D.int_key, Y.int_key, patch.entries, 0xDEADBEEFu);
      copy_ranges(DV.internal, V.internal, patch.entries, test::poison_value<double>());
      D.blocks = Y.blocks;  // copied whole
      D.space = Y.space;
      D.launches = Y.launches;  // the captured graph
    }
    EXPECT_NO_THROW(inc.check(A.row_ptr, A.col_idx));
    const std::vector<double> b = random_vector<double>(A.rows, 5 + std::uint64_t(step));
    std::vector<double> ref(b.size());
    trsv_reference<double>(A, tri, DiagonalKind::NonUnit, b, ref);
    EXPECT_TRUE(test::matches(emulate(D, DV, b), ref, 1e-10));
  }
  EXPECT_GT(patched, 0);
  EXPECT_GT(relocated + relaunched, 0) << "no block ever moved or changed launch: the test misses those paths";
  EXPECT_GT(in_place, 0) << "no block was ever patched in place: the test misses that path";
}

TEST(TasslLayout, PatchesAfterUpdatesSolve) {
  const Csr<double> B = test::with_dominant_diagonal(random_block_diagonal_lower<double>(6, 150, 0.03, 4));
  expect_patches_solve(B, Triangle::Lower, 40, 25, 1, 10);
  expect_patches_solve(B, Triangle::Lower, 40, 10, 6, 20);    // many columns at once
  expect_patches_solve(transpose(B), Triangle::Upper, 40, 15, 2, 30);
  const Csr<double> R = test::with_dominant_diagonal(random_lower_banded<double>(800, 30, 3, 6));
  expect_patches_solve(R, Triangle::Lower, 100, 15, 3, 40);
  // Many isolated vertices that join sub-graphs (V0 shrinks, blocks grow and move).
  const Csr<double> S = test::with_dominant_diagonal(random_block_diagonal_lower<double>(3, 200, 0.002, 8));
  expect_patches_solve(S, Triangle::Lower, 30, 20, 4, 50);
  // Wide blocks (the GPU's 1024 lanes): slots of one round, so most patches
  // are in place; one sub-graph with isolated vertices joining it (as an LP
  // basis' L factor), whose rounds shrink and grow.
  const Csr<double> W = test::with_dominant_diagonal(random_block_diagonal_lower<double>(2, 500, 0.01, 9));
  expect_patches_solve(W, Triangle::Lower, 24000, 20, 1, 60, 1024, 8192);
  expect_patches_solve(W, Triangle::Lower, 24000, 10, 8, 70, 1024, 8192);
  expect_patches_solve(S, Triangle::Lower, 24000, 20, 2, 80, 1024, 8192);
  // The L factor of an LP basis (one sub-graph, slots of one round, V0
  // vertices joining): caught a relaid block's stale tail entries.
  const Csr<double> lp = read_matrix_market_csr<double>(test::data_file("25fv47-L.mtx.gz"));
  expect_patches_solve(lp, Triangle::Lower, 24000, 10, 1, 1, 1024, 8192);
}

TEST(TasslLayout, BadInput) {
  const Csr<double> L = test::with_dominant_diagonal(random_lower_banded<double>(200, 10, 3, 1));
  const tassl::Partition P = tassl::partition(L, Triangle::Lower, 100);
  const tassl::Schedule S = tassl::schedule(L, Triangle::Lower, P);
  EXPECT_THROW_MSG(tassl::lay_out(P, S, {.max_width = 48}), Error, "power of two");
  EXPECT_THROW_MSG(tassl::lay_out(P, S, {.max_width = 2048}), Error, "power of two");
  // A sub-graph beyond 16-bit local indices.
  const Csr<double> big = test::with_dominant_diagonal(chain_lower<double>(70000));
  const tassl::Partition Pb = tassl::partition(big, Triangle::Lower, 70000);
  const tassl::Schedule Sb = tassl::schedule(big, Triangle::Lower, Pb);
  EXPECT_THROW_MSG(tassl::lay_out(Pb, Sb), Error, "16-bit slot indices");
  // A row whose scaled entries overflow float.
  Csr<float> f = test::with_dominant_diagonal(random_lower_banded<float>(50, 5, 2, 1));
  for (index_t p = f.row_ptr[20]; p < f.row_ptr[21]; ++p)
    f.values[p] = f.col_idx[p] == 20 ? 1e-30f : 1e30f;
  const tassl::Partition Pf = tassl::partition(f, Triangle::Lower, 100);
  const tassl::Layout Yf = tassl::lay_out(Pf, tassl::schedule(f, Triangle::Lower, Pf));
  EXPECT_THROW_MSG(
      tassl::scale_values<float>(Yf, f.row_ptr, f.values, tassl::diagonal_offsets(f, DiagonalKind::NonUnit)), Error,
      "row 20");
}

}  // namespace
}  // namespace balsa
