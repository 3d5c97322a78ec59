// TrsvAlgorithm::Auto: a cheap rule on the level statistics.
//
// CPU: level-set pays when levels are wide enough to share among threads and
// the matrix is large enough to amortise the barriers; otherwise serial
// substitution (no barriers at all) wins.
// GPU: level-set. Its thin levels run inside one block with __syncthreads
// between them (about 0.5 us a level on an H200) where a sync-free dependency
// hop costs about 1 us through global memory, and its wide levels run as full
// launches; on every matrix measured so far (banded, chain, star, Laplacian,
// block-diagonal) it was the fastest of balsa's GPU algorithms. The
// benchmark (balsa bench trsv, bench/results/) is where this rule is checked.
#include "trsv/auto_choice.hpp"

namespace balsa::trsv_auto {

TrsvAlgorithm choose(const TrsvStats& a, Device device) {
  if (device == Device::Cpu)
    return a.rows >= 200000 && a.mean_level_width >= 1000 ? TrsvAlgorithm::LevelSet : TrsvAlgorithm::Reference;
  return TrsvAlgorithm::LevelSet;
}

}  // namespace balsa::trsv_auto
