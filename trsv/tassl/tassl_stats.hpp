// TASSL analysis summary for TrsvStats (balsa/trsv.hpp: TasslStats): counts of
// the partition (thesis Sect. 4.1), the schedule (Sect. 4.2) and, when given,
// the GPU layout's rounds (tassl_layout.hpp).
#pragma once

#include "balsa/trsv.hpp"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_partition.hpp"
#include "trsv/tassl/tassl_schedule.hpp"

namespace balsa::tassl {

TasslStats summarize(const Partition& P, const Schedule& S, const Layout* layout = nullptr);
inline TasslStats summarize(const Partition& P, const Schedule& S, const Layout& layout) {
  return summarize(P, S, &layout);
}

}  // namespace balsa::tassl
