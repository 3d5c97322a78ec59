// Multifrontal QR on the GPU (qr/gpu.hpp): S-assembly, the task kernel
// (sparse QR paper sec. 3.2: Factorize, Apply, Apply/Factorize on 32 x 32
// tiles, bundles of up to 3 row tiles; Pack assembly, sec. 3.3.1), and the
// replay of Q's reflectors on right-hand sides. The arithmetic is the host
// oracle's (qr/bucket.cpp); one thread block runs one task. A plan's
// launches run on given windows (qr/gpu_device.cuh): the one arena here,
// a stage's window buffer in qr/gpu_staged.cu.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <string>

#include "core/setup_trace.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/graph.hpp"
#include "qr/gpu_device.cuh"
#include "qr/tile_kernels.cuh"

namespace balsa::qr {

void GpuFactorDeleter::operator()(GpuFactor* g) const noexcept { delete g; }

namespace {

void check_cusolver(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  const std::string msg = std::string("cuSOLVER call failed (status ") + std::to_string(int(status)) + "): " + call;
  if (status == CUSOLVER_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(msg);
  throw CudaError(msg);
}
#define BALSA_CUSOLVER_CHECK(call) check_cusolver((call), #call)

// The cuSOLVER handle on the current stream (the SparseQR's, cuda/stream.hpp).
cusolverDnHandle_t on_stream(GpuFactor& g) {
  BALSA_CUSOLVER_CHECK(cusolverDnSetStream(g.solver, cuda::stream()));
  return g.solver;
}

using namespace tiles;  // qr/tile_kernels.cuh

// The pack maps (GpuPlan::cb_*, colmap).
struct PackMaps {
  const std::int64_t* src;
  const std::int64_t* dst;
  const std::int32_t* q;
  const std::int32_t* colmap;
};

__global__ void __launch_bounds__(kThreads) tile_tasks(const DeviceTask* __restrict__ tasks, double* __restrict__ arena,
                                                      double* __restrict__ vt, PackMaps pack) {
  extern __shared__ __align__(128) double shared[];
  const DeviceTask t = tasks[blockIdx.x];
  if (t.kind == kPackTask) {  // a warp per contribution row, its lanes along the row
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (std::int64_t k = t.p0 + (threadIdx.x >> 5); k < t.p1; k += warps) {
      const std::int64_t src = pack.src[k], dst = pack.dst[k];
      for (int l = pack.q[k] + lane; l < t.col; l += 32)
        arena[dst + std::int64_t(t.count) * pack.colmap[t.vt_next + l]] = arena[src + std::int64_t(t.ld) * l];
    }
    return;
  }
  Shared s(shared);
  double* front = arena + t.front;
  const Rows rows = tile_rows(t.tiles, 0);
  const int M = t.count * kTile;
  if (t.kind == int(TileTaskKind::Factorize)) {
    factorize(s, front, t.ld, rows, M, t.col, vt + t.vt);
    return;
  }
  load_vt(s, front, t.ld, rows, M, t.col, vt + t.vt);
  for (int c = t.c0; c < t.c1; ++c) update(s, front + std::int64_t(t.ld) * c * kTile, t.ld, rows, M, kTile, true);
  if (t.kind == int(TileTaskKind::ApplyFactorize))
    factorize(s, front, t.ld, tile_rows(t.next_tiles, 0), t.next_count * kTile, t.c0, vt + t.vt_next);
}

// The solve's replay: a bundle's reflectors on its rows of the rhs arena
// (all nrhs columns, 32 at a time), or a Pack of rows (child -> parent for
// Q^T, parent -> child for Q).
__global__ void __launch_bounds__(kThreads) solve_tasks(const SolveTask* __restrict__ tasks, const double* __restrict__ arena,
                                                       const double* __restrict__ vt, double* __restrict__ rhs,
                                                       std::int64_t rhs_rows, int nrhs, const std::int64_t* __restrict__ src,
                                                       const std::int64_t* __restrict__ dst, bool transpose) {
  extern __shared__ __align__(128) double shared[];
  const SolveTask t = tasks[blockIdx.x];
  if (t.kind == kPackTask) {
    const std::int64_t n = t.vt - t.front;
    for (std::int64_t e = threadIdx.x; e < n * nrhs; e += blockDim.x) {
      const std::int64_t k = t.front + e % n, c = e / n;
      if (transpose) {
        rhs[dst[k] + rhs_rows * c] = rhs[src[k] + rhs_rows * c];
      } else {
        rhs[src[k] + rhs_rows * c] = rhs[dst[k] + rhs_rows * c];
      }
    }
    return;
  }
  Shared s(shared);
  const int M = t.count * kTile;
  load_vt(s, arena + t.front, t.ld, tile_rows(t.tiles, 0), M, t.col, vt + t.vt);
  const Rows rows = tile_rows(t.tiles, t.base);
  for (int c0 = 0; c0 < nrhs; c0 += kTile)
    update(s, rhs + rhs_rows * c0, rhs_rows, rows, M, nrhs - c0 < kTile ? nrhs - c0 : int(kTile), transpose);
}

// out[dst[e]] = values[src[e]] (src null: values[e]); dst -1: none.
__global__ void scatter(const double* __restrict__ values, const std::int64_t* __restrict__ src,
                        const std::int64_t* __restrict__ dst, std::int64_t n, double* __restrict__ out) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n; e += std::int64_t(gridDim.x) * blockDim.x)
    if (dst[e] >= 0) out[dst[e]] = values[src ? src[e] : e];
}

// R's rows out of the arena, a warp per row (FrontFactor's layout).
__global__ void gather_r(const double* __restrict__ arena, const std::int64_t* __restrict__ row,
                         const std::int32_t* __restrict__ ld, const std::int32_t* __restrict__ n,
                         const std::int32_t* __restrict__ first, const std::int64_t* __restrict__ out_at, std::int64_t rows,
                         double* __restrict__ out) {
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x >> 5);
  for (std::int64_t k = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) >> 5; k < rows; k += warps) {
    const int t = first[k];
    for (int l = t + int(threadIdx.x & 31); l < n[k]; l += 32)
      out[out_at[k] + (l - t)] = row[k] < 0 ? 0.0 : arena[row[k] + std::int64_t(ld[k]) * l];
  }
}

