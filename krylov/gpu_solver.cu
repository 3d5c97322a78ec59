// The GPU Krylov driver: setup (upload A, choose the SpMV, work space) and
// the host loop that keeps the device busy without a round trip per
// iteration.
//
// The loop. The host enqueues iteration after iteration of the method's
// kernels (krylov/gpu_method.cuh); every kCheckEvery iterations it also
// enqueues an asynchronous copy of the device Status into a pinned slot and
// records an event. It polls those events (cudaEventQuery) as it goes and,
// when it is kLookahead iterations ahead of the last status it has read,
// waits on the oldest one. A status that says the solve stopped ends the
// enqueueing. The iterations already enqueued then run as no-ops (every
// vector kernel reads the stop code first; only their SpMVs and
// preconditioner applications still run, on vectors that no longer change),
// so x is exactly the iterate of the stopping iteration. Each status copy
// carries the residual-history ring, so the host collects every iteration's
// residual although it reads only every few.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "krylov/gpu_method.cuh"
#include "krylov/gpu_phase_timer.cuh"
#include "core/instantiate.hpp"
#include "cuda/device.hpp"
#include "cuda/handle_pool.hpp"

namespace balsa::krylov::gpu {

namespace {

constexpr int kCheckEvery = 2;  // iterations between status copies
constexpr int kLookahead = 4;   // most iterations enqueued beyond the last status read
constexpr int kSlots = kLookahead / kCheckEvery + 2;
static_assert(kRing > kLookahead + kCheckEvery, "the history ring must outlast the iterations in flight");
static_assert(offsetof(State, status) == 0, "the host copies the Status from the State's address");

// Pinned host copies of the Status, one event each. The pinned block is
// lent by a pool (cuda/handle_pool.hpp): pinning and unpinning per solver
// could wait for the whole device.
struct PinnedStatus {
  Status* slots;
};

class StatusSlots {
 public:
  StatusSlots()
      : device_(cuda::current_device()),
        slots_(cuda::detail::HandlePool<PinnedStatus>::instance()
                   .take([](PinnedStatus& p) {
                     BALSA_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p.slots), sizeof(Status) * kSlots));
                   })
                   .slots) {
    for (int i = 0; i < kSlots; ++i) {
      const cudaError_t e = cudaEventCreateWithFlags(&events_[i], cudaEventDisableTiming);
      if (e != cudaSuccess) {
        release();
        cuda::detail::throw_cuda(e, "cudaEventCreateWithFlags", __FILE__, __LINE__);
      }
    }
  }
  ~StatusSlots() { release(); }
  StatusSlots(const StatusSlots&) = delete;
  StatusSlots& operator=(const StatusSlots&) = delete;
  Status& operator[](int i) { return slots_[i]; }
  cudaEvent_t event(int i) const { return events_[i]; }

 private:
  // An asynchronous status copy may still be in flight (a solve left by an
  // exception): each slot's event is waited for before the block goes back
  // to the pool, so a late copy cannot land in the next owner's slots.
  void release() noexcept {
    for (cudaEvent_t& e : events_)
      if (e) {
        (void)cudaEventSynchronize(e);
        (void)cudaEventDestroy(std::exchange(e, nullptr));
      }
    if (slots_) cuda::detail::HandlePool<PinnedStatus>::instance().give({std::exchange(slots_, nullptr)}, device_);
  }
  int device_;
  Status* slots_ = nullptr;
  cudaEvent_t events_[kSlots] = {};
};

