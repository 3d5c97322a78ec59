// The GPU factorisation in stages (qr/gpu_stages.hpp; sparse QR paper
// sec. 3.4, staging for large trees).
#include "qr/gpu_stages.hpp"

#include <algorithm>
#include <string>

#include "balsa/error.hpp"

namespace balsa::qr {

std::size_t Stage::map_bytes() const {
  const GpuPlan& p = plan;
  return 16 * s_src.size() + 16 * p.cb_src.size() + 4 * (p.cb_q.size() + p.colmap.size()) + 28 * p.r_row.size() +
         16 * p.rpack_src.size() + sizeof(DeviceTask) * p.tasks.size() + sizeof(SolveTask) * p.solve_tasks.size();
}

std::int64_t StagedPlan::max_window(int parity) const {
  std::int64_t w = 0;
  for (std::size_t k = 0; k < stages.size(); ++k)
    if (parity < 0 || int(k % 2) == parity) w = std::max(w, stages[k].window_doubles());
  return w;
}

std::size_t StagedPlan::device_bytes(index_t nnz) const {
  std::size_t b = 8 * std::size_t(nnz) + 8 * std::size_t(max_window(0) + max_window(1));
  for (const Stage& s : stages) b += s.map_bytes();
  return b;
}

std::size_t StagedPlan::bytes_to_host() const {
  std::size_t b = 0;
  for (const Stage& s : stages) {
    b += 8 * std::size_t(s.arena_size + s.plan.vt_size + s.plan.tau_size + s.plan.r_entries());
    for (const CbBlock& e : s.exports) b += std::size_t(e.bytes());
  }
  return b;
}

namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// The front whose window starts at or before `at` last (starts ascending:
// arena offsets, rhs bases); an empty front shares its start with the
// next, which is the one holding data there.
index_t front_at(const std::vector<std::int64_t>& starts, std::int64_t at) {
  return index_t(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin()) - 1;
}

// Per front, from the global plan: its contribution rows [cb_begin,
// cb_end) of cb_* and its colmap entries (from its Pack tasks), the end of
// its arena and VT windows, its tau entries, and its device need (doubles).
struct FrontFacts {
  std::vector<std::int64_t> cb_begin, cb_end, colmap_at, arena_end, vt_end, own, block;
  std::int64_t cb_rows(index_t f) const { return cb_end[std::size_t(f)] - cb_begin[std::size_t(f)]; }
};

FrontFacts front_facts(const GpuPlan& P, const Symbolic& s) {
  const std::size_t nf = s.fronts.size();
  FrontFacts ff{std::vector<std::int64_t>(nf, 0), std::vector<std::int64_t>(nf, 0), std::vector<std::int64_t>(nf, 0),
                std::vector<std::int64_t>(nf), std::vector<std::int64_t>(nf), std::vector<std::int64_t>(nf),
                std::vector<std::int64_t>(nf, 0)};
  std::vector<bool> seen(nf, false);
  for (const DeviceTask& t : P.tasks) {
    if (t.kind != kPackTask) continue;
    const std::size_t c = std::size_t(front_at(P.offset, t.front));
    ff.cb_begin[c] = seen[c] ? std::min(ff.cb_begin[c], t.p0) : t.p0;
    ff.cb_end[c] = seen[c] ? std::max(ff.cb_end[c], t.p1) : t.p1;
    ff.colmap_at[c] = t.vt_next;
    seen[c] = true;
  }
  std::vector<std::int64_t> tau(nf, 0);
  for (const DenseFront& d : P.dense) tau[std::size_t(d.front)] = std::min(d.m, d.n);
  for (std::size_t f = 0; f < nf; ++f) {
    ff.arena_end[f] = f + 1 < nf ? P.offset[f + 1] : P.arena;
    ff.vt_end[f] = f + 1 < nf ? P.vt_offset[f + 1] : P.vt_size;
    ff.own[f] = ff.arena_end[f] - P.offset[f] + ff.vt_end[f] - P.vt_offset[f] + tau[f] + P.r_start[f + 1] - P.r_start[f];
    ff.block[f] = ff.cb_rows(index_t(f)) * s.fronts[f].n();
  }
  return ff;
}

// Front f's need in a stage starting at f0: its own windows, its export
// (pending until its parent joins), its children's blocks: imported from
// earlier stages, or no longer exported from this one.
std::int64_t added_need(const FrontFacts& ff, const Symbolic& s, index_t f, index_t f0) {
  const Front& F = s.fronts[std::size_t(f)];
  std::int64_t add = ff.own[std::size_t(f)] + (F.parent >= 0 ? ff.block[std::size_t(f)] : 0);
  for (index_t c : F.children) add += c < f0 ? ff.block[std::size_t(c)] : -ff.block[std::size_t(c)];
  return add;
}

// Sec. 3.4: the postorder cut where the running need would pass `window`
// doubles. Returns the stage bounds; too_big: a front alone over it.
std::vector<index_t> cut(const FrontFacts& ff, const Symbolic& s, std::int64_t window, index_t& too_big) {
  const index_t nf = index_t(s.fronts.size());
  std::vector<index_t> bounds{0};
  std::int64_t need = 0;
  for (index_t f = 0, f0 = 0; f < nf; ++f) {
    std::int64_t add = added_need(ff, s, f, f0);
    if (f > f0 && need + add > window) {
      bounds.push_back(f);
      f0 = f;
      need = 0;
      add = added_need(ff, s, f, f0);
    }
    if (add > window) {
      too_big = f;
      return {};
    }
    need += add;
  }
  bounds.push_back(nf);
  return bounds;
}

// One stage's plan, built while the global launches are walked once.
struct StageBuilder {
  const GpuPlan& P;
  const Symbolic& s;
  const FrontFacts& ff;
  Stage st;
  std::vector<std::int64_t> colmap_at, identity_at;  // per front: its local colmap entries (-1: not yet)
  bool open = false;                                // the current global launch gave it something