__global__ void gather(const double* __restrict__ in, const std::int64_t* __restrict__ src, std::int64_t n,
                       double* __restrict__ out) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n; e += std::int64_t(gridDim.x) * blockDim.x)
    out[e] = src[e] >= 0 ? in[src[e]] : 0.0;
}

// Columns c of two maps: out[to[e] + ldo c] = in[from[e] + ldi c] (skipping -1 on either side; zero where from < 0).
__global__ void move_rows(const double* __restrict__ in, std::int64_t ldi, const std::int64_t* __restrict__ from,
                          double* __restrict__ out, std::int64_t ldo, const std::int64_t* __restrict__ to, std::int64_t n,
                          int ncols) {
  const std::int64_t total = n * ncols;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t k = e % n, c = e / n;
    if (to[k] < 0) continue;
    out[to[k] + ldo * c] = from[k] >= 0 ? in[from[k] + ldi * c] : 0.0;
  }
}


int grid_for(std::int64_t n) { return int(std::clamp<std::int64_t>((n + 255) / 256, 1, 65536)); }

template <class T>
cuda::DeviceBuffer<T> upload(const std::vector<T>& v) {
  cuda::DeviceBuffer<T> d(std::max<std::size_t>(v.size(), 1));
  if (!v.empty()) cuda::detail::copy_to_device(d.data(), v.data(), v.size() * sizeof(T));
  return d;
}

void ensure(cuda::DeviceBuffer<double>& b, std::size_t n) {
  if (b.size() < n) b = cuda::DeviceBuffer<double>(std::max<std::size_t>(n, 1));
}