template <class T>
class DeviceSolver final : public Solver<T> {
 public:
  // A as CSR (op null) or as an operator of n rows (A empty).
  DeviceSolver(cuda::DeviceCsr<T> A, Operator<T>* op, index_t n, Preconditioner<T>* M, const KrylovOptions& o,
               KrylovStats& setup)
      : options_(o), timer_(o.phase_timing) {
    Context<T>& c = c_;
    c.n = n;
    c.op = op;
    c.stopping = {o.stopping.tolerance, o.stopping.absolute_tolerance, o.stopping.norm == StoppingNorm::Infinity, o.stopping.divergence,
                  o.stopping.stagnation_window};
    c.l = o.l;
    c.restart = o.restart;
    c.M = M;
    c.A = std::move(A);
    c.state = cuda::DeviceBuffer<State>(1);
    c.launch.n = c.n;
    c.launch.grid = int(std::max<std::int64_t>(
        1, std::min<std::int64_t>((std::int64_t(c.n) + kBlock - 1) / kBlock, 8 * std::int64_t(cuda::multiprocessors()))));
    c.partials = cuda::DeviceBuffer<double>(std::size_t(kMaxValues) * std::size_t(c.launch.grid));
    c.launch.state = c.state.data();
    c.launch.partials = c.partials.data();
    c.marks = &timer_;
    setup.spmv = op ? op->name() : choose_spmv();
    switch (o.method) {
      case KrylovMethod::Cg: method_ = make_cg(c); break;
      case KrylovMethod::BiCgStab: method_ = make_bicgstab(c); break;
      case KrylovMethod::BiCgStabL: method_ = make_bicgstab_l(c); break;
      case KrylovMethod::Gmres: method_ = make_gmres(c); break;
      case KrylovMethod::Minres: method_ = make_minres(c); break;
    }
    q_ = cuda::DeviceBuffer<T>(std::size_t(c.n));
    cuda::detail::synchronize();
  }

  void update_values(std::span<const T> values) override {
    if (c_.op) throw Error("internal: update_values on a Krylov solver whose A is an operator");
    c_.A.values.upload(values);
  }

  void set_iterate_callback(const IterateCallback<T>* f) override { on_iterate_ = f; }

  // A solve left by an exception (a user's callback, a CUDA check) first
  // waits for the work it enqueued: nothing runs on after it on buffers the
  // caller may free.
  void solve(const T* b, T* x, KrylovStats& st) override {
    try {
      run_solve(b, x, st);
    } catch (...) {
      (void)cudaStreamSynchronize(cuda::stream());
      throw;
    }
  }

 private:
  void run_solve(const T* b, T* x, KrylovStats& st) {
    timer_.reset();
    iterated_ = 0;
    State init{};
    method_->initial_scalars(init.s);
    cuda::detail::copy_to_device(c_.state.data(), &init, sizeof(State));
    method_->start(b, x);
    Status s0{};
    cuda::detail::copy_to_host(&s0, c_.state.data(), sizeof(Status));
    if (s0.stop == kNonFinite && s0.quantity == kInput) {  // name the index, as the host path does
      if (s0.bad_b) require_finite(std::span<const T>(host_copy(b)), "right-hand side b");
      require_finite(std::span<const T>(host_copy(x)), "initial guess x");
      throw Error("Krylov solve: NaN or Inf in b or x");
    }
    st.history.assign(1, s0.history[0]);
    if (options_.progress && s0.normb != 0) call_user(options_.progress, 0, s0.history[0]);
    if (s0.normb == 0) {  // b == 0: x = 0
      cuda::detail::fill_bytes(x, 0, std::size_t(c_.n) * sizeof(T));
      st.iterations = st.matvecs = 0;
      st.residual = st.true_residual = 0;
      record_stop(st, kConverged, kNoQuantity, 0.0, 0, options_.stopping.tolerance);
      return cuda::detail::synchronize();
    }
    int known = 0;  // history[0..known] collected
    if (s0.stop == kRunning) known = run_iterations(st, x);
    // x's last touches and the true residual, then the final status.
    if (s0.stop == kRunning) method_->finish(x);
    c_.spmv(x, q_.data());
    c_.launch.reduce_unmasked(TrueResidual<T>{b, q_.data()});
    Status fin{};
    cuda::detail::copy_to_host(&fin, c_.state.data(), sizeof(Status));
    for (int k = known + 1; k <= fin.iterations; ++k) st.history.push_back(fin.history[k % kRing]);
    if (options_.progress && fin.iterations > known) call_user(options_.progress, fin.iterations, fin.residual);
    if (on_iterate_ && fin.iterations > iterated_) report_iterate(fin.iterations, x, false);
    st.iterations = fin.iterations;
    st.matvecs = fin.matvecs;
    st.residual = fin.residual;
    st.true_residual = fin.true_residual;
    if (fin.stop == kDiverged || fin.stop == kNoProgress)
      record_early_stop(st, fin.stop, fin.progress, fin.at, options_.stopping);
    else
      record_stop(st, fin.stop == kRunning ? kMaxIterationsStop : fin.stop, fin.quantity, fin.value, fin.at,
                  fin.tolerance);
    check_attainable_accuracy(st, options_.stopping, c_.n);
    timer_.retire(fin.iterations);
    timer_.drop();
    st.phase_samples = timer_.samples();
    st.spmv_seconds = timer_.seconds(Phase::Spmv, fin.iterations);
    st.preconditioner_seconds = timer_.seconds(Phase::Preconditioner, fin.iterations);
    st.vector_seconds = timer_.seconds(Phase::Vector, fin.iterations);
  }

