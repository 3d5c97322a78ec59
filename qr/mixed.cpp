// Per-front rank decisions: the mixed factor of the GPU's multifrontal QR
// (qr/mixed.hpp).
#include "qr/mixed.hpp"

#include <algorithm>
#include <cmath>

namespace balsa::qr {

namespace {

// The front row of R row q in a front the plan lays out with schedule
// sch: row q % 32 of its bucket's final tile; -1: none (a zero row).
index_t final_row(const FrontSchedule& sch, index_t q) {
  const std::size_t bucket = std::size_t(q / kTile);
  if (bucket >= sch.final_tile.size() || sch.final_tile[bucket] < 0) return -1;
  return sch.final_tile[bucket] * kTile + q % kTile;
}

// What the plan says of each front: its dense library call (null: tiles),
// the contribution rows q it passes to its parent (gpu_plan.cpp's rule:
// q in [pivots, end) with a final row, end = n, or min(m, n) for a dense
// front), and its first pack entry as a parent (cb_*).
struct Layout {
  std::vector<const DenseFront*> dense;
  std::vector<std::vector<index_t>> passed;
  std::vector<std::int64_t> first_pack;
};

Layout layout_of(const Symbolic& s, const GpuPlan& plan) {
  const std::size_t nf = s.fronts.size();
  Layout l{std::vector<const DenseFront*>(nf, nullptr), std::vector<std::vector<index_t>>(nf),
           std::vector<std::int64_t>(nf, 0)};
  for (const DenseFront& d : plan.dense) l.dense[std::size_t(d.front)] = &d;
  std::int64_t packs = 0;
  for (std::size_t f = 0; f < nf; ++f) {  // postorder: the children's rows are known
    const Front& F = s.fronts[f];
    l.first_pack[f] = packs;
    for (index_t ch : F.children) packs += std::int64_t(l.passed[std::size_t(ch)].size());
    if (F.parent < 0) continue;
    const index_t end = l.dense[f] ? std::min(l.dense[f]->m, F.n()) : F.n();
    for (index_t q = F.pivots; q < end; ++q)
      if (final_row(plan.schedules[f], q) >= 0) l.passed[f].push_back(q);
  }
  if (packs != std::int64_t(plan.cb_q.size()))
    throw Error("SparseQR: the GPU plan's contribution rows disagree with the analysis (a bug)");
  return l;
}

// Front f's natural rows (A's, then each child's cb_rows contribution
// rows, row r its R row pivots + r) in the plan's layout: A's from b_row,
// the children's from the pack entries, -1 for the rows the plan drops.
std::vector<index_t> tile_place(const Symbolic& s, const GpuPlan& plan, const Layout& l, const Numeric& num, index_t f) {
  const Front& F = s.fronts[std::size_t(f)];
  std::vector<index_t> place;
  for (index_t i : F.rows) place.push_back(index_t(plan.b_row[std::size_t(i)] - plan.rhs_base[std::size_t(f)]));
  std::int64_t k = l.first_pack[std::size_t(f)];
  for (index_t ch : F.children) {
    const std::size_t t0 = place.size();
    const index_t pivots = s.fronts[std::size_t(ch)].pivots;
    place.resize(t0 + std::size_t(num.fronts[std::size_t(ch)].cb_rows), -1);
    for (index_t q : l.passed[std::size_t(ch)]) {
      if (plan.cb_q[std::size_t(k)] != q)
        throw Error("SparseQR: the GPU plan's pack of front " + std::to_string(ch) + " disagrees with the analysis (a bug)");
      place[t0 + std::size_t(q - pivots)] = index_t(plan.cb_dst[std::size_t(k++)] - plan.offset[std::size_t(f)]);
    }
  }
  return place;
}

// Front f kept as the GPU factored it (a tile front): R's rows from the
// arena, its slice of the arena (V) and its reflectors' records.
void keep_tile_front(const Symbolic& s, const GpuPlan& plan, const HostTileFactor& h, const Layout& l, index_t f,
                     Numeric& num) {
  const Front& F = s.fronts[std::size_t(f)];
  const FrontSchedule& sch = plan.schedules[std::size_t(f)];
  FrontFactor& ff = num.fronts[std::size_t(f)];
  const index_t ld = plan.ld[std::size_t(f)], n = F.n();
  const double* front = h.arena.data() + plan.offset[std::size_t(f)];
  TileFront t;
  for (index_t q = 0; q < F.pivots; ++q) t.row.push_back(final_row(sch, q));
  const std::vector<index_t>& passed = l.passed[std::size_t(f)];
  ff.cb_rows = passed.empty() ? 0 : passed.back() - F.pivots + 1;
  t.row.resize(std::size_t(F.pivots + ff.cb_rows), -1);
  for (index_t q : passed) t.row[std::size_t(q)] = final_row(sch, q);
  ff.m = ld;
  ff.live = F.pivots;
  ff.r_start.resize(std::size_t(F.pivots));
  for (index_t q = 0; q < F.pivots; ++q) {  // (live: its final row exists)
    ff.r_start[std::size_t(q)] = ff.R.size();
    for (index_t c = q; c < n; ++c) ff.R.push_back(front[std::size_t(t.row[std::size_t(q)]) + std::size_t(ld) * std::size_t(c)]);
  }
  ff.V.assign(front, front + std::size_t(ld) * std::size_t(sch.col_tiles * kTile));
  if (const DenseFront* d = l.dense[std::size_t(f)]) {
    t.dense_m = d->m;
    t.dense_k = std::min(d->m, d->n);
    ff.tau.assign(h.tau.begin() + d->tau, h.tau.begin() + d->tau + t.dense_k);
  } else {
    t.schedule.bundles = sch.bundles;
    const auto vt = h.vt.begin() + plan.vt_offset[std::size_t(f)];
    t.vt.assign(vt, vt + std::ptrdiff_t(sch.bundles.size()) * kVtRows * kTile);
  }
  ff.place = tile_place(s, plan, l, num, f);
  ff.tile = std::move(t);
  // The front's share of the analysis' (staircase) flops.
  ff.flops = s.dense_flops > 0 ? front_flops(F.m(), F.n()) * s.flops / s.dense_flops : 0.0;
}

// A tile front's contribution block for a parent the CPU factors
// (FrontFactor::cb: row r from column pivots + r on, zero rows where the
// plan has none).
void hand_over_cb(const Front& C, const GpuPlan& plan, const HostTileFactor& h, index_t f, FrontFactor& cf) {
  const double* front = h.arena.data() + plan.offset[std::size_t(f)];
  const std::size_t ld = std::size_t(plan.ld[std::size_t(f)]);
  const index_t rows = cf.cb_rows, cols = C.n() - C.pivots;
  cf.cb.assign(std::size_t(rows) * std::size_t(cols), 0.0);
  for (index_t r = 0; r < rows; ++r)
    if (const index_t row = cf.row_of(cf.live + r); row >= 0)
      for (index_t u = r; u < cols; ++u)
        cf.cb[std::size_t(r) + std::size_t(rows) * std::size_t(u)] = front[std::size_t(row) + ld * std::size_t(C.pivots + u)];
}

}  // namespace

Redo fronts_to_redo(const Symbolic& s, const GpuPlan& plan, std::span<const double> arena, double tolerance) {
  const std::size_t nf = s.fronts.size();
  Redo r;
  r.in_x.assign(nf, 0);
  for (std::size_t f = 0; f < nf; ++f) {  // postorder: a parent after its children
    const Front& F = s.fronts[f];
    const std::int64_t ld = plan.ld[f];
    for (index_t t = 0; t < F.pivots; ++t) {
      const std::int64_t row = plan.r_row[std::size_t(plan.y_start[f] + t)];
      if (row < 0 || !(std::abs(arena[std::size_t(row + ld * t)]) > tolerance)) {
        ++r.dead;
        r.in_x[f] = 1;
        break;
      }
    }
    const double flops = front_flops(F.m(), F.n());
    r.all_flops += flops;
    if (!r.in_x[f]) continue;
    ++r.fronts;
    r.flops += flops;
    if (F.parent >= 0) r.in_x[std::size_t(F.parent)] = 1;
  }
  return r;
}

std::string describe(const Redo& redo, index_t fronts) {
  const bool one = redo.dead == 1;
  const index_t ancestors = redo.fronts - redo.dead;
  std::string text = std::to_string(redo.dead) + (one ? " front" : " fronts") + " with a dead pivot";
  if (ancestors > 0)
    text += std::string(one ? "; it and its " : "; they and their ") + std::to_string(ancestors) +
            (ancestors == 1 ? " ancestor" : " ancestors");
  const bool was = one && ancestors == 0;
  return text + " (" + std::to_string(redo.fronts) + " of " + std::to_string(fronts) + " fronts, " +
         std::to_string(int(std::lround(100.0 * redo.share()))) + "% of the flops) " + (was ? "was" : "were") +
         " refactored on the CPU (Heath)";
}

Numeric mixed_factorise(const Csr<double>& A22, const Symbolic& s, const GpuPlan& plan, const HostTileFactor& h,
                        const Redo& redo, double tolerance) {
  const index_t nf = index_t(s.fronts.size());
  const Layout l = layout_of(s, plan);
  Numeric num;
  num.fronts.resize(std::size_t(nf));
  std::vector<index_t> local(std::size_t(A22.cols), -1);
  for (index_t f = 0; f < nf; ++f) {  // postorder: a CPU front after its children handed their blocks over
    const Front& F = s.fronts[std::size_t(f)];
    if (redo.in_x[std::size_t(f)]) {
      factor_front(A22, s, num, f, local, tolerance);
      continue;
    }
    keep_tile_front(s, plan, h, l, f, num);
    if (F.parent >= 0 && redo.in_x[std::size_t(F.parent)]) hand_over_cb(F, plan, h, f, num.fronts[std::size_t(f)]);
  }
  sum_fronts(num);
  return num;
}

}  // namespace balsa::qr