// The dense fronts of launch l factored (cuSOLVER dgeqrf on the factor's stream).
void dense_factor(GpuFactor& g, const GpuPlan& plan, std::int64_t l, const Windows& w) {
  for (const DenseFront& d : plan.dense_in(l))
    BALSA_CUSOLVER_CHECK(cusolverDnDgeqrf(on_stream(g), int(d.m), int(d.n), w.arena + d.offset, d.ld, w.tau + d.tau,
                                          g.work.data(), int(g.work.size()), w.info + (&d - plan.dense.data())));
}

void dense_apply(GpuFactor& g, const DenseFront& d, const Windows& w, std::int64_t rhs_rows, int nrhs, bool transpose) {
  const int k = int(std::min(d.m, d.n));
  double* C = g.rhs.data() + d.rhs_base;
  const cublasOperation_t op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lw = 0;
  BALSA_CUSOLVER_CHECK(cusolverDnDormqr_bufferSize(on_stream(g), CUBLAS_SIDE_LEFT, op, int(d.m), nrhs, k, w.arena + d.offset,
                                                   d.ld, w.tau + d.tau, C, int(rhs_rows), &lw));
  if (g.work.size() < std::size_t(lw)) g.work = cuda::DeviceBuffer<double>(std::size_t(lw));
  BALSA_CUSOLVER_CHECK(cusolverDnDormqr(g.solver, CUBLAS_SIDE_LEFT, op, int(d.m), nrhs, k, w.arena + d.offset, d.ld,
                                        w.tau + d.tau, C, int(rhs_rows), g.work.data(), int(g.work.size()), g.info.data()));
}

// The one-arena factor's windows.
Windows windows_of(GpuFactor& g) { return {g.arena.data(), g.vt.data(), g.tau.data(), g.info.data()}; }

std::string needs(std::size_t need) {
  return "the fronts, their reflectors and the assembly maps need " + std::to_string(need) + " bytes";
}

// DeviceOutOfMemory when `need` passes the GPU's free memory or `limit`.
void check_fits(std::size_t need, std::size_t limit, const std::string& what) {
  const auto [free, total] = cuda::memory_info();
  if (need > free)
    throw DeviceOutOfMemory("SparseQR on the GPU" + what + ": " + needs(need) + "; the GPU has " + std::to_string(free) +
                            " of " + std::to_string(total) + " free");
  if (limit > 0 && need > limit)
    throw DeviceOutOfMemory("SparseQR on the GPU" + what + ": " + needs(need) + ", more than device_memory_limit (" +
                            std::to_string(limit) + ")");
}

// What both kinds of factor hold: the kernels' shared memory, A22's values,
// the solves' row maps.
GpuFactorPtr new_factor(const GpuPlan& plan, index_t nnz) {
  GpuFactorPtr g(new GpuFactor);
  cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(tile_tasks), kSharedBytes);
  cuda::raise_dynamic_shared_memory(reinterpret_cast<const void*>(solve_tasks), kSharedBytes);
  g->values = cuda::DeviceBuffer<double>(std::size_t(std::max<index_t>(nnz, 1)));
  g->b_row = upload(plan.b_row);
  g->y_row = upload(plan.y_row);
  return g;
}

}  // namespace

DeviceMaps upload_maps(const GpuPlan& plan, const std::vector<std::int64_t>& s_src) {
  DeviceMaps m;
  m.s_src = upload(s_src);
  m.s_dst = upload(plan.s_dst);
  m.cb_src = upload(plan.cb_src);
  m.cb_dst = upload(plan.cb_dst);
  m.cb_q = upload(plan.cb_q);
  m.colmap = upload(plan.colmap);
  m.r_row = upload(plan.r_row);
  m.r_ld = upload(plan.r_ld);
  m.r_n = upload(plan.r_n);
  m.r_t = upload(plan.r_t);
  std::vector<std::int64_t> out_at(plan.r_row.size());
  for (std::size_t k = 0, at = 0; k < out_at.size(); ++k) {
    out_at[k] = std::int64_t(at);
    at += std::size_t(plan.r_n[k] - plan.r_t[k]);
  }
  m.r_out = upload(out_at);
  m.rpack_src = upload(plan.rpack_src);
  m.rpack_dst = upload(plan.rpack_dst);
  m.tasks = upload(plan.tasks);
  m.solve_tasks = upload(plan.solve_tasks);
  return m;
}

