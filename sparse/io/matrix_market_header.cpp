// Matrix Market header: the banner, comment lines and the size line.
#include "sparse/io/matrix_market_header.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "sparse/io/matrix_market_numbers.hpp"
#include "core/exceptions.hpp"

namespace balsa {
namespace mtx {

namespace {

constexpr const char* kBannerForm = "'%%MatrixMarket matrix <format> <field> <symmetry>'";

// The banner line's five words (after a byte order mark), or why not.
void check_banner_words(const char* b, const char* e, const std::vector<std::string_view>& tok, const std::string& name, int64_t bl) {
  if (e - b >= 2 && b[0] == '\x1f' && b[1] == '\x8b')  // only a stream can get here with gzip data
    throw ParseError(name, bl, "the input is gzip-compressed: balsa reads compressed Matrix Market files by their path, "
                               "not from a stream");
  if (tok.empty() || !iequal(tok[0], "%%MatrixMarket")) {
    if (!tok.empty() && tok[0].size() > 14 && iequal(tok[0].substr(0, 14), "%%MatrixMarket"))
      throw ParseError(name, bl, "malformed banner " + quote(tok[0]) + ": expected " + kBannerForm);
    throw ParseError(name, bl, std::string("missing Matrix Market banner: the first line must be ") + kBannerForm);
  }
  if (tok.size() < 5)
    throw ParseError(name, bl, "incomplete banner (" + str(int64_t(tok.size())) + " words): expected " + kBannerForm);
  if (tok.size() > 5) throw ParseError(name, bl, "unexpected " + quote(tok[5]) + " after the banner's symmetry");
  if (!iequal(tok[1], "matrix"))
    throw ParseError(name, bl, "unsupported object " + quote(tok[1]) + ": balsa reads only 'matrix'");
}

// The banner's format, field and symmetry, and the combinations balsa reads.
void read_banner_kinds(const std::vector<std::string_view>& tok, const std::string& name, int64_t bl, bool allow_complex, MtxHeader& h) {
  if (iequal(tok[2], "coordinate")) h.format = MtxFormat::Coordinate;
  else if (iequal(tok[2], "array")) h.format = MtxFormat::Array;
  else throw ParseError(name, bl, "unknown format " + quote(tok[2]) + " (expected coordinate or array)");

  if (iequal(tok[3], "real")) h.field = MtxField::Real;
  else if (iequal(tok[3], "integer")) h.field = MtxField::Integer;
  else if (iequal(tok[3], "pattern")) h.field = MtxField::Pattern;
  else if (iequal(tok[3], "complex")) h.field = MtxField::Complex;
  else throw ParseError(name, bl, "unknown field " + quote(tok[3]) + " (expected real, integer, pattern or complex)");

  if (iequal(tok[4], "general")) h.symmetry = MtxSymmetry::General;
  else if (iequal(tok[4], "symmetric")) h.symmetry = MtxSymmetry::Symmetric;
  else if (iequal(tok[4], "skew-symmetric")) h.symmetry = MtxSymmetry::SkewSymmetric;
  else if (iequal(tok[4], "hermitian")) h.symmetry = MtxSymmetry::Hermitian;
  else
    throw ParseError(name, bl,
                     "unknown symmetry " + quote(tok[4]) + " (expected general, symmetric, skew-symmetric or hermitian)");

  if (!allow_complex && (h.field == MtxField::Complex || h.symmetry == MtxSymmetry::Hermitian))
    throw ParseError(name, bl,
                     std::string("complex data is not supported: balsa reads real values (the file declares ") +
                         (h.field == MtxField::Complex ? "field 'complex'" : "symmetry 'hermitian'") + ")");
  if (h.format == MtxFormat::Array && h.field == MtxField::Pattern)
    throw ParseError(name, bl, "the pattern field is not allowed with the array format");
  if (h.field == MtxField::Pattern && h.symmetry == MtxSymmetry::SkewSymmetric)
    throw ParseError(name, bl, "the pattern field cannot be skew-symmetric");
}

// The size line's numbers (want of them: 3 for coordinate, 2 for array),
// each with its text for messages.
struct SizeLine {
  uint64_t v[3] = {0, 0, 0};
  std::string_view text[3];
};

SizeLine read_size_numbers(const char* p, const char* e, bool coord, const std::string& name, int64_t sl) {
  const std::size_t want = coord ? 3 : 2;
  const char* what = coord ? "'rows columns entries'" : "'rows columns'";
  SizeLine s;
  std::size_t n = 0;
  for (;;) {
    skip_space(p, e);
    if (p == e) break;
    const char* t = token_end(p, e);
    if (n == want)
      throw ParseError(name, sl, "unexpected " + quote({p, std::size_t(t - p)}) + " on the size line (expected " +
                                     what + ")");
    uint64_t x = 0;
    const char* q = p;
    const Num st = parse_uint(q, e, x);
    if (st == Num::Negative)
      throw ParseError(name, sl, "negative size " + quote({p, std::size_t(t - p)}) + " on the size line");
    if (st != Num::Ok)
      throw ParseError(name, sl, "size line: " + quote({p, std::size_t(t - p)}) + " is not a non-negative integer");
    s.text[n] = {p, std::size_t(t - p)};
    s.v[n++] = x;
    p = q;
  }
  if (n < want)
    throw ParseError(name, sl, "size line has " + str(int64_t(n)) + " number" + (n == 1 ? "" : "s") + ", expected " +
                                   what);
  return s;
}

// Comment and blank lines, then the size line: the matrix's size and the
// entries the file stores.
void read_size_line(LineReader& lr, const std::string& name, MtxHeader& h) {
  const char *p = nullptr, *e = nullptr;
  if (!lr.next_data_line(p, e))
    throw ParseError(name, lr.line() + 1, "missing size line (the file ends after the header)");
  const int64_t sl = lr.line();
  const bool coord = h.format == MtxFormat::Coordinate;
  const SizeLine s = read_size_numbers(p, e, coord, name, sl);
  auto fit = [&](std::size_t k, const char* label) {
    if (s.v[k] > uint64_t(max_index))
      fail_at(name, sl, std::string(label) + " " + std::string(s.text[k].substr(0, 40)) +
                            " does not fit balsa's 32-bit index (max " + str(max_index) + ")");
    return static_cast<index_t>(s.v[k]);
  };
  h.rows = fit(0, "number of rows");
  h.cols = fit(1, "number of columns");
  const int64_t positions = int64_t(h.rows) * int64_t(h.cols);
  if (h.symmetry != MtxSymmetry::General && h.rows != h.cols)
    throw ParseError(name, sl, std::string("a ") + to_string(h.symmetry) + " matrix must be square, the size line says " +
                                   str(h.rows) + " x " + str(h.cols));
  if (coord) {
    h.stored_entries = fit(2, "number of entries");
    if (h.stored_entries > positions)
      throw ParseError(name, sl, "the size line declares " + str(h.stored_entries) + " entries, more than the " +
                                     str(positions) + " positions of a " + str(h.rows) + " x " + str(h.cols) + " matrix");
  } else {
    if (positions > max_index)
      throw ParseError(name, sl, "an array of " + str(h.rows) + " x " + str(h.cols) + " = " + str(positions) +
                                     " values does not fit balsa's 32-bit index (max " + str(max_index) + ")");
    const int64_t nn = h.rows;
    switch (h.symmetry) {
      case MtxSymmetry::General: h.stored_entries = positions; break;
      case MtxSymmetry::SkewSymmetric: h.stored_entries = nn * (nn - 1) / 2; break;
      default: h.stored_entries = nn * (nn + 1) / 2; break;
    }
  }
  h.header_lines = sl;
}

}  // namespace

MtxHeader parse_header(LineReader& lr, const std::string& name, bool allow_complex) {
  MtxHeader h;
  const char *b = nullptr, *e = nullptr;
  if (!lr.next(b, e)) throw ParseError(name, 1, "empty file: expected a '%%MatrixMarket' banner line");
  if (e - b >= 3 && std::memcmp(b, "\xEF\xBB\xBF", 3) == 0) b += 3;  // UTF-8 byte order mark
  const auto tok = split(b, e);
  const int64_t bl = lr.line();
  check_banner_words(b, e, tok, name, bl);
  read_banner_kinds(tok, name, bl, allow_complex, h);
  read_size_line(lr, name, h);
  return h;
}

void check_declared_count(const LineReader& lr, const ByteSource& src, const MtxHeader& h) {
  const int64_t size = src.size();
  if (size < 0) return;
  const int64_t left = std::max<int64_t>(size - lr.consumed(), 0);
  const int64_t most = (left + 1) / min_entry_bytes(h);  // the last line's '\n' may be missing
  if (h.stored_entries <= most) return;
  std::string declared;
  if (h.format == MtxFormat::Coordinate)
    declared = str(h.stored_entries) + (h.stored_entries == 1 ? " entry" : " entries");
  else if (h.symmetry == MtxSymmetry::General)
    declared = str(h.rows) + " x " + str(h.cols) + " = " + str(h.stored_entries) + " values";
  else
    declared = std::string("a ") + to_string(h.symmetry) + " " + str(h.rows) + " x " + str(h.cols) + " array of " +
               str(h.stored_entries) + " stored values";
  throw ParseError(src.name(), h.header_lines,
                   "the size line declares " + declared + ", but the file's " + str(size) +
                       " bytes can hold at most " + str(most) + " (the file is truncated, or its size line is wrong)");
}

}  // namespace mtx

MtxHeader read_matrix_market_header(const std::filesystem::path& file) try {
  try {
    const auto src = mtx::open_file(file);
    mtx::LineReader lr(*src, mtx::chunk_for(*src, mtx::kHeaderChunk));
    return mtx::parse_header(lr, file.string(), true);
  } catch (const std::bad_alloc&) {  // a header line of gigabytes without '\n'
    throw HostOutOfMemory(file.string() + ": out of memory while reading the header");
  }
} catch (...) {
  rethrow_as_balsa_error("read_matrix_market_header");
}

}  // namespace balsa
