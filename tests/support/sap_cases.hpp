// Test helpers for SaP (sap_test.cpp, gpu_sap_test.cpp).
#pragma once

#include <cstdlib>
#include <vector>

#include "balsa/sparse.hpp"
#include "sap/partition.hpp"

namespace balsa::test {

// A with block b keeping only the entries within kb[b] of the diagonal
// inside its diagonal block (the coupling entries stay): blocks with
// per-partition bandwidths kb (exactly, when A's band is full).
inline Banded<double> trimmed_blocks(Banded<double> A, const sap::Blocks& blocks, const std::vector<index_t>& kb) {
  for (index_t b = 0; b < blocks.count(); ++b) {
    const index_t s = blocks.start(b), e = s + blocks.size(b);
    for (index_t c = s; c < e; ++c)
      for (index_t r = s; r < e; ++r)
        if (std::abs(r - c) > kb[std::size_t(b)] && std::abs(r - c) <= A.k) A(r, c) = 0.0;
  }
  return A;
}

}  // namespace balsa::test