void prepare_dense(GpuFactor& g, const GpuPlan& plan, double* a) {
  if (plan.dense.empty()) return;
  BALSA_CUSOLVER_CHECK(cusolverDnCreate(&g.solver));
  const cusolverDnHandle_t solver = on_stream(g);
  int lwork = 1;
  for (const DenseFront& d : plan.dense) {
    int lw = 0;
    BALSA_CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(solver, int(d.m), int(d.n), a, d.ld, &lw));
    lwork = std::max(lwork, lw);
  }
  g.work = cuda::DeviceBuffer<double>(std::size_t(lwork));
  g.info = cuda::DeviceBuffer<int>(plan.dense.size());
}

GpuFactorPtr gpu_prepare(const GpuPlan& plan, index_t nnz, std::size_t limit) {
  const std::size_t need = plan.device_bytes(nnz);
  check_fits(need, limit, "");
  GpuFactorPtr g = new_factor(plan, nnz);
  g->arena = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.arena, 1)));
  g->vt = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.vt_size, 1)));
  g->r_values = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.r_entries(), 1)));
  g->maps = upload_maps(plan);
  g->tau = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(plan.tau_size, 1)));
  prepare_dense(*g, plan, g->arena.data());
  g->summary = GpuFactorInfo{1, need, 0};
  return g;
}

GpuFactorPtr gpu_prepare_staged(const GpuPlan& plan, StagedPlan staged, index_t nnz, std::size_t limit) {
  const std::size_t need = staged.device_bytes(nnz);
  check_fits(need, limit, " in " + std::to_string(staged.stages.size()) + " stages");
  GpuFactorPtr g = new_factor(plan, nnz);
  g->summary = GpuFactorInfo{index_t(staged.stages.size()), need, staged.bytes_to_host()};
  staged_prepare(*g, plan, std::move(staged), nnz);
  return g;
}

std::size_t gpu_budget(std::size_t limit) {
  const std::size_t free = cuda::memory_info().first;
  return limit > 0 ? std::min(limit, free) : free;
}

GpuFactorInfo gpu_info(const GpuFactor& g) { return g.summary; }

namespace {

// The task kernel's launches [l0, l1) on stream st (unchecked: the caller
// checks, a capture included); returns how many.
index_t tile_launches(const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t l0, std::int64_t l1,
                      cudaStream_t st) {
  index_t launches = 0;
  for (std::int64_t l = l0; l < l1; ++l) {
    const std::int64_t n = plan.launch_start[std::size_t(l) + 1] - plan.launch_start[std::size_t(l)];
    if (n == 0) continue;
    tile_tasks<<<unsigned(n), kThreads, kSharedBytes, st>>>(m.tasks.data() + plan.launch_start[std::size_t(l)], w.arena,
                                                             w.vt, PackMaps{m.cb_src.data(), m.cb_dst.data(), m.cb_q.data(), m.colmap.data()});
    ++launches;
  }
  return launches;
}

// The plan's graphs on window w, captured at the first call: a run starts
// at every launch with dense fronts.
LaunchGraphs& graphs_of(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w) {
  for (LaunchGraphs& G : g.graphs)
    if (G.plan == &plan && G.arena == w.arena) return G;
  LaunchGraphs& G = g.graphs.emplace_back();
  G.plan = &plan;
  G.arena = w.arena;
  const std::int64_t total = std::int64_t(plan.launch_start.size()) - 1;
  G.start.push_back(0);
  for (std::int64_t l = 1; l < total; ++l)
    if (!plan.dense_in(l).empty()) G.start.push_back(l);
  G.start.push_back(std::max<std::int64_t>(total, 0));
  for (std::int64_t l = 0; l < total; ++l) G.launches += plan.launch_start[std::size_t(l) + 1] > plan.launch_start[std::size_t(l)];
  try {
    for (std::size_t k = 0; k + 1 < G.start.size(); ++k) {
      const std::int64_t l0 = G.start[k], l1 = G.start[k + 1];
      if (plan.launch_start[std::size_t(l1)] == plan.launch_start[std::size_t(l0)]) {  // no tile launch in the run
        G.exec.emplace_back();
        continue;
      }
      G.exec.push_back(cuda::capture_graph([&](cudaStream_t s) {
        tile_launches(plan, m, w, l0, l1, s);
        return cudaGetLastError();
      }));
    }
    G.captured = true;
  } catch (const CudaError&) {  // e.g. another thread kept invalidating the capture: plain launches
    G.exec.clear();
  }
  return G;
}

}  // namespace

