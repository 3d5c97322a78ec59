// Matrix Market reader.
//
// The input (a file or a stream) is read in large chunks into one buffer and
// parsed line by line in place: no per-line allocation, indices parsed by
// hand, floating-point values by std::from_chars. One core parser serves
// both overloads; the input is reached through a small ByteSource interface.
//
// Errors: every problem in the text is a ParseError naming the 1-based line.
// The hot loop only detects that a line is bad; a cold function then looks
// at the line again, token by token, to say what exactly is wrong.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <istream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "balsa/matrix_market.hpp"
#include "sparse/instantiate.hpp"

namespace balsa {
namespace {

using std::int64_t;
using std::uint64_t;

constexpr std::size_t kFileChunk = std::size_t(16) << 20;    // bytes per read() of a large file
constexpr std::size_t kStreamChunk = std::size_t(4) << 20;   // bytes per istream::read
constexpr std::size_t kHeaderChunk = std::size_t(64) << 10;  // header-only reads
constexpr std::size_t kMinChunk = std::size_t(4) << 10;

std::string str(int64_t v) { return std::to_string(v); }

[[noreturn]] void fail_at(const std::string& name, int64_t line, const std::string& msg) {
  throw ParseError(name, line, msg);
}

// A token quoted for a message (long tokens shortened).
std::string quote(std::string_view tok) {
  constexpr std::size_t kMax = 40;
  if (tok.size() > kMax) return "'" + std::string(tok.substr(0, kMax)) + "...'";
  return "'" + std::string(tok) + "'";
}

// ---- input ----------------------------------------------------------------

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into dst; 0 only at the end of the input. Throws Error.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  // Total size in bytes, or -1 when unknown.
  virtual int64_t size() const { return -1; }
};

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& file) : name_(file.string()) {
    do {
      fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) throw Error("cannot open Matrix Market file '" + name_ + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      size_ = static_cast<int64_t>(st.st_size);
      ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override { ::close(fd_); }

  std::size_t read(char* dst, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      throw Error("cannot read Matrix Market file '" + name_ + "': " + std::strerror(errno));
    }
  }
  int64_t size() const override { return size_; }

 private:
  std::string name_;
  int fd_ = -1;
  int64_t size_ = -1;
};

class StreamSource final : public ByteSource {
 public:
  StreamSource(std::istream& in, const std::string& name) : in_(in), name_(name) {
    if (!in_) throw Error("cannot read Matrix Market stream '" + name_ + "': the stream is not readable");
    // What is left in a seekable stream (files, string streams) sizes the
    // buffer and the reservations; pipes and terminals stay unknown (-1).
    std::streambuf* sb = in_.rdbuf();
    const auto here = sb->pubseekoff(0, std::ios_base::cur, std::ios_base::in);
    if (here != std::streampos(-1)) {
      const auto end = sb->pubseekoff(0, std::ios_base::end, std::ios_base::in);
      if (sb->pubseekpos(here, std::ios_base::in) == here && end != std::streampos(-1) && end >= here)
        size_ = static_cast<int64_t>(end - here);
    }
  }
  int64_t size() const override { return size_; }
  std::size_t read(char* dst, std::size_t n) override {
    if (in_.eof()) return 0;
    in_.read(dst, static_cast<std::streamsize>(n));
    if (in_.bad()) throw Error("cannot read Matrix Market stream '" + name_ + "': read error");
    return static_cast<std::size_t>(in_.gcount());
  }

 private:
  std::istream& in_;
  const std::string& name_;
  int64_t size_ = -1;
};

inline bool is_space(char c) {
  // ' ', '\t', '\v', '\f', '\r' ('\n' never occurs inside a line)
  return c == ' ' || static_cast<unsigned char>(c - '\t') <= 4;
}
inline void skip_space(const char*& p, const char* e) {
  while (p < e && is_space(*p)) ++p;
}
inline const char* token_end(const char* p, const char* e) {
  while (p < e && !is_space(*p)) ++p;
  return p;
}

// Hands out the input line by line (without the '\n'; a last line without
// '\n' counts). Lines point into the buffer and stay valid until next().
class LineReader {
 public:
  LineReader(ByteSource& src, std::size_t chunk) : src_(src), cap_(std::max(chunk, kMinChunk)) {
    buf_.reset(new char[cap_]);
    cur_ = end_ = buf_.get();
  }