  // The user's iterate callback on x_k (iteration k): x's copy on the host,
  // formed first (`form`: the method's finish on a copy, BiCGStab(l)'s x0 +
  // M^{-1} y) while the solve runs.
  void report_iterate(int k, const T* x, bool form) {
    const std::size_t n = std::size_t(c_.n);
    const T* from = x;
    if (form) {
      if (xk_.size() != n) xk_ = cuda::DeviceBuffer<T>(n);
      cuda::detail::copy_on_device(xk_.data(), x, n * sizeof(T));
      method_->finish(xk_.data());
      from = xk_.data();
    }
    xk_host_.resize(n);
    cuda::detail::copy_to_host(xk_host_.data(), from, n * sizeof(T));
    iterated_ = k;
    call_user(*on_iterate_, k, std::span<const T>(xk_host_));
  }

  // A device vector of n values on the host (error messages).
  std::vector<T> host_copy(const T* v) const {
    std::vector<T> h(std::size_t(c_.n));
    cuda::detail::copy_to_host(h.data(), v, h.size() * sizeof(T));
    return h;
  }

  // Enqueues the iterations (see the top of the file); returns how many
  // history entries it collected. The status copies it has not read yet
  // need no care: their slots are only reused by the next solve, which
  // starts with synchronous copies.
  // With an iterate callback the status is read after every iteration,
  // nothing enqueued ahead, and the callback called on each running one.
  int run_iterations(KrylovStats& st, T* x) {
    const int every = on_iterate_ ? 1 : kCheckEvery, ahead = on_iterate_ ? 0 : kLookahead;
    std::deque<std::pair<int, int>> pending;  // (slot, iteration) of the status copies in flight
    int next_slot = 0, known = 0;
    bool stopped = false;
    // Reads the oldest pending status (waiting for it when `wait`).
    auto read_oldest = [&](bool wait) {
      const auto [slot, k] = pending.front();
      if (wait) {
        BALSA_CUDA_CHECK(cudaEventSynchronize(slots_.event(slot)));
      } else {
        const cudaError_t q = cudaEventQuery(slots_.event(slot));
        if (q == cudaErrorNotReady) return false;
        BALSA_CUDA_CHECK(q);
      }
      pending.pop_front();
      const Status& s = slots_[slot];
      stopped = s.stop != kRunning;
      const int upto = stopped ? s.iterations : k;
      for (int j = known + 1; j <= upto; ++j) st.history.push_back(s.history[j % kRing]);
      if (options_.progress && upto > known) call_user(options_.progress, upto, s.residual);
      known = std::max(known, upto);
      // GMRES forms x only at its restarts (its finish writes the solve's x),
      // so its callback sees the final x only.
      if (on_iterate_ && !stopped && options_.method != KrylovMethod::Gmres) report_iterate(k, x, true);
      if (!stopped) timer_.retire(k);  // iterations < k ran in full
      return true;
    };
    c_.stopped = reinterpret_cast<const int*>(reinterpret_cast<const char*>(c_.state.data()) + offsetof(State, status) +
                                              offsetof(Status, stop));  // a device address
    struct Unmask {  // also when a progress callback or a CUDA check throws: start() and finish() must compute
      Context<T>& c;
      ~Unmask() { c.stopped = nullptr; }
    } unmask{c_};
    for (int k = 0; k < options_.stopping.max_iterations && !stopped; ++k) {
      while (!stopped && !pending.empty() && k + 1 - known > ahead) read_oldest(true);
      if (stopped) break;
      timer_.begin_iteration(k);
      method_->iterate(k);
      timer_.end_iteration();
      if ((k + 1) % every == 0 && k + 1 < options_.stopping.max_iterations) {
        const int slot = next_slot;
        next_slot = (next_slot + 1) % kSlots;
        BALSA_CUDA_CHECK(cudaMemcpyAsync(&slots_[slot], c_.state.data(), sizeof(Status), cudaMemcpyDeviceToHost,
                                         cuda::stream()));
        BALSA_CUDA_CHECK(cudaEventRecord(slots_.event(slot), cuda::stream()));
        pending.emplace_back(slot, k + 1);
      }
      while (!stopped && !pending.empty() && read_oldest(false)) {
      }
    }
    return known;
  }