  StageBuilder(const GpuPlan& plan, const Symbolic& sym, const FrontFacts& facts, index_t f0, index_t f1)
      : P(plan), s(sym), ff(facts), colmap_at(sym.fronts.size(), -1), identity_at(sym.fronts.size(), -1) {
    st.f0 = f0;
    st.f1 = f1;
    st.arena0 = P.offset[std::size_t(f0)];
    st.arena_size = ff.arena_end[std::size_t(f1 - 1)] - st.arena0;
    st.vt0 = P.vt_offset[std::size_t(f0)];
    st.plan.vt_size = ff.vt_end[std::size_t(f1 - 1)] - st.vt0;
    st.r0 = P.r_start[std::size_t(f0)];
    st.y0 = P.y_start[std::size_t(f0)];
    st.plan.launch_start.assign(1, 0);
    st.plan.solve_launch_start.assign(1, 0);
    st.tau0 = P.tau_size;
    for (const DenseFront& d : P.dense)
      if (in(d.front)) {
        st.tau0 = std::min(st.tau0, d.tau);
        st.plan.tau_size += std::min(d.m, d.n);
      }
    if (st.plan.tau_size == 0) st.tau0 = 0;
    r_rows();
  }

  bool in(index_t f) const { return f >= st.f0 && f < st.f1; }

  void r_rows() {
    GpuPlan& p = st.plan;
    for (std::int64_t k = st.y0; k < P.y_start[std::size_t(st.f1)]; ++k) {
      p.r_row.push_back(P.r_row[std::size_t(k)] < 0 ? -1 : P.r_row[std::size_t(k)] - st.arena0);
      p.r_ld.push_back(P.r_ld[std::size_t(k)]);
      p.r_n.push_back(P.r_n[std::size_t(k)]);
      p.r_t.push_back(P.r_t[std::size_t(k)]);
    }
    for (index_t f = st.f0; f <= st.f1; ++f) p.r_start.push_back(P.r_start[std::size_t(f)] - st.r0);
    for (index_t f = st.f0; f < st.f1; ++f) p.bundles += index_t(P.schedules[std::size_t(f)].bundles.size());
  }

  // The blocks crossing its bounds, after the arena window: imports, then
  // exports (given their places in the host cb store, `store` onwards).
  void blocks(std::vector<std::int64_t>& store_of, std::int64_t& store) {
    std::int64_t at = st.arena_size;
    for (index_t f = st.f0; f < st.f1; ++f)
      for (index_t c : s.fronts[std::size_t(f)].children)
        if (c < st.f0 && ff.cb_rows(c) > 0) {
          st.imports.push_back({c, ff.cb_rows(c), s.fronts[std::size_t(c)].n(), store_of[std::size_t(c)], at});
          at += ff.block[std::size_t(c)];
        }
    for (index_t f = st.f0; f < st.f1; ++f)
      if (s.fronts[std::size_t(f)].parent >= st.f1 && ff.cb_rows(f) > 0) {
        st.exports.push_back({f, ff.cb_rows(f), s.fronts[std::size_t(f)].n(), store, at});
        store_of[std::size_t(f)] = store;
        store += ff.block[std::size_t(f)];
        at += ff.block[std::size_t(f)];
      }
    st.plan.arena = at;
    for (const CbBlock& b : st.imports) add_packs(b.child, b.region, parent_offset(b.child), b, false);
    if (!st.imports.empty()) close_launch();
  }

  std::int64_t parent_offset(index_t c) const {
    return P.offset[std::size_t(s.fronts[std::size_t(c)].parent)] - st.arena0;
  }

