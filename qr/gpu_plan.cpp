// The GPU factorisation's plan (qr/gpu_plan.hpp; sparse QR paper sec. 3.3
// the sparse QR scheduler, 3.3.1 S-assembly and pack assembly).
#include "qr/gpu_plan.hpp"

#include <algorithm>
#include <numeric>

namespace balsa::qr {

namespace {

index_t tiles_of(index_t k) { return (k + kTile - 1) / kTile; }

// The front row holding R's row q (its bucket's final tile), -1: none.
std::int64_t r_row(const FrontSchedule& sch, index_t q) {
  const index_t b = q / kTile;
  if (b >= index_t(sch.final_tile.size()) || sch.final_tile[std::size_t(b)] < 0) return -1;
  return std::int64_t(sch.final_tile[std::size_t(b)]) * kTile + q % kTile;
}

// The solve's row packs: rows [begin, end) of rpack_src / rpack_dst.
void add_row_packs(std::vector<std::vector<SolveTask>>& launches, std::size_t launch, std::int64_t begin, std::int64_t end) {
  for (std::int64_t e = begin; e < end; e += kPackChunk) {
    SolveTask t;
    t.kind = kPackTask;
    t.front = e;
    t.vt = std::min(end, e + kPackChunk);
    launches[launch].push_back(t);
  }
}

template <class Task>
void flatten(std::vector<std::vector<Task>>& launches, std::vector<Task>& tasks, std::vector<std::int64_t>& starts) {
  starts.assign(1, 0);
  for (std::vector<Task>& l : launches) {
    tasks.insert(tasks.end(), l.begin(), l.end());
    starts.push_back(std::int64_t(tasks.size()));
  }
}

}  // namespace

std::span<const DenseFront> GpuPlan::dense_in(std::int64_t launch) const {
  const auto first = std::lower_bound(dense.begin(), dense.end(), launch,
                                      [](const DenseFront& d, std::int64_t v) { return d.launch < v; });
  const auto last = std::upper_bound(first, dense.end(), launch,
                                     [](std::int64_t v, const DenseFront& d) { return v < d.launch; });
  return {first, last};
}

std::size_t GpuPlan::device_bytes(index_t nnz) const {
  return 8 * (std::size_t(arena) + std::size_t(vt_size) + std::size_t(tau_size) + s_dst.size() + 2 * cb_src.size() +
              std::size_t(r_entries()) + 2 * r_row.size() + std::size_t(nnz)) +
         4 * (cb_q.size() + colmap.size()) + sizeof(DeviceTask) * tasks.size() + sizeof(SolveTask) * solve_tasks.size();
}

namespace {

// What the layout step hands to the later ones: per front, its rows' places
// in the staircase (A's rows, then the children's contribution rows), and
// cb[f]: the R rows q of front f passed to its parent (its contribution
// rows, in order): every row q in [pivots, n) that the factorisation can
// leave nonzero. A dense front's QR compresses R into its first min(m, n)
// rows; the tiles' R keeps each bucket's rows in their final tile, so that
// padding and empty buckets can leave nonzero rows beyond min(m, n): each
// final tile's rows are passed (at most n - pivots, zero rows included).
struct Staircases {
  std::vector<std::vector<index_t>> place, cb;
  std::vector<index_t> local;  // scratch: a column's place in the current front (-1: none)
};

// Per child: its pack tasks' rows [pack_begin, pack_end) of cb_*, its row
// packs [rpack_begin, rpack_end) of rpack_*, its first colmap entry.
struct PackRanges {
  std::vector<std::int64_t> pack_begin, pack_end, rpack_begin, rpack_end, colmap_at;
};

void mark_columns(std::vector<index_t>& local, const Front& F, bool on) {
  for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = on ? l : -1;
}

// Front f's staircase (sec. 3.3: rows sorted by their leftmost column):
// the leftmost column of each of its rows, and the sorted order.
std::vector<index_t> leftmost_columns(const Symbolic& s, index_t f, Staircases& st) {
  const Front& F = s.fronts[std::size_t(f)];
  mark_columns(st.local, F, true);
  std::vector<index_t> leftmost;  // A's rows, then the children's contribution rows (row q starts at its column q)
  for (index_t i : F.rows) leftmost.push_back(st.local[std::size_t(s.leftmost[std::size_t(i)])]);
  for (index_t ch : F.children)
    for (index_t q : st.cb[std::size_t(ch)])
      leftmost.push_back(st.local[std::size_t(s.fronts[std::size_t(ch)].cols[std::size_t(q)])]);
  mark_columns(st.local, F, false);
  return leftmost;
}

// A front the dense library factors: one launch slot, R in its first tiles.
void schedule_dense(GpuPlan& p, FrontSchedule& sch, index_t f, index_t m, index_t n, index_t RT, index_t CT) {
  sch.row_tiles = RT;
  sch.col_tiles = CT;
  sch.rounds.resize(1);
  sch.final_tile.assign(std::size_t(CT), -1);
  for (index_t j = 0; j < std::min(RT, CT); ++j) sch.final_tile[std::size_t(j)] = j;
  DenseFront d;
  d.front = f;
  d.m = m;
  d.n = n;
  d.ld = std::int32_t(RT * kTile);
  d.offset = p.arena;
  d.tau = p.tau_size;
  d.rhs_base = p.rhs_rows;
  p.tau_size += std::min(m, n);
  p.dense.push_back(d);
}

// The staircase, the schedule and the layout of every front (postorder:
// children first, so that their contribution rows are known).
void lay_out_fronts(GpuPlan& p, const Symbolic& s, double dense_flops, bool pipeline, Staircases& st) {
  const index_t nf = index_t(s.fronts.size());
  for (index_t f = 0; f < nf; ++f) {
    const Front& F = s.fronts[std::size_t(f)];
    const std::vector<index_t> leftmost = leftmost_columns(s, f, st);
    const index_t m = index_t(leftmost.size()), RT = tiles_of(m), CT = tiles_of(F.n());
    std::vector<index_t> order(static_cast<std::size_t>(m));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](index_t a, index_t b) { return leftmost[std::size_t(a)] < leftmost[std::size_t(b)]; });
    st.place[std::size_t(f)].resize(std::size_t(m));
    for (index_t t = 0; t < m; ++t) st.place[std::size_t(f)][std::size_t(order[std::size_t(t)])] = t;
    FrontSchedule& sch = p.schedules[std::size_t(f)];
    if (m > 0 && front_flops(m, F.n()) >= dense_flops) {
      schedule_dense(p, sch, f, m, F.n(), RT, CT);
    } else {
      std::vector<index_t> left(static_cast<std::size_t>(RT));
      for (index_t i = 0; i < RT; ++i) left[std::size_t(i)] = leftmost[std::size_t(order[std::size_t(i * kTile)])] / kTile;
      sch = bucket_schedule(CT, left, pipeline);
    }
    p.ld[std::size_t(f)] = std::int32_t(RT * kTile);
    p.offset[std::size_t(f)] = p.arena;
    p.arena += std::int64_t(RT) * kTile * std::int64_t(CT) * kTile;
    p.vt_offset[std::size_t(f)] = p.vt_size;
    p.vt_size += std::int64_t(sch.bundles.size()) * kVtRows * kTile;
    p.rhs_base[std::size_t(f)] = p.rhs_rows;
    p.rhs_rows += RT * kTile;
    p.bundles += index_t(sch.bundles.size());
    if (F.parent >= 0) {
      const bool dense = !p.dense.empty() && p.dense.back().front == f;
      const index_t end = dense ? std::min(m, F.n()) : F.n();
      for (index_t q = F.pivots; q < end; ++q)
        if (r_row(sch, q) >= 0) st.cb[std::size_t(f)].push_back(q);
    }
  }
}

