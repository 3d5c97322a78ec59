// The chunks and level steps of the sync-free-blocks solve
// (trsv/sync_free_blocks/sync_free_blocks_plan.hpp).
#include "trsv/sync_free_blocks/sync_free_blocks_plan.hpp"

#include <algorithm>
#include <cstdint>

#include "core/parallel.hpp"

namespace balsa::trsv_gpu::detail {

namespace {

// Chunk c's rows (positions chunk_ptr[c] .. chunk_ptr[c+1] in dependency
// order, row_at(t) the t-th row) by level into p.order, dependency order
// within a level (a counting sort); `ends` gets the end position of each
// non-empty level: the chunk's steps.
template <class RowAt>
void sort_chunk_by_level(SyncFreeBlocksPlan& p, std::span<const index_t> level, const RowAt& row_at, index_t c,
                         std::vector<index_t>& ends) {
  const index_t begin = p.chunk_ptr[std::size_t(c)], end = p.chunk_ptr[std::size_t(c) + 1];
  index_t lo = level[std::size_t(row_at(begin))], hi = lo;
  for (index_t q = begin; q < end; ++q) {
    lo = std::min(lo, level[std::size_t(row_at(q))]);
    hi = std::max(hi, level[std::size_t(row_at(q))]);
  }
  std::vector<index_t> count(std::size_t(hi - lo) + 2, 0);
  for (index_t q = begin; q < end; ++q) ++count[std::size_t(level[std::size_t(row_at(q))] - lo) + 1];
  for (std::size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];  // count[l]: start of level lo + l
  for (std::size_t l = 0; l + 1 < count.size(); ++l)
    if (count[l + 1] > count[l]) ends.push_back(begin + count[l + 1]);  // skip levels without a row here
  for (index_t q = begin; q < end; ++q) {
    const index_t i = row_at(q);
    p.order[std::size_t(begin + count[std::size_t(level[std::size_t(i)] - lo)]++)] = i;
  }
}

}  // namespace

SyncFreeBlocksPlan plan_sync_free_blocks(std::span<const index_t> level, std::span<const index_t> row_work,
                                         Triangle tri, index_t chunks) {
  const index_t n = index_t(level.size());
  SyncFreeBlocksPlan p;
  p.chunks = n == 0 ? 0 : std::clamp<index_t>(chunks, 1, n);
  parallel::fresh_assign(p.order, std::size_t(n));
  p.chunk_ptr.assign(std::size_t(p.chunks) + 1, 0);
  p.chunk_step.assign(std::size_t(p.chunks) + 1, 0);
  p.step_ptr.assign(1, 0);
  if (n == 0) return p;
  auto row_at = [&](index_t t) { return tri == Triangle::Lower ? t : n - 1 - t; };  // t-th row in dependency order

  // Cut the dependency order into runs of about total / chunks work; every
  // chunk gets at least one row.
  std::int64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static) if (n > parallel::kParallelMin)
  for (index_t i = 0; i < n; ++i) total += row_work[std::size_t(i)];
  std::int64_t done = 0;
  index_t t = 0;
  for (index_t c = 0; c < p.chunks; ++c) {
    p.chunk_ptr[std::size_t(c)] = t;
    const std::int64_t goal = total * (c + 1) / p.chunks;
    const index_t last_start = n - (p.chunks - c);  // leave a row for each later chunk
    do {
      done += row_work[std::size_t(row_at(t))];
      ++t;
    } while (t <= last_start && done < goal);
  }
  p.chunk_ptr[std::size_t(p.chunks)] = n;
  // Inside each chunk: rows by level (counting sort), dependency order within
  // a level. The chunks are independent: sorted in parallel, each into its
  // own positions and its own list of step ends, which are then joined.
  std::vector<std::vector<index_t>> step_end(std::size_t(p.chunks));
#pragma omp parallel for schedule(dynamic, 1) if (n > parallel::kParallelMin)
  for (index_t c = 0; c < p.chunks; ++c) sort_chunk_by_level(p, level, row_at, c, step_end[std::size_t(c)]);
  for (index_t c = 0; c < p.chunks; ++c) {
    const std::vector<index_t>& ends = step_end[std::size_t(c)];
    p.chunk_step[std::size_t(c)] = p.steps();
    p.most_steps = std::max(p.most_steps, index_t(ends.size()));
    index_t begin = p.chunk_ptr[std::size_t(c)];
    for (const index_t end : ends) {
      p.widest_step = std::max(p.widest_step, end - begin);
      begin = end;
    }
    p.step_ptr.insert(p.step_ptr.end(), ends.begin(), ends.end());
  }
  p.chunk_step[std::size_t(p.chunks)] = p.steps();
  return p;
}

}  // namespace balsa::trsv_gpu::detail
