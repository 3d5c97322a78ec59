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
#include "trsv/off_diagonal.hpp"

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

BlockNeeds block_needs(index_t vertices, const SubgraphSchedule& g, int width) {
  BlockNeeds need;
  need.positions = vertices;
  // Every vertex with external in-edges has one in external slot 0.
  need.ext_rows = (g.ext_slots() > 0 ? g.ext_ptr[1] - g.ext_ptr[0] : 0) + 1;
  need.ext_edges = index_t(g.ext.size());
  for (index_t q = 0; q < g.int_slots(); ++q) need.rounds += (g.int_ptr[q + 1] - g.int_ptr[q] + width - 1) / width;
  need.entries = need.rounds * width;
  return need;
}

void fill_ext(Layout& Y, std::size_t b, const SubgraphSchedule& g, std::vector<index_t>& scratch) {
  Block& B = Y.blocks[b];
  const BlockSpace& room = Y.space[b];
  // External rows in the order of their slot-0 edges; each row's edges in slot order.
  index_t* row_of = scratch.data();  // local vertex -> its external row (relative), or -1
  for (index_t u = 0; u < B.size; ++u) row_of[u] = -1;
  const index_t rows = g.ext_slots() > 0 ? g.ext_ptr[1] - g.ext_ptr[0] : 0;
  B.ext_row_end = B.ext_row_begin + rows;
  for (index_t k = 0; k < rows; ++k) {
    const index_t p = Y.position[std::size_t(g.ext[std::size_t(k)].to)];
    row_of[p - B.base] = k;
    Y.ext_rows[std::size_t(B.ext_row_begin + k)] = p;
    Y.ext_ptr[std::size_t(B.ext_row_begin + k)] = 0;
  }
  for (const SlotEdge& e : g.ext) ++Y.ext_ptr[std::size_t(B.ext_row_begin + row_of[Y.position[e.to] - B.base])];
  index_t at = room.ext_edge_begin;
  for (index_t k = 0; k <= rows; ++k) {  // counts -> starts (and the end)
    const index_t c = k < rows ? Y.ext_ptr[std::size_t(B.ext_row_begin + k)] : 0;
    Y.ext_ptr[std::size_t(B.ext_row_begin + k)] = at;
    at += c;
  }
  std::vector<index_t> next(Y.ext_ptr.begin() + B.ext_row_begin, Y.ext_ptr.begin() + B.ext_row_end);
  for (const SlotEdge& e : g.ext) {  // slot by slot: each vertex's edges in slot order
    const index_t k = next[std::size_t(row_of[Y.position[e.to] - B.base])]++;
    Y.ext_from[std::size_t(k)] = e.from;
    Y.ext_value[std::size_t(k)] = e.value;
  }
}

std::int64_t fill_slot(Layout& Y, std::size_t b, const SubgraphSchedule& g, index_t q, int width, std::int64_t e) {
  const Block& B = Y.blocks[b];
  const index_t first = g.int_ptr[q], last = g.int_ptr[q + 1];
  const std::int64_t rounds = (last - first + width - 1) / width;
  std::fill(Y.int_key.begin() + e, Y.int_key.begin() + e + rounds * width, kPadEntry);
  std::fill(Y.int_value.begin() + e, Y.int_value.begin() + e + rounds * width, -1);
  for (index_t k = first; k < last; ++k) {
    const SlotEdge& edge = g.internal[std::size_t(k)];
    const auto to = std::uint32_t(Y.position[edge.to] - B.base), from = std::uint32_t(Y.position[edge.from] - B.base);
    Y.int_key[std::size_t(e + (k - first))] = to << 16 | from;
    Y.int_value[std::size_t(e + (k - first))] = edge.value;
  }
  return e + rounds * width;
}

