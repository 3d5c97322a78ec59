// The CPU backends (trsv/backend.hpp) and the one factory of every backend.
// A CPU backend reads the front end's matrix M (its values included) and
// solves host arrays; solve_many runs independent columns in parallel.
#include "trsv/backends.hpp"

#include <string>
#include <utility>

#include "core/clock.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"
#include "balsa/cuda.hpp"  // cuda::available (no CUDA header: this file builds without CUDA)
#include "trsv/gpu_algorithm.hpp"
#include "trsv/level_set/level_set_cpu.hpp"
#include "trsv/spike/spike_cpu.hpp"
#include "trsv/substitution.hpp"
#include "trsv/tassl/tassl_cpu.hpp"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_stats.hpp"

namespace balsa::trsv {

template <class T>
index_t default_tassl_n_max(Device device) {
  if (device == Device::Cuda && cuda::available()) return trsv_gpu::tassl_default_n_max(sizeof(T));
  return tassl::default_n_max(tassl::kDefaultSharedBytes, sizeof(T));
}

namespace {

template <class T>
class CpuBackend : public Backend<T> {
 public:
  explicit CpuBackend(const Csr<T>& M) : M_(M) {}
  Device device() const final { return Device::Cpu; }
  void solve(const T* b, T* x) final { solve_column(b, x); }
  void solve_many(const T* B, T* X, index_t rows, index_t columns) final {
    if (columns == 1) return solve_column(B, X);
#pragma omp parallel for schedule(dynamic, 1) if (columns > 1)
    for (index_t j = 0; j < columns; ++j)
      solve_column(B + std::size_t(j) * std::size_t(rows), X + std::size_t(j) * std::size_t(rows));
  }
  void update_values(std::span<const T>) override {}  // M's values are read at each solve
  void update_values_device(const T*, std::size_t) final {
    throw Error("update_values: device values need a solver on Device::Cuda (this one runs on the CPU)");
  }

 protected:
  // One column (const: columns are solved concurrently).
  virtual void solve_column(const T* b, T* x) const = 0;
  std::span<const T> in(const T* b) const { return {b, std::size_t(M_.rows)}; }
  std::span<T> out(T* x) const { return {x, std::size_t(M_.rows)}; }
  const Csr<T>& M_;
};

template <class T>
class Substitution final : public CpuBackend<T> {
 public:
  Substitution(const Csr<T>& M, Triangle tri, DiagonalKind diag) : CpuBackend<T>(M), tri_(tri), diag_(diag) {}

 private:
  void solve_column(const T* b, T* x) const override { trsv_cpu::substitute(this->M_, tri_, diag_, b, x); }
  Triangle tri_;
  DiagonalKind diag_;
};

template <class T>
class LevelSetCpu final : public CpuBackend<T> {
 public:
  LevelSetCpu(const Csr<T>& M, DiagonalKind diag, const LevelSets& levels)
      : CpuBackend<T>(M), diag_(diag), schedule_(trsv_cpu::make_schedule(levels)) {}

 private:
  void solve_column(const T* b, T* x) const override {
    trsv_cpu::solve_level_set(this->M_, diag_, schedule_, this->in(b), this->out(x));
  }
  DiagonalKind diag_;
  trsv_cpu::LevelSchedule schedule_;
};

// Spike on the CPU (trsv_spike::CpuSpike): its own copy of the values, in
// its form's order.
template <class T>
class SpikeCpu final : public CpuBackend<T> {
 public:
  SpikeCpu(const Csr<T>& M, Triangle tri, DiagonalKind diag, const trsv_spike::Partition& part)
      : CpuBackend<T>(M), spike_(trsv_spike::make_form(M, tri, diag), part, std::span<const T>(M.values)) {}
  void update_values(std::span<const T> values) override { spike_.set_values(values); }
  void describe(TrsvStats& st) const override {
    trsv_spike::describe(st.spike, spike_.partition(), spike_.form().w, sizeof(T));
  }

