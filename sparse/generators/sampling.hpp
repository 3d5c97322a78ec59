// Internal: drawing distinct indices for the random generators.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "balsa/generators.hpp"

namespace balsa::detail {

// k distinct values of [0, m), uniform, sorted ascending, into out[0..k):
// draw, sort, dedupe, redraw the missing ones.
inline void draw_distinct(Random& rng, index_t m, index_t k, index_t* out) {
  index_t have = 0;
  while (have < k) {
    for (index_t a = have; a < k; ++a) out[a] = static_cast<index_t>(rng.below(std::uint64_t(m)));
    std::sort(out, out + k);
    have = static_cast<index_t>(std::unique(out, out + k) - out);
  }
}

// As draw_distinct, but for k > m/2 draws the m - k excluded values instead
// (rejection would need many redraws). `scratch` is per-thread workspace.
inline void sample_distinct(Random& rng, index_t m, index_t k, index_t* out, std::vector<index_t>& scratch) {
  if (k <= 0) return;
  if (k >= m) {
    for (index_t a = 0; a < m; ++a) out[a] = a;
    return;
  }
  if (2 * std::int64_t(k) <= m) {
    draw_distinct(rng, m, k, out);
    return;
  }
  const index_t skip = m - k;
  scratch.resize(static_cast<std::size_t>(skip));
  draw_distinct(rng, m, skip, scratch.data());
  index_t s = 0, w = 0;
  for (index_t a = 0; a < m; ++a) {
    if (s < skip && scratch[static_cast<std::size_t>(s)] == a) {
      ++s;
      continue;
    }
    out[w++] = a;
  }
}

}  // namespace balsa::detail
