// Internal: per-phase timing of the GPU Krylov iteration with CUDA events
// (KrylovOptions::phase_timing). On sampled iterations (the first 32, then
// every 16th) an event is recorded wherever a method marks a phase change
// (SpMV, preconditioner, vector work) and at the iteration's end; the time
// between two events goes to the phase that started at the first. Samples
// are retired (read and their events reused) once the driver knows the
// iteration ran in full; those of iterations after the stop are dropped.
// The totals are scaled from the samples to all iterations.
#pragma once

#include <deque>
#include <utility>
#include <vector>

#include "cuda/check.hpp"
#include "krylov/gpu_method.cuh"

namespace balsa::krylov::gpu {

class PhaseTimer final : public PhaseMarks {
 public:
  explicit PhaseTimer(bool enabled) : enabled_(enabled) {}
  ~PhaseTimer() override {
    drop();
    for (cudaEvent_t e : pool_) (void)cudaEventDestroy(e);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  void reset() {
    drop();
    for (double& s : seconds_) s = 0;
    samples_ = 0;
  }
  static bool sampled(int k) { return k < 32 || k % 16 == 0; }
  void begin_iteration(int k) {
    sampling_ = enabled_ && sampled(k);
    if (!sampling_) return;
    open_.push_back({k, {}});
    mark(Phase::Vector);
  }
  void mark(Phase phase) override {
    if (sampling_) open_.back().marks.emplace_back(phase, record());
  }
  void end_iteration() {
    if (!sampling_) return;
    open_.back().marks.emplace_back(Phase::Vector, record());  // the end (its phase is not used)
    sampling_ = false;
  }
  // Reads the samples of iterations < below (complete on the device) into the totals.
  void retire(int below) {
    while (!open_.empty() && open_.front().k < below) {
      auto& m = open_.front().marks;
      BALSA_CUDA_CHECK(cudaEventSynchronize(m.back().second));
      for (std::size_t i = 0; i + 1 < m.size(); ++i) {
        float ms = 0;
        BALSA_CUDA_CHECK(cudaEventElapsedTime(&ms, m[i].second, m[i + 1].second));
        seconds_[int(m[i].first)] += 1e-3 * ms;
      }
      ++samples_;
      release(open_.front());
      open_.pop_front();
    }
  }
  // The samples that are left belong to iterations after the stop.
  void drop() {
    for (auto& s : open_) release(s);
    open_.clear();
    sampling_ = false;
  }
  int samples() const { return samples_; }
  // Phase totals scaled to `iterations` iterations.
  double seconds(Phase p, int iterations) const {
    return samples_ > 0 ? seconds_[int(p)] * double(iterations) / double(samples_) : 0.0;
  }

 private:
  struct Sample {
    int k;
    std::vector<std::pair<Phase, cudaEvent_t>> marks;
  };
  cudaEvent_t record() {
    cudaEvent_t e = nullptr;
    if (pool_.empty()) {
      BALSA_CUDA_CHECK(cudaEventCreate(&e));
    } else {
      e = pool_.back();
      pool_.pop_back();
    }
    BALSA_CUDA_CHECK(cudaEventRecord(e, cuda::stream()));
    return e;
  }
  void release(Sample& s) {
    for (auto& m : s.marks) pool_.push_back(m.second);
    s.marks.clear();
  }

  bool enabled_;
  bool sampling_ = false;
  std::deque<Sample> open_;
  std::vector<cudaEvent_t> pool_;
  double seconds_[3] = {0, 0, 0};
  int samples_ = 0;
};

}  // namespace balsa::krylov::gpu