index_t factor_launches(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t max_launches) {
  const cudaStream_t st = cuda::stream();
  const std::int64_t total = std::int64_t(plan.launch_start.size()) - 1;
  if (max_launches >= 0) {  // (tests: stop after max_launches; no graphs)
    index_t launches = 0;
    for (std::int64_t l = 0; l < std::min(total, max_launches); ++l) {
      dense_factor(g, plan, l, w);
      launches += tile_launches(plan, m, w, l, l + 1, st);
      BALSA_CHECK_LAUNCH();
    }
    return launches;
  }
  LaunchGraphs& G = graphs_of(g, plan, m, w);
  for (std::size_t k = 0; k + 1 < G.start.size(); ++k) {
    dense_factor(g, plan, G.start[k], w);
    if (!G.captured) {
      tile_launches(plan, m, w, G.start[k], G.start[k + 1], st);
      BALSA_CHECK_LAUNCH();
    } else if (G.exec[k].get()) {
      BALSA_CUDA_CHECK(cudaGraphLaunch(G.exec[k].get(), st));
    }
  }
  return G.launches;
}

void scatter_values(const double* values, const std::int64_t* src, const std::int64_t* dst, std::int64_t n, double* arena) {
  if (n == 0) return;
  scatter<<<grid_for(n), 256, 0, cuda::stream()>>>(values, src, dst, n, arena);
  BALSA_CHECK_LAUNCH();
}

void gather_r_rows(const GpuPlan& plan, const DeviceMaps& m, const double* arena, double* out) {
  const std::int64_t rows = std::int64_t(plan.r_row.size());
  if (plan.r_entries() == 0) return;
  gather_r<<<grid_for(rows * 32), 256, 0, cuda::stream()>>>(arena, m.r_row.data(), m.r_ld.data(), m.r_n.data(), m.r_t.data(),
                                                            m.r_out.data(), rows, out);
  BALSA_CHECK_LAUNCH();
}

void check_dense_info(const std::vector<int>& info, const std::vector<index_t>& fronts) {
  for (std::size_t k = 0; k < info.size(); ++k)
    if (info[k] != 0)
      throw CudaError("cuSOLVER dgeqrf of front " + std::to_string(fronts[k]) + " returned info " + std::to_string(info[k]));
}

std::vector<double> gpu_arena(const GpuFactor& g) { return g.staged ? staged_arena(g) : g.arena.to_host(); }
std::vector<double> gpu_vt(const GpuFactor& g) { return g.staged ? staged_vt(g) : g.vt.to_host(); }
std::vector<double> gpu_tau(const GpuFactor& g) { return g.staged ? staged_tau(g) : g.tau.to_host(); }

std::vector<double> gpu_factorise(GpuFactor& g, const GpuPlan& plan, std::span<const double> values, index_t& launches,
                                  std::int64_t max_launches) {
  std::vector<double> R(static_cast<std::size_t>(plan.r_entries()));
  gpu_factorise(g, plan, values, launches, R, max_launches);
  return R;
}

