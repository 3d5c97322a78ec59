// Internal: the error require_finite(Banded) gives for the non-finite value
// at position p of A's band array, for callers that found p elsewhere (the
// SaP solver checks the band on the GPU after its upload).
#pragma once

#include <cstddef>

#include "balsa/sparse.hpp"

namespace balsa::detail {

template <class T>
[[noreturn]] void throw_nonfinite_band_entry(const Banded<T>& A, std::size_t position);

}  // namespace balsa::detail