  // cuSPARSE's SpMV or balsa's own kernel: the faster over a few products
  // (KrylovOptions::spmv = Cusparse or Balsa decides instead).
  std::string choose_spmv() {
    if (options_.spmv == KrylovSpmv::Balsa) return "balsa";
    c_.cusparse = std::make_unique<cuda::CusparseSpmv<T>>(c_.A);
    if (options_.spmv == KrylovSpmv::Cusparse) return "cusparse";
    cuda::DeviceBuffer<T> x(std::size_t(c_.n)), y(std::size_t(c_.n));
    cuda::fill(x, T(1));
    auto time = [&](auto&& product) {
      product();  // warm-up
      cuda::EventTimer t;
      t.start();
      for (int i = 0; i < 5; ++i) product();
      t.stop();
      return t.milliseconds();
    };
    const double own = time([&] { cuda::spmv(c_.A, x, y); });
    const double lib = time([&] { c_.cusparse->apply(T(1), x, T(0), y); });
    if (own <= lib) {
      c_.cusparse.reset();
      return "balsa";
    }
    return "cusparse";
  }

  KrylovOptions options_;
  PhaseTimer timer_;
  Context<T> c_;
  std::unique_ptr<Method<T>> method_;
  StatusSlots slots_;
  cuda::DeviceBuffer<T> q_;
  const IterateCallback<T>* on_iterate_ = nullptr;
  int iterated_ = 0;              // the last iteration the iterate callback saw
  cuda::DeviceBuffer<T> xk_;      // x_k formed for it
  std::vector<T> xk_host_;
};

}  // namespace

template <class T>
std::unique_ptr<Solver<T>> make_solver(cuda::DeviceCsr<T> A, Preconditioner<T>* M, const KrylovOptions& options,
                                       KrylovStats& setup) {
  const index_t n = A.rows;
  return std::make_unique<DeviceSolver<T>>(std::move(A), nullptr, n, M, options, setup);
}

template <class T>
std::unique_ptr<Solver<T>> make_solver(Operator<T>* A, Preconditioner<T>* M, const KrylovOptions& options,
                                       KrylovStats& setup) {
  return std::make_unique<DeviceSolver<T>>(cuda::DeviceCsr<T>{}, A, A->rows(), M, options, setup);
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_KRYLOV_GPU_SOLVERS)

}  // namespace balsa::krylov::gpu
