// SaP over several GPUs, the GPU side (sap/multi_device.hpp): each slot
// uploads its columns of A's band, factors its blocks (all slots at once,
// each on its own non-blocking stream), and takes its slice of every
// product and preconditioner application; the Krylov vectors stay on the
// primary device (the calling thread's), slices move by cudaMemcpyPeerAsync
// and the streams are ordered by events.
#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <thread>
#include <type_traits>

#include "core/clock.hpp"
#include "balsa/cuda.hpp"  // current_device, use_device
#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "sap/gpu.hpp"
#include "sap/multi_device.hpp"
#include "sparse/banded_check.hpp"

namespace balsa::sap {

namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

// f(j) for every slot j on a host thread of its own (the slots' set-ups run
// at once); the first slot's exception is rethrown after all have ended.
template <class F>
void on_every_slot(std::size_t count, const F& f) {
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> threads;
  for (std::size_t j = 0; j < count; ++j)
    threads.emplace_back([&, j] {
      try {
        f(j);
      } catch (...) {
        errors[j] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Whether `device` and the primary copy peer to peer, after enabling peer
// access both ways where CUDA allows it (the same device: trivially). A
// refusal (no P2P path, too many peers) is not an error: those copies are
// staged through host memory by the driver.
bool enable_peer(int from, int to) {
  int can = 0;
  BALSA_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return false;
  const DeviceScope on(from);
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaSuccess) return true;
  (void)cudaGetLastError();  // clear it
  return e == cudaErrorPeerAccessAlreadyEnabled;
}
bool peer_access(int device, int primary) {
  if (device == primary) return true;
  const bool there = enable_peer(device, primary);
  const bool back = enable_peer(primary, device);
  return there && back;
}

template <class T>
struct Slot {
  SlotRange range;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;  // the slot's part of the last application
  std::unique_ptr<SapPreconditioner<T>> M;  // its blocks [g0, g1)
  cuda::DeviceBuffer<T> diag;              // A's diagonals on columns [o0, o1) (the product)
  cuda::DeviceBuffer<T> in, out;            // its slices of an application's input (copied) and output
  cuda::DeviceBuffer<int> stop;             // the driver's stop code, copied before each application
  bool direct = true;                       // on the primary device: reads the primary's vectors (else copies)
  cuda::DeviceBuffer<T> back;               // on another device: its output rows on the primary
  double setup_seconds = 0;
  std::size_t bytes = 0;
};

template <class T, class P>
class Spread final : public MultiDevice<T> {
 public:
  Spread(const Banded<T>& A, const Plan& plan, const std::vector<int>& slots, bool with_operator, bool check,
         std::size_t memory_limit)
      : plan_(plan), primary_(cuda::current_device()), with_operator_(with_operator) {
    std::vector<int> devices;
    for (const SlotRange& r : place(plan, slots)) {
      Slot<T>& sl = slots_.emplace_back();
      sl.range = r;
      if (!peer_access(r.device, primary_)) {
        peer_access_ = false;
        staged_ += (staged_.empty() ? "" : ", ") + s(r.device) + " and " + s(primary_);
      }
      sl.direct = r.device == primary_ && !(slots_.size() > 1 && slots_copied());
      if (!sl.direct) sl.back = cuda::DeviceBuffer<T>(std::size_t(r.r1 - r.r0));
      if (std::find(devices.begin(), devices.end(), r.device) == devices.end()) devices.push_back(r.device);
    }
    check_memory(devices, memory_limit);
    try {
      BALSA_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
      for (Slot<T>& sl : slots_) {
        const DeviceScope on(sl.range.device);
        BALSA_CUDA_CHECK(cudaStreamCreateWithFlags(&sl.stream, cudaStreamNonBlocking));
        BALSA_CUDA_CHECK(cudaEventCreateWithFlags(&sl.done, cudaEventDisableTiming));
      }
      update_values(A, check, plan.boost.amax);
    } catch (...) {  // no destructor after a failed constructor
      release();
      throw;
    }
  }
  ~Spread() override { release(); }

  double update_values(const Banded<T>& A, bool check, double amax) override {
    const index_t k = plan_.k;
    const std::size_t ld = std::size_t(2 * k + 1);
    std::vector<cuda::DeviceBuffer<T>> bands(slots_.size());
    std::vector<gpu::BandCheck> checks(slots_.size());
    on_every_slot(slots_.size(), [&](std::size_t j) {  // upload (and check) each slot's columns
      Slot<T>& sl = slots_[j];
      const DeviceScope on(sl.range.device);
      const cuda::StreamScope ss(sl.stream);
      const auto t0 = Clock::now();
      const std::size_t first = std::size_t(sl.range.c0) * ld, count = std::size_t(sl.range.c1 - sl.range.c0) * ld;
      bands[j] = cuda::DeviceBuffer<T>(count);
      bands[j].upload(std::span<const T>(A.data.data() + first, count));
      if (check) checks[j] = gpu::check_band(bands[j].data(), count);
      sl.setup_seconds = seconds_since(t0);
    });
    if (check) {
      std::size_t bad = A.data.size();
      amax = 0;
      for (std::size_t j = 0; j < slots_.size(); ++j) {
        if (checks[j].first_bad < bands[j].size())
          bad = std::min(bad, std::size_t(slots_[j].range.c0) * ld + checks[j].first_bad);
        amax = std::max(amax, checks[j].amax);
      }
      if (bad < A.data.size()) detail::throw_nonfinite_band_entry(A, bad);
      if (A.n > 0 && amax == 0) throw MatrixError("SaP banded solver: A is zero (singular)");
    }
    plan_.boost.amax = amax;
    factor_all(bands);
    return amax;
  }

  // One application: each slot's input slice [lo, hi) of `in` goes to it
  // (send), `compute` turns it into its output slice, whose rows [r0, r1)
  // come back to `out` (take_back). The slots wait for the primary stream's
  // work before (event ready_), the primary stream for theirs after (their
  // done events). Once *stopped != 0 nothing of `out` changes.
  template <class Compute>
  void apply(const T* in, T* out, const int* stopped, bool product, const Compute& compute) {
    const cudaStream_t ps = cuda::stream();
    BALSA_CUDA_CHECK(cudaEventRecord(ready_, ps));
    for (Slot<T>& sl : slots_) {
      const index_t lo = product ? sl.range.o0 : sl.range.f0, hi = product ? sl.range.o1 : sl.range.f1;
      const DeviceScope on(sl.range.device);
      const cuda::StreamScope ss(sl.stream);
      BALSA_CUDA_CHECK(cudaStreamWaitEvent(sl.stream, ready_, 0));
      const Input x = send(sl, in + lo, hi - lo, stopped);
      compute(sl, x.values, hi - lo, x.stop);
      take_back(sl, sl.out.data() + (sl.range.r0 - lo), out, x.stop);
    }
    for (Slot<T>& sl : slots_) {
      BALSA_CUDA_CHECK(cudaStreamWaitEvent(ps, sl.done, 0));
      if (!sl.direct) gpu::convert(sl.back.data(), out + sl.range.r0, sl.range.r1 - sl.range.r0, stopped);
    }
  }

  // A slot's input on its device: a slot on the primary reads the primary's
  // vector and stop flag in place; another gets copies of both
  // (cudaMemcpyPeerAsync: peer to peer over NVLink where peer access is on,
  // else staged by the driver; no kernel touches another device's memory,
  // so the stream-ordered pools need no access grants).
  struct Input {
    const T* values;
    const int* stop;
  };
  Input send(Slot<T>& sl, const T* values, index_t count, const int* stopped) {
    if (sl.direct) return {values, stopped};
    const int device = sl.range.device;
    if (stopped)
      BALSA_CUDA_CHECK(cudaMemcpyPeerAsync(sl.stop.data(), device, stopped, primary_, sizeof(int), sl.stream));
    BALSA_CUDA_CHECK(
        cudaMemcpyPeerAsync(sl.in.data(), device, values, primary_, std::size_t(count) * sizeof(T), sl.stream));
    return {sl.in.data(), stopped ? sl.stop.data() : nullptr};
  }
  // A slot's rows [r0, r1) to `out`: written by a kernel that reads the stop
  // flag (a slot on the primary), or copied to `back` on the primary, from
  // where apply's kernel on the primary stream writes them unless stopped.
  void take_back(Slot<T>& sl, const T* rows, T* out, const int* stop) {
    const std::int64_t count = sl.range.r1 - sl.range.r0;
    if (sl.direct)
      gpu::convert(rows, out + sl.range.r0, count, stop);
    else
      BALSA_CUDA_CHECK(cudaMemcpyPeerAsync(sl.back.data(), primary_, rows, sl.range.device,
                                           std::size_t(count) * sizeof(T), sl.stream));
    BALSA_CUDA_CHECK(cudaEventRecord(sl.done, sl.stream));
  }

  void record(BandedStats& st) const override {
    st.devices.clear();
    st.device_setup_seconds.clear();
    st.device_bytes_each.clear();
    st.device_bytes = 0;
    for (const Slot<T>& sl : slots_) {
      st.devices.push_back(sl.range.device);
      st.device_setup_seconds.push_back(sl.setup_seconds);
      st.device_bytes_each.push_back(sl.bytes);
      st.device_bytes += sl.bytes;
    }
    st.peer_access = peer_access_;
    st.transfers = peer_access_ ? "peer to peer" : "staged through host memory by the CUDA driver between " + staged_;
  }
  const SetupReport& report() const override { return report_; }

 private:
  // Every slot's buffers freed on its stream (its device current), then
  // its stream and events.
  void release() noexcept {
    for (Slot<T>& sl : slots_) try {
      const DeviceScope on(sl.range.device);
      if (!sl.stream) continue;
      (void)cudaStreamSynchronize(sl.stream);
      sl.M.reset();
      sl.diag = {};
      sl.in = {};
      sl.out = {};
      sl.stop = {};
      (void)cudaStreamSynchronize(sl.stream);
      sl.back = {};
      if (sl.done) (void)cudaEventDestroy(sl.done);
      (void)cudaStreamDestroy(sl.stream);
      sl.stream = nullptr;
    } catch (...) {  // the device cannot be made current (a broken context): its resources go with the process
    }
    if (ready_) (void)cudaEventDestroy(ready_);
    ready_ = nullptr;
  }

  // Each device's share (its slots' bands, factors, vectors; the primary
  // also the Krylov vectors) against its free memory or the limit.
  void check_memory(const std::vector<int>& devices, std::size_t limit) {
    for (Slot<T>& sl : slots_) {
      Plan lp = local_plan(plan_, sl.range);
      lp.n = sl.range.c1 - sl.range.c0;
      sl.bytes = device_bytes_needed(lp, sizeof(T), sizeof(P)) + std::size_t(sl.range.c1 - sl.range.c0) * 2 * sizeof(T);
      if (sl.range.device == primary_) sl.bytes += std::size_t(plan_.n) * 12 * sizeof(T);
    }
    for (int d : devices) {
      std::size_t need = 0;
      for (const Slot<T>& sl : slots_) need += sl.range.device == d ? sl.bytes : 0;
      const DeviceScope on(d);
      const std::size_t have = limit ? limit : cuda::memory_info().first;
      if (need > have)
        throw DeviceOutOfMemory("SaP banded solver: device " + s(d) + "'s share (n = " + s(plan_.n) + ", k = " +
                                s(plan_.k) + ") needs " + s(std::int64_t(need)) + " bytes of device memory, " +
                                s(std::int64_t(have)) + (limit ? " allowed (device_memory_limit)" : " free"));
    }
  }

  // Every slot's blocks factored from its columns (the slots at once) into
  // new factors; only when all succeed do they replace the old ones and A's
  // diagonals take the new values (as on one device, a failed refactor
  // leaves the solver as it was).
  void factor_all(std::vector<cuda::DeviceBuffer<T>>& bands) {
    const std::size_t ld = std::size_t(2 * plan_.k + 1);
    std::vector<std::unique_ptr<SapPreconditioner<T>>> fresh(slots_.size());
    on_every_slot(slots_.size(), [&](std::size_t j) {
      Slot<T>& sl = slots_[j];
      const SlotRange& r = sl.range;
      const DeviceScope on(r.device);
      const cuda::StreamScope ss(sl.stream);
      const auto t0 = Clock::now();
      try {
        fresh[j] = make_device_preconditioner<T, P>(bands[j].data() + std::size_t(r.f0 - r.c0) * ld, local_plan(plan_, r));
      } catch (const MatrixError& e) {  // its blocks and rows are numbered from g0 and f0
        throw MatrixError("SaP on device " + s(r.device) + " (its block 0 is block " + s(r.g0) + ", its row 0 row " +
                          s(r.f0) + "): " + e.what());
      }
      sl.setup_seconds += seconds_since(t0);
    });
    on_every_slot(slots_.size(), [&](std::size_t j) { commit(slots_[j], std::move(fresh[j]), bands[j]); });
    report_ = combined_report();
  }

  // Slot sl's new factors in place, its work buffers (the first time), A's
  // diagonals from its columns; its columns freed.
  void commit(Slot<T>& sl, std::unique_ptr<SapPreconditioner<T>> M, cuda::DeviceBuffer<T>& band) {
    const SlotRange& r = sl.range;
    const index_t k = plan_.k;
    const DeviceScope on(r.device);
    const cuda::StreamScope ss(sl.stream);
    const auto t0 = Clock::now();
    sl.M = std::move(M);
    if (sl.stop.empty()) {
      const std::size_t most = std::size_t(std::max(r.f1 - r.f0, r.o1 - r.o0));
      if (!sl.direct) sl.in = cuda::DeviceBuffer<T>(most);
      sl.out = cuda::DeviceBuffer<T>(most);
      sl.stop = cuda::DeviceBuffer<int>(1);
      if (with_operator_) sl.diag = cuda::DeviceBuffer<T>(std::size_t(r.o1 - r.o0) * std::size_t(2 * k + 1));
    }
    if (with_operator_)
      gpu::to_diagonals(band.data() + std::size_t(r.o0 - r.c0) * std::size_t(2 * k + 1), r.o1 - r.o0, k, sl.diag.data());
    band = {};
    cuda::detail::synchronize();
    sl.setup_seconds += seconds_since(t0);
  }

  // The slots' set-up reports as one: they work at once, so their longest
  // phases; the boosted pivots summed.
  SetupReport combined_report() const {
    SetupReport all;
    all.min_bandwidth = slots_[0].M->report().min_bandwidth;
    for (const Slot<T>& sl : slots_) {
      const SetupReport& r = sl.M->report();
      all.t_lu = std::max(all.t_lu, r.t_lu);
      all.t_bc = std::max(all.t_bc, r.t_bc);
      all.t_spk = std::max(all.t_spk, r.t_spk);
      all.t_lu_rdcd = std::max(all.t_lu_rdcd, r.t_lu_rdcd);
      all.boosted_pivots += r.boosted_pivots;
      all.min_bandwidth = std::min(all.min_bandwidth, r.min_bandwidth);
      all.max_bandwidth = std::max(all.max_bandwidth, r.max_bandwidth);
    }
    return all;
  }

  Plan plan_;
  int primary_;
  bool with_operator_;
  std::vector<Slot<T>> slots_;
  cudaEvent_t ready_ = nullptr;  // on the primary device
  bool peer_access_ = true;
  std::string staged_;
  SetupReport report_;
};

// The preconditioner the Krylov driver sees: each slot's block solves (and
// SaP-C's corrections) on its slice.
template <class T, class P>
class SpreadPreconditioner final : public SapPreconditioner<T> {
 public:
  SpreadPreconditioner(std::shared_ptr<Spread<T, P>> spread, const Plan& plan)
      : SapPreconditioner<T>(plan), spread_(std::move(spread)) {
    this->report_ = spread_->report();
  }
  void apply(std::span<const T>, std::span<T>) override {
    throw Error("internal: the multi-device SaP preconditioner has no host path");
  }
  void apply_device(const T* r, T* z) override { apply_device_unless(r, z, nullptr); }
  void apply_device_unless(const T* r, T* z, const int* stopped) override {
    spread_->apply(r, z, stopped, false, [](Slot<T>& sl, const T* src, index_t, const int* stop) {
      sl.M->apply_device_unless(src, sl.out.data(), stop);
    });
  }
  void update_values(std::span<const T>) override {
    throw Error("internal: the multi-device SaP preconditioner is updated through its state");
  }
  Spread<T, P>& spread() { return *spread_; }

 private:
  std::shared_ptr<Spread<T, P>> spread_;
};

// A's product: each slot's rows from its columns' diagonals.
template <class T, class P>
class SpreadOperator final : public krylov::Operator<T> {
 public:
  SpreadOperator(std::shared_ptr<Spread<T, P>> spread, index_t n, index_t k) : spread_(std::move(spread)), n_(n), k_(k) {}
  index_t rows() const override { return n_; }
  void apply(const T*, T*) override { throw Error("internal: the multi-device band operator has no host path"); }
  void apply_device(const T* x, T* y) override { apply_device_unless(x, y, nullptr); }
  void apply_device_unless(const T* x, T* y, const int* stopped) override {
    const index_t k = k_;
    spread_->apply(x, y, stopped, true, [k](Slot<T>& sl, const T* src, index_t rows, const int* stop) {
      gpu::diagonal_spmv(sl.diag.data(), rows, k, src, sl.out.data(), stop);
    });
  }
  std::string name() const override { return "balsa-banded-multi-device"; }

 private:
  std::shared_ptr<Spread<T, P>> spread_;
  index_t n_, k_;
};

}  // namespace

template <class T, class P>
MultiDeviceSystem<T> make_spread(const Banded<T>& A, const Plan& plan, const std::vector<int>& slots,
                                 bool with_operator, bool check, std::size_t memory_limit) {
  auto spread = std::make_shared<Spread<T, P>>(A, plan, slots, with_operator, check, memory_limit);
  MultiDeviceSystem<T> sys;
  sys.state = spread.get();
  if (with_operator) sys.op = std::make_unique<SpreadOperator<T, P>>(spread, plan.n, plan.k);
  sys.pre = std::make_unique<SpreadPreconditioner<T, P>>(std::move(spread), plan);
  return sys;
}

template <class T>
MultiDeviceSystem<T> make_multi_device(const Banded<T>& A, const Plan& plan, const std::vector<int>& slots,
                                       bool float_preconditioner, bool with_operator, bool check,
                                       std::size_t memory_limit) {
  if constexpr (std::is_same_v<T, double>)
    if (float_preconditioner) return make_spread<T, float>(A, plan, slots, with_operator, check, memory_limit);
  return make_spread<T, T>(A, plan, slots, with_operator, check, memory_limit);
}

template MultiDeviceSystem<float> make_multi_device(const Banded<float>&, const Plan&, const std::vector<int>&, bool,
                                                    bool, bool, std::size_t);
template MultiDeviceSystem<double> make_multi_device(const Banded<double>&, const Plan&, const std::vector<int>&, bool,
                                                     bool, bool, std::size_t);

}  // namespace balsa::sap
