// Test helpers for SaP (sap_test.cpp, gpu_sap_test.cpp).
#pragma once

#include <cstdlib>
#include <vector>

#include "balsa/sparse.hpp"
#include "sap/partition.hpp"

namespace balsa::test {

// A with block b's entries farther than kb[b] from the diagonal inside its
// diagonal block set to `value` (the coupling entries stay): with 0, blocks
// of per-partition bandwidths kb (exactly, when A's band is full); with
// NaN, a band whose factorisation or solve within kb must not read them.
inline Banded<double> trimmed_blocks(Banded<double> A, const sap::Blocks& blocks, const std::vector<index_t>& kb,
                                     double value = 0.0) {
  for (index_t b = 0; b < blocks.count(); ++b) {
    const index_t s = blocks.start(b), e = s + blocks.size(b);
    for (index_t c = s; c < e; ++c)
      for (index_t r = s; r < e; ++r)
        if (std::abs(r - c) > kb[std::size_t(b)] && std::abs(r - c) <= A.k) A(r, c) = value;
  }
  return A;
}

}  // namespace balsa::test
