// The thin-run layout of the GPU level-set solver (see thin_run_layout.hpp).
#include "trsv/level_set/thin_run_layout.hpp"

#include <string>

namespace balsa::trsv_gpu::detail {

ThinRunLayout lay_out_thin_runs(OffDiagonal& s, const LevelSets& levels, std::span<const ThinRunPlan> runs) {
  const std::size_t n = std::size_t(s.n);
  if (levels.rows.size() != n) throw DimensionError("lay_out_thin_runs: level sets do not match the pattern");
  const std::vector<index_t> pos_of = inverse_permutation(levels.rows);  // row -> position
  std::vector<index_t> level_begin_of(n);  // by position: the first position of its level
  for (index_t l = 0; l < levels.count(); ++l)
    for (index_t k = levels.level_ptr[l]; k < levels.level_ptr[l + 1]; ++k) level_begin_of[std::size_t(k)] = levels.level_ptr[l];
  // run_of[l]: the thin run level l belongs to, or -1 (a wide level).
  std::vector<int> run_of(std::size_t(levels.count()), -1);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const ThinRunPlan& run = runs[r];
    if (run.ring <= 0 || (run.ring & (run.ring - 1)) != 0)
      throw Error("lay_out_thin_runs: ring size " + std::to_string(run.ring) + " is not a power of two");
    // ell_offset is filled in level order and read by run index: runs must be
    // non-empty, in bounds, in increasing level order and disjoint.
    if (run.first_level < 0 || run.first_level >= run.last_level || run.last_level > levels.count() ||
        (r > 0 && run.first_level < runs[r - 1].last_level))
      throw Error("lay_out_thin_runs: run " + std::to_string(r) + " (levels " + std::to_string(run.first_level) +
                  ".." + std::to_string(run.last_level) + ") is empty, out of bounds or out of order");
    for (index_t l = run.first_level; l < run.last_level; ++l) run_of[std::size_t(l)] = int(r);
  }

  ThinRunLayout out;
  out.ext_end.assign(s.row_ptr.begin() + 1, s.row_ptr.end());
  out.ovf_ptr.assign(n + 1, 0);
  std::vector<index_t> cols, where;
  for (index_t l = 0; l < levels.count(); ++l) {
    const index_t level_begin = levels.level_ptr[l], level_end = levels.level_ptr[l + 1];
    const int r = run_of[std::size_t(l)];
    if (r >= 0 && l == runs[std::size_t(r)].first_level) {  // a run starts: its ELL slots
      const ThinRunPlan& run = runs[std::size_t(r)];
      const std::size_t slots =
          std::size_t(levels.level_ptr[run.last_level] - level_begin) * std::size_t(run.lanes * ell_per_lane(run.lanes));
      const std::size_t offset = (out.ell_ref.size() + 3) / 4 * 4;  // 16-byte aligned vector loads
      out.ell_ref.resize(offset, 0);
      out.ell_pos.resize(offset, -1);
      out.ell_offset.push_back(offset);
      out.ell_ref.resize(out.ell_ref.size() + slots, run.ring);
      out.ell_pos.resize(out.ell_pos.size() + slots, -1);
    }
    for (index_t k = level_begin; k < level_end; ++k) {
      if (r >= 0) {
        const ThinRunPlan& run = runs[std::size_t(r)];
        const index_t first = levels.level_ptr[run.first_level];
        const std::size_t row_slots = std::size_t(run.lanes * ell_per_lane(run.lanes));
        const std::size_t ell = out.ell_offset[std::size_t(r)] + std::size_t(k - first) * row_slots;
        const index_t begin = s.row_ptr[k], end = s.row_ptr[k + 1];
        cols.assign(s.col_idx.begin() + begin, s.col_idx.begin() + end);
        where.assign(s.value_pos.begin() + begin, s.value_pos.begin() + end);
        index_t out_p = begin;
        std::size_t in_ell = 0;
        for (int pass = 0; pass < 2; ++pass) {  // external entries first, then internal ones
          for (std::size_t e = 0; e < cols.size(); ++e) {
            const index_t dep = pos_of[std::size_t(cols[e])];
            const bool external = dep < first;
            if (external != (pass == 0)) continue;
            s.col_idx[out_p] = cols[e];
            s.value_pos[out_p] = where[e];
            ++out_p;
            if (external) continue;
            const bool in_ring = level_end - level_begin_of[std::size_t(dep)] <= run.ring;
            const index_t ref = in_ring ? index_t(unsigned(dep) & unsigned(run.ring - 1)) : ~cols[e];
            if (in_ring && in_ell < row_slots) {
              out.ell_ref[ell + in_ell] = ref;
              out.ell_pos[ell + in_ell] = where[e];
              ++in_ell;
            } else {
              out.ovf_ref.push_back(ref);
              out.ovf_pos.push_back(where[e]);
            }
          }
          if (pass == 0) out.ext_end[std::size_t(k)] = out_p;
        }
      }
      out.ovf_ptr[std::size_t(k) + 1] = index_t(out.ovf_ref.size());
    }
  }
  return out;
}

}  // namespace balsa::trsv_gpu::detail
