// TrsvAlgorithm::Auto: a cheap rule on the level statistics.
//
// CPU: level-set pays when levels are wide enough to share among threads and
// the matrix is large enough to amortise the barriers; otherwise serial
// substitution (no barriers at all) wins.
// GPU: level-set. Its runs of thin levels run inside one block with x kept in
// shared memory (about 0.2-0.4 us a level on an H200) where a sync-free
// dependency hop costs about 1 us through global memory, and its wide levels
// run as full launches; on 45 of the 47 rows of the benchmark suite it was
// the fastest of balsa's GPU algorithms (the exceptions: arrow in float, 2%
// behind sync-free CSR; hangGlider_2 in double, 10% behind sync-free CSC).
// The benchmark (balsa bench trsv, bench/results/) is where this rule is
// checked.
#include "trsv/auto_choice.hpp"

namespace balsa::trsv_auto {

TrsvAlgorithm choose(const TrsvStats& a, Device device) {
  if (device == Device::Cpu)
    return a.rows >= 200000 && a.mean_level_width >= 1000 ? TrsvAlgorithm::LevelSet : TrsvAlgorithm::Reference;
  return TrsvAlgorithm::LevelSet;
}

}  // namespace balsa::trsv_auto