  bool next(const char*& b, const char*& e) {
    char* nl = static_cast<char*>(std::memchr(cur_, '\n', static_cast<std::size_t>(end_ - cur_)));
    if (nl) [[likely]] {
      b = cur_;
      e = nl;
      cur_ = nl + 1;
      ++line_;
      return true;
    }
    return next_slow(b, e);
  }
  // Number of the last line handed out (1-based; 0 before the first).
  int64_t line() const { return line_; }

 private:
  bool next_slow(const char*& b, const char*& e) {
    for (;;) {
      if (eof_) {
        if (cur_ == end_) return false;
        b = cur_;
        e = end_;
        cur_ = end_;
        ++line_;
        return true;
      }
      const std::size_t scanned = refill();  // bytes already known to hold no '\n'
      char* nl = static_cast<char*>(
          std::memchr(cur_ + scanned, '\n', static_cast<std::size_t>(end_ - cur_ - scanned)));
      if (nl) {
        b = cur_;
        e = nl;
        cur_ = nl + 1;
        ++line_;
        return true;
      }
    }
  }

  // Moves the unfinished line to the front (growing the buffer if it fills
  // it) and appends what the source gives. Returns the unfinished length.
  std::size_t refill() {
    const std::size_t rem = static_cast<std::size_t>(end_ - cur_);
    if (rem == cap_) {
      const std::size_t new_cap = cap_ * 2;
      std::unique_ptr<char[]> bigger(new char[new_cap]);
      std::memcpy(bigger.get(), cur_, rem);
      buf_ = std::move(bigger);
      cap_ = new_cap;
    } else if (cur_ != buf_.get() && rem > 0) {
      std::memmove(buf_.get(), cur_, rem);
    }
    cur_ = buf_.get();
    const std::size_t got = src_.read(buf_.get() + rem, cap_ - rem);
    if (got == 0) eof_ = true;
    end_ = buf_.get() + rem + got;
    return rem;
  }

  ByteSource& src_;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  bool eof_ = false;
  int64_t line_ = 0;
};

std::size_t chunk_for(const ByteSource& src, std::size_t max_chunk) {
  const int64_t n = src.size();
  if (n < 0) return std::min(max_chunk, kStreamChunk);
  return std::min<std::size_t>(max_chunk, static_cast<std::size_t>(n) + 1);
}

// ---- tokens ---------------------------------------------------------------

enum class Num { Ok, NotNumber, Negative, OutOfRange, NotInteger };

// The value of the digits [s, p) when there are more than 18 of them: exact
// when leading zeros leave at most 18 significant digits, else UINT64_MAX
// (too large for any index or size).
[[gnu::cold]] uint64_t long_digits(const char* s, const char* p) {
  while (s < p && *s == '0') ++s;
  if (p - s > 18) return std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  for (; s < p; ++s) v = v * 10 + static_cast<unsigned>(*s - '0');
  return v;
}

// A non-negative decimal integer (an index or a size) that must be followed
// by white space or the end. On Ok, p is past it.
inline Num parse_uint(const char*& p, const char* e, uint64_t& out) {
  const char* s = p;
  uint64_t v = 0;
  while (p < e) {
    const unsigned d = static_cast<unsigned char>(*p) - unsigned('0');
    if (d > 9) break;
    v = v * 10 + d;
    ++p;
  }
  if (p == s || (p < e && !is_space(*p))) [[unlikely]] {
    if (p == s && s < e && *s == '-' && s + 1 < e && static_cast<unsigned>(s[1] - '0') <= 9) {
      const char* q = s + 1;
      while (q < e && static_cast<unsigned>(*q - '0') <= 9) ++q;
      if (q == e || is_space(*q)) return Num::Negative;
    }
    return Num::NotNumber;
  }
  if (p - s > 18) [[unlikely]] v = long_digits(s, p);
  out = v;
  return Num::Ok;
}

