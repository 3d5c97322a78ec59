// Matrix Market reader: the entries of coordinate and array files, after
// the header (matrix_market_entries.hpp).
//
// The input comes line by line from a LineReader (matrix_market_lines.hpp);
// tokens and numbers from matrix_market_numbers.hpp. One core parser serves
// every read function (matrix_market_read.cpp).
//
// Errors: every problem in the text is a ParseError naming the 1-based line
// (and entries by the file's own 1-based row and column numbers). The hot
// loop only detects that a line is bad; a cold function then looks at the
// line again, token by token, to say what exactly is wrong.
//
// This file holds the hot loops and little else: GCC's inlining budget is
// per translation unit, and the loops are measured (README, "Matrix Market
// reader speed"), so the checks and the public functions live apart
// (matrix_market_read.cpp). Compare instruction counts (valgrind
// --tool=callgrind) after a change here: wall times on a shared machine
// vary by more than such a change.
#include "sparse/io/matrix_market_entries.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "core/instantiate.hpp"
#include "sparse/io/matrix_market_header.hpp"
#include "sparse/io/matrix_market_numbers.hpp"

namespace balsa::mtx {
namespace {

struct BodyContext {
  const std::string& name;
  const MtxHeader& h;
  bool allow_non_finite;
};

// Says what is wrong with an entry line [p, e) that the fast path rejected.
// `i` and `j` are the 0-based position of an array value (unused for
// coordinate); messages name positions 1-based, as the file does.
template <class T>
[[noreturn]] [[gnu::cold]] void bad_entry(const BodyContext& cx, int64_t line, const char* p, const char* e,
                                          int64_t i, int64_t j) {
  const MtxHeader& h = cx.h;
  const bool coord = h.format == MtxFormat::Coordinate;
  const bool has_value = h.field != MtxField::Pattern;
  const std::size_t want = coord ? (has_value ? 3 : 2) : 1;
  const char* shape = coord ? (has_value ? "'row column value'" : "'row column'") : "one value";
  const auto tok = split(p, e);

  auto index = [&](std::size_t k, const char* label, int64_t limit) -> int64_t {
    const std::string_view t = tok[k];
    const char* q = t.data();
    uint64_t x = 0;
    const Num st = parse_uint(q, t.data() + t.size(), x);
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
    // An array value's line does not say where it goes: the message does.
    const std::string value =
        "value " + quote(t) + (coord ? "" : " (row " + str(i + 1) + ", column " + str(j + 1) + ")");
    const char* q = t.data();
    switch (parse_value(h.field, q, t.data() + t.size(), v)) {
      case Num::Ok: break;
      case Num::NotInteger: fail_at(cx.name, line, value + " is not an integer (the file declares the integer field)");
      case Num::OutOfRange: fail_at(cx.name, line, value + " is out of range for " + type_name<T>());
      default: fail_at(cx.name, line, value + " is not a number");
    }
    if (!cx.allow_non_finite && !std::isfinite(v))
      fail_at(cx.name, line, value + " is not finite: NaN and Inf values are refused");
  }
  if (tok.size() < want)
    fail_at(cx.name, line, "too few numbers on an entry line: expected " + std::string(shape) + ", found " + str(int64_t(tok.size())));
  if (tok.size() > want)
    fail_at(cx.name, line, "too many numbers on an entry line: expected " + std::string(shape) + ", found " + str(int64_t(tok.size())) +
         " (unexpected " + quote(tok[want]) + ")");
  if (h.symmetry == MtxSymmetry::SkewSymmetric && i == j && v != T(0))
    fail_at(cx.name, line, "nonzero diagonal entry (" + str(i + 1) + ", " + str(j + 1) + ") in a skew-symmetric matrix");
  fail_at(cx.name, line, "malformed entry line");
}

// A symmetric or skew-symmetric coordinate file stores one triangle: entry
// (i, j) (1-based) lies on the other side of the diagonal than earlier ones.
[[noreturn]] [[gnu::cold]] void mixed_triangles(const BodyContext& cx, int64_t line, uint64_t i, uint64_t j) {
  const bool above = j > i;
  fail_at(cx.name, line,
          "entry (" + str(int64_t(i)) + ", " + str(int64_t(j)) + ") is " + (above ? "above" : "below") +
              " the diagonal but earlier entries are " + (above ? "below" : "above") + " it: a " +
              to_string(cx.h.symmetry) + " file stores one triangle");
}

[[noreturn]] [[gnu::cold]] void truncated(const BodyContext& cx, int64_t line, int64_t found) {
  fail_at(cx.name, line, "unexpected end of file: expected " + str(cx.h.stored_entries) + " entries, found " + str(found));
}

// After the declared entries only blank and comment lines may follow.
void check_trailing(LineReader& lr, const BodyContext& cx) {
  const char *p = nullptr, *e = nullptr;
  if (lr.next_data_line(p, e))
    fail_at(cx.name, lr.line(),
            "extra data " + quote({p, std::size_t(token_end(p, e) - p)}) + " after the " + str(cx.h.stored_entries) +
                " entries the size line declares");
}

// Coordinate entries. `F` fixes the field so the hot loop has no dispatch.
template <class T, MtxField F, class Sink>
void parse_coordinate(LineReader& lr, const BodyContext& cx, Sink& sink) {
  const int64_t nnz = cx.h.stored_entries;
  const uint64_t R = uint64_t(cx.h.rows), C = uint64_t(cx.h.cols);
  const bool skew = cx.h.symmetry == MtxSymmetry::SkewSymmetric;
  const bool one_triangle = cx.h.symmetry != MtxSymmetry::General;
  const bool check_finite = !cx.allow_non_finite;
  int side = 0;  // off-diagonal entries seen so far: 0 none, 1 below the diagonal, 2 above
  const char *p = nullptr, *e = nullptr;
  for (int64_t k = 0; k < nnz; ++k) {
    if (!lr.next_data_line(p, e)) [[unlikely]]
      truncated(cx, lr.line() + 1, k);
    const char* const first = p;
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
      bad_entry<T>(cx, lr.line(), first, e, -1, -1);
    if (one_triangle && i != j) {
      const int s = i > j ? 1 : 2;
      if (s != side) [[unlikely]] {
        if (side != 0) mixed_triangles(cx, lr.line(), i, j);
        side = s;
      }
    }
    sink.add(index_t(i - 1), index_t(j - 1), v);
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
  index_t i = first_offset > 0 ? 1 : 0, j = 0;
  const char *p = nullptr, *e = nullptr;
  for (int64_t k = 0; k < total; ++k) {
    if (!lr.next_data_line(p, e)) [[unlikely]]
      truncated(cx, lr.line() + 1, k);
    const char* const first = p;
    T v{};
    bool ok = parse_value(field, p, e, v) == Num::Ok && (!check_finite || std::isfinite(v));
    if (ok) {
      skip_space(p, e);
      ok = p == e;
    }
    if (!ok) [[unlikely]]
      bad_entry<T>(cx, lr.line(), first, e, i, j);
    sink.add(i, j, v);
    if (++i >= n) {
      ++j;
      i = first_offset < 0 ? 0 : j + first_offset;
    }
  }
  check_trailing(lr, cx);
}

// Not inlined into its callers: so compiled, its loops are the ones measured
// for the README (GCC's inlining otherwise reshapes them as the file around
// them changes, e.g. +2% instructions a line when inlined in read_entries).
template <class T, class Sink>
[[gnu::noinline]] void parse_body(LineReader& lr, const BodyContext& cx, Sink& sink) {
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
// the input could hold (a lying header must not allocate absurd memory). Of
// an input of unknown size (gzip, a pipe) only what has been read so far
// counts: the vectors grow as more entries arrive.
int64_t reserve_count(const LineReader& lr, const ByteSource& src, const MtxHeader& h) {
  const int64_t size = src.size();
  const int64_t bytes = std::max<int64_t>(size >= 0 ? size - lr.consumed() : lr.buffered(), 0);
  return std::min(h.stored_entries, bytes / min_entry_bytes(h) + 1);
}

}  // namespace

template <class T>
Coo<T> read_entries(LineReader& lr, const ByteSource& src, const std::string& name, const MtxHeader& h,
                    const MtxReadOptions& options) {
  const BodyContext cx{name, h, options.allow_non_finite};
  const bool expand_symmetry = options.expand_symmetry;
  const bool mirror = h.symmetry != MtxSymmetry::General && expand_symmetry;
  Coo<T> A;
  A.rows = h.rows;
  A.cols = h.cols;
  const auto r = static_cast<std::size_t>(reserve_count(lr, src, h) * (mirror ? 2 : 1));
  A.row_idx.reserve(r);
  A.col_idx.reserve(r);
  A.values.reserve(r);
  CooSink<T> sink{A, mirror, h.symmetry == MtxSymmetry::SkewSymmetric};
  parse_body<T>(lr, cx, sink);
  return A;
}

template <class T>
DenseMatrix<T> read_dense_array(LineReader& lr, const ByteSource& src, const std::string& name, const MtxHeader& h,
                                const MtxReadOptions& options) {
  const BodyContext cx{name, h, options.allow_non_finite};
  const bool expand_symmetry = options.expand_symmetry;
  // Values first (memory grows with what the file really holds), then the
  // matrix. The header check keeps rows * cols within 32-bit range.
  std::vector<T> vals;
  vals.reserve(static_cast<std::size_t>(reserve_count(lr, src, h)));
  ValueSink<T> sink{vals};
  parse_body<T>(lr, cx, sink);
  DenseMatrix<T> D;
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
      if (expand_symmetry && i != j) D(j, i) = skew ? -v : v;
    }
  return D;
}

#define BALSA_INSTANTIATE_MTX_ENTRIES(T)                                                                   \
  template Coo<T> read_entries<T>(LineReader&, const ByteSource&, const std::string&, const MtxHeader&,    \
                                  const MtxReadOptions&);                                                  \
  template DenseMatrix<T> read_dense_array<T>(LineReader&, const ByteSource&, const std::string&,          \
                                              const MtxHeader&, const MtxReadOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE_MTX_ENTRIES)
#undef BALSA_INSTANTIATE_MTX_ENTRIES

}  // namespace balsa::mtx
