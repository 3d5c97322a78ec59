// Internal side of include/balsa/trsv_model.hpp: the metrics computed from
// TASSL's partition, schedule and layout (trsv/tassl/tassl_metrics.cpp).
#pragma once

#include "balsa/graph.hpp"
#include "balsa/trsv_model.hpp"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_partition.hpp"
#include "trsv/tassl/tassl_schedule.hpp"

namespace balsa::tassl {

static_assert(BlockCounts{}.threads == kMinBlockThreads, "BlockCounts' default is the kernel's block size");

// A and tri give the edges; `levels` are A's level sets; P, S (and layout)
// TASSL's analysis of the same matrix.
template <class T>
Metrics metrics(const Csr<T>& A, Triangle tri, const LevelSets& levels, const Partition& P, const Schedule& S,
                const Layout* layout = nullptr);

}  // namespace balsa::tassl