 private:
  void solve_column(const T* b, T* x) const override { spike_.solve(b, x); }
  trsv_spike::CpuSpike<T> spike_;
};

// TASSL on the CPU: the schedule the GPU would run (with the H200's n_max
// for T unless given), kept up to date by pattern updates (thesis ch. 6).
template <class T>
class TasslCpu final : public CpuBackend<T> {
 public:
  TasslCpu(const Csr<T>& M, Triangle tri, DiagonalKind diag, index_t n_max) : CpuBackend<T>(M), diag_(diag) {
    auto t1 = Clock::now();
    const tassl::Partition P = tassl::partition(M, tri, n_max);
    const double t_partition = seconds_since(t1);
    t1 = Clock::now();
    tassl::Schedule S = tassl::schedule(M, tri, P);
    stats_ = tassl::summarize(P, S);
    stats_.partition_seconds = t_partition;
    stats_.schedule_seconds = seconds_since(t1);
    state_ = std::make_unique<tassl::Incremental>(P, std::move(S), tri, std::span<const index_t>(M.row_ptr));
  }
  bool update_pattern(const Csr<T>& M_new, PatternUpdate& u) override {
    const tassl::UpdateResult r =
        state_->apply(M_new.row_ptr, M_new.col_idx, *u.change, u.edge_budget, u.max_levels);
    if (!r.feasible) {
      u.reason = r.reason;
      return false;
    }
    u.scheduled_edges = r.scheduled_edges;
    tassl::refresh(stats_, *state_, nullptr);
    return true;
  }
  void describe(TrsvStats& st) const override { st.tassl = stats_; }

 private:
  void solve_column(const T* b, T* x) const override {
    tassl::solve_scheduled(this->M_, diag_, std::span<const index_t>(state_->level), state_->schedule, this->in(b),
                           this->out(x));
  }
  DiagonalKind diag_;
  std::unique_ptr<tassl::Incremental> state_;
  TasslStats stats_;
};

template <class T>
std::unique_ptr<Backend<T>> make_cpu(TrsvAlgorithm a, const Csr<T>& M, Triangle tri, const Setup& s) {
  const TrsvOptions& o = s.options;
  switch (a) {
    case TrsvAlgorithm::Reference: return make_substitution(M, tri, o.diagonal);
    case TrsvAlgorithm::LevelSet: return std::make_unique<LevelSetCpu<T>>(M, o.diagonal, s.levels);
    case TrsvAlgorithm::Spike: return std::make_unique<SpikeCpu<T>>(M, tri, o.diagonal, s.spike);
    case TrsvAlgorithm::Tassl:
      return std::make_unique<TasslCpu<T>>(M, tri, o.diagonal,
                                           o.tassl_n_max > 0 ? o.tassl_n_max : default_tassl_n_max<T>(Device::Cpu));
    default:
      throw Error(std::string("triangular solve: algorithm '") + to_string(a) +
                  "' runs on the GPU only (use Device::Cuda, or reference/level-set/tassl/spike on the CPU)");
  }
}

template <class T>
std::unique_ptr<Backend<T>> make_gpu(TrsvAlgorithm a, const Csr<T>& M, Triangle tri, const Setup& s) {
  const TrsvOptions& o = s.options;
  const DiagonalKind diag = o.diagonal;
  switch (a) {
    case TrsvAlgorithm::LevelSet: return trsv_gpu::make_level_set(M, tri, diag, s.levels);
    case TrsvAlgorithm::SyncFree: return trsv_gpu::make_sync_free_csr(M, tri, diag, s.levels, o.watchdog_ms);
    case TrsvAlgorithm::SyncFreeCsc: return trsv_gpu::make_sync_free_csc(M, tri, diag, o.watchdog_ms);
    case TrsvAlgorithm::Cusparse: return trsv_gpu::make_cusparse(M, tri, diag);
    case TrsvAlgorithm::SyncFreeBlocks:
      return trsv_gpu::make_sync_free_blocks(M, tri, diag, s.levels,
                                             {.chunks = o.blocks_chunks, .watchdog_ms = o.watchdog_ms});
    case TrsvAlgorithm::Tassl: return trsv_gpu::make_tassl(M, tri, diag, {.n_max = o.tassl_n_max});
    case TrsvAlgorithm::Spike: return trsv_gpu::make_spike(M, tri, diag, s.spike);
    default:
      throw Error(std::string("triangular solve: algorithm '") + to_string(a) +
                  "' runs on the CPU only (use Device::Cpu)");
  }
}

}  // namespace

template <class T>
std::unique_ptr<Backend<T>> make_substitution(const Csr<T>& M, Triangle tri, DiagonalKind diag) {
  return std::make_unique<Substitution<T>>(M, tri, diag);
}

template <class T>
std::unique_ptr<Backend<T>> make_backend(TrsvAlgorithm a, const Csr<T>& M, Triangle tri, const Setup& s) {
  return s.options.device == Device::Cpu ? make_cpu(a, M, tri, s) : make_gpu(a, M, tri, s);
}

#define BALSA_INSTANTIATE(T)                                                                                  \
  template index_t default_tassl_n_max<T>(Device);                                                            \
  template std::unique_ptr<Backend<T>> make_substitution(const Csr<T>&, Triangle, DiagonalKind);             \
  template std::unique_ptr<Backend<T>> make_backend(TrsvAlgorithm, const Csr<T>&, Triangle, const Setup&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv
