// Internal: the parallel building blocks of the host analysis passes
// (OpenMP, used by sparse/, graph/, trsv/, factor/ and krylov/). Below
// kParallelMin items a loop runs serially: a parallel region would cost more
// than it saves. Every helper returns what its serial loop returns, whatever
// the number of threads (integer minima, sums and prefix sums only), so the
// analyses built on them are deterministic.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <future>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::parallel {

inline constexpr std::int64_t kParallelMin = 100000;

// Fresh memory. The kernel zeroes each new page of an allocation at its
// first touch, page by page on the touching thread: a std::vector of n
// elements value-initialises them on the constructing thread, so every page
// fault of a large array lands on one core (measured on the H200 host: 256 MB
// in 117 ms; pre-faulted in parallel by 16 threads, 30 ms with the fill).
// prefault(p, bytes) asks the kernel to populate the pages of [p, p + bytes)
// for writing, 2 MB at a time on the OpenMP threads (Linux 5.14's
// MADV_POPULATE_WRITE; elsewhere, or when refused, it does nothing and the
// first touch pays as before). Below kPrefaultMin bytes it does nothing.
inline constexpr std::size_t kPrefaultMin = std::size_t(8) << 20;
void prefault(void* p, std::size_t bytes);

// Room for n elements in v; new storage (v's contents dropped) is
// pre-faulted in parallel.
template <class T>
void reserve_fresh(std::vector<T>& v, std::size_t n) {
  if (v.capacity() >= n || n * sizeof(T) < kPrefaultMin) return;
  std::vector<T>().swap(v);
  v.reserve(n);
  prefault(v.data(), n * sizeof(T));
}
// v.assign(n, value) with v's new storage pre-faulted in parallel.
template <class T>
void fresh_assign(std::vector<T>& v, std::size_t n, const T& value = T()) {
  reserve_fresh(v, n);
  v.assign(n, value);
}
// A vector of n copies of value, its storage pre-faulted in parallel.
template <class T>
std::vector<T> fresh_vector(std::size_t n, const T& value = T()) {
  std::vector<T> v;
  fresh_assign(v, n, value);
  return v;
}
// A copy of src with its storage pre-faulted in parallel.
template <class T>
std::vector<T> fresh_copy(const std::vector<T>& src) {
  std::vector<T> v;
  reserve_fresh(v, src.size());
  v.assign(src.begin(), src.end());
  return v;
}

// The least i in [0, n) with pred(i), or n when there is none (a parallel
// min-reduction: every i is tested; no early exit).
template <class I, class Pred>
I first_where(I n, Pred&& pred) {
  I first = n;
#pragma omp parallel for reduction(min : first) schedule(static) if (std::int64_t(n) > kParallelMin)
  for (I i = 0; i < n; ++i)
    if (pred(i)) first = std::min(first, i);
  return first;
}

// In place, v[k] = v[0] + ... + v[k] (an inclusive prefix sum; with v[0] = 0
// and the counts of row i in v[i + 1] it turns counts into a row pointer).
// Two passes over per-thread blocks: block sums, then the offsets added.
template <class I>
void prefix_sum(std::vector<I>& v) {
  const std::size_t n = v.size();
  if (std::int64_t(n) <= kParallelMin) {
    std::partial_sum(v.begin(), v.end(), v.begin());
    return;
  }
  std::vector<I> block_start;
#pragma omp parallel
  {
    const std::size_t threads = std::size_t(omp_get_num_threads()), t = std::size_t(omp_get_thread_num());
#pragma omp single
    block_start.assign(threads + 1, I(0));
    const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    I sum = I(0);
    for (std::size_t k = lo; k < hi; ++k) v[k] = sum += v[k];
    block_start[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    std::partial_sum(block_start.begin(), block_start.end(), block_start.begin());
    if (const I offset = block_start[t]; offset != I(0))
      for (std::size_t k = lo; k < hi; ++k) v[k] += offset;
  }
}

// The row pointer of the rows of (row_ptr, col_idx) restricted to the
// entries keep(i, p) accepts (row i, position p): a count per row, then a
// prefix sum. Fill the kept entries row by row with for_each_kept.
template <class Keep>
std::vector<index_t> kept_row_ptr(index_t rows, std::span<const index_t> row_ptr, Keep&& keep) {
  std::vector<index_t> ptr = fresh_vector<index_t>(std::size_t(rows) + 1, 0);
#pragma omp parallel for schedule(static) if (rows > kParallelMin)
  for (index_t i = 0; i < rows; ++i) {
    index_t count = 0;
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) count += keep(i, p) ? 1 : 0;
    ptr[std::size_t(i) + 1] = count;
  }
  prefix_sum(ptr);
  return ptr;
}

// f(i, p, q) for every kept entry: position p of row i goes to position q of
// the result whose row pointer kept_row_ptr returned (rows in parallel).
template <class Keep, class F>
void for_each_kept(index_t rows, std::span<const index_t> row_ptr, std::span<const index_t> kept_ptr, Keep&& keep,
                   F&& f) {
#pragma omp parallel for schedule(static) if (rows > kParallelMin)
  for (index_t i = 0; i < rows; ++i) {
    index_t q = kept_ptr[std::size_t(i)];
    for (index_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p)
      if (keep(i, p)) f(i, p, q++);
  }
}

// out[e] = values[pos[e]] (or `missing` where pos[e] < 0), in parallel.
template <class T>
void gather(std::span<const index_t> pos, std::span<const T> values, std::span<T> out, T missing = T(0)) {
  const std::int64_t n = std::int64_t(pos.size());
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (std::int64_t e = 0; e < n; ++e) out[e] = pos[e] < 0 ? missing : values[std::size_t(pos[e])];
}

// Concurrent tasks (std::thread) that each run OpenMP loops share the cores
// instead of each starting a team of every core: a task's thread, and the
// calling thread for the time a guard lives, use `threads` OpenMP threads.
class OpenMpThreads {
 public:
  explicit OpenMpThreads(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~OpenMpThreads() { omp_set_num_threads(saved_); }
  OpenMpThreads(const OpenMpThreads&) = delete;
  OpenMpThreads& operator=(const OpenMpThreads&) = delete;

 private:
  int saved_;
};

// The threads of one public call (include/balsa/core.hpp, "threads"):
// `threads` > 0 sets the calling thread's OpenMP count while the guard
// lives; 0 leaves it as it is. An Error naming `what` (the options struct)
// when threads < 0 or threads > hardware_threads().
void check_threads(int threads, const char* what);
class CallThreads {
 public:
  CallThreads(int threads, const char* what) {
    check_threads(threads, what);
    if (threads > 0 && threads != omp_get_max_threads()) guard_.emplace(threads);
  }

 private:
  std::optional<OpenMpThreads> guard_;
};

// f() on a thread of its own with `threads` OpenMP threads; the future's
// get() returns its result or rethrows its exception (and the future's
// destructor waits for it).
template <class F>
auto async_with_threads(int threads, F&& f) {
  return std::async(std::launch::async, [threads, f = std::forward<F>(f)]() mutable {
    omp_set_num_threads(threads);
    return f();
  });
}

}  // namespace balsa::parallel
