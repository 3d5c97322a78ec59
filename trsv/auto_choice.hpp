// Internal: TrsvAlgorithm::Auto (see trsv/auto_choice.cpp for the rule).
#pragma once

#include <functional>

#include "balsa/trsv.hpp"

namespace balsa::trsv_auto {

// Weakly connected components of the dependency graph (edges only; isolated
// vertices not counted), computed only when the rule asks for them.
// TASSL needs at least this many components (see auto_choice.cpp).
inline constexpr index_t kTasslMinComponents = 64;

// The components of the dependency graph that have an edge: their count
// and the largest's rows (or, when the count is below kTasslMinComponents,
// an upper bound below it and any largest: the choice is then the same).
struct Components {
  index_t count = 0;
  index_t largest = 0;
};

// `components` is called at most once; `n_max` is TASSL's sub-graph capacity.
TrsvAlgorithm choose(const TrsvStats& analysis, Device device, index_t n_max,
                     const std::function<Components()>& components);

}  // namespace balsa::trsv_auto