// True when the decimal number in [s, e) (from_chars syntax, no sign) is
// smaller than 1 in magnitude, i.e. an out-of-range result is an underflow.
[[gnu::cold]] bool is_tiny(const char* s, const char* e) {
  int64_t int_digits = 0;    // significant digits before the point
  int64_t lead_zeros = 0;    // zeros after the point before the first nonzero digit
  bool seen_nonzero = false, in_frac = false;
  const char* p = s;
  for (; p < e; ++p) {
    const char c = *p;
    if (c == '.') {
      in_frac = true;
    } else if (c >= '0' && c <= '9') {
      if (c != '0') seen_nonzero = true;
      if (!in_frac) {
        if (seen_nonzero) ++int_digits;
      } else if (!seen_nonzero) {
        ++lead_zeros;
      }
    } else {
      break;
    }
  }
  if (!seen_nonzero) return true;  // zero cannot overflow
  int64_t exp10 = int_digits > 0 ? int_digits - 1 : -(lead_zeros + 1);
  if (p < e && (*p == 'e' || *p == 'E')) {
    ++p;
    bool neg = false;
    if (p < e && (*p == '+' || *p == '-')) neg = (*p++ == '-');
    int64_t x = 0;
    for (; p < e && *p >= '0' && *p <= '9'; ++p) x = std::min<int64_t>(x * 10 + (*p - '0'), int64_t(1) << 40);
    exp10 += neg ? -x : x;
  }
  return exp10 < 0;
}

// A real value followed by white space or the end. An optional '+' is
// accepted; values too small for T become (signed) zero; values too large
// are OutOfRange. NaN and Inf are Ok here (the caller decides).
template <class T>
inline Num parse_real(const char*& p, const char* e, T& out) {
  const char* s = p;
  if (s < e && *s == '+' && s + 1 < e && s[1] != '-') ++s;
  {
    // Fast path for short integral values ("-1", "4"): up to 15 digits
    // convert exactly (double) or with the one rounding from_chars would do.
    const char* q = s;
    const bool neg = q < e && *q == '-';
    q += neg;
    const char* d0 = q;
    int64_t v = 0;
    while (q < e && q - d0 < 15) {
      const unsigned d = static_cast<unsigned char>(*q) - unsigned('0');
      if (d > 9) break;
      v = v * 10 + d;
      ++q;
    }
    if (q > d0 && (q == e || is_space(*q))) {
      out = neg ? -static_cast<T>(v) : static_cast<T>(v);
      p = q;
      return Num::Ok;
    }
  }
  auto [ptr, ec] = std::from_chars(s, e, out);
  if (ec != std::errc()) [[unlikely]] {
    if (ec != std::errc::result_out_of_range) return Num::NotNumber;
    const bool neg = *s == '-';
    if (ptr < e && !is_space(*ptr)) return Num::NotNumber;
    if (!is_tiny(s + (neg ? 1 : 0), ptr)) return Num::OutOfRange;
    out = neg ? -T(0) : T(0);
  } else if (ptr < e && !is_space(*ptr)) [[unlikely]] {
    return Num::NotNumber;
  }
  p = ptr;
  return Num::Ok;
}

// A value of an integer-field file: an optional sign and decimal digits.
template <class T>
inline Num parse_integer_value(const char*& p, const char* e, T& out) {
  const char* s = p;
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) neg = (*s++ == '-');
  const char* d0 = s;
  int64_t v = 0;
  while (s < e && s - d0 < 18) {  // 18 digits cannot overflow int64_t
    const unsigned d = static_cast<unsigned char>(*s) - unsigned('0');
    if (d > 9) break;
    v = v * 10 + d;
    ++s;
  }
  if (s == d0) return Num::NotNumber;
  if (s < e && !is_space(*s)) [[unlikely]] {
    if (static_cast<unsigned>(*s - '0') <= 9) {
      // more than 18 digits: let from_chars round it
      const char* q = s;
      while (q < e && static_cast<unsigned>(*q - '0') <= 9) ++q;
      if (q < e && !is_space(*q)) return (*q == '.' || *q == 'e' || *q == 'E') ? Num::NotInteger : Num::NotNumber;
      T big{};
      auto [ptr, ec] = std::from_chars(d0, q, big);
      if (ec != std::errc() || ptr != q) return Num::OutOfRange;
      out = neg ? -big : big;
      p = q;
      return Num::Ok;
    }
    return (*s == '.' || *s == 'e' || *s == 'E') ? Num::NotInteger : Num::NotNumber;
  }
  out = static_cast<T>(neg ? -v : v);
  p = s;
  return Num::Ok;
}

template <class T>
inline Num parse_value(MtxField field, const char*& p, const char* e, T& out) {
  return field == MtxField::Integer ? parse_integer_value(p, e, out) : parse_real(p, e, out);
}

