// CPU level-set triangular solve (level scheduling, OpenMP): the rows of one
// dependency level are independent and solved in parallel; a barrier
// separates levels. Runs of thin levels, where a barrier would cost more than
// the work, are solved by one thread in a row (the CPU twin of the GPU
// kernel's merged single-block launches).
#include "trsv/level_set/level_set_cpu.hpp"

#include <omp.h>

#include "core/instantiate.hpp"
#include "trsv/substitution.hpp"

namespace balsa::trsv_cpu {

namespace {
constexpr index_t kThinLevel = 256;  // rows; below this a level joins a serial run
// Below this many entries a parallel region costs more than the solve (and on
// a loaded machine its barriers can stall for milliseconds): solve serially.
constexpr index_t kParallelNnz = 200000;
}

LevelSchedule make_schedule(const LevelSets& levels) {
  LevelSchedule s;
  s.rows = levels.rows;
  index_t k = 0;
  while (k < levels.count()) {
    const index_t first = k;
    if (levels.width(k) >= kThinLevel) {
      ++k;
      s.steps.push_back({levels.level_ptr[first], levels.level_ptr[k], /*parallel=*/true});
      continue;
    }
    while (k < levels.count() && levels.width(k) < kThinLevel) ++k;  // rows stay in level order
    s.steps.push_back({levels.level_ptr[first], levels.level_ptr[k], /*parallel=*/false});
  }
  return s;
}

template <class T>
void solve_level_set(const Csr<T>& A, DiagonalKind diag, const LevelSchedule& s, std::span<const T> b,
                     std::span<T> x) {
  auto solve_row = [&](index_t i) { substitute_row(A, diag, i, b.data(), x.data()); };
#pragma omp parallel if (A.nnz() >= kParallelNnz)
  for (const LevelSchedule::Step& step : s.steps) {
    // Every thread walks the same steps; `omp for` and `omp single` end in a barrier.
    if (step.parallel) {
#pragma omp for schedule(static)
      for (index_t p = step.begin; p < step.end; ++p) solve_row(s.rows[p]);
    } else {
#pragma omp single
      for (index_t p = step.begin; p < step.end; ++p) solve_row(s.rows[p]);
    }
  }
}

#define BALSA_INSTANTIATE(T) \
  template void solve_level_set(const Csr<T>&, DiagonalKind, const LevelSchedule&, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_cpu