// Sec. 3.3.1 S-assembly: A22's entries into their fronts, and the right-hand
// sides' rows.
void s_assembly(GpuPlan& p, const Csr<double>& A, const Symbolic& s, Staircases& st) {
  p.s_dst.assign(std::size_t(A.nnz()), -1);
  p.b_row.assign(std::size_t(A.rows), -1);
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    const Front& F = s.fronts[std::size_t(f)];
    mark_columns(st.local, F, true);
    const std::int64_t ld = p.ld[std::size_t(f)];
    for (std::size_t t = 0; t < F.rows.size(); ++t) {
      const index_t i = F.rows[t], row = st.place[std::size_t(f)][t];
      p.b_row[std::size_t(i)] = p.rhs_base[std::size_t(f)] + row;
      for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a)
        p.s_dst[std::size_t(a)] =
            p.offset[std::size_t(f)] + row + ld * st.local[std::size_t(s.q_inverse[std::size_t(A.col_idx[a])])];
    }
    mark_columns(st.local, F, false);
  }
}

// Sec. 3.3: a front's round r runs in launch start + r; its pack into the
// parent in launch start + rounds; the parent starts after its last
// child's pack. Returns the launches in all.
std::int64_t launch_starts(const GpuPlan& p, const Symbolic& s, std::vector<std::int64_t>& start) {
  std::int64_t launches = 0;
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {  // postorder: children first
    const std::int64_t done = start[std::size_t(f)] + std::int64_t(p.schedules[std::size_t(f)].rounds.size());
    const index_t parent = s.fronts[std::size_t(f)].parent;
    if (parent >= 0) start[std::size_t(parent)] = std::max(start[std::size_t(parent)], done + 1);
    launches = std::max(launches, done + (parent >= 0 ? 1 : 0));
  }
  return launches;
}

