// TASSL analysis summary (see tassl_stats.hpp).
#include "trsv/tassl/tassl_stats.hpp"

#include <algorithm>

namespace balsa::tassl {

namespace {

// What the schedule and (when given) the layout hold: edges, slots, rounds.
void count_schedule(TasslStats& s, const Schedule& S, const Layout* layout) {
  s.external_edges = std::int64_t(S.external_edges);
  s.internal_edges = std::int64_t(S.internal_edges);
  s.internal_slots = s.most_slots = s.rounds = s.critical_rounds = 0;
  for (const SubgraphSchedule& g : S.subgraphs) {
    s.internal_slots += g.int_slots();
    s.most_slots = std::max<std::int64_t>(s.most_slots, std::int64_t(g.int_slots()) + g.ext_slots());
  }
  if (layout)
    for (const LevelLaunch& L : layout->launches) {
      index_t longest = 0;
      for (index_t b = L.first_block; b < L.last_block; ++b) {
        s.rounds += layout->blocks[std::size_t(b)].rounds;
        longest = std::max(longest, layout->blocks[std::size_t(b)].rounds);
      }
      s.critical_rounds += longest;
    }
}

}  // namespace

TasslStats summarize(const Partition& P, const Schedule& S, const Layout* layout) {
  TasslStats s;
  s.n_max = P.n_max;
  s.subgraphs = P.subgraphs();
  s.subgraph_levels = P.levels;
  s.isolated = index_t(P.isolated.size());
  s.components = P.stats.components;
  s.split_components = P.stats.split_components;
  s.fallbacks = P.stats.fallbacks;
  count_schedule(s, S, layout);
  return s;
}

void refresh(TasslStats& s, const Incremental& inc, const Layout* layout) {
  s.subgraphs = inc.subgraphs();
  s.subgraph_levels = inc.levels();
  s.isolated = inc.isolated();
  count_schedule(s, inc.schedule, layout);
}

}  // namespace balsa::tassl