template <class T>
const char* type_name() {
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::vector<std::string_view> split(const char* p, const char* e) {
  std::vector<std::string_view> out;
  for (;;) {
    skip_space(p, e);
    if (p == e) return out;
    const char* t = token_end(p, e);
    out.emplace_back(p, static_cast<std::size_t>(t - p));
    p = t;
  }
}

// ---- header ---------------------------------------------------------------

MtxHeader parse_header(LineReader& lr, const std::string& name, bool allow_complex) {
  MtxHeader h;
  const char *b = nullptr, *e = nullptr;
  if (!lr.next(b, e)) throw ParseError(name, 1, "empty file: expected a '%%MatrixMarket' banner line");
  if (e - b >= 3 && std::memcmp(b, "\xEF\xBB\xBF", 3) == 0) b += 3;  // UTF-8 byte order mark
  const auto tok = split(b, e);
  const int64_t bl = lr.line();
  constexpr const char* kForm = "'%%MatrixMarket matrix <format> <field> <symmetry>'";
  if (tok.empty() || !iequal(tok[0], "%%MatrixMarket")) {
    if (!tok.empty() && tok[0].size() > 14 && iequal(tok[0].substr(0, 14), "%%MatrixMarket"))
      throw ParseError(name, bl, "malformed banner " + quote(tok[0]) + ": expected " + kForm);
    throw ParseError(name, bl, std::string("missing Matrix Market banner: the first line must be ") + kForm);
  }
  if (tok.size() < 5)
    throw ParseError(name, bl, "incomplete banner (" + str(int64_t(tok.size())) + " words): expected " + kForm);
  if (tok.size() > 5) throw ParseError(name, bl, "unexpected " + quote(tok[5]) + " after the banner's symmetry");
  if (!iequal(tok[1], "matrix"))
    throw ParseError(name, bl, "unsupported object " + quote(tok[1]) + ": balsa reads only 'matrix'");

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

  // Comment and blank lines, then the size line.
  const char* p = nullptr;
  for (;;) {
    if (!lr.next(b, e)) throw ParseError(name, lr.line() + 1, "missing size line (the file ends after the header)");
    p = b;
    skip_space(p, e);
    if (p != e && *p != '%') break;
  }
  const int64_t sl = lr.line();
  const bool coord = h.format == MtxFormat::Coordinate;
  const std::size_t want = coord ? 3 : 2;
  const char* what = coord ? "'rows columns entries'" : "'rows columns'";
  uint64_t v[3] = {0, 0, 0};
  std::string_view vt[3];
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
    vt[n] = {p, std::size_t(t - p)};
    v[n++] = x;
    p = q;
  }
  if (n < want)
    throw ParseError(name, sl, "size line has " + str(int64_t(n)) + " number" + (n == 1 ? "" : "s") + ", expected " +
                                   what);
  auto fit = [&](std::size_t k, const char* label) {
    if (v[k] > uint64_t(max_index))
      fail_at(name, sl, std::string(label) + " " + std::string(vt[k].substr(0, 40)) +
                            " does not fit balsa's 32-bit index (max " + str(max_index) + ")");
    return static_cast<index_t>(v[k]);
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
  return h;
}

// ---- entries --------------------------------------------------------------

struct BodyContext {
  const std::string& name;
  const MtxHeader& h;
  bool allow_non_finite;
};

// Says what is wrong with an entry line that the fast path rejected. `i` and
// `j` are the 0-based position of an array value (unused for coordinate).
template <class T>
[[noreturn]] [[gnu::cold]] void bad_entry(const BodyContext& cx, int64_t line, const char* b, const char* e,
                                          int64_t i, int64_t j) {
  const MtxHeader& h = cx.h;
  const bool coord = h.format == MtxFormat::Coordinate;
  const bool has_value = h.field != MtxField::Pattern;
  const std::size_t want = coord ? (has_value ? 3 : 2) : 1;
  const char* shape = coord ? (has_value ? "'row column value'" : "'row column'") : "one value";
  const auto tok = split(b, e);
  auto fail = [&](const std::string& msg) { fail_at(cx.name, line, msg); };

  auto index = [&](std::size_t k, const char* label, int64_t limit) -> int64_t {
    const std::string_view t = tok[k];
    const char* p = t.data();
    uint64_t x = 0;
    const Num st = parse_uint(p, t.data() + t.size(), x);
    if (st == Num::NotNumber) fail_at(cx.name, line, std::string(label) + " index " + quote(t) + " is not an integer");
    if (st == Num::Negative || x < 1 || x > uint64_t(limit))
      fail_at(cx.name, line, std::string(label) + " index " + quote(t) + " is out of range 1.." + str(limit));
    return int64_t(x) - 1;
  };
  if (coord) {
    if (!tok.empty()) i = index(0, "row", h.rows);
    if (tok.size() > 1) j = index(1, "column", h.cols);
  }
  T v = T(1);
  const std::size_t vk = coord ? 2 : 0;
  if (has_value && tok.size() > vk) {
    const std::string_view t = tok[vk];
    const char* p = t.data();
    switch (parse_value(h.field, p, t.data() + t.size(), v)) {
      case Num::Ok: break;
      case Num::NotInteger:
        fail_at(cx.name, line, "value " + quote(t) + " is not an integer (the file declares the integer field)");
      case Num::OutOfRange: fail_at(cx.name, line, "value " + quote(t) + " is out of range for " + type_name<T>());
      default: fail_at(cx.name, line, "value " + quote(t) + " is not a number");
    }
    if (!cx.allow_non_finite && !std::isfinite(v))
      fail("value " + quote(t) + " is not finite (NaN and Inf are rejected unless allow_non_finite is set)");
  }
  if (tok.size() < want)
    fail("too few numbers on an entry line: expected " + std::string(shape) + ", found " + str(int64_t(tok.size())));
  if (tok.size() > want)
    fail("too many numbers on an entry line: expected " + std::string(shape) + ", found " + str(int64_t(tok.size())) +
         " (unexpected " + quote(tok[want]) + ")");
  if (h.symmetry == MtxSymmetry::SkewSymmetric && i == j && v != T(0))
    fail("nonzero diagonal entry (" + str(i + 1) + ", " + str(j + 1) + ") in a skew-symmetric matrix");
  fail_at(cx.name, line, "malformed entry line");
}

[[noreturn]] [[gnu::cold]] void truncated(const BodyContext& cx, int64_t line, int64_t found) {
  throw ParseError(cx.name, line,
                   "unexpected end of file: expected " + str(cx.h.stored_entries) + " entries, found " + str(found));
}

// After the declared entries only blank and comment lines may follow.
void check_trailing(LineReader& lr, const BodyContext& cx) {
  const char *b = nullptr, *e = nullptr;
  while (lr.next(b, e)) {
    const char* p = b;
    skip_space(p, e);
    if (p == e || *p == '%') continue;
    throw ParseError(cx.name, lr.line(),
                     "extra data " + quote({p, std::size_t(token_end(p, e) - p)}) + " after the " +
                         str(cx.h.stored_entries) + " entries the size line declares");
  }
}

// Coordinate entries. `F` fixes the field so the hot loop has no dispatch.
template <class T, MtxField F, class Sink>
void parse_coordinate(LineReader& lr, const BodyContext& cx, Sink& sink) {
  const int64_t nnz = cx.h.stored_entries;
  const uint64_t R = uint64_t(cx.h.rows), C = uint64_t(cx.h.cols);
  const bool skew = cx.h.symmetry == MtxSymmetry::SkewSymmetric;
  const bool check_finite = !cx.allow_non_finite;
  const char *b = nullptr, *e = nullptr;
  for (int64_t k = 0; k < nnz;) {
    if (!lr.next(b, e)) [[unlikely]]
      truncated(cx, lr.line() + 1, k);
    const char* p = b;
    skip_space(p, e);
    if (p == e || *p == '%') [[unlikely]]
      continue;
    uint64_t i = 0, j = 0;
    T v = T(1);
    bool ok = parse_uint(p, e, i) == Num::Ok && i - 1 < R;
    if (ok) {
      skip_space(p, e);
      ok = parse_uint(p, e, j) == Num::Ok && j - 1 < C;
    }
    if constexpr (F != MtxField::Pattern) {
      if (ok) {
        skip_space(p, e);
        if constexpr (F == MtxField::Integer) ok = parse_integer_value(p, e, v) == Num::Ok;
        else ok = parse_real(p, e, v) == Num::Ok && (!check_finite || std::isfinite(v));
      }
    }
    if (ok) {
      skip_space(p, e);
      ok = p == e && !(skew && i == j && v != T(0));
    }
    if (!ok) [[unlikely]]
      bad_entry<T>(cx, lr.line(), b, e, -1, -1);
    sink.add(index_t(i - 1), index_t(j - 1), v);
    ++k;
  }
  check_trailing(lr, cx);
}

// Array values, column by column (for symmetric files the lower triangle
// with the diagonal, for skew-symmetric files the strictly lower triangle).
template <class T, class Sink>
void parse_array(LineReader& lr, const BodyContext& cx, Sink& sink) {
  const int64_t total = cx.h.stored_entries;
  const index_t n = cx.h.rows;
  const MtxSymmetry sym = cx.h.symmetry;
  const int first_offset = sym == MtxSymmetry::General ? -1 : (sym == MtxSymmetry::SkewSymmetric ? 1 : 0);
  const MtxField field = cx.h.field;
  const bool check_finite = !cx.allow_non_finite;
  index_t i = 0, j = 0;
  if (first_offset > 0) i = 1;
  auto advance = [&] {
    if (++i >= n) {
      ++j;
      i = first_offset < 0 ? 0 : j + first_offset;
    }
  };
  const char *b = nullptr, *e = nullptr;
  for (int64_t k = 0; k < total;) {
    if (!lr.next(b, e)) [[unlikely]]
      truncated(cx, lr.line() + 1, k);
    const char* p = b;
    skip_space(p, e);
    if (p == e || *p == '%') [[unlikely]]
      continue;
    T v{};
    bool ok = parse_value(field, p, e, v) == Num::Ok && (!check_finite || std::isfinite(v));
    if (ok) {
      skip_space(p, e);
      ok = p == e;
    }
    if (!ok) [[unlikely]]
      bad_entry<T>(cx, lr.line(), b, e, i, j);
    sink.add(i, j, v);
    ++k;
    advance();
  }
  check_trailing(lr, cx);
}

template <class T, class Sink>
void parse_body(LineReader& lr, const BodyContext& cx, Sink& sink) {
  if (cx.h.format == MtxFormat::Array) return parse_array<T>(lr, cx, sink);
  switch (cx.h.field) {
    case MtxField::Integer: return parse_coordinate<T, MtxField::Integer>(lr, cx, sink);
    case MtxField::Pattern: return parse_coordinate<T, MtxField::Pattern>(lr, cx, sink);
    default: return parse_coordinate<T, MtxField::Real>(lr, cx, sink);
  }
}

// Triplets, with the mirror of every off-diagonal entry when expanding.
template <class T>
struct CooSink {
  Coo<T>& A;
  bool mirror;
  bool negate;
  void add(index_t i, index_t j, T v) {
    A.row_idx.push_back(i);
    A.col_idx.push_back(j);
    A.values.push_back(v);
    if (mirror && i != j) {
      A.row_idx.push_back(j);
      A.col_idx.push_back(i);
      A.values.push_back(negate ? -v : v);
    }
  }
};

// Array values in file order (positions are implied).
template <class T>
struct ValueSink {
  std::vector<T>& values;
  void add(index_t, index_t, T v) { values.push_back(v); }
};

// How many entries to reserve: what the header declares, but never more than
// the input could hold (a lying header must not allocate absurd memory).
int64_t reserve_count(const ByteSource& src, const MtxHeader& h) {
  const int64_t bytes = src.size();
  const int64_t min_line = h.format == MtxFormat::Array ? 2 : 4;  // "1\n", "1 1\n"
  const int64_t cap = bytes >= 0 ? bytes / min_line + 1 : int64_t(1) << 16;  // unknown: let vectors grow
  return std::min(h.stored_entries, cap);
}

template <class T>
Coo<T> read_coo(ByteSource& src, const std::string& name, const MtxReadOptions& options, MtxHeader* header) {
  LineReader lr(src, chunk_for(src, kFileChunk));
  const MtxHeader h = parse_header(lr, name, false);
  const bool sym = h.symmetry != MtxSymmetry::General;
  const bool mirror = sym && options.expand_symmetry;
  Coo<T> A;
  A.rows = h.rows;
  A.cols = h.cols;
  const auto r = static_cast<std::size_t>(reserve_count(src, h) * (mirror ? 2 : 1));
  A.row_idx.reserve(r);
  A.col_idx.reserve(r);
  A.values.reserve(r);
  CooSink<T> sink{A, mirror, h.symmetry == MtxSymmetry::SkewSymmetric};
  parse_body<T>(lr, BodyContext{name, h, options.allow_non_finite}, sink);
  if (header) *header = h;
  return A;
}

}  // namespace

