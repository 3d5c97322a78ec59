// TrsvAlgorithm::Auto: a cheap rule on the level statistics (and, for wide
// levels only, the component sizes: one union-find pass).
//
// CPU: level-set pays when levels are wide enough to share among threads,
// the matrix is large enough to amortise the barriers, and there are threads
// enough to make up for its one-thread cost: it visits the rows in level
// order, so x is read out of order, and one thread takes about twice serial
// substitution's time. The 100^3 Laplacian's lower triangle (10^6 rows, 298
// levels), double, on the 2-core build machine: 21.9 ms level-set against
// 10.6 ms serial with 1 thread, idle (issue 37's report); busy (other
// builds, load 7, bench/results/2026-11-29-threads-*.md, `balsa-bench trsv
// --device cpu --algorithms level-set-cpu`) 66.7-68.9 ms against
// 18.1-21.3 ms with 1 thread, 69.0-72.1 ms against 18.8-20.1 ms with 2. So
// fewer than kLevelSetMinThreads (3: 1/3 of 21.9 ms is below 10.6 ms) take
// serial substitution (no barriers at all), as do smaller or narrower
// triangles.
//
// GPU, from the H200 benchmark of all four (bench/results/2026-11-22-tassl-*):
//  - 1-2 levels: level-set (one or two wide launches; TASSL pays one edge into
//    a vertex per slot, so a dense row becomes a chain of slots: arrow).
//  - at most 16 levels and n >= 1500: cuSPARSE (a few wide levels; level-set
//    and TASSL pay a single block's load phase or a dense row: bayer10,
//    hangGlider_2) -- unless n <= 4096 with at most one off-diagonal entry
//    per row on average: one small, nearly empty sub-graph, where TASSL's
//    single launch wins (16 blocks of 250 rows at 0.1%: 9.7 us against
//    cuSPARSE's 12.9 us; 16 blocks of 1,000 rows, n = 16,000, already lose).
//  - mean level width n / levels >= 1000: wide levels -- TASSL when the graph
//    falls apart into at least 64 components that each fit a sub-graph (it
//    runs them all at once with no barrier between them: 512 blocks of 6,000
//    rows); else sync-free blocks when rows are short (at most 8 stored
//    entries on average: its level steps cost a block barrier, not a launch;
//    3D 7-point 160^3: 0.97 vs cuSPARSE 1.20 ms, 2D 5-point 2000^2: 6.9 vs
//    8.2 ms: H200 runs of 2026-11-22 whose result files were not committed);
//    else cuSPARSE, whose
//    per-level launches are the cheapest barrier for long rows (27-point
//    stencils: 2.4 vs 1.4 ms; 16 blocks of 55,000).
//  - otherwise (narrow levels: deep chains, the small real matrices): TASSL,
//    whose rounds cost tens of ns where a level costs 0.3-2 us.
// Sync-free is never chosen: it was the fastest on none of the suite's cases.
//
// Before this rule, Spike (narrow profiles, deep chains) is weighed by cost
// models (below and trsv/spike/spike_plan.hpp): its own prediction against a
// lower bound on every level-based algorithm's time.
//
// The trial (kTrialMaxRows): the rule's pick against the other candidates
// (cuSPARSE; below kTrialAllRows every GPU algorithm but the sync-free ones),
// each timed by the host clock over kTrialSolves solves of a right-hand side
// of ones after a warm-up, the stream waited for. The pick stays unless
// another is faster by kTrialMargin.
#include "trsv/auto_choice.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "graph/components.hpp"
#include "trsv/backends.hpp"

