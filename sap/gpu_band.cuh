// Internal: device helpers shared by SaP's kernels (sap/gpu_*.cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include "balsa/sparse.hpp"

namespace balsa::sap::gpu {

__host__ __device__ __forceinline__ index_t imin(index_t a, index_t b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ index_t imax(index_t a, index_t b) { return a > b ? a : b; }

// (i, j) of a band with half-bandwidth k: k + i + 2k j (sparse.hpp, Banded).
__host__ __device__ __forceinline__ std::int64_t at(index_t i, index_t j, index_t k) {
  return std::int64_t(j) * (2 * std::int64_t(k) + 1) + k + i - j;
}

}  // namespace balsa::sap::gpu
