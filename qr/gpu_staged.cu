// The GPU factorisation in stages (qr/gpu_stages.hpp; sparse QR paper
// sec. 3.4): each stage's plan run on one of two window buffers on the
// factor's stream, its results (R's entries, the exported contribution
// blocks, the arena, VT and tau windows) copied to pinned host memory on a
// copy stream while the next stage runs on the other buffer; events order
// the two streams. The solves upload each stage's windows again (copy
// stream, double-buffered) ahead of its replay.
//
//   factor stream:  [stage 0 on buffer 0][stage 1 on buffer 1][stage 2 on buffer 0] ...
//   copy stream:                         [stage 0's results out][stage 1's out]
//   stage 2 waits for stage 0's copies (buffer 0 free) and, for its imports,
//   for the exports of the stages that hold their children.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/graph.hpp"
#include "qr/gpu_device.cuh"

namespace balsa::qr {

using StageEvent = cuda::Owned<cudaEvent_t, cudaEventDestroy>;

namespace {

StageEvent new_event() {
  StageEvent e;
  BALSA_CUDA_CHECK(cudaEventCreateWithFlags(e.out(), cudaEventDisableTiming));
  return e;
}

}  // namespace

// Page-locked host memory (cudaHostAlloc): the copies overlap the kernels.
class PinnedDoubles {
 public:
  PinnedDoubles() = default;
  explicit PinnedDoubles(std::int64_t n) : n_(std::size_t(std::max<std::int64_t>(n, 1))) {
    void* p = nullptr;
    BALSA_CUDA_CHECK(cudaHostAlloc(&p, n_ * 8, cudaHostAllocDefault));
    p_ = static_cast<double*>(p);
  }
  PinnedDoubles(const PinnedDoubles&) = delete;
  PinnedDoubles& operator=(PinnedDoubles&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~PinnedDoubles() {
    if (p_) (void)cudaFreeHost(p_);
  }
  double* data() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  double* p_ = nullptr;
  std::size_t n_ = 0;
};

namespace {

void to_device(double* dst, const double* src, std::int64_t n, cudaStream_t s) {
  if (n > 0) BALSA_CUDA_CHECK(cudaMemcpyAsync(dst, src, std::size_t(n) * 8, cudaMemcpyHostToDevice, s));
}
void to_host(double* dst, const double* src, std::int64_t n, cudaStream_t s) {
  if (n > 0) BALSA_CUDA_CHECK(cudaMemcpyAsync(dst, src, std::size_t(n) * 8, cudaMemcpyDeviceToHost, s));
}

}  // namespace

struct StagedDevice {
  StagedPlan plan;
  std::vector<DeviceMaps> maps;            // per stage
  std::vector<std::int64_t> dense_at;      // per stage: its dense fronts' first cuSOLVER info
  std::vector<index_t> dense_fronts;       // the info's fronts
  std::vector<std::size_t> source;         // per stage: the last stage its imports come from (+1; 0: none)
  cuda::DeviceBuffer<double> buffer[2];    // the windows of the even stages, of the odd ones: buffer, VT, tau, R's entries
  PinnedDoubles arena, vt, tau, r, cb_store;      // the host copies (global layout) and the cb store
  cuda::Stream copy;
  std::vector<StageEvent> exported;             // per stage: its exports in the cb store
  StageEvent computed[2], freed[2];             // per buffer: the stage's kernels done; its copies done
  std::int64_t r_entries = 0;

