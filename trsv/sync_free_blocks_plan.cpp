// The chunks and level steps of the sync-free-blocks solve
// (trsv/sync_free_blocks_plan.hpp).
#include "trsv/sync_free_blocks_plan.hpp"

#include <algorithm>
#include <cstdint>

namespace balsa::trsv_gpu::detail {

SyncFreeBlocksPlan plan_sync_free_blocks(std::span<const index_t> level, std::span<const index_t> row_work,
                                         Triangle tri, index_t chunks) {
  const index_t n = index_t(level.size());
  SyncFreeBlocksPlan p;
  p.chunks = n == 0 ? 0 : std::clamp<index_t>(chunks, 1, n);
  p.order.resize(std::size_t(n));
  p.chunk_ptr.assign(std::size_t(p.chunks) + 1, 0);
  p.chunk_step.assign(std::size_t(p.chunks) + 1, 0);
  p.step_ptr.assign(1, 0);
  if (n == 0) return p;
  auto row_at = [&](index_t t) { return tri == Triangle::Lower ? t : n - 1 - t; };  // t-th row in dependency order

  // Cut the dependency order into runs of about total / chunks work; every
  // chunk gets at least one row.
  std::int64_t total = 0;
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
  // Inside each chunk: rows by level (counting sort), dependency order within a level.
  std::vector<index_t> count;
  for (index_t c = 0; c < p.chunks; ++c) {
    const index_t begin = p.chunk_ptr[std::size_t(c)], end = p.chunk_ptr[std::size_t(c) + 1];
    index_t lo = level[std::size_t(row_at(begin))], hi = lo;
    for (index_t q = begin; q < end; ++q) {
      lo = std::min(lo, level[std::size_t(row_at(q))]);
      hi = std::max(hi, level[std::size_t(row_at(q))]);
    }
    count.assign(std::size_t(hi - lo) + 2, 0);
    for (index_t q = begin; q < end; ++q) ++count[std::size_t(level[std::size_t(row_at(q))] - lo) + 1];
    for (std::size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];  // count[l]: start of level lo + l
    p.chunk_step[std::size_t(c)] = p.steps();
    for (std::size_t l = 0; l + 1 < count.size(); ++l) {
      if (count[l + 1] == count[l]) continue;  // no row of this level in the chunk
      p.step_ptr.push_back(begin + count[l + 1]);
      p.widest_step = std::max(p.widest_step, count[l + 1] - count[l]);
    }
    p.most_steps = std::max(p.most_steps, p.steps() - p.chunk_step[std::size_t(c)]);
    for (index_t q = begin; q < end; ++q) {
      const index_t i = row_at(q);
      p.order[std::size_t(begin + count[std::size_t(level[std::size_t(i)] - lo)]++)] = i;
    }
  }
  p.chunk_step[std::size_t(p.chunks)] = p.steps();
  return p;
}

}  // namespace balsa::trsv_gpu::detail