void fill_block(Layout& Y, std::size_t b, std::span<const index_t> vertices, const SubgraphSchedule& g, int width,
                std::vector<index_t>& scratch) {
  Block& B = Y.blocks[b];
  const BlockSpace& room = Y.space[b];
  const BlockNeeds need = block_needs(index_t(vertices.size()), g, width);
  if (need.positions > room.positions || need.ext_rows > room.ext_rows || need.ext_edges > room.ext_edges ||
      need.entries > room.entries)
    throw Error("TASSL layout: internal error, a block outgrew its space");
  B.size = index_t(vertices.size());
  B.rounds = index_t(need.rounds);
  for (index_t u = 0; u < B.size; ++u) {
    Y.order[std::size_t(B.base + u)] = vertices[std::size_t(u)];
    Y.position[std::size_t(vertices[std::size_t(u)])] = B.base + u;
  }
  fill_ext(Y, b, g, scratch);
  // Every slot in ceil(edges / width) rounds, the last one padded.
  std::int64_t e = B.entry_begin;
  for (index_t q = 0; q < g.int_slots(); ++q) e = fill_slot(Y, b, g, q, width, e);
  // The rest of its segment (entries of a longer earlier layout) padded.
  std::fill(Y.int_key.begin() + e, Y.int_key.begin() + B.entry_begin + room.entries, kPadEntry);
  std::fill(Y.int_value.begin() + e, Y.int_value.begin() + B.entry_begin + room.entries, -1);
}

std::vector<index_t> slot_widths(const SubgraphSchedule& g) {
  std::vector<index_t> w(std::size_t(g.int_slots()));
  for (index_t q = 0; q < g.int_slots(); ++q) w[std::size_t(q)] = g.int_ptr[q + 1] - g.int_ptr[q];
  return w;
}

namespace {

void check_layout_inputs(const Partition& P, const Schedule& S, const LayoutTuning& tuning) {
  if (tuning.max_width < 32 || tuning.max_width > 1024 || !std::has_single_bit(unsigned(tuning.max_width)))
    throw Error("TASSL layout: max_width must be a power of two in [32, 1024]");
  if (tuning.isolated_chunk < 1) throw Error("TASSL layout: isolated_chunk must be at least 1");
  if (S.subgraphs.size() != std::size_t(P.subgraphs()))
    throw DimensionError("TASSL layout: the schedule is of another partition");
  index_t covered = index_t(P.isolated.size());
  for (index_t s = 0; s < P.subgraphs(); ++s) {
    const index_t size = P.subgraph_ptr[s + 1] - P.subgraph_ptr[s];
    if (size > kMaxSubgraphVertices)
      throw Error("TASSL layout: a sub-graph of " + std::to_string(size) + " vertices exceeds the " +
                  std::to_string(kMaxSubgraphVertices) +
                  " that 16-bit slot indices address (lower n_max; the default, from shared memory, is below it)");
    covered += size;
  }
  if (covered != P.n) throw Error("TASSL layout: the partition does not cover every vertex");
}

// The arrays' lengths as the plan hands out segments.
struct Extent {
  index_t positions = 0, ext_rows = 0, ext_edges = 0;
  std::int64_t entries = 0;
};

// Plan (serial, per block): one launch per sub-graph level (at least one
// launch when V0 is all there is), its width, each block's segments.
Extent plan_blocks(const Partition& P, const Schedule& S, const LayoutTuning& tuning, Layout& out) {
  // Sub-graphs in order of sub-graph level: the launches.
  std::vector<index_t> by_level(std::size_t(P.subgraphs()));
  std::iota(by_level.begin(), by_level.end(), 0);
  std::stable_sort(by_level.begin(), by_level.end(),
                   [&](index_t a, index_t b) { return P.subgraph_level[a] < P.subgraph_level[b]; });
  Extent x;
  x.positions = out.isolated;
  auto add_block = [&](index_t subgraph, index_t level, const BlockNeeds& need) {
    out.blocks.push_back({x.positions, need.positions, x.entries, index_t(need.rounds), x.ext_rows, x.ext_rows});
    out.space.push_back({subgraph, level, need.positions, need.ext_rows, x.ext_edges, need.ext_edges, need.entries});
    x.positions += need.positions;
    x.ext_rows += need.ext_rows;
    x.ext_edges += need.ext_edges;
    x.entries += need.entries;
  };
  std::size_t t = 0;
  do {
    LevelLaunch L;
    L.first_block = index_t(out.blocks.size());
    const index_t level = t < by_level.size() ? P.subgraph_level[by_level[t]] : 0;
    if (level != index_t(out.launches.size()))  // launches are indexed by level (BlockSpace::level)
      throw Error("TASSL layout: internal error, sub-graph levels are not consecutive");
    std::size_t e = t;
    while (e < by_level.size() && P.subgraph_level[by_level[e]] == level) ++e;
    std::vector<std::vector<index_t>> widths;
    for (std::size_t k = t; k < e; ++k) widths.push_back(slot_widths(S.subgraphs[std::size_t(by_level[k])]));
    L.width = choose_width(widths, tuning.max_width);
    for (std::size_t k = t; k < e; ++k) {
      const index_t s = by_level[k];
      add_block(s, level, block_needs(P.subgraph_ptr[s + 1] - P.subgraph_ptr[s], S.subgraphs[std::size_t(s)], L.width));
      L.most_size = std::max(L.most_size, out.blocks.back().size);
    }
    if (t == 0)  // V0 joins the first launch, in chunks (positions [0, isolated))
      for (index_t p = 0; p < out.isolated; p += tuning.isolated_chunk) {
        const index_t size = std::min(tuning.isolated_chunk, out.isolated - p);
        out.blocks.push_back({p, size, x.entries, 0, x.ext_rows, x.ext_rows});
        out.space.push_back({-1, 0, size, 1, x.ext_edges, 0, 0});
        x.ext_rows += 1;
        L.most_size = std::max(L.most_size, size);
      }
    L.last_block = index_t(out.blocks.size());
    out.launches.push_back(L);
    t = e;
  } while (t < by_level.size());
  return x;
}

// The arrays allocated; V0's positions first.
void allocate(const Partition& P, const Extent& x, Layout& out) {
  out.order.assign(std::size_t(x.positions), -1);
  out.position.assign(std::size_t(P.n), -1);
  std::copy(P.isolated.begin(), P.isolated.end(), out.order.begin());
  for (index_t p = 0; p < out.isolated; ++p) out.position[std::size_t(P.isolated[std::size_t(p)])] = p;
  out.ext_rows.assign(std::size_t(x.ext_rows), -1);
  out.ext_ptr.assign(std::size_t(x.ext_rows), 0);
  out.ext_from.assign(std::size_t(x.ext_edges), -1);
  out.ext_value.assign(std::size_t(x.ext_edges), -1);
  out.int_key.assign(std::size_t(x.entries), kPadEntry);
  out.int_value.assign(std::size_t(x.entries), -1);
}

}  // namespace

