// The thin-run layout of the GPU level-set solver (trsv/level_set/thin_run_layout.*),
// checked on the CPU: every entry lands exactly once (external entries in the
// CSR prefix, internal ones in ELL or overflow slots), ring slots are only
// used where the ring cannot have been overwritten, and an emulation of the
// GPU kernel's reads (ring for ring slots, x for ~column) solves the system
// like the reference does, with the ring filled level by level in the worst
// order the kernel allows (a level's writes in reverse position order, and
// every ring read of the level checked to be unchanged by them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"
#include "support/trsv_cases.hpp"
#include "trsv/level_set/thin_run_layout.hpp"

namespace balsa {
namespace {

using trsv_gpu::detail::ell_per_lane;
using trsv_gpu::detail::lay_out_thin_runs;
using trsv_gpu::detail::OffDiagonal;
using trsv_gpu::detail::ThinRunLayout;
using trsv_gpu::detail::ThinRunPlan;

struct Layout {
  Csr<double> L;
  LevelSets levels;
  OffDiagonal pattern;
  std::vector<ThinRunPlan> runs;
  ThinRunLayout layout;
};

Layout make(Csr<double> L, std::vector<ThinRunPlan> runs) {
  Layout s{std::move(L), {}, {}, std::move(runs), {}};
  s.levels = level_sets(s.L, Triangle::Lower);
  s.pattern = trsv_gpu::detail::split_diagonal(s.L, DiagonalKind::NonUnit, s.levels.rows);
  s.layout = lay_out_thin_runs(s.pattern, s.levels, s.runs);
  return s;
}

// The run holding level l, or nullptr.
const ThinRunPlan* run_of(const Layout& s, index_t l, std::size_t* index) {
  for (std::size_t r = 0; r < s.runs.size(); ++r)
    if (l >= s.runs[r].first_level && l < s.runs[r].last_level) {
      *index = r;
      return &s.runs[r];
    }
  return nullptr;
}

void expect_consistent(const Layout& s) {
  const ThinRunLayout& t = s.layout;
  const std::vector<index_t> pos_of = inverse_permutation(s.levels.rows);
  ASSERT_EQ(t.ell_offset.size(), s.runs.size());
  for (const std::size_t o : t.ell_offset) EXPECT_EQ(o % 4, 0u);
  for (index_t l = 0; l < s.levels.count(); ++l) {
    std::size_t r = 0;
    const ThinRunPlan* run = run_of(s, l, &r);
    const index_t level_end = s.levels.level_ptr[l + 1];
    for (index_t k = s.levels.level_ptr[l]; k < level_end; ++k) {
      const index_t begin = s.pattern.row_ptr[k], end = s.pattern.row_ptr[k + 1];
      if (!run) {
        EXPECT_EQ(t.ext_end[k], end);
        EXPECT_EQ(t.ovf_ptr[k + 1], t.ovf_ptr[k]);
        continue;
      }
      const index_t first = s.levels.level_ptr[run->first_level];
      // value position -> column of every internal entry of the row
      std::map<index_t, index_t> internal;
      for (index_t p = begin; p < end; ++p) {
        const bool external = pos_of[std::size_t(s.pattern.col_idx[p])] < first;
        EXPECT_EQ(external, p < t.ext_end[k]) << "position " << k << " entry " << p;
        if (!external) internal[s.pattern.value_pos[p]] = s.pattern.col_idx[p];
      }
      auto check_slot = [&](index_t ref, index_t value_pos) {
        ASSERT_TRUE(internal.count(value_pos)) << "slot of position " << k << " names a foreign entry";
        const index_t col = internal[value_pos];
        const index_t dep = pos_of[std::size_t(col)];
        if (ref >= 0) {
          EXPECT_EQ(ref, dep & (run->ring - 1));
          index_t dep_level_begin = 0;
          for (index_t m = 0; m < s.levels.count(); ++m)
            if (s.levels.level_ptr[m] <= dep && dep < s.levels.level_ptr[m + 1]) dep_level_begin = s.levels.level_ptr[m];
          EXPECT_LE(level_end - dep_level_begin, run->ring) << "ring slot may be overwritten";
        } else {
          EXPECT_EQ(~ref, col);
        }
        internal.erase(value_pos);
      };
      const std::size_t slots = std::size_t(run->lanes * ell_per_lane(run->lanes));
      const std::size_t ell = t.ell_offset[r] + std::size_t(k - first) * slots;
      for (std::size_t j = 0; j < slots; ++j)
        if (t.ell_pos[ell + j] >= 0) {
          EXPECT_GE(t.ell_ref[ell + j], 0) << "ELL slots refer to the ring only";
          check_slot(t.ell_ref[ell + j], t.ell_pos[ell + j]);
        } else {
          EXPECT_EQ(t.ell_ref[ell + j], run->ring) << "an unused slot points at the zero slot";
        }
      for (index_t p = t.ovf_ptr[k]; p < t.ovf_ptr[k + 1]; ++p) check_slot(t.ovf_ref[p], t.ovf_pos[p]);
      EXPECT_TRUE(internal.empty()) << internal.size() << " internal entries of position " << k << " have no slot";
    }
  }
}

// The GPU algorithm on the CPU: wide levels from the CSR; thin runs as
// rhs = b - external part, then per level: every row's x from ELL/overflow
// slots (ring or x), then the level's writes to x and the ring.
std::vector<double> emulate(const Layout& s, const std::vector<double>& b) {
  const ThinRunLayout& t = s.layout;
  const std::vector<double>& a = s.L.values;
  std::vector<double> diag;
  trsv_gpu::detail::gather_diagonal(s.pattern, std::span<const double>(a), diag);
  std::vector<double> x = test::poisoned<double>(b.size());
  std::vector<double> ring;
  std::vector<std::pair<index_t, double>> ring_reads;  // (slot, value read) during the current level
  for (index_t l = 0; l < s.levels.count(); ++l) {
    std::size_t r = 0;
    const ThinRunPlan* run = run_of(s, l, &r);
    std::vector<std::pair<index_t, double>> solved;
    ring_reads.clear();
    if (run && l == run->first_level) {  // ring slots start as garbage; slot `ring` holds 0
      ring.assign(std::size_t(run->ring) + 1, test::poison_value<double>());
      ring.back() = 0;
    }
    for (index_t k = s.levels.level_ptr[l]; k < s.levels.level_ptr[l + 1]; ++k) {
      const index_t i = s.levels.rows[k];
      double sum = 0;
      const index_t ext = run ? t.ext_end[k] : s.pattern.row_ptr[k + 1];
      for (index_t p = s.pattern.row_ptr[k]; p < ext; ++p) sum += a[s.pattern.value_pos[p]] * x[s.pattern.col_idx[p]];
      if (!run) {
        x[i] = (b[i] - sum) / diag[k];
        continue;
      }
      auto ring_read = [&](index_t slot) {
        ring_reads.push_back({slot, ring[std::size_t(slot)]});
        return ring[std::size_t(slot)];
      };
      const index_t first = s.levels.level_ptr[run->first_level];
      const std::size_t slots = std::size_t(run->lanes * ell_per_lane(run->lanes));
      const std::size_t ell = t.ell_offset[r] + std::size_t(k - first) * slots;
      for (std::size_t j = 0; j < slots; ++j)  // branch-free, like the kernel
        sum += (t.ell_pos[ell + j] < 0 ? 0.0 : a[t.ell_pos[ell + j]]) * ring_read(t.ell_ref[ell + j]);
      for (index_t p = t.ovf_ptr[k]; p < t.ovf_ptr[k + 1]; ++p)
        sum += a[t.ovf_pos[p]] * (t.ovf_ref[p] >= 0 ? ring_read(t.ovf_ref[p]) : x[std::size_t(~t.ovf_ref[p])]);
      solved.push_back({k, (b[i] - sum) / diag[k]});
    }
    // The level's writes, in reverse order: the kernel's writes within a level
    // are unordered, and in this order a position's slot is overwritten by a
    // lower position sharing it. Every ring read of the level must then still
    // see what it saw before the writes: then no interleaving of the level's
    // reads and writes changes a result.
    for (auto it = solved.rbegin(); it != solved.rend(); ++it) {
      x[s.levels.rows[it->first]] = it->second;
      if (s.levels.width(l) <= run->ring) ring[std::size_t(it->first) & std::size_t(run->ring - 1)] = it->second;
    }
    for (const auto& [slot, value] : ring_reads) {
      const double now = ring[std::size_t(slot)];
      EXPECT_TRUE(now == value || (std::isnan(now) && std::isnan(value)))
          << "ring slot " << slot << " rewritten within level " << l;
    }
  }
  return x;
}

void expect_solves_like_reference(const Layout& s) {
  const std::vector<double> b = random_vector<double>(s.L.rows, 5);
  std::vector<double> ref(b.size());
  trsv_reference<double>(s.L, Triangle::Lower, DiagonalKind::NonUnit, b, ref);
  const std::vector<double> x = emulate(s, b);
  EXPECT_TRUE(test::matches(x, ref, 1e-12));
}

Csr<double> banded() { return random_lower_banded<double>(3000, 40, 5, 3); }
index_t level_count(const Csr<double>& L) { return level_sets(L, Triangle::Lower).count(); }

std::size_t count_refs(const Layout& s, bool ring) {
  std::size_t c = 0;
  for (std::size_t e = 0; e < s.layout.ell_ref.size(); ++e) c += s.layout.ell_pos[e] >= 0 && ring;
  for (const index_t r : s.layout.ovf_ref) c += (r >= 0) == ring;
  return c;
}

// One run over every level, a ring larger than the matrix: every internal
// entry is a ring slot; rows of 5 entries overflow the 4 ELL slots of a lane.
TEST(ThinRunLayout, WholeMatrixOneRun) {
  const Layout s = make(banded(), {{0, level_count(banded()), 1, 4096}});
  expect_consistent(s);
  expect_solves_like_reference(s);
  EXPECT_GT(s.layout.ovf_ref.size(), 0u);
  EXPECT_EQ(count_refs(s, false), 0u);
}

// A 64-entry ring: dependencies further back than the ring read global x.
TEST(ThinRunLayout, SmallRingFallsBackToGlobalX) {
  const Layout s = make(banded(), {{0, level_count(banded()), 1, 64}});
  expect_consistent(s);
  expect_solves_like_reference(s);
  EXPECT_GT(count_refs(s, true), 0u);
  EXPECT_GT(count_refs(s, false), 0u);
}

// Two runs around wide levels (solved from the CSR), the second with 4 lanes
// a row: its rows have external entries (from the wide levels and the first run).
TEST(ThinRunLayout, RunsBetweenWideLevels) {
  const Csr<double> L = extract_triangle(laplacian_3d<double>(12, 12, 12), Triangle::Lower);
  const index_t levels = level_count(L);
  ASSERT_GT(levels, 12);
  const Layout s = make(L, {{0, 5, 1, 128}, {10, levels, 4, 256}});
  expect_consistent(s);
  expect_solves_like_reference(s);
  std::size_t external = 0;
  for (index_t k = 0; k < L.rows; ++k) external += std::size_t(s.layout.ext_end[k] - s.pattern.row_ptr[k]);
  EXPECT_GT(external, 0u);
  EXPECT_EQ(s.layout.ell_offset[1] % 4, 0u);
}

// The lower triangles of the real matrices: one run, a 128-entry ring.
TEST(ThinRunLayout, RealMatrices) {
  const int tested = test::for_each_square_real_matrix<double>([](const Csr<double>& A) {
    const Csr<double> L = test::with_dominant_diagonal(extract_triangle(A, Triangle::Lower));
    for (const int lanes : {1, 4}) {
      const Layout s = make(L, {{0, level_count(L), lanes, 128}});
      expect_consistent(s);
      expect_solves_like_reference(s);
    }
  });
  EXPECT_GT(tested, 5);
}

TEST(ThinRunLayout, RingMustBeAPowerOfTwo) {
  const Csr<double> L = banded();
  EXPECT_THROW_MSG(make(L, {{0, level_count(L), 1, 100}}), Error, "power of two");
}

}  // namespace
}  // namespace balsa
