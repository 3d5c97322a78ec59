// Internal: the CPU oracle of the GPU factorisation (tests): the plan's
// launches run on the host, task by task, with the tile tasks' arithmetic
// (qr/bucket.cpp), so that the GPU's arena, R and Q^T B can be checked
// against the same operations, and the plan itself (assembly maps, packs,
// launch order) against the CPU's multifrontal QR in a build without a GPU.
// The staged plan (qr/gpu_stages.hpp) runs here too, stage by stage, with
// separate window arrays and a host cb store, as the GPU runs it.
#pragma once

#include <span>
#include <vector>

#include "qr/gpu_plan.hpp"
#include "qr/gpu_stages.hpp"

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
// X2 = Q [Z; 0] (M x nrhs): Z's rows in plan.y_row's order (y_row.size() x nrhs).
std::vector<double> q_times_host(const GpuPlan& plan, const HostTileFactor& f, std::span<const double> Z, index_t M,
                                 index_t nrhs);

// The staged run: stage by stage in window arrays; `whole` gets each
// stage's windows back in the global layout (the GPU's pinned host copies),
// R its R entries, cb_store the exported contribution blocks.
struct StagedHostFactor {
  HostTileFactor whole;
  std::vector<double> R, cb_store;
};
StagedHostFactor factorise_staged_host(const GpuPlan& plan, const StagedPlan& staged, std::span<const double> values);
// Q^T B2 and Q [Z; 0] replayed stage by stage (each stage's windows copied
// out of `whole` first), as q_transpose_host and q_times_host.
std::vector<double> q_transpose_staged_host(const GpuPlan& plan, const StagedPlan& staged, const StagedHostFactor& f,
                                            std::span<const double> B2, index_t M, index_t nrhs);
std::vector<double> q_times_staged_host(const GpuPlan& plan, const StagedPlan& staged, const StagedHostFactor& f,
                                        std::span<const double> Z, index_t M, index_t nrhs);

}  // namespace balsa::qr
