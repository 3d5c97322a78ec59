// The MPS reader (include/balsa/lp.hpp): the public read functions and the
// parser's driver: lines, section headers, the end of the input and the
// LP's row bounds. The data lines of each section: mps_sections.cpp.
//
// Input goes through the Matrix Market reader's line reader
// (sparse/io/matrix_market_lines.hpp): plain or gzip-compressed files (by
// their first bytes, whatever their name), lines of any length, CR LF line
// ends. Lines: '*' in column 1 starts a comment, a line starting in column
// 1 is a section header, any other line is data.
//
// The choices where MPS readers differ are listed at read_mps in lp.hpp.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>

#include "balsa/lp.hpp"
#include "core/exceptions.hpp"
#include "lp/mps/mps_parser.hpp"

namespace balsa {
namespace mps {

using mtx::iequal;
using mtx::quote;
using mtx::str;

void Parser::fail(const std::string& what) const { throw ParseError(name_, line_, what); }

LinearProgram Parser::run(mtx::LineReader& lr) {
  const char* b = nullptr;
  const char* e = nullptr;
  while (lr.next(b, e)) {
    line_ = lr.line();
    while (e > b && mtx::is_space(e[-1])) --e;  // trailing blanks, CR
    const char* p = b;
    mtx::skip_space(p, e);
    if (p == e || *b == '*') continue;
    line_begin_ = b;
    line_end_ = e;
    if (!mtx::is_space(*b)) {
      header(b, e);
      if (section_ == Section::End) break;  // what follows ENDATA is not read
    } else {
      data(p, e);
    }
  }
  line_ = std::max<std::int64_t>(lr.line(), 1);  // ENDATA's line, or the last one
  return finish();
}

void Parser::header(const char* b, const char* e) {
  split_free(b, e, fields_);
  const std::string_view w = fields_[0];
  if (section_ == Section::ObjSense && fields_.size() == 1 &&
      (iequal(w, "MIN") || iequal(w, "MAX") || iequal(w, "MINIMIZE") || iequal(w, "MAXIMIZE")))
    return objsense(w);  // the sense written in column 1
  close_column();  // a header ends the COLUMNS section
  const auto after_rows = [&](Section s) {
    if (!rows_seen_) fail(std::string(w) + " section before the ROWS section");
    close_rows();
    section_ = s;
  };
  if (iequal(w, "NAME")) {
    section_ = Section::Name;
    lp_.name = fields_.size() > 1 ? std::string(fields_[1]) : std::string();
    // Fixed format: the name is columns 15-22, and may hold spaces.
    const std::string_view line(b, std::size_t(e - b));
    if (line.size() > 14 && line.find_first_not_of(" \t", 4) == 14) {
      std::string_view f = line.substr(14, 8);
      f = f.substr(0, f.find_last_not_of(" \t") + 1);
      if (f.find(' ') != std::string_view::npos) lp_.name = f;
    }
  } else if (iequal(w, "ROWS")) {
    if (rows_seen_) fail("second ROWS section");
    rows_seen_ = true;
    section_ = Section::Rows;
  } else if (iequal(w, "COLUMNS")) {
    if (columns_seen_) fail("second COLUMNS section (the first at line " + str(columns_line_) + ")");
    after_rows(Section::Columns);
    columns_seen_ = true;
    columns_line_ = line_;
  } else if (iequal(w, "RHS")) {
    after_rows(Section::Rhs);
  } else if (iequal(w, "RANGES")) {
    after_rows(Section::Ranges);
  } else if (iequal(w, "BOUNDS")) {
    after_rows(Section::Bounds);
  } else if (iequal(w, "OBJSENSE")) {
    section_ = Section::ObjSense;
    if (fields_.size() > 1) objsense(fields_[1]);  // "OBJSENSE MAX" on one line
  } else if (iequal(w, "ENDATA")) {
    section_ = Section::End;
  } else {
    fail("unknown section " + quote(w) +
         " (balsa reads NAME, OBJSENSE, ROWS, COLUMNS, RHS, RANGES, BOUNDS and ENDATA; a data line starts with a "
         "blank)");
  }
}

void Parser::data(const char* p, const char* e) {
  split_free(p, e, fields_);
  switch (section_) {
    case Section::None:
    case Section::Name: fail("data line before the ROWS section");
    case Section::ObjSense:
      if (fields_.size() != 1) fail("expected one word in OBJSENSE: MIN, MAX, MINIMIZE or MAXIMIZE");
      objsense(fields_[0]);
      return;
    case Section::Rows: rows_line(); return;
    case Section::Columns: columns_line(); return;
    case Section::Rhs:
    case Section::Ranges: {
      const bool rhs = section_ == Section::Rhs;
      VectorLine v;
      read_fields([&](const Fields& f, std::string& err) { return parse_rhs(f, rhs ? "RHS" : "RANGES", v, err); });
      if (rhs)
        rhs_line(v);
      else
        ranges_line(v);
      return;
    }
    case Section::Bounds: bounds_data(); return;
    case Section::End: return;  // not reached: reading stops at ENDATA
  }
}

// The end of the input: checks, the row bounds from the types, RHS and
// RANGES, the matrix's sizes.
LinearProgram Parser::finish() {
  close_column();
  if (section_ != Section::End && !columns_seen_)
    fail("the input ends without a COLUMNS section and without ENDATA: is it truncated?");
  if (section_ != Section::End)  // a file cut short would otherwise be a smaller, wrong LP
    fail("the input ends without ENDATA: is it truncated? (an MPS file ends with an ENDATA line)");
  close_rows();
  const std::size_t m = row_type_.size(), n = lp_.col_names.size();
  if (m == 0 && n == 0) fail("empty problem: no rows and no columns");
  constexpr double inf = std::numeric_limits<double>::infinity();
  lp_.row_lower.resize(m);
  lp_.row_upper.resize(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double rhs = rhs_[i], r = range_[i];
    double lo = rhs, up = rhs;  // E
    if (row_type_[i] == 'L') lo = -inf;
    if (row_type_[i] == 'G') up = inf;
    if (!std::isnan(r)) {  // RANGES: an interval of width |R| on the side the type leaves open
      if (row_type_[i] == 'L' || (row_type_[i] == 'E' && r < 0))
        lo = rhs - std::fabs(r);
      else
        up = rhs + std::fabs(r);
    }
    lp_.row_lower[i] = lo;
    lp_.row_upper[i] = up;
  }
  lp_.A.rows = index_t(m);
  lp_.A.cols = index_t(n);
  return std::move(lp_);
}

}  // namespace mps

namespace {

LinearProgram read(mtx::ByteSource& src, const std::string& name) {
  mtx::LineReader lr(src, mtx::chunk_for(src, mtx::kFileChunk));
  return mps::Parser(name).run(lr);
}

}  // namespace

LinearProgram read_mps(const std::string& path) try {
  // The open errors name an MPS file (the line reader's own name a Matrix
  // Market one).
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw FileError(path, EISDIR, "cannot read MPS file '" + path + "': it is a directory");
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    const int e = errno;
    throw FileError(path, e, "cannot open MPS file '" + path + "': " + std::strerror(e));
  }
  const auto src = mtx::open_file(path);
  return read(*src, path);
} catch (...) {
  rethrow_as_balsa_error("read_mps");
}

LinearProgram read_mps_text(const std::string& text, const std::string& name) try {
  std::istringstream in(text);
  mtx::StreamSource src(in, name);
  return read(src, name);
} catch (...) {
  rethrow_as_balsa_error("read_mps_text");
}

}  // namespace balsa
