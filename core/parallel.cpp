// parallel::prefault and the thread counts (core/parallel.hpp; the public
// hardware_threads, current_threads and set_threads of include/balsa/core.hpp).
#include "core/parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>

#include "core/exceptions.hpp"
#include "core/lapack.hpp"

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

namespace {
std::string hardware_range() {
  return "1 to " + std::to_string(hardware_threads()) + " (this machine's hardware threads)";
}
}  // namespace

void check_threads(int threads, const char* what) {
  if (threads != 0 && (threads < 0 || threads > hardware_threads()))
    throw Error(std::string(what) + "::threads = " + std::to_string(threads) +
                ": must be 0 (the calling thread's current OpenMP setting) or " + hardware_range());
}

}  // namespace balsa::parallel

namespace balsa {

int hardware_threads() noexcept {
  static const int count = std::max(1, int(std::thread::hardware_concurrency()));  // asked once: a system call
  return count;
}

int current_threads() noexcept { return omp_get_max_threads(); }

void set_threads(int threads) try {
  if (threads < 1 || threads > hardware_threads())
    throw Error("set_threads(" + std::to_string(threads) + "): must be " + parallel::hardware_range());
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
} catch (...) {
  rethrow_as_balsa_error("set_threads");
}

}  // namespace balsa
