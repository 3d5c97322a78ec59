// Internal (CUDA sources only): the GPU factor's device state and a plan's
// launches on given device windows, shared by qr/gpu_multifrontal.cu (the
// kernels; the one-arena factor) and qr/gpu_staged.cu (sec. 3.4's stages,
// each stage's plan run on one of two window buffers).
#pragma once

#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <memory>
#include <span>
#include <vector>

#include "balsa/cuda.hpp"
#include "cuda/graph.hpp"
#include "qr/gpu.hpp"
#include "qr/gpu_stages.hpp"

namespace balsa::qr {

// A plan's maps and tasks on the device (s_src: a stage's A22 entries, else empty).
struct DeviceMaps {
  cuda::DeviceBuffer<std::int64_t> s_src, s_dst, cb_src, cb_dst, r_row, r_out, rpack_src, rpack_dst;
  cuda::DeviceBuffer<std::int32_t> cb_q, colmap, r_ld, r_n, r_t;
  cuda::DeviceBuffer<DeviceTask> tasks;
  cuda::DeviceBuffer<SolveTask> solve_tasks;
};
DeviceMaps upload_maps(const GpuPlan& plan, const std::vector<std::int64_t>& s_src = {});

// Where a plan's launches run: its buffer (plan.arena doubles), its VT
// records, its dense fronts' tau and cuSOLVER info (one per dense front).
struct Windows {
  double* arena = nullptr;
  double* vt = nullptr;
  double* tau = nullptr;
  int* info = nullptr;
};

struct StagedDevice;  // qr/gpu_staged.cu
struct StagedDeviceDeleter {
  void operator()(StagedDevice* s) const noexcept;
};

// A plan's task-kernel launches on one window as CUDA graphs, made at its
// first factorisation there and replayed by the next ones: one graph per run
// of launches between dense fronts (their cuSOLVER calls, which may
// synchronise, stay outside the graphs, before their launch's graph).
struct LaunchGraphs {
  const GpuPlan* plan = nullptr;
  const double* arena = nullptr;
  std::vector<std::int64_t> start;  // run k: launches [start[k], start[k + 1])
  std::vector<cuda::GraphExec> exec;  // (none: the run has no tile launch)
  index_t launches = 0;             // the task kernel's launches in all
  bool captured = false;            // false: the capture failed; plain launches
};

struct GpuFactor {
  GpuFactor() = default;
  GpuFactor(const GpuFactor&) = delete;
  GpuFactor& operator=(const GpuFactor&) = delete;
  ~GpuFactor() {
    if (solver) (void)cusolverDnDestroy(solver);
  }
  cusolverDnHandle_t solver = nullptr;  // the dense fronts' (geqrf, ormqr); on_stream() before each use
  cuda::DeviceBuffer<double> tau, work;
  cuda::DeviceBuffer<int> info;
  cuda::DeviceBuffer<double> arena, vt, values, r_values;  // (staged: values only; the windows are the stages')
  DeviceMaps maps;                                         // the one-arena plan's (staged: each stage has its own)
  cuda::DeviceBuffer<std::int64_t> b_row, y_row, y_dst;
  cuda::DeviceBuffer<double> rhs, b2;  // the solves' work space (grown on demand)
  std::unique_ptr<StagedDevice, StagedDeviceDeleter> staged;
  GpuFactorInfo summary;
  std::vector<LaunchGraphs> graphs;  // per (plan, window) that factor_launches ran
};

// The cuSOLVER handle and work space of the plan's dense fronts (a: any
// device buffer, for the work-size queries).
void prepare_dense(GpuFactor& g, const GpuPlan& plan, double* a);
// The plan's launches [0, max_launches) on w (each launch's dense fronts
// by cuSOLVER first, then the task kernel); returns the kernel launches.
index_t factor_launches(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w,
                        std::int64_t max_launches = -1);
// out[e] = values[src ? src[e] : e] at arena[dst[e]] (S-assembly; dst -1: none).
void scatter_values(const double* values, const std::int64_t* src, const std::int64_t* dst, std::int64_t n, double* arena);
// R's entries of the plan's R rows (FrontFactor's layout) out of arena into out.
void gather_r_rows(const GpuPlan& plan, const DeviceMaps& m, const double* arena, double* out);
// The plan's launches replayed on g.rhs (R rows x nrhs) with w's reflectors:
// forward with Q^T, backward with Q.
void replay_launches(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t R,
                     index_t nrhs, bool transpose);
// cuSOLVER's infos of the dense fronts (after the stream's work): a CudaError naming the front.
void check_dense_info(const std::vector<int>& info, const std::vector<index_t>& fronts);

// Sec. 3.4 (qr/gpu_staged.cu): the stages' device state, factorisation
// (R's entries back), the solves' replay (g.rhs), the host copies (tests).
void staged_prepare(GpuFactor& g, const GpuPlan& plan, StagedPlan staged, index_t nnz);
void staged_factorise(GpuFactor& g, std::span<const double> values, index_t& launches, std::span<double> r_out);
void staged_replay(GpuFactor& g, std::int64_t R, index_t nrhs, bool transpose);
std::vector<double> staged_arena(const GpuFactor& g);
std::vector<double> staged_vt(const GpuFactor& g);
std::vector<double> staged_tau(const GpuFactor& g);

}  // namespace balsa::qr
