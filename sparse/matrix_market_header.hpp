// Internal to the Matrix Market reader (not installed): the banner and the
// size line, shared by the header-only read and the full readers.
#pragma once

#include <string>

#include "balsa/matrix_market.hpp"
#include "sparse/matrix_market_lines.hpp"

namespace balsa::mtx {

// Reads the banner, the comments and the size line; throws ParseError naming
// the line for anything malformed. Complex and Hermitian files are a
// ParseError unless `allow_complex` (the header-only read reports them).
MtxHeader parse_header(LineReader& lr, const std::string& name, bool allow_complex);

}  // namespace balsa::mtx
