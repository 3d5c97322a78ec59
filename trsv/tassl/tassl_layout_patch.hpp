// The TASSL GPU layout (tassl_layout.hpp) patched after an incremental
// update of the analysis (tassl_update.hpp, thesis ch. 6): only the blocks of
// the sub-graphs the update touched are laid out again, each in its own
// segments when it still fits them, otherwise in new segments at the arrays'
// ends (with room to grow); V0 is compacted in place. What changed is
// returned as ranges of the arrays, so that the GPU copies exactly those.
//
// A touched block whose vertices and rounds per slot stay the same (the
// common case: moved edges fit the pad lanes of their slots' rounds) is
// patched in place: only the rounds of the slots whose edges changed, and
// its external edges if they changed.
//
// The launches change (a CUDA graph must be captured again) only when a
// sub-graph is created or changes level, a V0 block disappears, or a block
// outgrows its launch's shared memory. A launch keeps its width (round
// lanes) across patches; a new level's launch chooses its own.
#pragma once

#include <cstdint>
#include <vector>

#include "balsa/trsv.hpp"
#include "trsv/tassl/tassl_layout.hpp"
#include "trsv/tassl/tassl_update.hpp"

namespace balsa::tassl {

struct Range {
  std::int64_t begin = 0, end = 0;
};

struct LayoutPatch {
  // Ranges rewritten, per group of parallel arrays: positions (order, diag),
  // external rows (ext_rows, ext_ptr), external edges (ext_from, values),
  // internal entries (int_key, values).
  std::vector<Range> positions, ext_rows, ext_edges, entries;
  std::vector<std::size_t> blocks;  // blocks laid out again: their values must be scaled again
  // Blocks patched in place (same positions and rounds per slot): only the
  // rounds of their changed slots and (ext) their external edges were
  // written; their diagonal, those entries and those edges need new values.
  struct Partial {
    std::size_t block = 0;
    EntryRanges entries;
    bool ext = false;
  };
  std::vector<Partial> partial;
  bool launches_changed = false;    // blocks reordered or launches resized: capture again
  index_t relocated = 0;            // blocks moved to new segments
};

LayoutPatch patch_layout(Layout& Y, const Incremental& inc, const UpdateResult& r, const LayoutTuning& tuning = {});

// Entries of the arrays that no block uses any more (left behind by moves),
// over all entries: a full layout compacts them.
double layout_waste(const Layout& Y);

}  // namespace balsa::tassl
