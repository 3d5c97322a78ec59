// Internal: the spike solver on the CPU (TrsvAlgorithm::Spike on
// Device::Cpu), the method of trsv/spike/spike_plan.hpp.
#pragma once

#include <span>
#include <vector>

#include "trsv/spike/spike_plan.hpp"

namespace balsa::trsv_spike {

// The CPU algorithm (and the GPU's oracle): the same chains, recurrence and
// passes, OpenMP over chains.
template <class T>
class CpuSpike {
 public:
  CpuSpike(Form form, const Partition& part, std::span<const T> values);
  // New values in M's CSR order: gathered, then T and U computed again.
  void set_values(std::span<const T> values);
  void solve(const T* b, T* x) const;
  const Form& form() const { return form_; }
  const Partition& partition() const { return part_; }

 private:
  // Form rows [r0, r1) from b (matrix order, or zero) and the state before
  // r0 (w values, or zero); the rows' unknowns into x (matrix order) when
  // given, the last w unknowns into tail when given.
  void chain(index_t r0, index_t r1, const T* b, const T* state, T* x, T* tail, std::vector<T>& work) const;
  Form form_;
  Partition part_;
  std::vector<T> val_, diag_;  // form order
  std::vector<T> T_, U_;       // P and Q column-major w x w blocks
};

}  // namespace balsa::trsv_spike
