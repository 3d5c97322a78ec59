// TASSL GPU layout (see tassl_layout.hpp).
#include "trsv/tassl/tassl_layout.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "balsa/error.hpp"
#include "core/instantiate.hpp"

namespace balsa::tassl {

std::int64_t rounds_at(const std::vector<index_t>& slot_widths, int width) {
  std::int64_t r = 0;
  for (const index_t w : slot_widths) r += (std::int64_t(w) + width - 1) / width;
  return r;
}

// A round is a barrier plus one shared-memory update per lane: with one warp
// the barrier is nearly free; each further warp adds to the barrier and to the
// shared-memory traffic. A model to rank widths, not a prediction of time
// (the measured costs are in bench/results/).
double cost_per_round(int width) { return 1.0 + (width / 32 - 1) / 8.0; }

int choose_width(const std::vector<std::vector<index_t>>& slot_widths_per_block, int max_width) {
  int best = 32;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int w = 32; w <= max_width; w *= 2) {
    std::int64_t most = 0;
    for (const auto& slots : slot_widths_per_block) most = std::max(most, rounds_at(slots, w));
    const double cost = double(most) * cost_per_round(w);
    if (cost < best_cost) {  // ties keep the narrower block
      best = w;
      best_cost = cost;
    }
  }
  return best;
}

Layout lay_out(const Partition& P, const Schedule& S, const LayoutTuning& tuning) {
  if (tuning.max_width < 32 || tuning.max_width > 1024 || !std::has_single_bit(unsigned(tuning.max_width)))
    throw Error("TASSL layout: max_width must be a power of two in [32, 1024]");
  if (tuning.isolated_chunk < 1) throw Error("TASSL layout: isolated_chunk must be at least 1");
  if (S.subgraphs.size() != std::size_t(P.subgraphs()))
    throw DimensionError("TASSL layout: the schedule is of another partition");
  const index_t n = P.n;
  Layout out;
  out.isolated = index_t(P.isolated.size());
  out.order.reserve(std::size_t(n));
  out.order.insert(out.order.end(), P.isolated.begin(), P.isolated.end());

  // Sub-graphs in order of sub-graph level: the launches.
  std::vector<index_t> by_level(std::size_t(P.subgraphs()));
  std::iota(by_level.begin(), by_level.end(), 0);
  std::stable_sort(by_level.begin(), by_level.end(),
                   [&](index_t a, index_t b) { return P.subgraph_level[a] < P.subgraph_level[b]; });
  std::vector<index_t> base_of(std::size_t(P.subgraphs()));
  for (const index_t s : by_level) {
    const index_t size = P.subgraph_ptr[s + 1] - P.subgraph_ptr[s];
    if (size > kMaxSubgraphVertices)
      throw Error("TASSL layout: a sub-graph of " + std::to_string(size) + " vertices exceeds the " +
                  std::to_string(kMaxSubgraphVertices) +
                  " that 16-bit slot indices address (lower n_max; the default, from shared memory, is below it)");
    base_of[s] = index_t(out.order.size());
    out.order.insert(out.order.end(), P.vertices.begin() + P.subgraph_ptr[s], P.vertices.begin() + P.subgraph_ptr[s + 1]);
  }
  if (out.order.size() != std::size_t(n)) throw Error("TASSL layout: the partition does not cover every vertex");
  std::vector<index_t> pos(std::size_t(n), -1);
  for (index_t p = 0; p < n; ++p) {
    if (pos[out.order[p]] >= 0) throw Error("TASSL layout: a vertex is in the partition twice");
    pos[out.order[p]] = p;
  }

  // External in-edges grouped by position, in external-slot order (each
  // sub-graph's edges go to its own positions: filled in parallel).
  std::vector<index_t> count(std::size_t(n) + 1, 0);
  for (const SubgraphSchedule& g : S.subgraphs)
    for (const SlotEdge& e : g.ext) ++count[std::size_t(pos[e.to]) + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  out.ext_ptr = count;
  out.ext_from.resize(std::size_t(count.back()));
  out.ext_value.resize(std::size_t(count.back()));
#pragma omp parallel for schedule(dynamic, 4)
  for (index_t s = 0; s < P.subgraphs(); ++s)
    for (const SlotEdge& e : S.subgraphs[std::size_t(s)].ext) {  // slot by slot: each vertex's edges in slot order
      const index_t k = count[std::size_t(pos[e.to])]++;
      out.ext_from[std::size_t(k)] = e.from;
      out.ext_value[std::size_t(k)] = e.value;
    }

  // Plan (serial, per block): launches, widths, rounds, offsets.
  auto slot_widths = [&](index_t s) {
    const SubgraphSchedule& g = S.subgraphs[std::size_t(s)];
    std::vector<index_t> w(std::size_t(g.int_slots()));
    for (index_t q = 0; q < g.int_slots(); ++q) w[std::size_t(q)] = g.int_ptr[q + 1] - g.int_ptr[q];
    return w;
  };
  std::vector<index_t> subgraph_of_block;  // -1: a block of V0
  std::vector<int> width_of_block;
  std::int64_t entries = 0;
  index_t ext_rows = 0;
  std::size_t t = 0;
  do {  // one launch per sub-graph level (at least one launch when V0 is all there is)
    LevelLaunch L;
    L.first_block = index_t(out.blocks.size());
    const index_t level = t < by_level.size() ? P.subgraph_level[by_level[t]] : 0;
    std::size_t e = t;
    while (e < by_level.size() && P.subgraph_level[by_level[e]] == level) ++e;
    std::vector<std::vector<index_t>> widths;
    for (std::size_t k = t; k < e; ++k) widths.push_back(slot_widths(by_level[k]));
    L.width = choose_width(widths, tuning.max_width);
    for (std::size_t k = t; k < e; ++k) {
      const index_t s = by_level[k];
      Block B{base_of[s], P.subgraph_ptr[s + 1] - P.subgraph_ptr[s], entries,
              index_t(rounds_at(widths[k - t], L.width)), ext_rows, ext_rows};
      for (index_t p = B.base; p < B.base + B.size; ++p) ext_rows += out.ext_ptr[p + 1] > out.ext_ptr[p] ? 1 : 0;
      B.ext_row_end = ext_rows;
      entries += std::int64_t(B.rounds) * L.width;
      out.blocks.push_back(B);
      subgraph_of_block.push_back(s);
      width_of_block.push_back(L.width);
      L.most_size = std::max(L.most_size, B.size);
    }
    if (t == 0)  // V0 joins the first launch, in chunks
      for (index_t p = 0; p < out.isolated; p += tuning.isolated_chunk) {
        out.blocks.push_back({p, std::min(tuning.isolated_chunk, out.isolated - p), entries, 0, ext_rows, ext_rows});
        subgraph_of_block.push_back(-1);
        width_of_block.push_back(L.width);
        L.most_size = std::max(L.most_size, out.blocks.back().size);
      }
    L.last_block = index_t(out.blocks.size());
    out.launches.push_back(L);
    t = e;
  } while (t < by_level.size());

  // Fill (parallel over blocks): every slot in ceil(edges / width) rounds, the last one padded.
  out.int_key.assign(std::size_t(entries), kPadEntry);
  out.int_value.assign(std::size_t(entries), -1);
  out.ext_rows.resize(std::size_t(ext_rows));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t blk = 0; blk < out.blocks.size(); ++blk) {
    const Block& B = out.blocks[blk];
    index_t r = B.ext_row_begin;
    for (index_t p = B.base; p < B.base + B.size; ++p)
      if (out.ext_ptr[p + 1] > out.ext_ptr[p]) out.ext_rows[std::size_t(r++)] = p;
    if (subgraph_of_block[blk] < 0) continue;
    const SubgraphSchedule& g = S.subgraphs[std::size_t(subgraph_of_block[blk])];
    const index_t width = width_of_block[blk];
    std::size_t at = std::size_t(B.entry_begin);
    for (index_t q = 0; q < g.int_slots(); ++q) {
      const index_t first = g.int_ptr[q], last = g.int_ptr[q + 1];
      for (index_t round = first; round < last; round += width, at += std::size_t(width))
        for (index_t lane = 0; lane < width && round + lane < last; ++lane) {
          const SlotEdge& edge = g.internal[std::size_t(round + lane)];
          const auto to = std::uint32_t(pos[edge.to] - B.base), from = std::uint32_t(pos[edge.from] - B.base);
          out.int_key[at + std::size_t(lane)] = to << 16 | from;
          out.int_value[at + std::size_t(lane)] = edge.value;
        }
    }
  }
  return out;
}

