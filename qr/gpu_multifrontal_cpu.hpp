// Internal: the CPU oracle of the GPU factorisation (tests): the plan's
// launches run on the host, task by task, with the tile tasks' arithmetic
// (qr/bucket.cpp), so that the GPU's arena, R and Q^T B can be checked
// against the same operations, and the plan itself (assembly maps, packs,
// launch order) against the CPU's multifrontal QR in a build without a GPU.
#pragma once

#include <span>
#include <vector>

#include "qr/gpu_plan.hpp"

namespace balsa::qr {

struct HostTileFactor {
  std::vector<double> arena, vt, tau;  // tau: the dense fronts' (LAPACK dgeqrf)
};

// A22's values (plan.s_dst's order) assembled and factored as the GPU does.
// (max_launches >= 0: stop after that many launches.)
HostTileFactor factorise_plan_host(const GpuPlan& plan, std::span<const double> values, std::int64_t max_launches = -1);
// R's entries (the fronts' R rows in order, FrontFactor's layout).
std::vector<double> r_values_host(const GpuPlan& plan, const HostTileFactor& f);
// The R rows of Q^T B2 (plan.y_row's order, nrhs columns of y_row.size()):
// B2 A22's M rows x nrhs, column-major.
std::vector<double> q_transpose_host(const GpuPlan& plan, const HostTileFactor& f, std::span<const double> B2, index_t M,
                                     index_t nrhs);

}  // namespace balsa::qr