Layout lay_out(const Partition& P, const Schedule& S, const LayoutTuning& tuning) {
  check_layout_inputs(P, S, tuning);
  Layout out;
  out.isolated = index_t(P.isolated.size());
  allocate(P, plan_blocks(P, S, tuning, out), out);
  // Fill (parallel over blocks; each writes its own segments).
#pragma omp parallel
  {
    std::vector<index_t> scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < out.blocks.size(); ++b) {
      const BlockSpace& room = out.space[b];
      if (room.subgraph < 0) {
        out.ext_ptr[std::size_t(out.blocks[b].ext_row_begin)] = room.ext_edge_begin;
        continue;
      }
      const index_t s = room.subgraph;
      scratch.resize(std::size_t(room.positions));
      const std::span<const index_t> vs(P.vertices.data() + P.subgraph_ptr[s], std::size_t(room.positions));
      fill_block(out, b, vs, S.subgraphs[std::size_t(s)], out.launches[std::size_t(room.level)].width, scratch);
    }
  }
  return out;
}

template <class T>
void scale_block(const Layout& layout, std::size_t b, std::span<const index_t> row_ptr, std::span<const T> values,
                 std::span<const index_t> diag_offset, ScaledValues<T>& out, const EntryRanges* entries, bool ext) {
  const Block& B = layout.blocks[b];
  auto diagonal = [&](index_t v) {
    return diag_offset[std::size_t(v)] < 0 ? 1.0 : double(values[std::size_t(row_ptr[v] + diag_offset[std::size_t(v)])]);
  };
  index_t bad_row = -1;  // a row whose scaled entries are not finite in T (the smallest found)
  auto scaled = [&](index_t offset, index_t row) {
    if (offset < 0 || offset >= row_ptr[row + 1] - row_ptr[row])
      throw Error("TASSL layout: internal error, an entry at offset " + std::to_string(offset) + " of row " +
                  std::to_string(row) + " (" + std::to_string(row_ptr[row + 1] - row_ptr[row]) + " entries), block " +
                  std::to_string(b));
    const T s = T(double(values[std::size_t(row_ptr[row] + offset)]) / diagonal(row));
    if (!std::isfinite(s)) bad_row = bad_row < 0 ? row : std::min(bad_row, row);
    return s;
  };
  for (index_t p = B.base; p < B.base + B.size; ++p) out.diag[std::size_t(p)] = T(diagonal(layout.order[std::size_t(p)]));
  for (index_t r = B.ext_row_begin; r < B.ext_row_end && ext; ++r) {
    const index_t v = layout.order[std::size_t(layout.ext_rows[std::size_t(r)])];
    for (index_t k = layout.ext_ptr[std::size_t(r)]; k < layout.ext_ptr[std::size_t(r) + 1]; ++k)
      out.ext[std::size_t(k)] = scaled(layout.ext_value[std::size_t(k)], v);
  }
  const EntryRanges whole{{B.entry_begin, B.entry_begin + layout.space[b].entries}};
  for (const auto& [begin, end] : entries ? *entries : whole)
    for (std::int64_t e = begin; e < end; ++e) {
      const std::uint32_t key = layout.int_key[std::size_t(e)];
      out.internal[std::size_t(e)] =
          key == kPadEntry ? T(0)
                           : scaled(layout.int_value[std::size_t(e)], layout.order[std::size_t(B.base + index_t(key >> 16))]);
    }
  if (bad_row >= 0)
    throw Error("TASSL: row " + std::to_string(bad_row) + " divided by its diagonal overflows " +
                (sizeof(T) == 4 ? "float" : "double") + " (the TASSL solve scales rows by 1/l_ii; use level-set)");
}

