// TASSL metrics and the thesis' performance model (see tassl_metrics.hpp).
#include "trsv/tassl/tassl_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "balsa/error.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa::tassl {

namespace {

SlotRange range_of(std::vector<std::int64_t> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  const double median = v.size() % 2 ? double(v[m]) : 0.5 * double(v[m - 1] + v[m]);
  return {v.front(), v.back(), median};
}

// 1 - steps / n_edges, the form of (3.8) and (3.25); 1 without edges.
double concurrency(std::int64_t steps, std::int64_t n_edges) {
  return n_edges > 0 ? 1.0 - double(steps) / double(n_edges) : 1.0;
}

// An overhead ratio (3.11), (3.28), (3.29): time of a term per compute time.
double overhead(double term, double compute) {
  if (compute > 0) return term / compute;
  return term > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// sigma, lambda and tau (3.30) from the time terms.
void finish(Prediction& r) {
  r.sigma = overhead(r.sync, r.compute);
  r.lambda = overhead(r.transfer, r.compute);
  r.tau = r.iota / r.eta * (1.0 + r.sigma + r.lambda);
}

// The level boundaries' cost: kappa each, or (one_launch) kappa once and sigma_global after.
void add_kernels(Prediction& r, std::int64_t launches, const MachineParams& p, const ModelOptions& o) {
  r.kernels = o.one_launch ? std::min<std::int64_t>(launches, 1) : launches;
  r.global_barriers = launches - r.kernels;
  r.sync += p.kappa * double(r.kernels) + p.sigma_global * double(r.global_barriers);
}

// Sect. 3.2.3 applied to one block: the term inside the max of (3.22).
struct BlockTime {
  double compute = 0, local = 0, transfer = 0;
  double ops = 0;  // sum of 1/eta over the block's steps: the denominator of (3.26)
  std::int64_t steps = 0, barriers = 0;
  double total() const { return compute + local + transfer; }
};

// The sum over levels of the slowest block of each (3.22-3.24). `time_of(k)`
// gives block k's time; `level_of(k)` its level (levels 0 .. levels-1).
template <class TimeOf, class LevelOf>
Prediction sum_of_slowest(std::size_t blocks, index_t levels, TimeOf time_of, LevelOf level_of, double iota) {
  std::vector<BlockTime> slowest(static_cast<std::size_t>(levels));
  std::vector<bool> seen(std::size_t(levels), false);
  for (std::size_t k = 0; k < blocks; ++k) {
    const BlockTime t = time_of(k);
    const std::size_t p = std::size_t(level_of(k));
    if (!seen[p] || t.total() > slowest[p].total()) slowest[p] = t;  // p_hat (3.23): the first on ties
    seen[p] = true;
  }
  Prediction r;
  r.iota = iota;
  double ops = 0;
  for (const BlockTime& t : slowest) {
    r.compute += t.compute;
    r.sync += t.local;
    r.transfer += t.transfer;
    r.steps += t.steps;
    r.local_barriers += t.barriers;
    ops += t.ops;
  }
  r.eta = ops > 0 ? double(r.steps) / ops : 1.0;  // (3.26)
  return r;
}

// Each row's in-edges (its off-diagonal entries in the triangle).
template <class T>
std::vector<index_t> in_degrees(const Csr<T>& A, Triangle tri) {
  const bool lower = tri == Triangle::Lower;
  std::vector<index_t> in_degree(std::size_t(A.rows), 0);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (lower ? A.col_idx[p] < i : A.col_idx[p] > i) ++in_degree[std::size_t(i)];
  return in_degree;
}

// Sect. 3.1.1: one time slot per level, as long as its largest in-degree o_k.
void level_set_metrics(const LevelSets& levels, const std::vector<index_t>& in_degree, std::int64_t n_edges,
                       LevelSetMetrics& ls) {
  ls.n_levels = levels.count();
  for (index_t k = 0; k < levels.count(); ++k) {
    index_t o_k = 0;
    for (index_t t = levels.level_ptr[k]; t < levels.level_ptr[k + 1]; ++t)
      o_k = std::max(o_k, in_degree[std::size_t(levels.rows[std::size_t(t)])]);
    ls.sum_o += o_k;
    ls.widest = std::max(ls.widest, levels.width(k));
  }
  ls.C = concurrency(ls.sum_o, n_edges);                                   // (3.8)
  ls.W = n_edges > 0 ? double(ls.widest) / double(n_edges) : 0.0;          // (3.14)
}

// Sect. 3.2.3: per sub-graph its time slots; per sub-graph level the one with most.
void subgraph_metrics(const Partition& P, const Schedule& S, std::int64_t n_edges, TasslMetrics& ts) {
  std::vector<std::int64_t> most_slots(std::size_t(P.levels), 0), level_width(std::size_t(P.levels), 0);
  std::vector<std::int64_t> all, internal, external;
  for (index_t g = 0; g < P.subgraphs(); ++g) {
    const SubgraphSchedule& s = S.subgraphs[std::size_t(g)];
    SubgraphCounts c{P.subgraph_level[g], P.subgraph_ptr[g + 1] - P.subgraph_ptr[g], s.int_slots(), s.ext_slots(), 0};
    for (index_t q = 0; q < s.int_slots(); ++q) c.widest_slot = std::max<std::int64_t>(c.widest_slot, s.int_ptr[q + 1] - s.int_ptr[q]);
    for (index_t q = 0; q < s.ext_slots(); ++q) c.widest_slot = std::max<std::int64_t>(c.widest_slot, s.ext_ptr[q + 1] - s.ext_ptr[q]);
    const std::size_t p = std::size_t(c.level);
    most_slots[p] = std::max(most_slots[p], c.slots + c.ext_slots);
    level_width[p] += c.widest_slot;
    all.push_back(c.slots + c.ext_slots);
    internal.push_back(c.slots);
    external.push_back(c.ext_slots);
    ts.total_slots += c.slots + c.ext_slots;
    ts.per_subgraph.push_back(c);
  }
  for (const std::int64_t s : most_slots) ts.critical_slots += s;
  for (const std::int64_t w : level_width) ts.widest = std::max(ts.widest, w);
  ts.slots = range_of(all);
  ts.internal_slots = range_of(internal);
  ts.external_slots = range_of(external);
  ts.C = concurrency(ts.critical_slots, n_edges);                          // (3.25), p_hat = most slots
  ts.W = n_edges > 0 ? double(ts.widest) / double(n_edges) : 0.0;          // (3.31)
}

// The GPU layout: external rows by thread, then rounds with a barrier each.
void layout_metrics(const Layout& layout, TasslMetrics& ts) {
  ts.has_layout = true;
  std::vector<std::int64_t> lane;
  for (const LevelLaunch& L : layout.launches) {
    if (L.last_block == L.first_block) continue;
    const int threads = std::max(L.width, kMinBlockThreads);
    std::int64_t longest = 0;
    for (index_t b = L.first_block; b < L.last_block; ++b) {
      const Block& B = layout.blocks[std::size_t(b)];
      lane.assign(std::size_t(threads), 0);
      for (index_t r = B.ext_row_begin; r < B.ext_row_end; ++r) {
        lane[std::size_t((r - B.ext_row_begin) % threads)] +=
            layout.ext_ptr[std::size_t(r) + 1] - layout.ext_ptr[std::size_t(r)];
      }
      ts.per_block.push_back(
          {ts.launches, B.size, L.width, threads, B.rounds, *std::max_element(lane.begin(), lane.end())});
      ts.rounds += B.rounds;
      longest = std::max<std::int64_t>(longest, B.rounds);
    }
    ts.critical_barriers += longest + 3;
    ++ts.launches;
  }
}

}  // namespace

template <class T>
Metrics metrics(const Csr<T>& A, Triangle tri, const LevelSets& levels, const Partition& P, const Schedule& S,
                const Layout* layout) try {
  if (A.rows != A.cols || P.n != A.rows || S.subgraphs.size() != std::size_t(P.subgraphs()))
    throw DimensionError("TASSL metrics: the matrix, partition and schedule do not match");
  Metrics m;
  m.n = A.rows;
  const std::vector<index_t> in_degree = in_degrees(A, tri);
  for (const index_t d : in_degree) m.n_edges += d;
  level_set_metrics(levels, in_degree, m.n_edges, m.level_set);
  TasslMetrics& ts = m.tassl;
  ts.n_levels = P.levels;
  ts.kernels = P.levels > 0 ? P.levels : (m.n > 0 ? 1 : 0);
  ts.subgraphs = P.subgraphs();
  ts.isolated = index_t(P.isolated.size());
  ts.internal_edges = std::int64_t(S.internal_edges);
  ts.external_edges = std::int64_t(S.external_edges);
  subgraph_metrics(P, S, m.n_edges, ts);
  if (layout) layout_metrics(*layout, ts);
  return m;
} catch (...) {
  rethrow_as_balsa_error("metrics");
}

MachineParams thesis_params() try {
  MachineParams p;
  p.kappa = 2.929e-5;
  p.iota = 4.938e-9;
  p.sigma_global = 3.659e-6;
  p.sigma_local = 1.247e-7;
  p.beta = 1.596e-8;
  return p;
} catch (...) {
  rethrow_as_balsa_error("thesis_params");
}

Efficiency thesis_mean_efficiency() { return {1.695e-1, 4.407e-1, 4.407e-1}; }

// Sect. 3.1.2, (3.6) with eta_k = eta for every level.
Prediction predict_level_set(const Metrics& m, const MachineParams& p, const Efficiency& e, const ModelOptions& o) try {
  Prediction r;
  r.iota = p.iota;
  r.steps = m.level_set.sum_o;
  r.eta = e.level_set;
  r.compute = p.iota * double(r.steps) / e.level_set;
  add_kernels(r, m.level_set.n_levels, p, o);
  r.C = concurrency(r.steps, m.n_edges);
  finish(r);
  return r;
} catch (...) {
  rethrow_as_balsa_error("predict_level_set");
}

// Sect. 3.2.3, (3.22) with eta_int and eta_ext as in (3.34).
Prediction predict_tassl(const Metrics& m, const MachineParams& p, const Efficiency& e, const ModelOptions& o) try {
  const std::vector<SubgraphCounts>& g = m.tassl.per_subgraph;
  auto time_of = [&](std::size_t k) {
    const SubgraphCounts& c = g[k];
    BlockTime t;
    t.ops = double(c.slots) / e.internal + double(c.ext_slots) / e.external;
    t.compute = p.iota * t.ops;
    t.steps = t.barriers = c.slots + c.ext_slots;
    t.local = p.sigma_local * double(t.barriers);
    t.transfer = p.beta * double(c.n);
    return t;
  };
  Prediction r = sum_of_slowest(g.size(), m.tassl.n_levels, time_of, [&](std::size_t k) { return g[k].level; }, p.iota);
  add_kernels(r, m.tassl.kernels, p, o);
  r.C = concurrency(r.steps, m.n_edges);  // (3.25) with p_hat from (3.23)
  finish(r);
  return r;
} catch (...) {
  rethrow_as_balsa_error("predict_tassl");
}

// Not in the thesis: (3.22) over the GPU layout's launches and blocks.
Prediction predict_layout(const Metrics& m, const MachineParams& p, const Efficiency& e, const ModelOptions& o) try {
  if (!m.tassl.has_layout) throw Error("TASSL model: the metrics were computed without a layout");
  const std::vector<BlockCounts>& blocks = m.tassl.per_block;
  auto barrier = [&](int width) {  // linear in warps between one warp and 32
    if (p.sigma_local_wide <= 0) return p.sigma_local;
    return p.sigma_local + (p.sigma_local_wide - p.sigma_local) * double(width / 32 - 1) / 31.0;
  };
  auto time_of = [&](std::size_t k) {
    const BlockCounts& c = blocks[k];
    BlockTime t;
    t.ops = double(c.lane_ext) / e.external + double(c.rounds) / e.internal;
    t.compute = p.iota * t.ops;
    t.steps = c.lane_ext + c.rounds;
    t.barriers = c.rounds + 3;
    t.local = barrier(c.width) * double(c.rounds) + barrier(c.threads) * 3.0;
    t.transfer = p.beta * double(c.n);
    return t;
  };
  Prediction r = sum_of_slowest(blocks.size(), m.tassl.launches, time_of, [&](std::size_t k) { return blocks[k].launch; },
                                p.iota);
  add_kernels(r, m.tassl.launches, p, o);
  r.C = concurrency(r.steps, m.n_edges);
  finish(r);
  return r;
} catch (...) {
  rethrow_as_balsa_error("predict_layout");
}

double implied_efficiency(const Prediction& p, double seconds) try {
  const double rest = seconds - p.sync - p.transfer;
  if (p.steps <= 0 || !(rest > 0)) return std::numeric_limits<double>::quiet_NaN();
  return p.iota * double(p.steps) / rest;
} catch (...) {
  rethrow_as_balsa_error("implied_efficiency");
}

#define BALSA_INSTANTIATE(T)                                                                                \
  template Metrics metrics<T>(const Csr<T>&, Triangle, const LevelSets&, const Partition&, const Schedule&, \
                              const Layout*);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