// Sec. 3.3.1 pack assembly: each child's contribution rows into its
// parent's rows, its columns into the parent's (colmap).
void pack_maps(GpuPlan& p, const Symbolic& s, Staircases& st, PackRanges& pr) {
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    const Front& P = s.fronts[std::size_t(f)];
    mark_columns(st.local, P, true);
    index_t t = index_t(P.rows.size());
    for (index_t ch : P.children) {
      const Front& C = s.fronts[std::size_t(ch)];
      const FrontSchedule& cs = p.schedules[std::size_t(ch)];
      pr.colmap_at[std::size_t(ch)] = std::int64_t(p.colmap.size());
      for (index_t l = 0; l < C.n(); ++l)
        p.colmap.push_back(l < C.pivots ? -1 : std::int32_t(st.local[std::size_t(C.cols[std::size_t(l)])]));
      pr.pack_begin[std::size_t(ch)] = std::int64_t(p.cb_src.size());
      pr.rpack_begin[std::size_t(ch)] = std::int64_t(p.rpack_src.size());
      for (const index_t q : st.cb[std::size_t(ch)]) {  // row q: the child's columns q .. n-1 (upper triangular)
        const std::int64_t src = r_row(cs, q), dst = st.place[std::size_t(f)][std::size_t(t++)];
        p.rpack_src.push_back(p.rhs_base[std::size_t(ch)] + src);
        p.rpack_dst.push_back(p.rhs_base[std::size_t(f)] + dst);
        p.cb_src.push_back(p.offset[std::size_t(ch)] + src);
        p.cb_dst.push_back(p.offset[std::size_t(f)] + dst);
        p.cb_q.push_back(std::int32_t(q));
      }
      pr.pack_end[std::size_t(ch)] = std::int64_t(p.cb_src.size());
      pr.rpack_end[std::size_t(ch)] = std::int64_t(p.rpack_src.size());
    }
    mark_columns(st.local, P, false);
  }
}

// R's rows (FrontFactor's layout) and the rhs rows they take.
void r_row_maps(GpuPlan& p, const Symbolic& s) {
  const index_t nf = index_t(s.fronts.size());
  p.r_start.resize(std::size_t(nf) + 1);
  p.y_start.resize(std::size_t(nf) + 1);
  std::int64_t entries = 0;
  for (index_t f = 0; f < nf; ++f) {
    const Front& F = s.fronts[std::size_t(f)];
    const FrontSchedule& sch = p.schedules[std::size_t(f)];
    p.r_start[std::size_t(f)] = entries;
    p.y_start[std::size_t(f)] = std::int64_t(p.y_row.size());
    for (index_t t = 0; t < F.pivots; ++t) {
      const std::int64_t row = r_row(sch, t);
      p.y_row.push_back(row < 0 ? -1 : p.rhs_base[std::size_t(f)] + row);
      p.r_row.push_back(row < 0 ? -1 : p.offset[std::size_t(f)] + row);
      p.r_ld.push_back(p.ld[std::size_t(f)]);
      p.r_n.push_back(std::int32_t(F.n()));
      p.r_t.push_back(std::int32_t(t));
      entries += F.n() - t;
    }
  }
  p.r_start[std::size_t(nf)] = entries;
  p.y_start[std::size_t(nf)] = std::int64_t(p.y_row.size());
}

// Sec. 3.2: front f's tile tasks, round r into launch s0 + r.
void tile_tasks(const GpuPlan& p, index_t f, std::int64_t s0, std::vector<std::vector<DeviceTask>>& L) {
  const FrontSchedule& sch = p.schedules[std::size_t(f)];
  const auto vt_of = [&](index_t b) {
    return p.vt_offset[std::size_t(f)] + std::int64_t(sch.bundles[std::size_t(b)].slot) * kVtRows * kTile;
  };
  for (std::size_t r = 0; r < sch.rounds.size(); ++r)
    for (const TileTask& task : sch.rounds[r]) {
      const Bundle& B = sch.bundles[std::size_t(task.bundle)];
      DeviceTask d;
      d.kind = std::int32_t(task.kind);
      d.front = p.offset[std::size_t(f)];
      d.ld = p.ld[std::size_t(f)];
      d.vt = vt_of(task.bundle);
      d.vt_next = task.next >= 0 ? vt_of(task.next) : 0;
      d.count = std::int32_t(B.count);
      d.col = std::int32_t(B.col);
      d.c0 = std::int32_t(task.c0);
      d.c1 = std::int32_t(task.c1);
      for (int q = 0; q < 3; ++q) d.tiles[q] = std::int32_t(B.tiles[std::size_t(q)]);
      if (task.next >= 0) {
        const Bundle& N = sch.bundles[std::size_t(task.next)];
        d.next_count = std::int32_t(N.count);
        for (int q = 0; q < 3; ++q) d.next_tiles[q] = std::int32_t(N.tiles[std::size_t(q)]);
      }
      L[std::size_t(s0) + r].push_back(d);
    }
}

