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

GpuPlan make_gpu_plan(const Csr<double>& A, const Symbolic& s, double dense_flops, bool pipeline) {
  GpuPlan p;
  const index_t nf = index_t(s.fronts.size());
  p.schedules.resize(std::size_t(nf));
  p.offset.resize(std::size_t(nf));
  p.ld.resize(std::size_t(nf));
  p.vt_offset.resize(std::size_t(nf));
  p.rhs_base.resize(std::size_t(nf));
  std::vector<std::vector<index_t>> place(static_cast<std::size_t>(nf));
  // cb[f]: the R rows q of front f passed to its parent (its contribution
  // rows, in order): every row q in [pivots, n) that the factorisation can
  // leave nonzero. A dense front's QR compresses R into its first min(m, n)
  // rows; the tiles' R keeps each bucket's rows in their final tile, so that
  // padding and empty buckets can leave nonzero rows beyond min(m, n): each
  // final tile's rows are passed (at most n - pivots, zero rows included).
  std::vector<std::vector<index_t>> cb(static_cast<std::size_t>(nf));
  std::vector<index_t> local(static_cast<std::size_t>(s.n), -1);
  for (index_t f = 0; f < nf; ++f) {  // the staircase, the schedule, the layout (postorder: children first)
    const Front& F = s.fronts[std::size_t(f)];
    for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = l;
    std::vector<index_t> leftmost;  // A's rows, then the children's contribution rows (row q starts at its column q)
    for (index_t i : F.rows) leftmost.push_back(local[std::size_t(s.leftmost[std::size_t(i)])]);
    for (index_t ch : F.children)
      for (index_t q : cb[std::size_t(ch)]) leftmost.push_back(local[std::size_t(s.fronts[std::size_t(ch)].cols[std::size_t(q)])]);
    for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = -1;
    const index_t m = index_t(leftmost.size()), RT = tiles_of(m), CT = tiles_of(F.n());
    std::vector<index_t> order(static_cast<std::size_t>(m));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](index_t a, index_t b) { return leftmost[std::size_t(a)] < leftmost[std::size_t(b)]; });
    place[std::size_t(f)].resize(std::size_t(m));
    for (index_t t = 0; t < m; ++t) place[std::size_t(f)][std::size_t(order[std::size_t(t)])] = t;
    FrontSchedule& sch = p.schedules[std::size_t(f)];
    if (m > 0 && front_flops(m, F.n()) >= dense_flops) {  // the dense library's: one launch slot
      sch.row_tiles = RT;
      sch.col_tiles = CT;
      sch.rounds.resize(1);
      sch.final_tile.assign(std::size_t(CT), -1);
      for (index_t j = 0; j < std::min(RT, CT); ++j) sch.final_tile[std::size_t(j)] = j;
      DenseFront d;
      d.front = f;
      d.m = m;
      d.n = F.n();
      d.ld = std::int32_t(RT * kTile);
      d.offset = p.arena;
      d.tau = p.tau_size;
      d.rhs_base = p.rhs_rows;
      p.tau_size += std::min(m, F.n());
      p.dense.push_back(d);
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
        if (r_row(sch, q) >= 0) cb[std::size_t(f)].push_back(q);
    }
  }
  // S-assembly and the right-hand sides' rows.
  p.s_dst.assign(std::size_t(A.nnz()), -1);
  p.b_row.assign(std::size_t(A.rows), -1);
  for (index_t f = 0; f < nf; ++f) {
    const Front& F = s.fronts[std::size_t(f)];
    for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = l;
    const std::int64_t ld = p.ld[std::size_t(f)];
    for (std::size_t t = 0; t < F.rows.size(); ++t) {
      const index_t i = F.rows[t], row = place[std::size_t(f)][t];
      p.b_row[std::size_t(i)] = p.rhs_base[std::size_t(f)] + row;
      for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a)
        p.s_dst[std::size_t(a)] = p.offset[std::size_t(f)] + row + ld * local[std::size_t(s.q_inverse[std::size_t(A.col_idx[a])])];
    }
    for (index_t l = 0; l < F.n(); ++l) local[std::size_t(F.cols[std::size_t(l)])] = -1;
  }
  // Launches: a front's round r runs in launch start + r; its pack into the
  // parent in launch start + rounds; the parent starts after its last child's pack.
  const std::size_t count = static_cast<std::size_t>(nf);
  std::vector<std::int64_t> start(count, 0), pack_begin(count, 0), pack_end(count, 0), rpack_begin(count, 0), rpack_end(count, 0);
  std::int64_t launches = 0;
  for (index_t f = 0; f < nf; ++f) {  // postorder: children first
    const std::int64_t done = start[std::size_t(f)] + std::int64_t(p.schedules[std::size_t(f)].rounds.size());
    const index_t parent = s.fronts[std::size_t(f)].parent;
    if (parent >= 0) start[std::size_t(parent)] = std::max(start[std::size_t(parent)], done + 1);
    launches = std::max(launches, done + (parent >= 0 ? 1 : 0));
  }
  // Pack maps: each child's contribution rows into its parent's rows, its
  // columns into the parent's (colmap).
  std::vector<std::int64_t> colmap_at(static_cast<std::size_t>(nf), 0);
  for (index_t f = 0; f < nf; ++f) {
    const Front& P = s.fronts[std::size_t(f)];
    for (index_t l = 0; l < P.n(); ++l) local[std::size_t(P.cols[std::size_t(l)])] = l;
    index_t t = index_t(P.rows.size());
    for (index_t ch : P.children) {
      const Front& C = s.fronts[std::size_t(ch)];
      const FrontSchedule& cs = p.schedules[std::size_t(ch)];
      colmap_at[std::size_t(ch)] = std::int64_t(p.colmap.size());
      for (index_t l = 0; l < C.n(); ++l)
        p.colmap.push_back(l < C.pivots ? -1 : std::int32_t(local[std::size_t(C.cols[std::size_t(l)])]));
      pack_begin[std::size_t(ch)] = std::int64_t(p.cb_src.size());
      rpack_begin[std::size_t(ch)] = std::int64_t(p.rpack_src.size());
      for (const index_t q : cb[std::size_t(ch)]) {  // row q: the child's columns q .. n-1 (upper triangular)
        const std::int64_t src = r_row(cs, q), dst = place[std::size_t(f)][std::size_t(t++)];
        p.rpack_src.push_back(p.rhs_base[std::size_t(ch)] + src);
        p.rpack_dst.push_back(p.rhs_base[std::size_t(f)] + dst);
        p.cb_src.push_back(p.offset[std::size_t(ch)] + src);
        p.cb_dst.push_back(p.offset[std::size_t(f)] + dst);
        p.cb_q.push_back(std::int32_t(q));
      }
      pack_end[std::size_t(ch)] = std::int64_t(p.cb_src.size());
      rpack_end[std::size_t(ch)] = std::int64_t(p.rpack_src.size());
    }
    for (index_t l = 0; l < P.n(); ++l) local[std::size_t(P.cols[std::size_t(l)])] = -1;
  }
  // R's rows (FrontFactor's layout) and the rhs rows they take.
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
  // The task lists, launch by launch.
  std::vector<std::vector<DeviceTask>> L(static_cast<std::size_t>(launches));
  std::vector<std::vector<SolveTask>> LS(static_cast<std::size_t>(launches));
  for (index_t f = 0; f < nf; ++f) {
    const FrontSchedule& sch = p.schedules[std::size_t(f)];
    const std::int64_t s0 = start[std::size_t(f)];
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
    for (std::size_t b = 0; b < sch.bundles.size(); ++b) {
      const Bundle& B = sch.bundles[b];
      SolveTask t;
      t.front = p.offset[std::size_t(f)];
      t.vt = vt_of(index_t(b));
      t.base = p.rhs_base[std::size_t(f)];
      t.ld = p.ld[std::size_t(f)];
      t.count = std::int32_t(B.count);
      t.col = std::int32_t(B.col);
      for (int q = 0; q < 3; ++q) t.tiles[q] = std::int32_t(B.tiles[std::size_t(q)]);
      LS[std::size_t(s0 + sch.bundle_round[b])].push_back(t);
    }
    if (const index_t parent = s.fronts[std::size_t(f)].parent; parent >= 0) {
      const std::size_t at = std::size_t(s0) + sch.rounds.size();
      for (std::int64_t k = pack_begin[std::size_t(f)]; k < pack_end[std::size_t(f)]; k += kPackChunk) {
        DeviceTask d;
        d.kind = kPackTask;
        d.front = p.offset[std::size_t(f)];
        d.vt = p.offset[std::size_t(parent)];
        d.vt_next = colmap_at[std::size_t(f)];
        d.ld = p.ld[std::size_t(f)];
        d.count = p.ld[std::size_t(parent)];
        d.col = std::int32_t(s.fronts[std::size_t(f)].n());
        d.p0 = k;
        d.p1 = std::min(pack_end[std::size_t(f)], k + kPackChunk);
        L[at].push_back(d);
      }
      add_row_packs(LS, at, rpack_begin[std::size_t(f)], rpack_end[std::size_t(f)]);
    }
  }
  for (DenseFront& d : p.dense) d.launch = start[std::size_t(d.front)];
  std::stable_sort(p.dense.begin(), p.dense.end(), [](const DenseFront& a, const DenseFront& b) { return a.launch < b.launch; });
  flatten(L, p.tasks, p.launch_start);
  flatten(LS, p.solve_tasks, p.solve_launch_start);
  return p;
}

}  // namespace balsa::qr
