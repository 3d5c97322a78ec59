// Internal: multifrontal QR on the GPU (sparse QR paper sec. 3): the fronts
// of the whole tree resident in one device arena, assembled there
// (S-assembly, pack assembly) and factored by the task kernel, launch by
// launch as the plan says (qr/gpu_plan.hpp); Q kept (the bundles' V and T)
// so that Q^T B and Q Z run on the device too. On its own non-blocking
// stream. qr/gpu_no_cuda.cpp stands in without CUDA.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "balsa/cuda.hpp"
#include "qr/gpu_plan.hpp"
#include "qr/gpu_stages.hpp"

namespace balsa::qr {

struct GpuFactor;
struct GpuFactorDeleter {
  void operator()(GpuFactor* g) const noexcept;
};
using GpuFactorPtr = std::unique_ptr<GpuFactor, GpuFactorDeleter>;

// The device memory of the plan (arena, VT records, maps, tasks) allocated
// and the plan uploaded: DeviceOutOfMemory (bytes) when it does not fit the
// GPU's free memory or `limit` (0: none).
GpuFactorPtr gpu_prepare(const GpuPlan& plan, index_t nnz, std::size_t limit = 0);
// The same for the plan in stages (sec. 3.4): every stage's maps, two
// window buffers, the pinned host copies of the windows and the cb store.
GpuFactorPtr gpu_prepare_staged(const GpuPlan& plan, StagedPlan staged, index_t nnz, std::size_t limit = 0);
// The device bytes a factor may take: `limit`, or the GPU's free memory
// when smaller or when limit is 0.
std::size_t gpu_budget(std::size_t limit);

struct GpuFactorInfo {
  index_t stages = 1;              // 1: the one arena
  std::size_t device_bytes = 0;    // the factor's device memory (staged: its peak, two windows)
  std::size_t bytes_to_host = 0;   // staged: copied to the host per factorisation
};
GpuFactorInfo gpu_info(const GpuFactor& g);

// Factorises A22's values (the analysed pattern, plan's s_dst order):
// R's entries (the fronts' R rows in order, FrontFactor's layout) on the host. launches: kernel launches made.
// (Tests: max_launches >= 0 stops after that many launches.)
// R's entries go to r_out (plan.r_entries() values, host memory) or come back.
void gpu_factorise(GpuFactor& g, const GpuPlan& plan, std::span<const double> values, index_t& launches,
                   std::span<double> r_out, std::int64_t max_launches = -1);
std::vector<double> gpu_factorise(GpuFactor& g, const GpuPlan& plan, std::span<const double> values, index_t& launches,
                                  std::int64_t max_launches = -1);
// The arena, the VT records and the dense fronts' tau (tests, and the
// mixed factor when a pivot dies: qr/mixed.hpp; staged: the host copies,
// global layout).
std::vector<double> gpu_arena(const GpuFactor& g);
std::vector<double> gpu_vt(const GpuFactor& g);
std::vector<double> gpu_tau(const GpuFactor& g);

// Front f's R row t is row rows[plan.y_start[f] + t] of the solves' Y.
void gpu_bind_r_rows(GpuFactor& g, const std::vector<std::int64_t>& rows);

// Y(rows, :) = the R rows of Q^T B2 (B2: A22's M rows x nrhs, host,
// column-major); Y (device, ldy rows) keeps its other rows.
void gpu_q_transpose(GpuFactor& g, const GpuPlan& plan, std::span<const double> B2, index_t M, index_t nrhs,
                     cuda::DeviceBuffer<double>& Y, index_t ldy);
// X2 = Q [Z; 0] (host, M x nrhs): Z's R rows from the device Y (ldy rows).
std::vector<double> gpu_q_times(GpuFactor& g, const GpuPlan& plan, const cuda::DeviceBuffer<double>& Y, index_t ldy,
                                index_t M, index_t nrhs);

// Waits for the current stream (the host then sees the factor's results).
void gpu_synchronize(GpuFactor& g);

}  // namespace balsa::qr