  // Child c's column map in the stage's colmap (the identity: an export's).
  std::int64_t colmap_of(index_t c, bool identity) {
    std::int64_t& at = (identity ? identity_at : colmap_at)[std::size_t(c)];
    if (at < 0) {
      at = std::int64_t(st.plan.colmap.size());
      for (index_t l = 0; l < s.fronts[std::size_t(c)].n(); ++l)
        st.plan.colmap.push_back(identity ? std::int32_t(l) : P.colmap[std::size_t(ff.colmap_at[std::size_t(c)] + l)]);
    }
    return at;
  }

  // Child c's Pack tasks (sec. 3.3.1) from `from` to `to` in the stage's
  // buffer; `block`: the export (to) or the import (from), or none.
  void add_packs(index_t c, std::int64_t from, std::int64_t to, const CbBlock& block, bool exporting) {
    GpuPlan& p = st.plan;
    const bool importing = block.rows > 0 && !exporting;
    const std::int64_t b = ff.cb_begin[std::size_t(c)], e = ff.cb_end[std::size_t(c)];
    const index_t parent = s.fronts[std::size_t(c)].parent;
    for (std::int64_t k = b; k < e; k += kPackChunk) {
      DeviceTask d;
      d.kind = kPackTask;
      d.front = from;
      d.vt = to;
      d.vt_next = colmap_of(c, exporting);
      d.ld = importing ? std::int32_t(block.rows) : P.ld[std::size_t(c)];
      d.count = exporting ? std::int32_t(block.rows) : P.ld[std::size_t(parent)];
      d.col = std::int32_t(s.fronts[std::size_t(c)].n());
      d.p0 = std::int64_t(p.cb_src.size());
      for (std::int64_t q = k; q < std::min(e, k + kPackChunk); ++q) {
        p.cb_src.push_back(importing ? block.region + (q - b) : P.cb_src[std::size_t(q)] - st.arena0);
        p.cb_dst.push_back(exporting ? block.region + (q - b) : P.cb_dst[std::size_t(q)] - st.arena0);
        p.cb_q.push_back(P.cb_q[std::size_t(q)]);
      }
      d.p1 = std::int64_t(p.cb_src.size());
      p.tasks.push_back(d);
    }
    open = true;
  }

  void add_task(const DeviceTask& t) {
    if (t.kind != kPackTask) {
      DeviceTask d = t;
      d.front -= st.arena0;
      d.vt -= st.vt0;
      if (d.kind == std::int32_t(TileTaskKind::ApplyFactorize)) d.vt_next -= st.vt0;
      st.plan.tasks.push_back(d);
      open = true;
      return;
    }
    const index_t c = front_at(P.offset, t.front);
    if (t.p0 != ff.cb_begin[std::size_t(c)]) return;  // (a child's packs are made together, at its first)
    if (s.fronts[std::size_t(c)].parent < st.f1) {
      add_packs(c, t.front - st.arena0, parent_offset(c), CbBlock{}, false);
      return;
    }
    const auto x = std::find_if(st.exports.begin(), st.exports.end(), [&](const CbBlock& b) { return b.child == c; });
    add_packs(c, t.front - st.arena0, x->region, *x, true);
  }

  void add_solve_task(const SolveTask& t) {
    SolveTask u = t;
    if (t.kind == kPackTask) {  // the rows' packs: their entries copied (global rhs rows)
      u.front = std::int64_t(st.plan.rpack_src.size());
      for (std::int64_t e = t.front; e < t.vt; ++e) {
        st.plan.rpack_src.push_back(P.rpack_src[std::size_t(e)]);
        st.plan.rpack_dst.push_back(P.rpack_dst[std::size_t(e)]);
      }
      u.vt = std::int64_t(st.plan.rpack_src.size());
    } else {
      u.front -= st.arena0;
      u.vt -= st.vt0;
    }
    st.plan.solve_tasks.push_back(u);
    open = true;
  }

  void add_dense(const DenseFront& d) {
    DenseFront u = d;
    u.offset -= st.arena0;
    u.tau -= st.tau0;
    u.launch = std::int64_t(st.plan.launch_start.size()) - 1;
    st.plan.dense.push_back(u);
    open = true;
  }

