// SaP's partitioning into P diagonal blocks (sap/partition.hpp).
#include "sap/partition.hpp"

#include <algorithm>

namespace balsa::sap {

BandwidthRange bandwidth_range(const std::vector<index_t>& bandwidths) {
  if (bandwidths.empty()) return {};
  const auto [lo, hi] = std::minmax_element(bandwidths.begin(), bandwidths.end());
  return {*lo, *hi};
}

index_t min_block_size(index_t k, SapVariant variant) {
  return variant == SapVariant::Coupled ? std::max<index_t>(1, 2 * k) : 1;
}

index_t automatic_partitions(index_t n, index_t k, SapVariant variant, int parallel_units) {
  const index_t least = std::max<index_t>(min_block_size(k, variant), 64);
  return std::clamp<index_t>(n / least, 1, std::max(1, parallel_units));
}

Blocks split(index_t n, index_t k, index_t requested, SapVariant variant, int parallel_units) {
  index_t P = requested > 0 ? requested : automatic_partitions(n, k, variant, parallel_units);
  P = std::clamp<index_t>(P, 1, std::max<index_t>(1, n / min_block_size(k, variant)));
  Blocks b;
  b.starts.resize(std::size_t(P) + 1);
  const index_t q = n / P, r = n % P;  // report sec. 3.1: the first r blocks get q + 1 rows
  b.starts[0] = 0;
  for (index_t i = 0; i < P; ++i) b.starts[std::size_t(i) + 1] = b.starts[std::size_t(i)] + q + (i < r ? 1 : 0);
  return b;
}

}  // namespace balsa::sap