template <class T>
ScaledValues<T> scale_values(const Layout& layout, std::span<const index_t> row_ptr, std::span<const T> values,
                             std::span<const index_t> diag_offset) {
  if (diag_offset.size() != layout.position.size() || row_ptr.size() != layout.position.size() + 1)
    throw DimensionError("TASSL values: a matrix or diagonal offsets of another size than the layout's");
  ScaledValues<T> out;
  out.diag.assign(layout.order.size(), T(1));
  out.ext.assign(layout.ext_from.size(), T(0));
  out.internal.assign(layout.int_key.size(), T(0));
  std::string error;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    try {
      scale_block(layout, b, row_ptr, values, diag_offset, out);
    } catch (const std::exception& e) {
#pragma omp critical(tassl_scale_error)
      if (error.empty() || std::string(e.what()) < error) error = e.what();
    }
  }
  if (!error.empty()) throw Error(error);
  return out;
}

template <class T>
std::vector<index_t> diagonal_offsets(const Csr<T>& A, DiagonalKind diag) {
  std::vector<index_t> off = trsv_gpu::detail::diagonal_positions(A, diag);  // positions in A.values
  for (index_t i = 0; i < A.rows; ++i)
    if (off[std::size_t(i)] >= 0) off[std::size_t(i)] -= A.row_ptr[i];
  return off;
}

#define BALSA_INSTANTIATE(T)                                                                                     \
  template ScaledValues<T> scale_values<T>(const Layout&, std::span<const index_t>, std::span<const T>,        \
                                           std::span<const index_t>);                                          \
  template void scale_block<T>(const Layout&, std::size_t, std::span<const index_t>, std::span<const T>,       \
                               std::span<const index_t>, ScaledValues<T>&, const EntryRanges*, bool);         \
  template std::vector<index_t> diagonal_offsets<T>(const Csr<T>&, DiagonalKind);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