  // Stage s's windows in buffer b.
  Windows windows(std::size_t s, int b) {
    const GpuPlan& p = plan.stages[s].plan;
    double* base = buffer[b].data();
    return {base, base + p.arena, base + p.arena + p.vt_size, nullptr};
  }
  double* r_out(std::size_t s, int b) {
    const GpuPlan& p = plan.stages[s].plan;
    return buffer[b].data() + p.arena + p.vt_size + p.tau_size;
  }
};

void StagedDeviceDeleter::operator()(StagedDevice* s) const noexcept { delete s; }

void staged_prepare(GpuFactor& g, const GpuPlan& plan, StagedPlan staged, index_t) {
  auto sd = std::unique_ptr<StagedDevice, StagedDeviceDeleter>(new StagedDevice);
  StagedDevice& d = *sd;
  d.plan = std::move(staged);
  const std::size_t n = d.plan.stages.size();
  for (int b = 0; b < 2; ++b) {
    d.buffer[b] = cuda::DeviceBuffer<double>(std::size_t(std::max<std::int64_t>(d.plan.max_window(b), 1)));
    d.computed[b] = new_event();
    d.freed[b] = new_event();
  }
  std::int64_t dense = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const Stage& st = d.plan.stages[s];
    d.maps.push_back(upload_maps(st.plan, st.s_src));
    d.dense_at.push_back(dense);
    dense += std::int64_t(st.plan.dense.size());
    for (const DenseFront& f : st.plan.dense) d.dense_fronts.push_back(f.front);
    std::size_t from = 0;
    for (const CbBlock& c : st.imports)
      for (std::size_t a = 0; a < s; ++a)
        if (c.child >= d.plan.stages[a].f0 && c.child < d.plan.stages[a].f1) from = std::max(from, a + 1);
    d.source.push_back(from);
    d.exported.push_back(new_event());
  }
  prepare_dense(g, plan, d.buffer[0].data());
  d.arena = PinnedDoubles(plan.arena);
  d.vt = PinnedDoubles(plan.vt_size);
  d.tau = PinnedDoubles(plan.tau_size);
  d.r = PinnedDoubles(plan.r_entries());
  d.cb_store = PinnedDoubles(d.plan.cb_store);
  d.r_entries = plan.r_entries();
  BALSA_CUDA_CHECK(cudaStreamCreateWithFlags(d.copy.out(), cudaStreamNonBlocking));
  g.staged = std::move(sd);
}

namespace {

// Stage s on buffer b (factor stream st): assembly (S-assembly, the
// imports from the cb store), its launches, R's entries gathered.
index_t run_stage(GpuFactor& g, StagedDevice& d, std::size_t s, int b, cudaStream_t st) {
  const Stage& S = d.plan.stages[s];
  const DeviceMaps& m = d.maps[s];
  Windows w = d.windows(s, b);
  w.info = g.info.size() > 0 ? g.info.data() + d.dense_at[s] : nullptr;
  if (s >= 2) BALSA_CUDA_CHECK(cudaStreamWaitEvent(st, d.freed[b].get(), 0));  // stage s - 2's copies out of buffer b
  BALSA_CUDA_CHECK(cudaMemsetAsync(w.arena, 0, std::size_t(S.plan.arena) * 8, st));
  scatter_values(g.values.data(), m.s_src.data(), m.s_dst.data(), std::int64_t(S.s_src.size()), w.arena);
  if (d.source[s] > 0) BALSA_CUDA_CHECK(cudaStreamWaitEvent(st, d.exported[d.source[s] - 1].get(), 0));
  for (const CbBlock& c : S.imports) to_device(w.arena + c.region, d.cb_store.data() + c.store, c.rows * c.cols, st);
  const index_t launches = factor_launches(g, S.plan, m, w);
  gather_r_rows(S.plan, m, w.arena, d.r_out(s, b));
  BALSA_CUDA_CHECK(cudaEventRecord(d.computed[b].get(), st));
  return launches;
}

// Stage s's results out of buffer b on the copy stream: the exports first
// (the next stages may wait for them), then R's entries and the windows.
void copy_out(StagedDevice& d, std::size_t s, int b) {
  const Stage& S = d.plan.stages[s];
  const cudaStream_t cs = d.copy.get();
  const Windows w = d.windows(s, b);
  BALSA_CUDA_CHECK(cudaStreamWaitEvent(cs, d.computed[b].get(), 0));
  for (const CbBlock& c : S.exports) to_host(d.cb_store.data() + c.store, w.arena + c.region, c.rows * c.cols, cs);
  BALSA_CUDA_CHECK(cudaEventRecord(d.exported[s].get(), cs));
  to_host(d.r.data() + S.r0, d.r_out(s, b), S.plan.r_entries(), cs);
  to_host(d.arena.data() + S.arena0, w.arena, S.arena_size, cs);
  to_host(d.vt.data() + S.vt0, w.vt, S.plan.vt_size, cs);
  to_host(d.tau.data() + S.tau0, w.tau, S.plan.tau_size, cs);
  BALSA_CUDA_CHECK(cudaEventRecord(d.freed[b].get(), cs));
}

// Stage s's windows into buffer b from the host copies (copy stream),
// once the replay that used buffer b last is done (`used`).
void copy_in(StagedDevice& d, std::size_t s, int b, cudaEvent_t used, cudaEvent_t loaded) {
  const Stage& S = d.plan.stages[s];
  const cudaStream_t cs = d.copy.get();
  const Windows w = d.windows(s, b);
  BALSA_CUDA_CHECK(cudaStreamWaitEvent(cs, used, 0));
  to_device(w.arena, d.arena.data() + S.arena0, S.arena_size, cs);
  to_device(w.vt, d.vt.data() + S.vt0, S.plan.vt_size, cs);
  to_device(w.tau, d.tau.data() + S.tau0, S.plan.tau_size, cs);
  BALSA_CUDA_CHECK(cudaEventRecord(loaded, cs));
}

}  // namespace

void staged_factorise(GpuFactor& g, std::span<const double> values, index_t& launches, std::span<double> r_out) {
  StagedDevice& d = *g.staged;
  const cudaStream_t st = cuda::stream();
  launches = 0;
  if (!values.empty())
    BALSA_CUDA_CHECK(cudaMemcpyAsync(g.values.data(), values.data(), values.size() * 8, cudaMemcpyHostToDevice, st));
  time_device(g, 0, st);
  for (std::size_t s = 0; s < d.plan.stages.size(); ++s) {
    const int b = int(s % 2);
    launches += run_stage(g, d, s, b, st);
    copy_out(d, s, b);
  }
  std::vector<int> info(d.dense_fronts.size());
  if (!info.empty())
    BALSA_CUDA_CHECK(cudaMemcpyAsync(info.data(), g.info.data(), info.size() * sizeof(int), cudaMemcpyDeviceToHost, st));
  time_device(g, 1, d.copy.get());  // (after the last stage's copies)
  BALSA_CUDA_CHECK(cudaStreamSynchronize(st));
  BALSA_CUDA_CHECK(cudaStreamSynchronize(d.copy.get()));
  read_device_time(g);
  check_dense_info(info, d.dense_fronts);
  std::copy(d.r.data(), d.r.data() + d.r_entries, r_out.begin());  // (pinned, whole; r_out: r_entries)
}

void staged_replay(GpuFactor& g, std::int64_t R, index_t nrhs, bool transpose) {
  StagedDevice& d = *g.staged;
  const cudaStream_t st = cuda::stream();
  const std::size_t n = d.plan.stages.size();
  const auto stage = [&](std::size_t k) { return transpose ? k : n - 1 - k; };
  const auto buffer = [&](std::size_t k) { return int(stage(k) % 2); };  // (the stage's: sized for it)
  StageEvent used[2] = {new_event(), new_event()}, loaded[2] = {new_event(), new_event()};
  for (int b = 0; b < 2; ++b) BALSA_CUDA_CHECK(cudaEventRecord(used[b].get(), st));  // the stream's earlier work first
  copy_in(d, stage(0), buffer(0), used[buffer(0)].get(), loaded[buffer(0)].get());
  for (std::size_t k = 0; k < n; ++k) {
    const int b = buffer(k);  // (consecutive stages alternate buffers)
    if (k + 1 < n) copy_in(d, stage(k + 1), 1 - b, used[1 - b].get(), loaded[1 - b].get());
    BALSA_CUDA_CHECK(cudaStreamWaitEvent(st, loaded[b].get(), 0));
    const std::size_t s = stage(k);
    Windows w = d.windows(s, b);
    w.info = g.info.size() > 0 ? g.info.data() + d.dense_at[s] : nullptr;
    replay_launches(g, d.plan.stages[s].plan, d.maps[s], w, R, nrhs, transpose);
    BALSA_CUDA_CHECK(cudaEventRecord(used[b].get(), st));
  }
  // (the events die with this call: the copy stream's last wait is enqueued; the stream keeps order)
}

std::vector<double> staged_arena(const GpuFactor& g) {
  const StagedDevice& d = *g.staged;
  return std::vector<double>(d.arena.data(), d.arena.data() + d.arena.size());
}

std::vector<double> staged_vt(const GpuFactor& g) {
  const StagedDevice& d = *g.staged;
  return std::vector<double>(d.vt.data(), d.vt.data() + d.vt.size());
}

std::vector<double> staged_tau(const GpuFactor& g) {
  const StagedDevice& d = *g.staged;
  return std::vector<double>(d.tau.data(), d.tau.data() + d.tau.size());
}

}  // namespace balsa::qr
