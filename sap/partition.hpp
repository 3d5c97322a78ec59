// Internal: SaP's split of A into P diagonal blocks (the report's sec. 3.1)
// and the automatic choice of P, which the report left manual.
//
// A banded A (n = 12, half-bandwidth k = 2) split into P = 3 blocks,
// starts = {0, 4, 8, 12}: a the diagonal blocks A_i, B and C the coupling
// blocks of each interface (k x k, sap/steps_cpu.hpp), . zero:
//
//   row  0   a a a . . . . . . . . .
//        1   a a a a . . . . . . . .
//        2   a a a a B . . . . . . .      B_0: rows t-k .. t-1, columns t .. t+k-1
//        3   . a a a B B . . . . . .
//   t =  4   . . C C a a a . . . . .      C_1: rows t .. t+k-1, columns t-k .. t-1
//        5   . . . C a a a a . . . .
//        6   . . . . a a a a B . . .
//        7   . . . . . a a a B B . .
//        8   . . . . . . C C a a a .
//        9   . . . . . . . C a a a a
//       10   . . . . . . . . a a a a
//       11   . . . . . . . . . a a a
#pragma once

#include <vector>

#include "balsa/sap.hpp"

namespace balsa::sap {

struct Blocks {
  std::vector<index_t> starts;  // P + 1 offsets: block i is rows [starts[i], starts[i+1])
  // Per-partition bandwidths k_i <= k (report sec. 3.1 and 4.2: after a
  // reordering the diagonal blocks' bands differ): the largest |r - c| of a
  // nonzero of A_i. A_i's LU without pivoting keeps its fill inside k_i, so
  // the factorisations and block solves work within k_i; the storage, the
  // coupling blocks and the spikes keep the global k. Empty: k_i = k.
  std::vector<index_t> bandwidths;
  index_t count() const { return index_t(starts.size()) - 1; }
  index_t start(index_t i) const { return starts[std::size_t(i)]; }
  index_t size(index_t i) const { return starts[std::size_t(i) + 1] - starts[std::size_t(i)]; }
  index_t bandwidth(index_t i, index_t k) const { return bandwidths.empty() ? k : bandwidths[std::size_t(i)]; }
};

// Smallest and largest per-partition bandwidth ({0, 0} for none).
struct BandwidthRange {
  index_t min = 0, max = 0;
};
BandwidthRange bandwidth_range(const std::vector<index_t>& bandwidths);

// The smallest block a variant can use: SaP-C needs n_i >= 2k so a block's
// top and bottom k rows (where the spikes couple) are distinct; SaP-D, 1.
index_t min_block_size(index_t k, SapVariant variant);

// P when the user gives none. Larger P means more independent blocks (the
// factorisation and every sweep run one block per partition, so P near the
// number of thread blocks the GPU runs at once keeps it busy: 2 per SM, or
// 4 per CPU thread) but a weaker preconditioner (more truncated coupling);
// the report (Table 1) sees iterations flat in P for d = 1 and time gains
// fading beyond P = 50 on a 14-SM GPU. So: P = parallel_units, capped so
// every block has at least max(min_block_size, 64) rows (short blocks are all
// coupling and no work).
index_t automatic_partitions(index_t n, index_t k, SapVariant variant, int parallel_units);

// P load-balanced blocks (the first n mod P one row longer), P first capped
// to n / min_block_size (at least 1). requested <= 0: automatic_partitions.
Blocks split(index_t n, index_t k, index_t requested, SapVariant variant, int parallel_units);

}  // namespace balsa::sap
