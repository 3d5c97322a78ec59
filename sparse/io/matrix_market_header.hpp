// Internal to the Matrix Market reader (not installed): the banner and the
// size line, shared by the header-only read and the full readers.
#pragma once

#include <string>

#include "balsa/matrix_market.hpp"
#include "sparse/io/matrix_market_lines.hpp"

namespace balsa::mtx {

// Reads the banner, the comments and the size line; throws ParseError naming
// the line for anything malformed. Complex and Hermitian files are a
// ParseError unless `allow_complex` (the header-only read reports them).
MtxHeader parse_header(LineReader& lr, const std::string& name, bool allow_complex);

// The fewest bytes an entry line of `h`'s file takes with its '\n': "i j"
// (pattern), "i j v" (real, integer) or "v" (array).
inline int64_t min_entry_bytes(const MtxHeader& h) {
  if (h.format == MtxFormat::Array) return 2;
  return h.field == MtxField::Pattern ? 4 : 6;
}

// After parse_header: when the input's size is known (a plain file, a
// seekable stream), the entries the size line declares must fit in the bytes
// after it (at min_entry_bytes each, the last '\n' optional); a ParseError
// at the size line if they cannot. Inputs of unknown size (gzip, pipes) pass.
void check_declared_count(const LineReader& lr, const ByteSource& src, const MtxHeader& h);

}  // namespace balsa::mtx