namespace balsa::trsv_auto {

TrsvAlgorithm choose(const TrsvStats& a, Device device, int threads, index_t n_max,
                     const std::function<Components()>& components) {
  if (device == Device::Cpu)
    return threads >= kLevelSetMinThreads && a.rows >= 200000 && a.mean_level_width >= 1000 ? TrsvAlgorithm::LevelSet
                                                                                             : TrsvAlgorithm::Reference;
  if (a.levels <= 2) return TrsvAlgorithm::LevelSet;
  const bool small_and_sparse = a.rows <= 4096 && a.nnz <= 2 * a.rows;
  if (a.levels <= 16) return a.rows >= 1500 && !small_and_sparse ? TrsvAlgorithm::Cusparse : TrsvAlgorithm::Tassl;
  if (a.mean_level_width >= 1000) {
    const Components c = components();
    if (c.count >= kTasslMinComponents && c.largest <= n_max) return TrsvAlgorithm::Tassl;
    return a.nnz <= std::int64_t(8) * a.rows ? TrsvAlgorithm::SyncFreeBlocks : TrsvAlgorithm::Cusparse;
  }
  return TrsvAlgorithm::Tassl;
}

double predict_levels_seconds(const TrsvStats& a) {
  return double(a.levels) * kLevelSeconds + double(a.nnz) * kEntrySeconds;
}

bool prefer_spike(const TrsvStats& a, Device device) {
  if (device != Device::Cuda || a.rows == 0) return false;
  return a.spike.predicted_seconds <= kSpikeMargin * predict_levels_seconds(a);
}

bool host_solves_on_cpu(const TrsvStats& a) { return std::int64_t(a.rows) + a.nnz <= kHostSolveMaxWork; }

namespace {

// The rule (choose) on M: the components found only when it asks.
template <class T>
TrsvAlgorithm rule(const Csr<T>& M, Triangle tri, const LevelSets& levels, const TrsvOptions& o, const TrsvStats& st) {
  const index_t n_max = o.tassl_n_max > 0 ? o.tassl_n_max : trsv::default_tassl_n_max<T>(o.device);
  return choose(st, o.device, omp_get_max_threads(), n_max, [&] {  // the threads of this call's scope
    // Every component with an edge has a row of level 0 (its first in
    // dependency order), so level 0's width bounds their count: below the
    // minimum, they need not be found (3D Laplacians: 1 row).
    if (levels.width(0) < kTasslMinComponents) return Components{levels.width(0), M.rows};
    const graph::ComponentSizes c = graph::component_sizes(M.rows, M.row_ptr, M.col_idx, tri);
    return Components{c.count, c.largest};
  });
}

}  // namespace

template <class T>
Choice choose_algorithm(const Csr<T>& M, Triangle tri, const LevelSets& levels, const TrsvOptions& o,
                        TrsvStats& st) {
  Choice c;
  c.algorithm = o.algorithm;
  if (o.algorithm != TrsvAlgorithm::Auto && o.algorithm != TrsvAlgorithm::Spike) return c;
  // The spike's partition and cost (O(n): the bandwidth, the model).
  SpikeStats& sp = st.spike;
  sp.bandwidth = trsv_spike::bandwidth(M, tri);
  const double entries = M.rows ? double(std::max<std::int64_t>(M.nnz() - M.rows, 0)) / double(M.rows) : 0.0;
  c.spike = trsv_spike::make_partition(M.rows, sp.bandwidth, entries, o.spike_chain_rows);
  sp.predicted_seconds = trsv_spike::predict_seconds(c.spike, sp.bandwidth, entries);
  const std::int64_t max_bytes = o.spike_max_bytes > 0 ? o.spike_max_bytes : trsv_spike::kDefaultMaxBytes;
  const std::string refused =
      trsv_spike::refusal(sp.bandwidth, c.spike, sizeof(T), max_bytes, o.device == Device::Cuda);
  c.spike_feasible = refused.empty();
  if (o.algorithm == TrsvAlgorithm::Spike && !refused.empty()) {
    sp.fallback = refused;
    c.algorithm = rule(M, tri, levels, o, st);
  } else if (o.algorithm == TrsvAlgorithm::Auto) {
    c.algorithm = refused.empty() && prefer_spike(st, o.device) ? TrsvAlgorithm::Spike : rule(M, tri, levels, o, st);
  }
  return c;
}

bool runs_trial(const TrsvOptions& o, const TrsvStats& st, bool values_pending) {
  return o.device == Device::Cuda && o.algorithm == TrsvAlgorithm::Auto && o.auto_trial && !values_pending &&
         st.rows <= kTrialMaxRows && st.nnz > std::int64_t(st.rows);
}

template <class T>
void trial(std::unique_ptr<trsv::Backend<T>>& backend, TrsvStats& st, bool spike_feasible, const MakeBackend<T>& make) {
  const trace::Span span("trsv: Auto's trial");
  cuda::DeviceBuffer<T> b(std::size_t(st.rows)), x(std::size_t(st.rows));
  cuda::fill(b, T(1));
  auto time = [&](trsv::Backend<T>& a) {
    a.solve(b.data(), x.data());
    cuda::detail::synchronize();
    const auto t0 = Clock::now();
    for (int k = 0; k < kTrialSolves; ++k) a.solve(b.data(), x.data());
    cuda::detail::synchronize();
    if (a.watchdog_fired()) return 1e300;  // never chosen
    return seconds_since(t0) / kTrialSolves;
  };
  std::vector<TrsvAlgorithm> others = {TrsvAlgorithm::Cusparse};
  if (st.rows <= kTrialAllRows) {
    others.insert(others.end(), {TrsvAlgorithm::LevelSet, TrsvAlgorithm::Tassl, TrsvAlgorithm::SyncFreeBlocks});
    if (spike_feasible) others.push_back(TrsvAlgorithm::Spike);
  }
  const TrsvAlgorithm pick = st.algorithm;
  st.trial_pick_seconds = time(*backend);
  st.trial = std::string(to_string(pick)) + " " + std::to_string(st.trial_pick_seconds * 1e3) + " ms";
  double best = st.trial_pick_seconds;
  for (const TrsvAlgorithm a : others) {
    if (a == pick) continue;
    std::unique_ptr<trsv::Backend<T>> alt;
    double t = 0.0;
    try {  // a candidate that cannot take this matrix (float overflow in TASSL's scaling, memory) drops out
      alt = make(a);
      t = time(*alt);
    } catch (const std::exception& e) {
      st.trial += std::string(", ") + to_string(a) + " failed (" + e.what() + ")";
      continue;
    }
    st.trial += std::string(", ") + to_string(a) + " " + std::to_string(t * 1e3) + " ms";
    if (a == TrsvAlgorithm::Cusparse) st.trial_cusparse_seconds = t;
    // The pick is displaced by a margin; among the others the fastest wins.
    if (st.algorithm == pick ? t < kTrialMargin * best : t < best) {
      backend = std::move(alt);
      st.algorithm = a;
      best = t;
    }
  }
}

#define BALSA_INSTANTIATE(T)                                                                                   \
  template Choice choose_algorithm(const Csr<T>&, Triangle, const LevelSets&, const TrsvOptions&, TrsvStats&); \
  template void trial(std::unique_ptr<trsv::Backend<T>>&, TrsvStats&, bool, const MakeBackend<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_auto
