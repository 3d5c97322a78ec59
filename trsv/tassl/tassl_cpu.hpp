// The CPU oracle of TASSL's solve (thesis Alg. 3.2): the schedule of
// tassl_schedule.hpp executed exactly as a GPU block will run it (isolated
// vertices; then sub-graph level by sub-graph level, each sub-graph's
// external slots, then its internal slots), with rows scaled by 1/l_ii.
#pragma once

#include <span>

#include "balsa/trsv.hpp"
#include "trsv/tassl/tassl_partition.hpp"
#include "trsv/tassl/tassl_schedule.hpp"

namespace balsa::tassl {

// subgraph_level: each sub-graph's level (Partition::subgraph_level, or an
// incremental analysis' levels).
template <class T>
void solve_scheduled(const Csr<T>& A, DiagonalKind diag, std::span<const index_t> subgraph_level, const Schedule& S,
                     std::span<const T> b, std::span<T> x);

}  // namespace balsa::tassl
