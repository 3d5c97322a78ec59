// TASSL's incremental analysis (see tassl_update.hpp; thesis ch. 6).
#include "trsv/tassl/tassl_update.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "balsa/error.hpp"

namespace balsa::tassl {

Incremental::Incremental(const Partition& P, Schedule S, Triangle t, std::span<const index_t> row_ptr)
    : tri(t), n_max(P.n_max), schedule(std::move(S)), row_ptr_(row_ptr.begin(), row_ptr.end()) {
  if (row_ptr.size() != std::size_t(P.n) + 1) throw DimensionError("TASSL update: a pattern of another size");
  if (schedule.subgraphs.size() != std::size_t(P.subgraphs()))
    throw DimensionError("TASSL update: the schedule is of another partition");
  sub_of.assign(std::size_t(P.n), -1);
  members.resize(std::size_t(P.subgraphs()));
  for (index_t s = 0; s < P.subgraphs(); ++s) {
    members[std::size_t(s)].assign(P.vertices.begin() + P.subgraph_ptr[s], P.vertices.begin() + P.subgraph_ptr[s + 1]);
    for (const index_t v : members[std::size_t(s)]) sub_of[std::size_t(v)] = s;
  }
  level = P.subgraph_level;
}

index_t Incremental::levels() const {
  index_t most = 0;
  for (const index_t l : level) most = std::max(most, l + 1);
  return most;
}

index_t Incremental::isolated() const {
  return index_t(std::count(sub_of.begin(), sub_of.end(), -1));
}

// The sub-graph DAG from the schedule's external edges (each external edge
// into sub-graph s names its parent's sub-graph): O(external edges + S).
void Incremental::build_dag() {
  const std::size_t S = members.size();
  dag_.assign(S, {});
  std::vector<index_t> count(S, 0), touched;
  for (std::size_t s = 0; s < S; ++s) {
    for (const SlotEdge& e : schedule.subgraphs[s].ext) {
      const index_t q = sub_of[std::size_t(e.from)];
      if (count[std::size_t(q)]++ == 0) touched.push_back(q);
    }
    for (const index_t q : touched) {
      dag_[std::size_t(q)].push_back({index_t(s), count[std::size_t(q)]});
      count[std::size_t(q)] = 0;
    }
    touched.clear();
  }
  dag_ready_ = true;
}

void Incremental::link(index_t from, index_t to, int delta) {
  std::vector<Link>& out = dag_[std::size_t(from)];
  auto it = std::find_if(out.begin(), out.end(), [&](const Link& l) { return l.child == to; });
  if (it == out.end()) {
    if (delta < 0) throw Error("TASSL update: internal error, a removed external edge the DAG does not hold");
    out.push_back({to, delta});
    return;
  }
  it->edges += delta;
  if (it->edges == 0) out.erase(it);
}

// Depth-first search from `from` for `to` over sub-graphs below to's level:
// levels rise strictly along the DAG's edges, so no path to `to` passes a
// sub-graph of its level or above.
bool Incremental::reaches(index_t from, index_t to) {
  const index_t ceiling = level[std::size_t(to)];
  if (level[std::size_t(from)] >= ceiling) return from == to;
  seen_.assign(members.size(), 0);
  std::vector<index_t> stack{from};
  seen_[std::size_t(from)] = 1;
  while (!stack.empty()) {
    const index_t s = stack.back();
    stack.pop_back();
    for (const Link& l : dag_[std::size_t(s)]) {
      if (l.child == to) return true;
      if (!seen_[std::size_t(l.child)] && level[std::size_t(l.child)] < ceiling) {
        seen_[std::size_t(l.child)] = 1;
        stack.push_back(l.child);
      }
    }
  }
  return false;
}

// Level of s to at least `to_level`, then its descendants' (a worklist over the DAG).
void Incremental::raise(index_t s, index_t to_level, UpdateResult& r) {
  if (level[std::size_t(s)] >= to_level) return;
  level[std::size_t(s)] = to_level;
  r.moved.push_back(s);
  std::vector<index_t> work{s};
  while (!work.empty()) {
    const index_t x = work.back();
    work.pop_back();
    for (const Link& l : dag_[std::size_t(x)])
      if (level[std::size_t(l.child)] <= level[std::size_t(x)]) {
        level[std::size_t(l.child)] = level[std::size_t(x)] + 1;
        r.moved.push_back(l.child);
        work.push_back(l.child);
      }
  }
}

index_t Incremental::create(index_t at_level, UpdateResult& r) {
  members.emplace_back();
  level.push_back(at_level);
  schedule.subgraphs.emplace_back();
  dag_.emplace_back();
  ++r.created;
  return index_t(members.size()) - 1;
}

// Alg. 6.1 (next_nonfull_subg) over the sub-graphs of levels [min_level, max_level].
index_t Incremental::first_with_room(index_t min_level, index_t max_level) const {
  for (std::size_t s = 0; s < members.size(); ++s)
    if (index_t(members[s].size()) < n_max && level[s] >= min_level && level[s] <= max_level) return index_t(s);
  return -1;
}

// v (of V0) into sub-graph s, keeping s's vertices in dependency order.
void Incremental::place(index_t v, index_t s) {
  std::vector<index_t>& m = members[std::size_t(s)];
  m.insert(std::lower_bound(m.begin(), m.end(), v, [&](index_t a, index_t b) { return key(a) < key(b); }), v);
  sub_of[std::size_t(v)] = s;
}

namespace {

UpdateResult give_up(UpdateResult& r, std::string why) {
  r.feasible = false;
  r.reason = std::move(why);
  return r;
}

}  // namespace

// Alg. 6.2 for one added edge parent j -> child i: an end in V0 joins a
// sub-graph (lines 5-7, 13-15); an external edge raises the child's level
// (Table 6.1). Returns the reason when it closes a cycle, else empty.
std::string Incremental::add_edge(const Edge& e, UpdateResult& r) {
  constexpr index_t kAnyLevel = std::numeric_limits<index_t>::max();
  const index_t i = e.child, j = e.parent;
  if (sub_of[std::size_t(j)] < 0) {  // Alg. 6.2 lines 5-7: the parent leaves V0
    const index_t si = sub_of[std::size_t(i)];
    index_t s = si >= 0 && index_t(members[std::size_t(si)].size()) < n_max ? si : first_with_room(0, 0);
    if (s < 0) s = create(0, r);
    place(j, s);
    r.left_isolated.push_back(j);
  }
  const index_t sj = sub_of[std::size_t(j)];
  if (sub_of[std::size_t(i)] < 0) {  // lines 13-15: the child leaves V0, no lower than its parent
    index_t s = index_t(members[std::size_t(sj)].size()) < n_max ? sj
                                                                 : first_with_room(level[std::size_t(sj)] + 1, kAnyLevel);
    if (s < 0) s = create(level[std::size_t(sj)] + 1, r);
    place(i, s);
    r.left_isolated.push_back(i);
  }
  const index_t si = sub_of[std::size_t(i)];
  if (si == sj) return {};  // internal
  // An external edge sj -> si: condition I holds unless it closes a cycle (Table 6.1's R).
  if (level[std::size_t(si)] <= level[std::size_t(sj)]) {
    if (reaches(si, sj))
      return "an added edge " + std::to_string(j) + " -> " + std::to_string(i) + " closes a cycle of sub-graphs " +
             std::to_string(sj) + " and " + std::to_string(si);
    link(sj, si, +1);
    raise(si, level[std::size_t(sj)] + 1, r);
  } else {
    link(sj, si, +1);
  }
  return {};
}

// The sub-graphs to schedule again: those holding a changed row (the
// child of every added or removed edge is one), new vertices included;
// the edges they hold.
void Incremental::mark_changed(std::span<const index_t> row_ptr, const PatternChange& change, UpdateResult& r) const {
  std::vector<char> mark(members.size(), 0);
  for (const index_t v : change.rows) {
    const index_t s = sub_of[std::size_t(v)];
    if (s < 0) r.isolated_rows = true;
    else if (!mark[std::size_t(s)]) mark[std::size_t(s)] = 1, r.changed.push_back(s);
  }
  for (const index_t v : r.left_isolated)
    if (!mark[std::size_t(sub_of[std::size_t(v)])]) mark[std::size_t(sub_of[std::size_t(v)])] = 1, r.changed.push_back(sub_of[std::size_t(v)]);
  std::sort(r.changed.begin(), r.changed.end());
  std::sort(r.moved.begin(), r.moved.end());
  r.moved.erase(std::unique(r.moved.begin(), r.moved.end()), r.moved.end());
  for (const index_t s : r.changed)
    for (const index_t v : members[std::size_t(s)]) r.scheduled_edges += row_ptr[v + 1] - row_ptr[v];
}

// Every entry's internal slot and every vertex's last, from the schedule
// (once, at the first update).
void Incremental::index_slots() {
  if (!slot_.empty()) return;
  slot_.assign(std::size_t(row_ptr_.back()), -1);
  finish_.assign(sub_of.size(), -1);
  for (const SubgraphSchedule& g : schedule.subgraphs)
    for (index_t q = 0; q < g.int_slots(); ++q)
      for (index_t e = g.int_ptr[q]; e < g.int_ptr[q + 1]; ++e) {
        const SlotEdge& x = g.internal[std::size_t(e)];
        slot_[std::size_t(row_ptr_[std::size_t(x.to)] + x.value)] = q;
        finish_[std::size_t(x.to)] = std::max(finish_[std::size_t(x.to)], q);
      }
  dirty_.assign(sub_of.size(), 0);
  redone_.assign(sub_of.size(), 0);
  moved_.assign(sub_of.size(), 0);
}

// Sec. 6.2: the changed sub-graphs' slots again (reslot), the schedule's
// edge counts kept.
void Incremental::reschedule(std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                             const PatternChange& change, UpdateResult& r) {
  index_slots();
  for (const index_t v : change.rows) dirty_[std::size_t(v)] = 1;
  for (const index_t v : r.left_isolated) dirty_[std::size_t(v)] = 1;
  carry_slots(row_ptr);
  std::vector<char> joined(members.size(), 0);
  for (const index_t v : r.left_isolated) joined[std::size_t(sub_of[std::size_t(v)])] = 1;
  for (const index_t s : r.changed) {
    SubgraphSchedule& g = schedule.subgraphs[std::size_t(s)];
    schedule.external_edges -= g.ext.size();
    schedule.internal_edges -= g.internal.size();
    SubgraphDelta& d = r.deltas.emplace_back();
    d.old_int_ptr = g.int_ptr;
    d.members = joined[std::size_t(s)] != 0;
    r.reslotted += reslot(s, row_ptr, col_idx, d);
    schedule.external_edges += g.ext.size();
    schedule.internal_edges += g.internal.size();
  }
  for (const index_t v : change.rows) dirty_[std::size_t(v)] = 0;
  for (const index_t v : r.left_isolated) dirty_[std::size_t(v)] = 0;
}

UpdateResult Incremental::apply(std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                                const PatternChange& change, std::int64_t edge_budget, index_t max_levels) {
  if (row_ptr.size() != sub_of.size() + 1) throw DimensionError("TASSL update: a pattern of another size");
  if (!dag_ready_) build_dag();
  UpdateResult r;
  for (const Edge& e : change.removed) {  // never breaks feasibility: only the DAG's counts
    const index_t sc = sub_of[std::size_t(e.child)], sp = sub_of[std::size_t(e.parent)];
    if (sc < 0 || sp < 0) throw Error("TASSL update: internal error, a removed edge had an end in V0");
    if (sc != sp) link(sp, sc, -1);
  }
  for (const Edge& e : change.added)
    if (std::string why = add_edge(e, r); !why.empty()) return give_up(r, std::move(why));
  if (levels() > max_levels)
    return give_up(r, "the sub-graph levels grew to " + std::to_string(levels()) + ", past " + std::to_string(max_levels));
  mark_changed(row_ptr, change, r);
  if (r.scheduled_edges > edge_budget)
    return give_up(r, "the update would schedule " + std::to_string(r.scheduled_edges) +
                          " edges again, over the budget of " + std::to_string(edge_budget) +
                          " (a full analysis is cheaper)");
  reschedule(row_ptr, col_idx, change, r);
  return r;
}

void Incremental::carry_slots(std::span<const index_t> row_ptr) {
  std::vector<index_t> slots(std::size_t(row_ptr.back()), -1);
  for (std::size_t i = 0; i + 1 < row_ptr.size(); ++i)
    if (!dirty_[i])
      std::copy(slot_.begin() + row_ptr_[i], slot_.begin() + row_ptr_[i + 1], slots.begin() + row_ptr[i]);
  slot_ = std::move(slots);
  row_ptr_.assign(row_ptr.begin(), row_ptr.end());
}

index_t Incremental::reslot(index_t s, std::span<const index_t> row_ptr, std::span<const index_t> col_idx,
                            SubgraphDelta& delta) {
  const bool lower = tri == Triangle::Lower;
  auto parent = [&](index_t v, index_t j) { return lower ? j < v : j > v; };
  const std::vector<index_t>& m = members[std::size_t(s)];
  std::vector<std::pair<index_t, index_t>> ready;  // (first allowed slot, entry)
  std::vector<index_t> redone;
  std::size_t t = 0;
  while (t < m.size() && !dirty_[std::size_t(m[t])]) ++t;
  for (; t < m.size(); ++t) {
    const index_t v = m[t];
    const index_t before = finish_[std::size_t(v)];
    // Again when its row changed or an internal parent's last slot moved
    // (either way: a parent finishing earlier lets v start earlier).
    bool again = dirty_[std::size_t(v)] != 0;
    for (index_t p = row_ptr[v]; p < row_ptr[v + 1] && !again; ++p)
      again = moved_[std::size_t(col_idx[p])] && slot_[std::size_t(p)] >= 0;
    if (!again) continue;
    ready.clear();  // the list-scheduling rule of schedule_subgraph
    for (index_t p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
      const index_t j = col_idx[p];
      if (parent(v, j) && sub_of[std::size_t(j)] == s) ready.push_back({finish_[std::size_t(j)] + 1, p});
    }
    std::stable_sort(ready.begin(), ready.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    index_t slot = -1;
    for (const auto& [first, p] : ready) slot_[std::size_t(p)] = slot = std::max(first, slot + 1);
    finish_[std::size_t(v)] = slot;
    redone_[std::size_t(v)] = 1;
    redone.push_back(v);
    if (finish_[std::size_t(v)] != before) moved_[std::size_t(v)] = 1;
  }
  if (!redone.empty()) {  // the re-slotted vertices' edges from their rows, then bucketed
    std::vector<std::pair<index_t, SlotEdge>> fresh_int, fresh_ext;
    for (const index_t v : redone) {
      index_t n_ext = 0;
      for (index_t p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
        const index_t j = col_idx[p];
        if (!parent(v, j)) continue;
        const SlotEdge e{v, j, p - row_ptr[v]};
        if (sub_of[std::size_t(j)] != s) fresh_ext.push_back({n_ext++, e});
        else fresh_int.push_back({slot_[std::size_t(p)], e});
      }
    }
    SubgraphSchedule& g = schedule.subgraphs[std::size_t(s)];
    std::vector<char> dirty;
    rebucket(g.int_ptr, g.internal, fresh_int, dirty);
    for (std::size_t q = 0; q < dirty.size(); ++q)
      if (dirty[q]) delta.slots.push_back(index_t(q));
    rebucket(g.ext_ptr, g.ext, fresh_ext, dirty);
    delta.ext = std::find(dirty.begin(), dirty.end(), 1) != dirty.end();
  }

  for (const index_t v : redone) redone_[std::size_t(v)] = moved_[std::size_t(v)] = 0;
  return index_t(redone.size());
}

void Incremental::rebucket(std::vector<index_t>& ptr, std::vector<SlotEdge>& edges,
                           const std::vector<std::pair<index_t, SlotEdge>>& fresh, std::vector<char>& dirty) const {
  index_t slots = index_t(ptr.size()) - 1;
  for (const auto& f : fresh) slots = std::max(slots, f.first + 1);
  dirty.assign(std::size_t(slots), 0);
  std::vector<index_t> count(std::size_t(slots) + 1, 0);
  for (index_t q = 0; q + 1 < index_t(ptr.size()); ++q)
    for (index_t e = ptr[q]; e < ptr[q + 1]; ++e) {
      const bool gone = redone_[std::size_t(edges[std::size_t(e)].to)];
      count[std::size_t(q) + 1] += gone ? 0 : 1;
      if (gone) dirty[std::size_t(q)] = 1;
    }
  for (const auto& f : fresh) {
    ++count[std::size_t(f.first) + 1];
    dirty[std::size_t(f.first)] = 1;
  }
  while (slots > 0 && count[std::size_t(slots)] == 0) --slots;  // slots left empty at the end
  count.resize(std::size_t(slots) + 1);
  for (index_t q = 0; q < slots; ++q) count[std::size_t(q) + 1] += count[std::size_t(q)];
  std::vector<SlotEdge> out(std::size_t(count.back()));
  std::vector<index_t> next(count.begin(), count.end() - 1);
  for (index_t q = 0; q + 1 < index_t(ptr.size()); ++q)  // kept edges first in each slot, in their order
    for (index_t e = ptr[q]; e < ptr[q + 1]; ++e)
      if (!redone_[std::size_t(edges[std::size_t(e)].to)]) out[std::size_t(next[std::size_t(q)]++)] = edges[std::size_t(e)];
  for (const auto& f : fresh) out[std::size_t(next[std::size_t(f.first)]++)] = f.second;
  ptr = std::move(count);
  edges = std::move(out);
}

void Incremental::check(std::span<const index_t> row_ptr, std::span<const index_t> col_idx) const {
  const index_t n = vertices();
  const bool lower = tri == Triangle::Lower;
  if (row_ptr.size() != std::size_t(n) + 1) throw DimensionError("TASSL check: a pattern of another size");
  auto fail = [](const std::string& what) { throw Error("TASSL partition infeasible: " + what); };
  for (std::size_t s = 0; s < members.size(); ++s) {
    if (index_t(members[s].size()) > n_max)
      fail("condition II: sub-graph " + std::to_string(s) + " holds " + std::to_string(members[s].size()) +
           " vertices, n_max " + std::to_string(n_max));
    for (std::size_t t = 0; t < members[s].size(); ++t) {
      if (sub_of[std::size_t(members[s][t])] != index_t(s)) fail("a member list disagrees with sub_of");
      if (t > 0 && key(members[s][t - 1]) >= key(members[s][t])) fail("a member list not in dependency order");
    }
  }
  std::vector<std::int64_t> internal(members.size(), 0), external(members.size(), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      const index_t j = col_idx[p];
      if (lower ? j >= i : j <= i) continue;
      const index_t si = sub_of[std::size_t(i)], sj = sub_of[std::size_t(j)];
      if (si < 0 || sj < 0)
        fail("the edge " + std::to_string(j) + " -> " + std::to_string(i) + " has an end in V0");
      if (si != sj && level[std::size_t(sj)] >= level[std::size_t(si)])
        fail("condition I: the edge " + std::to_string(j) + " -> " + std::to_string(i) + " goes from level " +
             std::to_string(level[std::size_t(sj)]) + " to level " + std::to_string(level[std::size_t(si)]));
      ++(si == sj ? internal : external)[std::size_t(si)];
    }
  // The schedule: every edge once, one edge into a vertex per slot, internal
  // edges after their parent's last internal in-edge.
  std::vector<index_t> last(std::size_t(n), -1), stamp(std::size_t(n), -1);
  for (std::size_t s = 0; s < members.size(); ++s) {
    const SubgraphSchedule& g = schedule.subgraphs[s];
    if (std::int64_t(g.internal.size()) != internal[s] || std::int64_t(g.ext.size()) != external[s])
      fail("sub-graph " + std::to_string(s) + "'s schedule holds " + std::to_string(g.internal.size()) + " internal and " +
           std::to_string(g.ext.size()) + " external edges, its rows " + std::to_string(internal[s]) + " and " +
           std::to_string(external[s]));
    for (index_t q = 0; q < g.int_slots(); ++q)
      for (index_t e = g.int_ptr[q]; e < g.int_ptr[q + 1]; ++e) last[std::size_t(g.internal[std::size_t(e)].to)] = q;
    for (index_t q = 0; q < g.int_slots(); ++q)
      for (index_t e = g.int_ptr[q]; e < g.int_ptr[q + 1]; ++e) {
        const SlotEdge& x = g.internal[std::size_t(e)];
        if (col_idx[row_ptr[x.to] + x.value] != x.from) fail("a slot edge whose value is another entry");
        if (last[std::size_t(x.from)] >= q)
          fail("the edge " + std::to_string(x.from) + " -> " + std::to_string(x.to) + " in slot " + std::to_string(q) +
               " is not after its parent's in-edges");
        if (stamp[std::size_t(x.to)] == q) fail("two edges into " + std::to_string(x.to) + " share slot " + std::to_string(q));
        stamp[std::size_t(x.to)] = q;
      }
    for (const SlotEdge& x : g.ext)
      if (col_idx[row_ptr[x.to] + x.value] != x.from) fail("an external slot edge whose value is another entry");
  }
}

}  // namespace balsa::tassl
