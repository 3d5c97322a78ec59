// The TASSL layout patched after an incremental update (see tassl_layout_patch.hpp).
#include "trsv/tassl/tassl_layout_patch.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "balsa/error.hpp"

namespace balsa::tassl {

namespace {

// Room for a block that outgrew its segment: half as much again.
template <class I>
I with_room(I need) {
  return need + need / 2 + 8;
}

// The in-place patch of block b (see the header); false when it does not apply.
bool patch_in_place(Layout& Y, std::size_t b, const SubgraphSchedule& g, const SubgraphDelta& d, int width,
                    const BlockNeeds& need, std::vector<index_t>& scratch, LayoutPatch& out) {
  const Block& B = Y.blocks[b];
  const BlockSpace& room = Y.space[b];
  if (d.members || need.positions != B.size || g.int_slots() + 1 != index_t(d.old_int_ptr.size())) return false;
  if (d.ext && (need.ext_rows > room.ext_rows || need.ext_edges > room.ext_edges)) return false;
  auto rounds = [&](const std::vector<index_t>& ptr, index_t q) { return (ptr[q + 1] - ptr[q] + width - 1) / width; };
  for (index_t q = 0; q < g.int_slots(); ++q)
    if (rounds(g.int_ptr, q) != rounds(d.old_int_ptr, q)) return false;
  LayoutPatch::Partial part{b, {}, d.ext};
  std::int64_t e = B.entry_begin;
  std::size_t k = 0;
  for (index_t q = 0; q < g.int_slots(); ++q) {
    const std::int64_t next = e + std::int64_t(rounds(g.int_ptr, q)) * width;
    if (k < d.slots.size() && d.slots[k] == q) {
      fill_slot(Y, b, g, q, width, e);
      if (!part.entries.empty() && part.entries.back().second == e) part.entries.back().second = next;
      else part.entries.push_back({e, next});
      ++k;
    }
    e = next;
  }
  if (d.ext) {
    scratch.resize(std::max(scratch.size(), std::size_t(B.size)));
    fill_ext(Y, b, g, scratch);
    out.ext_rows.push_back({B.ext_row_begin, B.ext_row_begin + room.ext_rows});
    out.ext_edges.push_back({room.ext_edge_begin, room.ext_edge_begin + room.ext_edges});
  }
  out.positions.push_back({B.base, B.base + B.size});  // the diagonal of its changed rows
  for (const auto& [begin, end] : part.entries) out.entries.push_back({begin, end});
  out.partial.push_back(std::move(part));
  return true;
}

// Each sub-graph's block; new sub-graphs get blocks without space yet.
std::vector<index_t> blocks_of_subgraphs(Layout& Y, const Incremental& inc, const UpdateResult& r, LayoutPatch& out) {
  const index_t S = inc.subgraphs();
  std::vector<index_t> block_of(std::size_t(S), -1);
  for (std::size_t b = 0; b < Y.space.size(); ++b)
    if (Y.space[b].subgraph >= 0) block_of[std::size_t(Y.space[b].subgraph)] = index_t(b);
  for (index_t s = S - r.created; s < S; ++s) {
    block_of[std::size_t(s)] = index_t(Y.blocks.size());
    Y.blocks.push_back({});
    Y.space.push_back({s, inc.level[std::size_t(s)], 0, 0, 0, 0, 0});
    out.launches_changed = true;
  }
  return block_of;
}

// V0 compacted in place: positions [0, isolated).
void compact_isolated(Layout& Y, const Incremental& inc, const LayoutTuning& tuning, LayoutPatch& out) {
  const index_t old = Y.isolated;
  index_t kept = 0;
  for (index_t p = 0; p < old; ++p) {
    const index_t v = Y.order[std::size_t(p)];
    if (inc.sub_of[std::size_t(v)] < 0) {
      Y.order[std::size_t(kept)] = v;
      Y.position[std::size_t(v)] = kept++;
    }
  }
  std::fill(Y.order.begin() + kept, Y.order.begin() + old, -1);
  Y.isolated = kept;
  std::vector<std::size_t> v0;
  for (std::size_t b = 0; b < Y.space.size(); ++b)
    if (Y.space[b].subgraph < 0) v0.push_back(b);
  const index_t chunk = v0.empty() ? tuning.isolated_chunk : std::max<index_t>(Y.space[v0[0]].positions, 1);
  for (std::size_t k = 0; k < v0.size(); ++k) {  // chunks of the old size; empty ones stay (no blocks removed)
    Block& B = Y.blocks[v0[k]];
    B.base = std::min(kept, index_t(k) * chunk);
    B.size = std::max<index_t>(0, std::min(chunk, kept - B.base));
    out.blocks.push_back(v0[k]);
  }
  if (old > 0) out.positions.push_back({0, old});
}

// Launches for new levels. Widths: a launch keeps its own; a new level's
// launch chooses from its blocks (`todo`: the sub-graphs laid out again).
void add_launches(Layout& Y, const Incremental& inc, const std::vector<index_t>& todo, const LayoutTuning& tuning,
                  LayoutPatch& out) {
  index_t top = index_t(Y.launches.size());
  for (const index_t l : inc.level) top = std::max(top, l + 1);
  std::map<index_t, std::vector<std::vector<index_t>>> fresh;  // new level -> its blocks' slot widths
  for (const index_t s : todo) {
    const index_t l = inc.level[std::size_t(s)];
    if (l >= index_t(Y.launches.size())) fresh[l].push_back(slot_widths(inc.schedule.subgraphs[std::size_t(s)]));
  }
  if (top > index_t(Y.launches.size())) {
    out.launches_changed = true;
    const std::size_t had = Y.launches.size();
    Y.launches.resize(std::size_t(top));
    for (std::size_t l = had; l < Y.launches.size(); ++l) {
      Y.launches[l] = {0, 0, 32, 0};
      if (auto it = fresh.find(index_t(l)); it != fresh.end()) Y.launches[l].width = choose_width(it->second, tuning.max_width);
    }
  }
}

// Block b's segments grown (moved to the arrays' ends, with room) where
// they no longer hold what it needs; true when any moved.
bool make_room(Layout& Y, std::size_t b, const BlockNeeds& need) {
  BlockSpace& room = Y.space[b];
  Block& B = Y.blocks[b];
  bool moved = false;
  if (need.positions > room.positions) {
    room.positions = with_room(need.positions);
    B.base = index_t(Y.order.size());
    Y.order.resize(Y.order.size() + std::size_t(room.positions), -1);
    moved = true;
  }
  if (need.ext_rows > room.ext_rows) {
    room.ext_rows = with_room(need.ext_rows);
    B.ext_row_begin = index_t(Y.ext_rows.size());
    Y.ext_rows.resize(Y.ext_rows.size() + std::size_t(room.ext_rows), -1);
    Y.ext_ptr.resize(Y.ext_rows.size(), 0);
    moved = true;
  }
  if (need.ext_edges > room.ext_edges) {
    room.ext_edges = with_room(need.ext_edges);
    room.ext_edge_begin = index_t(Y.ext_from.size());
    Y.ext_from.resize(Y.ext_from.size() + std::size_t(room.ext_edges), -1);
    Y.ext_value.resize(Y.ext_from.size(), -1);
    moved = true;
  }
  if (need.entries > room.entries) {
    // Whole rounds of any width up to the launch's: a multiple of 1024 entries.
    room.entries = (with_room(need.entries) + 1023) / 1024 * 1024;
    B.entry_begin = std::int64_t(Y.int_key.size());
    Y.int_key.resize(Y.int_key.size() + std::size_t(room.entries), kPadEntry);
    Y.int_value.resize(Y.int_key.size(), -1);
    moved = true;
  }
  return moved;
}

// Sub-graph s laid out again in its block b: patched in place when only
// values of its slots changed, else filled whole (in new room if needed).
void redo_block(Layout& Y, const Incremental& inc, const UpdateResult& r, index_t s, std::size_t b,
                std::vector<index_t>& scratch, LayoutPatch& out) {
  BlockSpace& room = Y.space[b];
  Block& B = Y.blocks[b];
  const index_t l = inc.level[std::size_t(s)];
  if (room.level != l) out.launches_changed = true;
  room.level = l;
  LevelLaunch& L = Y.launches[std::size_t(l)];
  const std::vector<index_t>& vs = inc.members[std::size_t(s)];
  const SubgraphSchedule& g = inc.schedule.subgraphs[std::size_t(s)];
  const BlockNeeds need = block_needs(index_t(vs.size()), g, L.width);
  const auto at = std::lower_bound(r.changed.begin(), r.changed.end(), s);
  if (at != r.changed.end() && *at == s && !std::binary_search(r.moved.begin(), r.moved.end(), s) &&
      patch_in_place(Y, b, g, r.deltas[std::size_t(at - r.changed.begin())], L.width, need, scratch, out))
    return;
  out.relocated += make_room(Y, b, need) ? 1 : 0;
  scratch.resize(std::max(scratch.size(), vs.size()));
  fill_block(Y, b, vs, g, L.width, scratch);
  if (B.size > L.most_size) {  // with room to grow (up to n_max), so that the next growth need not capture again
    L.most_size = std::min(inc.n_max, B.size + B.size / 4 + 128);
    out.launches_changed = true;
  }
  out.positions.push_back({B.base, B.base + room.positions});
  out.ext_rows.push_back({B.ext_row_begin, B.ext_row_begin + room.ext_rows});
  out.ext_edges.push_back({room.ext_edge_begin, room.ext_edge_begin + room.ext_edges});
  out.entries.push_back({B.entry_begin, B.entry_begin + room.entries});
  out.blocks.push_back(b);
}

// Blocks grouped by level again (stable: V0's blocks stay last in launch 0),
// the launches' block ranges recomputed.
void regroup_by_level(Layout& Y, LayoutPatch& out) {
  std::vector<std::size_t> order(Y.blocks.size());
  std::iota(order.begin(), order.end(), 0);
  auto rank = [&](std::size_t b) { return std::pair(Y.space[b].level, Y.space[b].subgraph < 0 ? 1 : 0); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  std::vector<Block> blocks(order.size());
  std::vector<BlockSpace> space(order.size());
  std::vector<std::size_t> new_index(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    blocks[k] = Y.blocks[order[k]];
    space[k] = Y.space[order[k]];
    new_index[order[k]] = k;
  }
  Y.blocks = std::move(blocks);
  Y.space = std::move(space);
  for (std::size_t& b : out.blocks) b = new_index[b];
  for (LayoutPatch::Partial& p : out.partial) p.block = new_index[p.block];
  for (LevelLaunch& L : Y.launches) L.first_block = L.last_block = 0;
  for (std::size_t k = 0; k < Y.blocks.size(); ++k) {
    LevelLaunch& L = Y.launches[std::size_t(Y.space[k].level)];
    if (L.last_block == L.first_block) L.first_block = index_t(k);
    L.last_block = index_t(k) + 1;
    L.most_size = std::max(L.most_size, Y.blocks[k].size);
  }
}

}  // namespace

LayoutPatch patch_layout(Layout& Y, const Incremental& inc, const UpdateResult& r, const LayoutTuning& tuning) {
  LayoutPatch out;
  const std::vector<index_t> block_of = blocks_of_subgraphs(Y, inc, r, out);
  if (!r.left_isolated.empty() || r.isolated_rows) compact_isolated(Y, inc, tuning, out);
  // Blocks to lay out again: touched, moved or new sub-graphs.
  std::vector<index_t> todo = r.changed;
  todo.insert(todo.end(), r.moved.begin(), r.moved.end());
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  add_launches(Y, inc, todo, tuning, out);
  std::vector<index_t> scratch;
  for (const index_t s : todo) redo_block(Y, inc, r, s, std::size_t(block_of[std::size_t(s)]), scratch, out);
  if (out.launches_changed) regroup_by_level(Y, out);
  return out;
}

double layout_waste(const Layout& Y) {
  std::int64_t live = 0;
  for (const BlockSpace& s : Y.space) live += std::int64_t(s.positions) + s.ext_rows + s.ext_edges + s.entries;
  const auto total = std::int64_t(Y.order.size() + Y.ext_rows.size() + Y.ext_from.size() + Y.int_key.size());
  return total > 0 ? double(std::max<std::int64_t>(total - live, 0)) / double(total) : 0.0;
}

}  // namespace balsa::tassl