MtxHeader read_matrix_market_header(const std::filesystem::path& file) {
  FileSource src(file);
  LineReader lr(src, chunk_for(src, kHeaderChunk));
  return parse_header(lr, file.string(), true);
}

template <class T>
Coo<T> read_matrix_market(const std::filesystem::path& file, const MtxReadOptions& options, MtxHeader* header) {
  FileSource src(file);
  return read_coo<T>(src, file.string(), options, header);
}

template <class T>
Coo<T> read_matrix_market(std::istream& in, const std::string& name, const MtxReadOptions& options,
                          MtxHeader* header) {
  StreamSource src(in, name);
  return read_coo<T>(src, name, options, header);
}

template <class T>
Csr<T> read_matrix_market_csr(const std::filesystem::path& file, const MtxReadOptions& options) {
  return to_csr(read_matrix_market<T>(file, options));
}

template <class T>
DenseMatrix<T> read_matrix_market_dense(const std::filesystem::path& file, const MtxReadOptions& options) {
  const std::string name = file.string();
  FileSource src(file);
  LineReader lr(src, chunk_for(src, kFileChunk));
  const MtxHeader h = parse_header(lr, name, false);
  const BodyContext cx{name, h, options.allow_non_finite};
  const int64_t positions = int64_t(h.rows) * int64_t(h.cols);
  DenseMatrix<T> D;
  if (h.format == MtxFormat::Array) {
    // Values first (memory grows with what the file really holds), then the
    // matrix. The header check keeps rows * cols within 32-bit range.
    std::vector<T> vals;
    vals.reserve(static_cast<std::size_t>(reserve_count(src, h)));
    ValueSink<T> sink{vals};
    parse_body<T>(lr, cx, sink);
    if (h.symmetry == MtxSymmetry::General) {
      D.rows = h.rows;
      D.cols = h.cols;
      D.values = std::move(vals);
      return D;
    }
    D = DenseMatrix<T>(h.rows, h.cols, T(0));
    const bool skew = h.symmetry == MtxSymmetry::SkewSymmetric;
    std::size_t k = 0;
    for (index_t j = 0; j < h.cols; ++j)
      for (index_t i = skew ? j + 1 : j; i < h.rows; ++i) {
        const T v = vals[k++];
        D(i, j) = v;
        if (options.expand_symmetry && i != j) D(j, i) = skew ? -v : v;
      }
    return D;
  }
  if (positions > max_index)
    throw ParseError(name, h.header_lines,
                     "a " + str(h.rows) + " x " + str(h.cols) + " matrix (" + str(positions) +
                         " entries) is too large to read as a dense matrix (at most " + str(max_index) + " entries)");
  Coo<T> A;
  A.rows = h.rows;
  A.cols = h.cols;
  const bool mirror = h.symmetry != MtxSymmetry::General && options.expand_symmetry;
  const auto r = static_cast<std::size_t>(reserve_count(src, h) * (mirror ? 2 : 1));
  A.row_idx.reserve(r);
  A.col_idx.reserve(r);
  A.values.reserve(r);
  CooSink<T> sink{A, mirror, h.symmetry == MtxSymmetry::SkewSymmetric};
  parse_body<T>(lr, cx, sink);
  D = DenseMatrix<T>(h.rows, h.cols, T(0));
  for (std::size_t k = 0; k < A.values.size(); ++k) D(A.row_idx[k], A.col_idx[k]) += A.values[k];  // duplicates sum
  return D;
}

#define BALSA_INSTANTIATE_MTX_READ(T)                                                                    \
  template Coo<T> read_matrix_market<T>(const std::filesystem::path&, const MtxReadOptions&, MtxHeader*); \
  template Coo<T> read_matrix_market<T>(std::istream&, const std::string&, const MtxReadOptions&,        \
                                        MtxHeader*);                                                     \
  template Csr<T> read_matrix_market_csr<T>(const std::filesystem::path&, const MtxReadOptions&);        \
  template DenseMatrix<T> read_matrix_market_dense<T>(const std::filesystem::path&, const MtxReadOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE_MTX_READ)
#undef BALSA_INSTANTIATE_MTX_READ

}  // namespace balsa