void gpu_factorise(GpuFactor& g, const GpuPlan& plan, std::span<const double> values, index_t& launches,
                   std::span<double> r_out, std::int64_t max_launches) {
  const std::int64_t nr = plan.r_entries();
  if (r_out.size() != std::size_t(nr))
    throw DimensionError("gpu_factorise: " + std::to_string(r_out.size()) + " places for R's " + std::to_string(nr) + " entries");
  if (g.staged) return staged_factorise(g, values, launches, r_out);
  const cudaStream_t st = cuda::stream();
  if (!values.empty())
    BALSA_CUDA_CHECK(cudaMemcpyAsync(g.values.data(), values.data(), values.size() * 8, cudaMemcpyHostToDevice, st));
  time_device(g, 0, st);
  BALSA_CUDA_CHECK(cudaMemsetAsync(g.arena.data(), 0, g.arena.bytes(), st));
  scatter_values(g.values.data(), nullptr, g.maps.s_dst.data(), std::int64_t(values.size()), g.arena.data());
  launches = factor_launches(g, plan, g.maps, windows_of(g), max_launches);
  std::vector<int> info(plan.dense.size());
  if (!info.empty())
    BALSA_CUDA_CHECK(cudaMemcpyAsync(info.data(), g.info.data(), info.size() * sizeof(int), cudaMemcpyDeviceToHost, st));
  gather_r_rows(plan, g.maps, g.arena.data(), g.r_values.data());
  time_device(g, 1, st);
  if (nr > 0) BALSA_CUDA_CHECK(cudaMemcpyAsync(r_out.data(), g.r_values.data(), std::size_t(nr) * 8, cudaMemcpyDeviceToHost, st));
  BALSA_CUDA_CHECK(cudaStreamSynchronize(st));
  read_device_time(g);
  std::vector<index_t> fronts;
  for (const DenseFront& d : plan.dense) fronts.push_back(d.front);
  check_dense_info(info, fronts);
}

void gpu_bind_r_rows(GpuFactor& g, const std::vector<std::int64_t>& rows) { g.y_dst = upload(rows); }

void time_device(GpuFactor& g, int end, cudaStream_t st) {
  if (!g.timing[end].get()) BALSA_CUDA_CHECK(cudaEventCreate(g.timing[end].out()));
  BALSA_CUDA_CHECK(cudaEventRecord(g.timing[end].get(), st));
}

void read_device_time(GpuFactor& g) {
  float ms = 0;
  BALSA_CUDA_CHECK(cudaEventElapsedTime(&ms, g.timing[0].get(), g.timing[1].get()));
  g.summary.device_seconds = double(ms) * 1e-3;
}

void replay_launches(GpuFactor& g, const GpuPlan& plan, const DeviceMaps& m, const Windows& w, std::int64_t R,
                     index_t nrhs, bool transpose) {
  const std::size_t launches = plan.solve_launch_start.size() - 1;
  for (std::size_t k = 0; k < launches; ++k) {
    const std::size_t l = transpose ? k : launches - 1 - k;
    for (const DenseFront& d : plan.dense_in(std::int64_t(l))) dense_apply(g, d, w, R, int(nrhs), transpose);
    const std::int64_t n = plan.solve_launch_start[l + 1] - plan.solve_launch_start[l];
    if (n == 0) continue;
    solve_tasks<<<unsigned(n), kThreads, kSharedBytes, cuda::stream()>>>(
        m.solve_tasks.data() + plan.solve_launch_start[l], w.arena, w.vt, g.rhs.data(), R, int(nrhs),
        m.rpack_src.data(), m.rpack_dst.data(), transpose);
    BALSA_CHECK_LAUNCH();
  }
}

