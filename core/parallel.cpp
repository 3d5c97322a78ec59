// parallel::prefault (sparse/parallel.hpp).
#include "core/parallel.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace balsa::parallel {

void prefault(void* p, std::size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it (EINVAL)
#endif
  if (bytes < kPrefaultMin) return;
  constexpr std::uintptr_t kPage = 4096, kSlice = std::uintptr_t(2) << 20;
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t last = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (last <= first) return;
  const std::int64_t slices = std::int64_t((last - first + kSlice - 1) / kSlice);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < slices; ++k) {
    const std::uintptr_t a = first + std::uintptr_t(k) * kSlice, b = a + kSlice < last ? a + kSlice : last;
    (void)madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);  // a refusal leaves the first touch to pay
  }
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace balsa::parallel