  void close_launch() {
    st.plan.launch_start.push_back(std::int64_t(st.plan.tasks.size()));
    st.plan.solve_launch_start.push_back(std::int64_t(st.plan.solve_tasks.size()));
    open = false;
  }
};

// The stages of `bounds`: the global launches walked once, each task to
// its front's stage; A22's entries to theirs.
std::vector<Stage> build_stages(const GpuPlan& P, const Symbolic& s, const FrontFacts& ff,
                                const std::vector<index_t>& bounds, std::int64_t& store) {
  std::vector<StageBuilder> b;
  std::vector<index_t> stage_of(s.fronts.size());
  std::vector<std::int64_t> store_of(s.fronts.size(), -1);
  store = 0;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    b.emplace_back(P, s, ff, bounds[k], bounds[k + 1]);
    b.back().blocks(store_of, store);
    for (index_t f = bounds[k]; f < bounds[k + 1]; ++f) stage_of[std::size_t(f)] = index_t(k);
  }
  const auto builder = [&](std::int64_t offset) -> StageBuilder& {
    return b[std::size_t(stage_of[std::size_t(front_at(P.offset, offset))])];
  };
  for (std::size_t l = 0; l + 1 < P.launch_start.size(); ++l) {
    for (const DenseFront& d : P.dense_in(std::int64_t(l))) b[std::size_t(stage_of[std::size_t(d.front)])].add_dense(d);
    for (std::int64_t k = P.launch_start[l]; k < P.launch_start[l + 1]; ++k) builder(P.tasks[std::size_t(k)].front).add_task(P.tasks[std::size_t(k)]);
    for (std::int64_t k = P.solve_launch_start[l]; k < P.solve_launch_start[l + 1]; ++k) {
      const SolveTask& t = P.solve_tasks[std::size_t(k)];
      const index_t f = t.kind == kPackTask ? front_at(P.rhs_base, P.rpack_src[std::size_t(t.front)]) : front_at(P.offset, t.front);
      b[std::size_t(stage_of[std::size_t(f)])].add_solve_task(t);
    }
    for (StageBuilder& x : b)
      if (x.open) x.close_launch();
  }
  for (std::size_t a = 0; a < P.s_dst.size(); ++a)
    if (const std::int64_t d = P.s_dst[a]; d >= 0) {
      Stage& st = builder(d).st;
      st.s_src.push_back(std::int64_t(a));
      st.plan.s_dst.push_back(d - st.arena0);
    }
  std::vector<Stage> stages;
  for (StageBuilder& x : b) stages.push_back(std::move(x.st));
  return stages;
}

// A cut whose device need fits the budget: stages of at most `window`
// doubles, the window shrunk by the excess while the need passes the
// budget (the maps' estimate was short). Empty when none is found; big: a
// front alone over the window (-1: none).
std::vector<Stage> fit(const GpuPlan& plan, const Symbolic& s, const FrontFacts& ff, index_t nnz, std::size_t budget,
                       std::int64_t window, StagedPlan& sp, index_t& big) {
  for (int attempt = 0; attempt < 16 && window > 0; ++attempt) {
    const std::vector<index_t> bounds = cut(ff, s, window, big);
    if (bounds.empty()) return {};
    sp.stages = build_stages(plan, s, ff, bounds, sp.cb_store);
    const std::size_t need = sp.device_bytes(nnz);
    if (need <= budget) return std::move(sp.stages);
    window = std::min(window, sp.max_window()) - std::int64_t(need - budget + 15) / 16;
  }
  return {};
}

}  // namespace

StagedPlan make_staged_plan(const GpuPlan& plan, const Symbolic& s, index_t nnz, std::size_t budget) {
  const FrontFacts ff = front_facts(plan, s);
  const std::int64_t windows = plan.arena + plan.vt_size + plan.tau_size + plan.r_entries();
  // The values, the maps and the tasks stay resident (about); the rest is the two window buffers.
  const std::size_t resident = plan.device_bytes(nnz) - 8 * std::size_t(windows) + 8 * std::size_t(nnz);
  const std::int64_t room = (std::int64_t(budget) - std::int64_t(resident)) / 8;  // doubles
  StagedPlan sp;
  sp.budget = budget;
  index_t big = -1;
  sp.stages = fit(plan, s, ff, nnz, budget, room / 2, sp, big);  // (two windows of the largest stage at most)
  if (!sp.stages.empty()) return sp;
  if (room <= 0)
    throw DeviceOutOfMemory("SparseQR on the GPU in stages: A22's values and the assembly maps alone need about " +
                            str(std::int64_t(resident)) + " bytes, more than the device budget (" + str(std::int64_t(budget)) +
                            " bytes)");
  if (big < 0)
    throw DeviceOutOfMemory("SparseQR on the GPU in stages: no cut of the tree fits the device budget (" +
                            str(std::int64_t(budget)) + " bytes)");
  const Front& F = s.fronts[std::size_t(big)];
  throw DeviceOutOfMemory("SparseQR on the GPU in stages: front " + str(big) + " (" + str(F.m()) + " x " + str(F.n()) +
                          ") alone needs a window of " + str(8 * added_need(ff, s, big, big)) +
                          " bytes; two such windows (one per buffer), A's values and the assembly maps (about " +
                          str(std::int64_t(resident)) + " bytes) pass the device budget (" + str(std::int64_t(budget)) +
                          " bytes)");
}

}  // namespace balsa::qr
