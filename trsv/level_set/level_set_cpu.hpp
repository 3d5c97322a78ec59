// Internal: the CPU level-set solver.
#pragma once

#include <span>
#include <vector>

#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"

namespace balsa::trsv_cpu {

// Rows in level order, cut into steps: a wide level (solved in parallel) or
// a run of thin levels (solved in order by one thread).
struct LevelSchedule {
  struct Step {
    index_t begin, end;  // positions in `rows`
    bool parallel;
  };
  std::vector<index_t> rows;
  std::vector<Step> steps;
};
LevelSchedule make_schedule(const LevelSets& levels);

// x = A^{-1} b with A already checked (check_triangular_system).
template <class T>
void solve_level_set(const Csr<T>& A, DiagonalKind diag, const LevelSchedule& s, std::span<const T> b,
                     std::span<T> x);

}  // namespace balsa::trsv_cpu
