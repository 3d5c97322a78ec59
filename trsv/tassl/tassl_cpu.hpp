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

template <class T>
void solve_scheduled(const Csr<T>& A, DiagonalKind diag, const Partition& P, const Schedule& S, std::span<const T> b,
                     std::span<T> x);

}  // namespace balsa::tassl
