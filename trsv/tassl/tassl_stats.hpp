// TASSL analysis summary for TrsvStats (balsa/trsv.hpp: TasslStats): counts of
// the partition (thesis Sect. 4.1), the schedule (Sect. 4.2) and, when given,
// the GPU layout's rounds (tassl_layout.hpp); refreshed after updates (ch. 6).
#pragma once

#include "balsa/trsv.hpp"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_partition.hpp"
#include "trsv/tassl/tassl_schedule.hpp"
#include "trsv/tassl/tassl_update.hpp"

namespace balsa::tassl {

TasslStats summarize(const Partition& P, const Schedule& S, const Layout* layout = nullptr);
inline TasslStats summarize(const Partition& P, const Schedule& S, const Layout& layout) {
  return summarize(P, S, &layout);
}

// After an incremental update (tassl_update.hpp): the counts the update
// changes (sub-graphs, levels, V0, edges, slots, rounds) from `inc` and the
// layout; the partition's own counts and the analysis times stay those of
// the last full analysis.
void refresh(TasslStats& s, const Incremental& inc, const Layout* layout);

}  // namespace balsa::tassl
