// Internal: TrsvAlgorithm::Auto (see trsv/auto_choice.cpp for the rule).
#pragma once

#include "balsa/trsv.hpp"

namespace balsa::trsv_auto {
TrsvAlgorithm choose(const TrsvStats& analysis, Device device);
}