template <class T>
ScaledValues<T> scale_values(const Layout& layout, std::span<const T> values, std::span<const index_t> diag_pos) {
  const std::size_t n = layout.order.size();
  if (diag_pos.size() != n) throw DimensionError("TASSL values: diagonal positions of another matrix");
  ScaledValues<T> out;
  out.diag.resize(n);
  out.ext.resize(layout.ext_from.size());
  out.internal.assign(layout.int_key.size(), T(0));
  auto diagonal = [&](index_t v) { return diag_pos[v] < 0 ? 1.0 : double(values[std::size_t(diag_pos[v])]); };
  index_t bad_row = -1;  // a row whose scaled entries are not finite in T (the smallest found)
  auto scaled = [&](index_t value, index_t row) {
    const T s = T(double(values[std::size_t(value)]) / diagonal(row));
    if (!std::isfinite(s)) {
#pragma omp critical(tassl_bad_row)
      bad_row = bad_row < 0 ? row : std::min(bad_row, row);
    }
    return s;
  };
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < n; ++p) {
    const index_t v = layout.order[p];
    out.diag[p] = T(diagonal(v));
    for (index_t k = layout.ext_ptr[p]; k < layout.ext_ptr[p + 1]; ++k)
      out.ext[std::size_t(k)] = scaled(layout.ext_value[std::size_t(k)], v);
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    const Block& B = layout.blocks[b];
    const std::int64_t end = b + 1 < layout.blocks.size() ? layout.blocks[b + 1].entry_begin
                                                          : std::int64_t(layout.int_key.size());
    for (std::int64_t e = B.entry_begin; e < end; ++e)
      if (layout.int_key[std::size_t(e)] != kPadEntry)
        out.internal[std::size_t(e)] =
            scaled(layout.int_value[std::size_t(e)],
                   layout.order[std::size_t(B.base + index_t(layout.int_key[std::size_t(e)] >> 16))]);
  }
  if (bad_row >= 0)
    throw Error("TASSL: row " + std::to_string(bad_row) + " divided by its diagonal overflows " +
                (sizeof(T) == 4 ? "float" : "double") + " (the TASSL solve scales rows by 1/l_ii; use level-set)");
  return out;
}

#define BALSA_INSTANTIATE(T) \
  template ScaledValues<T> scale_values<T>(const Layout&, std::span<const T>, std::span<const index_t>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
