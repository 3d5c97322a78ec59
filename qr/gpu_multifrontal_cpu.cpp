// The CPU oracle of the GPU factorisation (qr/gpu_multifrontal_cpu.hpp).
#include "qr/gpu_multifrontal_cpu.hpp"

#include <algorithm>
#include <functional>

#include "qr/numeric_cpu.hpp"

namespace balsa::qr {

namespace {

Bundle bundle_of(std::int32_t count, std::int32_t col, const std::int32_t* tiles) {
  Bundle B;
  B.count = count;
  B.col = col;
  for (int q = 0; q < 3; ++q) B.tiles[std::size_t(q)] = tiles[q];
  return B;  // slot 0: the callers pass the record itself
}

// The dense fronts' LAPACK calls (the GPU's cuSOLVER ones).
void dense_qr(const DenseFront& d, HostTileFactor& f) {
  geqrf(int(d.m), int(d.n), f.arena.data() + d.offset, d.ld, f.tau.data() + d.tau);
}

void dense_q(const DenseFront& d, const HostTileFactor& f, double* C, std::int64_t ldc, index_t nrhs, bool transpose) {
  ormqr(transpose ? "T" : "N", int(d.m), int(nrhs), int(std::min(d.m, d.n)), f.arena.data() + d.offset, d.ld,
        f.tau.data() + d.tau, C, int(ldc));
}

HostTileFactor blank(const GpuPlan& plan) {
  HostTileFactor f;
  f.arena.assign(std::size_t(plan.arena), 0.0);
  f.vt.assign(std::size_t(plan.vt_size), 0.0);
  f.tau.assign(std::size_t(plan.tau_size), 0.0);
  return f;
}

// The plan's launches [0, max_launches) on f (the GPU's task kernel and cuSOLVER calls).
void run_launches(const GpuPlan& plan, HostTileFactor& f, std::int64_t max_launches) {
  for (std::size_t l = 0; l + 1 < plan.launch_start.size(); ++l) {
    if (max_launches >= 0 && std::int64_t(l) >= max_launches) break;
    for (const DenseFront& d : plan.dense_in(std::int64_t(l))) dense_qr(d, f);
    for (std::int64_t k = plan.launch_start[l]; k < plan.launch_start[l + 1]; ++k) {
      const DeviceTask& t = plan.tasks[std::size_t(k)];
      if (t.kind == kPackTask) {
        for (std::int64_t row = t.p0; row < t.p1; ++row)
          for (std::int32_t c = plan.cb_q[std::size_t(row)]; c < t.col; ++c)
            f.arena[std::size_t(plan.cb_dst[std::size_t(row)] + std::int64_t(t.count) * plan.colmap[std::size_t(t.vt_next + c)])] =
                f.arena[std::size_t(plan.cb_src[std::size_t(row)] + std::int64_t(t.ld) * c)];
        continue;
      }
      const TileTaskKind kind = TileTaskKind(t.kind);
      const Bundle B = bundle_of(t.count, t.col, t.tiles);
      const Bundle after = bundle_of(t.next_count, t.c0, t.next_tiles);
      run_task_host(kind, B, t.c0, t.c1, &after, f.arena.data() + t.front, t.ld, f.vt.data() + t.vt,
                    kind == TileTaskKind::ApplyFactorize ? f.vt.data() + t.vt_next : nullptr);
    }
  }
}

// The launches replayed on the rhs arena (R rows x nrhs): forward with Q^T
// (packs child -> parent), or backward with Q (packs parent -> child).
void replay(const GpuPlan& plan, const HostTileFactor& f, std::vector<double>& rhs, std::int64_t R, index_t nrhs,
            bool transpose) {
  const std::size_t launches = plan.solve_launch_start.size() - 1;
  for (std::size_t k = 0; k < launches; ++k) {
    const std::size_t l = transpose ? k : launches - 1 - k;
    for (const DenseFront& d : plan.dense_in(std::int64_t(l))) dense_q(d, f, rhs.data() + d.rhs_base, R, nrhs, transpose);
    for (std::int64_t j = plan.solve_launch_start[l]; j < plan.solve_launch_start[l + 1]; ++j) {
      const SolveTask& t = plan.solve_tasks[std::size_t(j)];
      if (t.kind == kPackTask) {
        for (index_t c = 0; c < nrhs; ++c)
          for (std::int64_t e = t.front; e < t.vt; ++e) {
            const std::int64_t src = plan.rpack_src[std::size_t(e)] + R * c, dst = plan.rpack_dst[std::size_t(e)] + R * c;
            rhs[std::size_t(transpose ? dst : src)] = rhs[std::size_t(transpose ? src : dst)];
          }
        continue;
      }
      apply_bundle_host(bundle_of(t.count, t.col, t.tiles), f.arena.data() + t.front, t.ld, f.vt.data() + t.vt,
                        rhs.data(), index_t(R), index_t(t.base), nrhs, transpose);
    }
  }
}

using Replay = std::function<void(std::vector<double>& rhs, std::int64_t R, bool transpose)>;

// Q^T B2 on the R rows: B2's rows into the rhs arena, the replay, the R rows out.
std::vector<double> q_transpose_with(const GpuPlan& plan, std::span<const double> B2, index_t M, index_t nrhs,
                                     const Replay& run) {
  const std::int64_t R = plan.rhs_rows;
  std::vector<double> rhs(std::size_t(R) * std::size_t(nrhs), 0.0);
  for (index_t c = 0; c < nrhs; ++c)
    for (index_t i = 0; i < M; ++i)
      if (const std::int64_t row = plan.b_row[std::size_t(i)]; row >= 0)
        rhs[std::size_t(row + R * c)] = B2[std::size_t(i) + std::size_t(M) * std::size_t(c)];
  run(rhs, R, true);
  const std::size_t ny = plan.y_row.size();
  std::vector<double> Y(ny * std::size_t(nrhs), 0.0);
  for (index_t c = 0; c < nrhs; ++c)
    for (std::size_t k = 0; k < ny; ++k)
      if (plan.y_row[k] >= 0) Y[k + ny * std::size_t(c)] = rhs[std::size_t(plan.y_row[k] + R * c)];
  return Y;
}

// Q [Z; 0]: Z's rows into the fronts' R rows, the replay backward, A22's rows out.
std::vector<double> q_times_with(const GpuPlan& plan, std::span<const double> Z, index_t M, index_t nrhs, const Replay& run) {
  const std::int64_t R = plan.rhs_rows;
  const std::size_t ny = plan.y_row.size();
  std::vector<double> rhs(std::size_t(R) * std::size_t(nrhs), 0.0);
  for (index_t c = 0; c < nrhs; ++c)
    for (std::size_t k = 0; k < ny; ++k)
      if (plan.y_row[k] >= 0) rhs[std::size_t(plan.y_row[k] + R * c)] = Z[k + ny * std::size_t(c)];
  run(rhs, R, false);
  std::vector<double> X(std::size_t(M) * std::size_t(nrhs), 0.0);
  for (index_t c = 0; c < nrhs; ++c)
    for (index_t i = 0; i < M; ++i)
      if (const std::int64_t row = plan.b_row[std::size_t(i)]; row >= 0)
        X[std::size_t(i) + std::size_t(M) * std::size_t(c)] = rhs[std::size_t(row + R * c)];
  return X;
}

// Stage s's windows copied out of the host copies (the GPU's upload).
HostTileFactor stage_windows(const Stage& s, const HostTileFactor& whole) {
  HostTileFactor w = blank(s.plan);
  std::copy_n(whole.arena.begin() + s.arena0, s.arena_size, w.arena.begin());
  std::copy_n(whole.vt.begin() + s.vt0, s.plan.vt_size, w.vt.begin());
  std::copy_n(whole.tau.begin() + s.tau0, s.plan.tau_size, w.tau.begin());
  return w;
}

// The stages replayed in turn (reversed for Q), each on its own windows.
Replay staged_replay(const StagedPlan& staged, const StagedHostFactor& f, index_t nrhs) {
  return [&staged, &f, nrhs](std::vector<double>& rhs, std::int64_t R, bool transpose) {
    const std::size_t n = staged.stages.size();
    for (std::size_t k = 0; k < n; ++k) {
      const Stage& s = staged.stages[transpose ? k : n - 1 - k];
      replay(s.plan, stage_windows(s, f.whole), rhs, R, nrhs, transpose);
    }
  };
}

}  // namespace

HostTileFactor factorise_plan_host(const GpuPlan& plan, std::span<const double> values, std::int64_t max_launches) {
  HostTileFactor f = blank(plan);
  for (std::size_t a = 0; a < values.size(); ++a)
    if (plan.s_dst[a] >= 0) f.arena[std::size_t(plan.s_dst[a])] = values[a];
  run_launches(plan, f, max_launches);
  return f;
}

std::vector<double> r_values_host(const GpuPlan& plan, const HostTileFactor& f) {
  std::vector<double> R;
  R.reserve(std::size_t(plan.r_entries()));
  for (std::size_t k = 0; k < plan.r_row.size(); ++k)
    for (std::int32_t l = plan.r_t[k]; l < plan.r_n[k]; ++l)
      R.push_back(plan.r_row[k] < 0 ? 0.0 : f.arena[std::size_t(plan.r_row[k] + std::int64_t(plan.r_ld[k]) * l)]);
  return R;
}

std::vector<double> q_transpose_host(const GpuPlan& plan, const HostTileFactor& f, std::span<const double> B2, index_t M,
                                     index_t nrhs) {
  return q_transpose_with(plan, B2, M, nrhs, [&](std::vector<double>& rhs, std::int64_t R, bool t) {
    replay(plan, f, rhs, R, nrhs, t);
  });
}

std::vector<double> q_times_host(const GpuPlan& plan, const HostTileFactor& f, std::span<const double> Z, index_t M,
                                 index_t nrhs) {
  return q_times_with(plan, Z, M, nrhs, [&](std::vector<double>& rhs, std::int64_t R, bool t) {
    replay(plan, f, rhs, R, nrhs, t);
  });
}

StagedHostFactor factorise_staged_host(const GpuPlan& plan, const StagedPlan& staged, std::span<const double> values) {
  StagedHostFactor out{blank(plan), {}, std::vector<double>(std::size_t(staged.cb_store), 0.0)};
  out.R.reserve(std::size_t(plan.r_entries()));
  for (const Stage& s : staged.stages) {
    HostTileFactor w = blank(s.plan);  // the device's window buffer, zeroed
    for (std::size_t e = 0; e < s.s_src.size(); ++e) w.arena[std::size_t(s.plan.s_dst[e])] = values[std::size_t(s.s_src[e])];
    for (const CbBlock& b : s.imports)  // uploaded from the cb store
      std::copy_n(out.cb_store.begin() + b.store, b.rows * b.cols, w.arena.begin() + b.region);
    run_launches(s.plan, w, -1);
    for (const CbBlock& b : s.exports)  // downloaded to the cb store
      std::copy_n(w.arena.begin() + b.region, b.rows * b.cols, out.cb_store.begin() + b.store);
    const std::vector<double> R = r_values_host(s.plan, w);
    out.R.insert(out.R.end(), R.begin(), R.end());
    std::copy_n(w.arena.begin(), s.arena_size, out.whole.arena.begin() + s.arena0);
    std::copy_n(w.vt.begin(), s.plan.vt_size, out.whole.vt.begin() + s.vt0);
    std::copy_n(w.tau.begin(), s.plan.tau_size, out.whole.tau.begin() + s.tau0);
  }
  return out;
}

std::vector<double> q_transpose_staged_host(const GpuPlan& plan, const StagedPlan& staged, const StagedHostFactor& f,
                                            std::span<const double> B2, index_t M, index_t nrhs) {
  return q_transpose_with(plan, B2, M, nrhs, staged_replay(staged, f, nrhs));
}

std::vector<double> q_times_staged_host(const GpuPlan& plan, const StagedPlan& staged, const StagedHostFactor& f,
                                        std::span<const double> Z, index_t M, index_t nrhs) {
  return q_times_with(plan, Z, M, nrhs, staged_replay(staged, f, nrhs));
}

}  // namespace balsa::qr