namespace {

// The solves' rhs arena (rhs_rows x nrhs) zeroed; returns its leading dimension.
std::int64_t clear_rhs(GpuFactor& g, const GpuPlan& plan, index_t nrhs) {
  const std::int64_t R = std::max<std::int64_t>(plan.rhs_rows, 1);
  ensure(g.rhs, std::size_t(R) * std::size_t(nrhs));
  BALSA_CUDA_CHECK(cudaMemsetAsync(g.rhs.data(), 0, std::size_t(R) * std::size_t(nrhs) * 8, cuda::stream()));
  return R;
}

// The factorisation's launches replayed on the rhs arena: forward with the
// reflectors' Q^T (and packs child -> parent), or backward with Q (packs
// parent -> child): Q = B_0 B_1 ..., the dense fronts at their launch;
// staged: stage by stage (qr/gpu_staged.cu).
void replay(GpuFactor& g, const GpuPlan& plan, std::int64_t R, index_t nrhs, bool transpose) {
  if (g.staged) {
    staged_replay(g, R, nrhs, transpose);
  } else {
    replay_launches(g, plan, g.maps, windows_of(g), R, nrhs, transpose);
  }
}

}  // namespace

void gpu_q_transpose(GpuFactor& g, const GpuPlan& plan, std::span<const double> B2, index_t M, index_t nrhs,
                     cuda::DeviceBuffer<double>& Y, index_t ldy) {
  const cudaStream_t st = cuda::stream();
  const std::int64_t R = clear_rhs(g, plan, nrhs);
  if (M > 0) {  // S-assembly of B2's rows into their fronts, column by column
    ensure(g.b2, B2.size());
    BALSA_CUDA_CHECK(cudaMemcpyAsync(g.b2.data(), B2.data(), B2.size() * 8, cudaMemcpyHostToDevice, st));
    for (index_t c = 0; c < nrhs; ++c) scatter_values(g.b2.data() + std::size_t(M) * c, nullptr, g.b_row.data(), M, g.rhs.data() + R * c);
  }
  replay(g, plan, R, nrhs, true);
  const std::int64_t ny = std::int64_t(plan.y_row.size());
  if (ny > 0) {
    move_rows<<<grid_for(ny * nrhs), 256, 0, st>>>(g.rhs.data(), R, g.y_row.data(), Y.data(), ldy, g.y_dst.data(), ny,
                                                   int(nrhs));
    BALSA_CHECK_LAUNCH();
  }
}

std::vector<double> gpu_q_times(GpuFactor& g, const GpuPlan& plan, const cuda::DeviceBuffer<double>& Y, index_t ldy,
                                index_t M, index_t nrhs) {
  const cudaStream_t st = cuda::stream();
  const std::int64_t R = clear_rhs(g, plan, nrhs);
  const std::int64_t ny = std::int64_t(plan.y_row.size());
  if (ny > 0) {  // Z's rows into the fronts' R rows
    move_rows<<<grid_for(ny * nrhs), 256, 0, st>>>(Y.data(), ldy, g.y_dst.data(), g.rhs.data(), R, g.y_row.data(), ny,
                                                   int(nrhs));
    BALSA_CHECK_LAUNCH();
  }
  replay(g, plan, R, nrhs, false);
  std::vector<double> X(std::size_t(M) * std::size_t(nrhs));
  if (M > 0) {
    ensure(g.b2, X.size());
    for (index_t c = 0; c < nrhs; ++c) {
      gather<<<grid_for(M), 256, 0, st>>>(g.rhs.data() + R * c, g.b_row.data(), M, g.b2.data() + std::size_t(M) * c);
      BALSA_CHECK_LAUNCH();
    }
    BALSA_CUDA_CHECK(cudaMemcpyAsync(X.data(), g.b2.data(), X.size() * 8, cudaMemcpyDeviceToHost, st));
  }
  BALSA_CUDA_CHECK(cudaStreamSynchronize(st));
  return X;
}

void gpu_synchronize(GpuFactor&) { BALSA_CUDA_CHECK(cudaStreamSynchronize(cuda::stream())); }

}  // namespace balsa::qr
