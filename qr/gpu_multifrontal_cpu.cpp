// The CPU oracle of the GPU factorisation (qr/gpu_multifrontal_cpu.hpp).
#include "qr/gpu_multifrontal_cpu.hpp"

#include <algorithm>

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

void dense_qt(const DenseFront& d, const HostTileFactor& f, double* C, std::int64_t ldc, index_t nrhs) {
  ormqr("T", int(d.m), int(nrhs), int(std::min(d.m, d.n)), f.arena.data() + d.offset, d.ld, f.tau.data() + d.tau, C,
        int(ldc));
}

}  // namespace

HostTileFactor factorise_plan_host(const GpuPlan& plan, std::span<const double> values, std::int64_t max_launches) {
  HostTileFactor f;
  f.arena.assign(std::size_t(plan.arena), 0.0);
  f.vt.assign(std::size_t(plan.vt_size), 0.0);
  f.tau.assign(std::size_t(plan.tau_size), 0.0);
  for (std::size_t a = 0; a < values.size(); ++a)
    if (plan.s_dst[a] >= 0) f.arena[std::size_t(plan.s_dst[a])] = values[a];
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
  const std::int64_t R = plan.rhs_rows;
  std::vector<double> rhs(std::size_t(R) * std::size_t(nrhs), 0.0);
  for (index_t c = 0; c < nrhs; ++c)
    for (index_t i = 0; i < M; ++i)
      if (const std::int64_t row = plan.b_row[std::size_t(i)]; row >= 0)
        rhs[std::size_t(row + R * c)] = B2[std::size_t(i) + std::size_t(M) * std::size_t(c)];
  for (std::size_t l = 0; l + 1 < plan.solve_launch_start.size(); ++l) {
    for (const DenseFront& d : plan.dense_in(std::int64_t(l))) dense_qt(d, f, rhs.data() + d.rhs_base, R, nrhs);
    for (std::int64_t k = plan.solve_launch_start[l]; k < plan.solve_launch_start[l + 1]; ++k) {
      const SolveTask& t = plan.solve_tasks[std::size_t(k)];
      if (t.kind == kPackTask) {
        for (index_t c = 0; c < nrhs; ++c)
          for (std::int64_t e = t.front; e < t.vt; ++e)
            rhs[std::size_t(plan.rpack_dst[std::size_t(e)] + R * c)] = rhs[std::size_t(plan.rpack_src[std::size_t(e)] + R * c)];
        continue;
      }
      apply_bundle_host(bundle_of(t.count, t.col, t.tiles), f.arena.data() + t.front, t.ld, f.vt.data() + t.vt,
                        rhs.data(), index_t(R), index_t(t.base), nrhs, true);
    }
  }
  const std::size_t ny = plan.y_row.size();
  std::vector<double> Y(ny * std::size_t(nrhs), 0.0);
  for (index_t c = 0; c < nrhs; ++c)
    for (std::size_t k = 0; k < ny; ++k)
      if (plan.y_row[k] >= 0) Y[k + ny * std::size_t(c)] = rhs[std::size_t(plan.y_row[k] + R * c)];
  return Y;
}

}  // namespace balsa::qr
