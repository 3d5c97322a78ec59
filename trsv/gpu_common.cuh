// Internal: pieces shared by the GPU triangular solvers (trsv/*.cu).
//
// Host side (with trsv/off_diagonal.hpp): the choice of lanes per row (the
// generic CUDA pieces, graphs and device properties, are in cuda/).
// Device side: the global-timer watchdog and the acquire/release helpers of
// the synchronization-free solvers (trsv/sync_free/sync_free_csr.cu, sync_free_csc.cu).
#pragma once

#include <cuda/atomic>
#include <cuda/std/limits>

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "balsa/trsv.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream.hpp"
#include "trsv/off_diagonal.hpp"

namespace balsa::trsv_gpu::detail {

// Threads per row from the mean number of off-diagonal entries per row
// (1: a thread per row; 32: a warp per row). Tunable.
inline int lanes_for(double mean_off_diagonal) {
  if (mean_off_diagonal <= 3) return 1;
  if (mean_off_diagonal <= 8) return 4;
  if (mean_off_diagonal <= 16) return 8;
  if (mean_off_diagonal <= 32) return 16;
  return 32;
}

// f(std::integral_constant<int, L>{}) for the L == lanes above.
template <class F>
void with_lanes(int lanes, F&& f) {
  switch (lanes) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    case 16: f(std::integral_constant<int, 16>{}); break;
    default: f(std::integral_constant<int, 32>{}); break;
  }
}

// What a captured CUDA graph reads b and x from: solve() rewrites this device
// struct (stream-ordered) before each replay, so the graph never changes.
// Many right-hand sides (solvers that take them in one replay): `columns`
// columns of length `ld`, column-major.
template <class T>
struct RhsAndX {
  const T* b;
  T* x;
  index_t columns = 1;
  std::int64_t ld = 0;
};

// ---- device: waiting with a watchdog -------------------------------------------
//
// A spin that lasts longer than watchdog_ns gives up: the waiting row or column
// then produces NaN and still signals its dependants, and the solve's epoch is
// written to the error word, which makes every other spin of the same solve
// give up at its next check. So a solve ends within about watchdog_ns even if
// a dependency were never signalled (which the ticket order below rules out
// for valid input; the watchdog guards against bugs and misuse).
// Both sync-free solvers keep a solve counter (the epoch, 1-based) so that
// flags and the error word need no reset between solves.

// The bound, in ns: 2 s unless TrsvOptions::watchdog_ms says otherwise
// (compute-sanitizer's racecheck slows kernels by orders of magnitude, so its
// runs raise it). Each translation unit has its own copy (static), on each
// device; set_watchdog writes it when a solver with another bound is made,
// and that bound then holds for every solver of that algorithm on that
// device.
constexpr std::uint64_t kDefaultWatchdogNs = 2'000'000'000ull;
static __device__ std::uint64_t watchdog_ns = kDefaultWatchdogNs;

// Host: whether the error word at `word` (device memory) says that the solve
// numbered `epoch` hit the watchdog. Waits for that solve (a copy on the
// current stream, waited for).
inline bool watchdog_fired_in(const int* word, int epoch) {
  int value = 0;
  BALSA_CUDA_CHECK(cudaMemcpyAsync(&value, word, sizeof value, cudaMemcpyDeviceToHost, cuda::stream()));
  BALSA_CUDA_CHECK(cudaStreamSynchronize(cuda::stream()));
  return value == epoch;
}

// ms <= 0: the default, 2000 ms, which the device already holds: nothing is
// written (no host-side state, so solvers made on several threads or devices
// at once need no lock; the default never costs a copy).
inline void set_watchdog(int ms) {
  const std::uint64_t ns = ms > 0 ? std::uint64_t(ms) * 1'000'000ull : kDefaultWatchdogNs;
  if (ns == kDefaultWatchdogNs) return;
  BALSA_CUDA_CHECK(cudaMemcpyToSymbolAsync(watchdog_ns, &ns, sizeof ns, 0, cudaMemcpyHostToDevice, cuda::stream()));
  BALSA_CUDA_CHECK(cudaStreamSynchronize(cuda::stream()));  // `ns` goes out of scope
}
constexpr unsigned kPollsBetweenChecks = 64;             // timer/error checks every 64 polls
constexpr unsigned kPollsBeforeSleep = 16;               // then back off with __nanosleep
constexpr unsigned kSleepNs = 64;  // exponential back-off capped at 0.25-4 us measured no better

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Waiting: relaxed polls until the awaited value shows, then ONE acquire load
// of the same location. By read-read coherence that load returns the value
// seen (or a later one; the awaited words do not change again within a solve),
// so it synchronizes with the release that published it. Measured on an H200,
// this is as fast as acquire loads in every poll (which also invalidate the
// SM's L1 each time) and clearly faster than relaxed polls + an acquire fence.
template <class V, ::cuda::thread_scope Scope = ::cuda::thread_scope_device>
__device__ __forceinline__ V load_relaxed(const V& v) {
  return ::cuda::atomic_ref<V, Scope>(const_cast<V&>(v)).load(::cuda::memory_order_relaxed);
}
template <class V, ::cuda::thread_scope Scope = ::cuda::thread_scope_device>
__device__ __forceinline__ V load_acquire(const V& v) {
  return ::cuda::atomic_ref<V, Scope>(const_cast<V&>(v)).load(::cuda::memory_order_acquire);
}

template <class V>
__device__ __forceinline__ void store_release(V& v, V value) {
  ::cuda::atomic_ref<V, ::cuda::thread_scope_device>(v).store(value, ::cuda::memory_order_release);
}

// Polls ready() (relaxed loads) until it is true; the caller then issues the
// acquire load(s) before reading what the awaited producers published.
// Returns false when the watchdog fired, here or in another spin of this
// solve (error word == epoch).
template <class Ready>
__device__ bool spin_until(Ready ready, int* error, int epoch) {
  if (ready()) return true;
  const std::uint64_t start = global_timer_ns();
  for (unsigned polls = 1;; ++polls) {
    if (ready()) return true;
    if (polls % kPollsBetweenChecks == 0) {
      if (load_relaxed(*error) == epoch) return false;
      if (global_timer_ns() - start > watchdog_ns) {
        ::cuda::atomic_ref<int, ::cuda::thread_scope_device>(*error).store(epoch, ::cuda::memory_order_relaxed);
        return false;
      }
    }
    if (polls > kPollsBeforeSleep) __nanosleep(kSleepNs);
  }
}

template <class T>
__device__ __forceinline__ T quiet_nan() {
  return ::cuda::std::numeric_limits<T>::quiet_NaN();
}

}  // namespace balsa::trsv_gpu::detail