// The solve's replay of front f: each bundle's reflectors in the launch of
// the round that factorized it.
void replay_tasks(const GpuPlan& p, index_t f, std::int64_t s0, std::vector<std::vector<SolveTask>>& LS) {
  const FrontSchedule& sch = p.schedules[std::size_t(f)];
  for (std::size_t b = 0; b < sch.bundles.size(); ++b) {
    const Bundle& B = sch.bundles[b];
    SolveTask t;
    t.front = p.offset[std::size_t(f)];
    t.vt = p.vt_offset[std::size_t(f)] + std::int64_t(B.slot) * kVtRows * kTile;
    t.base = p.rhs_base[std::size_t(f)];
    t.ld = p.ld[std::size_t(f)];
    t.count = std::int32_t(B.count);
    t.col = std::int32_t(B.col);
    for (int q = 0; q < 3; ++q) t.tiles[q] = std::int32_t(B.tiles[std::size_t(q)]);
    LS[std::size_t(s0 + sch.bundle_round[b])].push_back(t);
  }
}

// Sec. 3.3.1: child f's Pack tasks into its parent, in launch `at`, and
// the solve's row packs beside them.
void pack_tasks(const GpuPlan& p, const Symbolic& s, index_t f, index_t parent, std::size_t at, const PackRanges& pr,
                std::vector<std::vector<DeviceTask>>& L, std::vector<std::vector<SolveTask>>& LS) {
  for (std::int64_t k = pr.pack_begin[std::size_t(f)]; k < pr.pack_end[std::size_t(f)]; k += kPackChunk) {
    DeviceTask d;
    d.kind = kPackTask;
    d.front = p.offset[std::size_t(f)];
    d.vt = p.offset[std::size_t(parent)];
    d.vt_next = pr.colmap_at[std::size_t(f)];
    d.ld = p.ld[std::size_t(f)];
    d.count = p.ld[std::size_t(parent)];
    d.col = std::int32_t(s.fronts[std::size_t(f)].n());
    d.p0 = k;
    d.p1 = std::min(pr.pack_end[std::size_t(f)], k + kPackChunk);
    L[at].push_back(d);
  }
  add_row_packs(LS, at, pr.rpack_begin[std::size_t(f)], pr.rpack_end[std::size_t(f)]);
}

}  // namespace

GpuPlan make_gpu_plan(const Csr<double>& A, const Symbolic& s, double dense_flops, bool pipeline) {
  GpuPlan p;
  const std::size_t count = s.fronts.size();
  p.schedules.resize(count);
  p.offset.resize(count);
  p.ld.resize(count);
  p.vt_offset.resize(count);
  p.rhs_base.resize(count);
  Staircases st{std::vector<std::vector<index_t>>(count), std::vector<std::vector<index_t>>(count),
                std::vector<index_t>(static_cast<std::size_t>(s.n), -1)};
  lay_out_fronts(p, s, dense_flops, pipeline, st);
  s_assembly(p, A, s, st);
  std::vector<std::int64_t> start(count, 0);
  const std::int64_t launches = launch_starts(p, s, start);
  PackRanges pr{std::vector<std::int64_t>(count, 0), std::vector<std::int64_t>(count, 0),
                std::vector<std::int64_t>(count, 0), std::vector<std::int64_t>(count, 0),
                std::vector<std::int64_t>(count, 0)};
  pack_maps(p, s, st, pr);
  r_row_maps(p, s);
  // The task lists, launch by launch.
  std::vector<std::vector<DeviceTask>> L(static_cast<std::size_t>(launches));
  std::vector<std::vector<SolveTask>> LS(static_cast<std::size_t>(launches));
  for (index_t f = 0; f < index_t(count); ++f) {
    const std::int64_t s0 = start[std::size_t(f)];
    tile_tasks(p, f, s0, L);
    replay_tasks(p, f, s0, LS);
    if (const index_t parent = s.fronts[std::size_t(f)].parent; parent >= 0)
      pack_tasks(p, s, f, parent, std::size_t(s0) + p.schedules[std::size_t(f)].rounds.size(), pr, L, LS);
  }
  for (DenseFront& d : p.dense) d.launch = start[std::size_t(d.front)];
  std::stable_sort(p.dense.begin(), p.dense.end(), [](const DenseFront& a, const DenseFront& b) { return a.launch < b.launch; });
  flatten(L, p.tasks, p.launch_start);
  flatten(LS, p.solve_tasks, p.solve_launch_start);
  return p;
}

}  // namespace balsa::qr
