// Matrix Market errors (sparse/io/matrix_market_header.cpp, _entries): every
// kind of malformed input with the line the error names, header-only reads,
// declared sizes against memory and file bytes, messages in the file's terms.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "balsa/matrix_market.hpp"
#include "core/memory.hpp"
#include "support/matrix_market_cases.hpp"
#include "support/sanitizers.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

using namespace test::mm;
TYPED_TEST_SUITE(MatrixMarketTyped, ValueTypes);

// ---- malformed input --------------------------------------------------------------

struct BadCase {
  const char* what;
  std::string text;
  std::string needle;  // expected in the message, e.g. "bad.mtx:7: ..."
};



std::vector<BadCase> bad_cases() {
  return {
      // banner
      {"empty file", "", "bad.mtx:1: empty file"},
      {"no banner", "3 3 1\n1 1 1\n", "bad.mtx:1: missing Matrix Market banner"},
      {"comment instead of banner", "% hello\n%%MatrixMarket matrix coordinate real general\n1 1 0\n",
       "bad.mtx:1: missing Matrix Market banner"},
      {"glued banner", "%%MatrixMarketmatrix coordinate real general\n1 1 0\n", "bad.mtx:1: malformed banner"},
      {"short banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", "bad.mtx:1: incomplete banner"},
      {"long banner", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n",
       "bad.mtx:1: unexpected 'extra'"},
      {"vector object", "%%MatrixMarket vector coordinate real general\n1 1 0\n",
       "bad.mtx:1: unsupported object 'vector'"},
      {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", "bad.mtx:1: unknown format 'sparse'"},
      {"unknown field", "%%MatrixMarket matrix coordinate double general\n1 1 0\n",
       "bad.mtx:1: unknown field 'double'"},
      {"unknown symmetry", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n",
       "bad.mtx:1: unknown symmetry 'lower'"},
      {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
       "bad.mtx:1: complex data is not supported"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
       "bad.mtx:1: complex data is not supported"},
      {"array pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", "bad.mtx:1: the pattern field is not allowed"},
      {"pattern skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
       "bad.mtx:1: the pattern field cannot be skew-symmetric"},
      // size line
      {"missing size line", kCoord + "% only comments\n\n", "bad.mtx:4: missing size line"},
      {"missing size line, no comment", kCoord, "bad.mtx:2: missing size line"},
      {"size not numeric", kCoord + "% c\n3 3 x\n", "bad.mtx:3: size line: 'x' is not a non-negative integer"},
      {"size decimal", kCoord + "3.0 3 1\n", "bad.mtx:2: size line: '3.0' is not a non-negative integer"},
      {"size negative", kCoord + "-3 3 1\n", "bad.mtx:2: negative size '-3'"},
      {"size too few", kCoord + "3 3\n", "bad.mtx:2: size line has 2 numbers, expected 'rows columns entries'"},
      {"size too many", kCoord + "3 3 1 1\n", "bad.mtx:2: unexpected '1' on the size line"},
      {"array size too many", "%%MatrixMarket matrix array real general\n3 3 9\n",
       "bad.mtx:2: unexpected '9' on the size line"},
      {"array size too few", "%%MatrixMarket matrix array real general\n3\n",
       "bad.mtx:2: size line has 1 number, expected 'rows columns'"},
      {"rows overflow", kCoord + "3000000000 3 1\n1 1 1\n",
       "bad.mtx:2: number of rows 3000000000 does not fit balsa's 32-bit index"},
      {"cols overflow", kCoord + "3 99999999999999999999999 1\n1 1 1\n",
       "bad.mtx:2: number of columns 99999999999999999999999 does not fit balsa's 32-bit index"},
      {"nnz overflow", kCoord + "100000 100000 2147483648\n1 1 1\n",
       "bad.mtx:2: number of entries 2147483648 does not fit balsa's 32-bit index"},
      {"nnz above rows*cols", kCoord + "2 2 5\n1 1 1\n", "bad.mtx:2: the size line declares 5 entries, more than the 4"},
      {"symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n",
       "bad.mtx:2: a symmetric matrix must be square"},
      {"skew not square", "%%MatrixMarket matrix array real skew-symmetric\n3 2\n1\n",
       "bad.mtx:2: a skew-symmetric matrix must be square"},
      {"array too large", "%%MatrixMarket matrix array real general\n50000 50000\n1\n",
       "bad.mtx:2: an array of 50000 x 50000 = 2500000000 values does not fit balsa's 32-bit index"},
      // entry lines
      {"too few tokens", kCoord + "3 3 2\n1 1 1.000\n2 2\n", "bad.mtx:4: too few numbers on an entry line"},
      {"too many tokens", kCoord + "3 3 2\n1 1 1\n2 2 1 7\n",
       "bad.mtx:4: too many numbers on an entry line: expected 'row column value', found 4 (unexpected '7')"},
      {"pattern with value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n",
       "bad.mtx:3: too many numbers on an entry line: expected 'row column'"},
      {"array two values", "%%MatrixMarket matrix array real general\n2 1\n1 2\n3\n",
       "bad.mtx:3: too many numbers on an entry line: expected one value, found 2"},
      {"value with junk", kCoord + "3 3 2\n1 1 1\n% c\n2 2 1.5x\n", "bad.mtx:5: value '1.5x' is not a number"},
      {"value word", kCoord + "3 3 1\n1 1 abc\n", "bad.mtx:3: value 'abc' is not a number"},
      {"value sign only", kCoord + "3 3 1\n1 1 -\n", "bad.mtx:3: value '-' is not a number"},
      {"value fortran exponent", kCoord + "3 3 1\n1 1 1.0D+00\n", "bad.mtx:3: value '1.0D+00' is not a number"},
      {"value hex", kCoord + "3 3 1\n1 1 0x10\n", "bad.mtx:3: value '0x10' is not a number"},
      {"array value junk", "%%MatrixMarket matrix array real general\n2 1\n1\n2,\n",
       "bad.mtx:4: value '2,' (row 2, column 1) is not a number"},
      {"integer field decimal", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n",
       "bad.mtx:3: value '1.5' is not an integer"},
      {"integer field exponent", "%%MatrixMarket matrix array integer general\n1 1\n1e3\n",
       "bad.mtx:3: value '1e3' (row 1, column 1) is not an integer"},
      {"row not integer", kCoord + "3 3 1\na 1 1\n", "bad.mtx:3: row index 'a' is not an integer"},
      {"row decimal", kCoord + "3 3 1\n1.5 1 1\n", "bad.mtx:3: row index '1.5' is not an integer"},
      {"column not integer", kCoord + "3 3 1\n1 x2 1\n", "bad.mtx:3: column index 'x2' is not an integer"},
      {"row zero", kCoord + "3 3 1\n0 1 1\n", "bad.mtx:3: row index '0' is out of range 1..3"},
      {"row negative", kCoord + "3 3 1\n-1 1 1\n", "bad.mtx:3: row index '-1' is out of range 1..3"},
      {"row too large", kCoord + "3 4 1\n4 1 1\n", "bad.mtx:3: row index '4' is out of range 1..3"},
      {"column too large", kCoord + "3 4 2\n1 1 1\n1 5 1\n", "bad.mtx:4: column index '5' is out of range 1..4"},
      {"column zero", kCoord + "3 4 1\n1 0 1\n", "bad.mtx:3: column index '0' is out of range 1..4"},
      {"index huge", kCoord + "3 4 1\n123456789012345678901234 1 1\n",
       "bad.mtx:3: row index '123456789012345678901234' is out of range 1..3"},
      {"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0.5\n",
       "bad.mtx:4: nonzero diagonal entry (2, 2) in a skew-symmetric matrix"},
      {"integer skew diagonal", "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n3 3 -2\n",
       "bad.mtx:3: nonzero diagonal entry (3, 3)"},
      // a symmetric file stores one triangle, not entries from both
      {"symmetric upper after lower",
       "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 5\n% c\n1 2 7\n3 3 1\n",
       "bad.mtx:6: entry (1, 2) is above the diagonal but earlier entries are below it: a symmetric file stores "
       "one triangle"},
      {"symmetric lower after upper", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 3 1\n2 2 1\n3 2 1\n",
       "bad.mtx:5: entry (3, 2) is below the diagonal but earlier entries are above it: a symmetric file"},
      {"skew mixed", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 1\n3 1 2\n2 3 -1\n",
       "bad.mtx:5: entry (2, 3) is above the diagonal but earlier entries are below it: a skew-symmetric file"},
      {"integer symmetric mixed", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 2 7\n2 1 5\n",
       "bad.mtx:4: entry (2, 1) is below the diagonal"},
      {"pattern symmetric mixed", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n3 1\n3 3\n1 3\n",
       "bad.mtx:5: entry (1, 3) is above the diagonal"},
      // entry count: files whose bytes could hold the declared entries end early ...
      {"truncated", kCoord + "% c\n3 3 3\n1 1 1.25\n2 2 2.25\n",
       "bad.mtx:6: unexpected end of file: expected 3 entries, found 2"},
      {"truncated, no newline", kCoord + "3 3 3\n1 1 1.25\n2 2 2.25",
       "bad.mtx:5: unexpected end of file: expected 3 entries, found 2"},
      {"truncated, blank lines after", kCoord + "3 3 3\n1 1 1\n% a comment line\n\n",
       "bad.mtx:6: unexpected end of file: expected 3 entries, found 1"},
      {"no entries", kCoord + "3 3 3\n% no entries, only comments\n",
       "bad.mtx:4: unexpected end of file: expected 3 entries, found 0"},
      {"array truncated", "%%MatrixMarket matrix array real symmetric\n3 3\n1.5\n2\n3\n4\n5\n",
       "bad.mtx:8: unexpected end of file: expected 6 entries, found 5"},
      // ... files too short for them fail at the size line (6 bytes an entry
      // "i j v\n", 4 for pattern "i j\n", 2 an array value "v\n")
      {"more entries than bytes", kCoord + "% c\n3 3 3\n1 1 1\n2 2 2\n",
       "bad.mtx:3: the size line declares 3 entries, but the file's 68 bytes can hold at most 2 (the file is "
       "truncated, or its size line is wrong)"},
      {"entries but no bytes", kCoord + "3 3 3\n",
       "bad.mtx:2: the size line declares 3 entries, but the file's 52 bytes can hold at most 0"},
      {"more pattern entries than bytes", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n",
       "bad.mtx:2: the size line declares 2 entries, but the file's 59 bytes can hold at most 1"},
      {"more array values than bytes", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n",
       "bad.mtx:2: the size line declares a symmetric 3 x 3 array of 6 stored values, but the file's 57 bytes can "
       "hold at most 5"},
      {"extra entry", kCoord + "3 3 1\n1 1 1\n\n2 2 2\n", "bad.mtx:5: extra data '2' after the 1 entries"},
      {"extra array value", "%%MatrixMarket matrix array real skew-symmetric\n2 2\n1\n2\n",
       "bad.mtx:4: extra data '2' after the 1 entries"},
      {"extra text", kCoord + "1 1 1\n1 1 1\n% fine\nthe end\n", "bad.mtx:5: extra data 'the'"},
  };
}

TYPED_TEST(MatrixMarketTyped, MalformedInputNamesFileAndLine) {
  using T = TypeParam;
  for (const BadCase& c : bad_cases()) {
    SCOPED_TRACE(c.what);
    const fs::path p = write_text(c.text);
    EXPECT_THROW_MSG(read_matrix_market<T>(p), ParseError, c.needle);
    // the same message from the other entry points
    std::istringstream in(c.text);
    EXPECT_THROW_MSG(read_matrix_market<T>(in, "bad.mtx"), ParseError, c.needle);
    EXPECT_THROW_MSG(read_matrix_market_csr<T>(p), ParseError, c.needle);
    MtxReadOptions stored_only;
    stored_only.expand_symmetry = false;
    stored_only.allow_non_finite = true;
    EXPECT_THROW_MSG(read_matrix_market<T>(p, stored_only), ParseError, c.needle);
    EXPECT_THROW_MSG(read_matrix_market_dense<T>(p), ParseError, c.needle);
  }
}

TEST(MatrixMarket, ParseErrorCarriesFileAndLine) {
  const fs::path p = write_text(kCoord + "% c\n% c\n3 3 2\n1 1 1\n1 1 oops\n");
  try {
    read_matrix_market<double>(p);
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), p.string());
    EXPECT_EQ(e.line(), 6);
    EXPECT_EQ(std::string(e.what()), p.string() + ":6: value 'oops' is not a number");
  }
}

TEST(MatrixMarket, UnreadableFiles) {
  const fs::path missing = temp_dir() / "no_such_matrix.mtx";
  EXPECT_THROW_MSG(read_matrix_market<double>(missing), Error, "no_such_matrix.mtx");
  EXPECT_THROW_MSG(read_matrix_market_csr<float>(missing), Error, "no_such_matrix.mtx");
  EXPECT_THROW_MSG(read_matrix_market_dense<float>(missing), Error, "no_such_matrix.mtx");
  EXPECT_THROW_MSG(read_matrix_market_header(missing), Error, "no_such_matrix.mtx");
  const fs::path dir = temp_dir();
  EXPECT_THROW_MSG(read_matrix_market<double>(dir), Error, dir.string());
  // A FileError with the path and errno (Python's FileNotFoundError, IsADirectoryError).
  try {
    (void)read_matrix_market_csr<double>(missing);
    ADD_FAILURE() << "a missing file was read";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), missing.string());
    EXPECT_STREQ(e.what(), ("cannot open Matrix Market file '" + missing.string() + "': " + std::strerror(ENOENT)).c_str());
  }
  try {
    (void)read_matrix_market_csr<double>(dir);
    ADD_FAILURE() << "a folder was read";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error_number(), EISDIR);
    EXPECT_EQ(e.path(), dir.string());
  }
  std::ifstream closed;  // never opened: a failed stream
  closed.setstate(std::ios::failbit);
  EXPECT_THROW_MSG(read_matrix_market<double>(closed, "closed.mtx"), Error, "closed.mtx");
}

// A header that lies about the size must not make the reader allocate for
// it: a file (or seekable stream) too short for it fails at the size line,
// an input of unknown size at its end.
TEST(MatrixMarket, LyingHeaderDoesNotAllocate) {
  MtxReadOptions no_memory_check;  // (2000000000 rows' row pointers: 16 GB)
  no_memory_check.memory_limit = SIZE_MAX;
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(kCoord + "2000000000 2000000000 2000000000\n1 1 1\n"),
                                              no_memory_check),
                   ParseError,
                   "bad.mtx:2: the size line declares 2000000000 entries, but the file's 85 bytes can hold at most 1");
  EXPECT_THROW_MSG(read_matrix_market<double>(
                       write_text(
                           "%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 2000000000\n1 1 1\n"),
                       no_memory_check),
                   ParseError,
                   "bad.mtx:2: the size line declares 2000000000 entries, but the file's 87 bytes can hold at most 1");
  EXPECT_THROW_MSG(read_matrix_market_dense<double>(write_text("%%MatrixMarket matrix array real general\n46340 46340\n1\n")),
                   ParseError,
                   "bad.mtx:2: the size line declares 46340 x 46340 = 2147395600 values, but the file's 55 bytes can "
                   "hold at most 1");
  std::istringstream in(kCoord + "2000000000 2000000000 2000000000\n1 1 1\n");
  EXPECT_THROW_MSG(read_matrix_market<float>(in, "s.mtx", no_memory_check), ParseError,
                   "s.mtx:2: the size line declares 2000000000 entries, but the file's 85 bytes can hold at most 1");
  // a pipe: its size is unknown, the reader reserves only for what it has
  // read and the missing entries are found at the end
  PipeBuf pipe(kCoord + "2000000000 2000000000 2000000000\n1 1 1\n");
  std::istream pin(&pipe);
  EXPECT_THROW_MSG(read_matrix_market<float>(pin, "p.mtx", no_memory_check), ParseError,
                   "p.mtx:4: unexpected end of file: expected 2000000000 entries, found 1");
  PipeBuf array_pipe("%%MatrixMarket matrix array real general\n46340 46340\n1\n");
  std::istream apin(&array_pipe);
  EXPECT_THROW_MSG(read_matrix_market<double>(apin, "p.mtx", no_memory_check), ParseError,
                   "p.mtx:4: unexpected end of file: expected 2147395600 entries, found 1");
}

// ---- header-only ---------------------------------------------------------------

TEST(MatrixMarket, HeaderOnly) {
  const MtxHeader h = read_matrix_market_header(write_text(
      "%%MatrixMarket matrix coordinate integer symmetric\n% one\n\n% two\n7 7 12\nthis line is never read\n"));
  EXPECT_EQ(h.format, MtxFormat::Coordinate);
  EXPECT_EQ(h.field, MtxField::Integer);
  EXPECT_EQ(h.symmetry, MtxSymmetry::Symmetric);
  EXPECT_EQ(h.rows, 7);
  EXPECT_EQ(h.cols, 7);
  EXPECT_EQ(h.stored_entries, 12);
  EXPECT_EQ(h.header_lines, 5);
  // complex files can be inspected, though not read
  const MtxHeader c = read_matrix_market_header(write_text("%%MatrixMarket matrix array complex hermitian\n4 4\n"));
  EXPECT_EQ(c.format, MtxFormat::Array);
  EXPECT_EQ(c.field, MtxField::Complex);
  EXPECT_EQ(c.symmetry, MtxSymmetry::Hermitian);
  EXPECT_EQ(c.stored_entries, 10);
  const MtxHeader s = read_matrix_market_header(write_text("%%MatrixMarket matrix array real skew-symmetric\n4 4\n"));
  EXPECT_EQ(s.stored_entries, 6);
  // a very long comment (longer than the reader's first buffer)
  const MtxHeader l = read_matrix_market_header(write_text(kCoord + "%" + std::string(300000, 'x') + "\n2 3 4\n"));
  EXPECT_EQ(l.rows, 2);
  EXPECT_EQ(l.cols, 3);
  EXPECT_EQ(l.header_lines, 3);
  EXPECT_THROW_MSG(read_matrix_market_header(write_text(kCoord + "% c\n2 x 4\n")), ParseError,
                   "bad.mtx:3: size line: 'x'");
  EXPECT_THROW_MSG(read_matrix_market_header(write_text("%%MatrixMarket matrix coordinate real\n")), ParseError,
                   "bad.mtx:1: incomplete banner");
  EXPECT_THROW_MSG(read_matrix_market_header(write_text(kCoord)), ParseError, "bad.mtx:2: missing size line");
}


// ---- sizes and memory --------------------------------------------------------------------

// `balsa info` on this file died with std::bad_alloc (2^31 row pointers).
TEST(MatrixMarket, HugeDeclaredRowsNeedMemory) {
  const std::string text = kCoord + "2147483647 2147483647 1\n1 1 1\n";
  const fs::path p = write_text(text);
  MtxReadOptions o;
  o.memory_limit = 1000000000;  // 1 GB
  const std::string want = p.string() +
                           ":2: a 2147483647 x 2147483647 matrix needs 17.2 GB for its row pointers (2 arrays of "
                           "2147483648 indices when converted to CSR); the memory limit is 1.0 GB";
  EXPECT_THROW_MSG(read_matrix_market_csr<double>(p, o), HostOutOfMemory, want);
  // triplets: only what the file holds (to_csr checks the conversion itself)
  EXPECT_EQ(read_matrix_market<double>(p, o).nnz(), 1);
  std::istringstream in(text);
  EXPECT_EQ(read_matrix_market<float>(in, "s.mtx", o).rows, 2147483647);
  const fs::path gz = temp_dir() / "huge.mtx.gz";
  gzip_file(p, gz);
  EXPECT_THROW_MSG(read_matrix_market_csr<double>(gz, o), HostOutOfMemory,
                   gz.string() + ":2: a 2147483647 x 2147483647 matrix needs 17.2 GB");
  // a dense result: its values
  EXPECT_THROW_MSG(read_matrix_market_dense<double>(write_text(kCoord + "40000 40000 1\n1 1 1\n"), o), HostOutOfMemory,
                   ":2: a 40000 x 40000 matrix needs 12.8 GB for its dense values; the memory limit is 1.0 GB");
  // an array file of unknown size (gzip): its values as triplets
  const fs::path arr = write_text("%%MatrixMarket matrix array real general\n30000 30000\n1\n", "arr.mtx");
  const fs::path agz = temp_dir() / "arr.mtx.gz";
  gzip_file(arr, agz);
  EXPECT_THROW_MSG(read_matrix_market<double>(agz, o), HostOutOfMemory,
                   agz.string() + ":2: a 30000 x 30000 matrix needs 14.4 GB for its 900000000 values as triplets");
  // without the check, the one entry reads
  o.memory_limit = SIZE_MAX;
  const Coo<double> A = read_matrix_market<double>(p, o);
  EXPECT_EQ(A.rows, 2147483647);
  EXPECT_EQ(A.nnz(), 1);
}

// An array file declaring 46340 x 46340 values holds one: a ParseError at the
// size line (it tried to allocate 17 GB on some paths).
TEST(MatrixMarket, HugeDeclaredArrayIsParseError) {
  const fs::path p = write_text("%%MatrixMarket matrix array real general\n46340 46340\n1\n");
  const std::string want = p.string() +
                           ":2: the size line declares 46340 x 46340 = 2147395600 values, but the file's 55 bytes can "
                           "hold at most 1 (the file is truncated, or its size line is wrong)";
  try {
    read_matrix_market_dense<double>(p);
    ADD_FAILURE() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), want);
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_THROW_MSG(read_matrix_market<double>(p), ParseError, want);
  EXPECT_THROW_MSG(read_matrix_market_csr<float>(p), ParseError, want);
  EXPECT_THROW_MSG(read_matrix_market_dense<float>(p), ParseError, want);
  // gzip: the size is unknown, the missing values are found at the end
  const fs::path gz = temp_dir() / "big_array.mtx.gz";
  gzip_file(p, gz);
  MtxReadOptions o;
  o.memory_limit = SIZE_MAX;
  EXPECT_THROW_MSG(read_matrix_market_dense<float>(gz, o), ParseError,
                   gz.string() + ":4: unexpected end of file: expected 2147395600 entries, found 1");
}

TEST(MatrixMarket, DeclaredCountAgainstFileBytes) {
  // more entries than the bytes can hold
  const fs::path p = write_text(kCoord + "% a comment\n10 10 5\n1 1 1\n2 2 2\n3 3 3\n");
  try {
    read_matrix_market<double>(p);
    ADD_FAILURE() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(std::string(e.what()), p.string() +
                                         ":3: the size line declares 5 entries, but the file's 84 bytes can hold at "
                                         "most 3 (the file is truncated, or its size line is wrong)");
  }
  // exactly enough bytes (the last '\n' optional) is not an error
  EXPECT_EQ(read_matrix_market<double>(write_text(kCoord + "2 2 2\n1 1 1\n2 2 2")).nnz(), 2);
  EXPECT_EQ(read_matrix_market<double>(write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2"))
                .nnz(),
            2);
  EXPECT_EQ(read_matrix_market<double>(write_text("%%MatrixMarket matrix array real general\n2 1\n1\n2")).nnz(), 2);
  EXPECT_EQ(read_matrix_market_dense<double>(write_text("%%MatrixMarket matrix array real general\n2 1\n1\n2\n")).values,
            (std::vector<double>{1, 2}));
}

// A std::bad_alloc inside the reader comes out as a HostOutOfMemory naming
// the file: here a gzip file of one 320 MB line (no '\n') under an address
// space limit of 256 MB more than the process has.
TEST(MatrixMarketDeathTest, BadAllocBecomesHostOutOfMemory) {
#ifdef BALSA_TEST_UNDER_ASAN
  GTEST_SKIP() << "under AddressSanitizer: its shadow memory takes terabytes of address space, and its "
                  "allocator ends the process on a failed allocation instead of throwing std::bad_alloc";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path p = temp_dir() / "one_long_line.mtx.gz";
  {
    gzFile gz = gzopen(p.c_str(), "wb1");
    ASSERT_NE(gz, nullptr);
    const std::string chunk(std::size_t(1) << 20, 'x');
    for (int k = 0; k < 320; ++k) ASSERT_EQ(gzwrite(gz, chunk.data(), unsigned(chunk.size())), int(chunk.size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
  }
  auto read_under_limit = [&] {
    long pages = 0;
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f || std::fscanf(f, "%ld", &pages) != 1) std::exit(3);
    std::fclose(f);
    rlimit lim{};
    lim.rlim_cur = lim.rlim_max = rlim_t(pages) * rlim_t(sysconf(_SC_PAGE_SIZE)) + (rlim_t(256) << 20);
    if (setrlimit(RLIMIT_AS, &lim) != 0) std::exit(4);
    try {
      read_matrix_market<double>(p);
      std::fprintf(stderr, "no error\n");
      std::exit(1);
    } catch (const HostOutOfMemory& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::exit(0);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "other error: %s\n", e.what());
      std::exit(2);
    }
  };
  EXPECT_EXIT(read_under_limit(), ::testing::ExitedWithCode(0),
              "one_long_line\\.mtx\\.gz: out of memory while reading the header");
}

TEST(MatrixMarket, MemoryHelpers) {
  EXPECT_GT(physical_memory(), std::size_t(0));
  const std::size_t avail = available_memory();
  EXPECT_GT(avail, std::size_t(0));
  EXPECT_LE(avail, physical_memory());
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1000), "1.0 kB");
  EXPECT_EQ(format_bytes(std::size_t(8589934592)), "8.6 GB");
  EXPECT_EQ(format_bytes(std::size_t(17179869192ull)), "17.2 GB");
  EXPECT_EQ(format_bytes(999999999), "1.0 GB");
  EXPECT_NO_THROW(require_host_memory(1000, "x", 2000));
  EXPECT_THROW_MSG(require_host_memory(3000, "f.mtx:2: a 1 x 1 matrix", 2000, "its values"), HostOutOfMemory,
                   "f.mtx:2: a 1 x 1 matrix needs 3.0 kB for its values; the memory limit is 2.0 kB");
  EXPECT_THROW_MSG(require_host_memory(SIZE_MAX, "everything"), HostOutOfMemory, " of memory is available");
}

// ---- messages: the file's numbering, no C++ option names ---------------------------------

TEST(MatrixMarket, EntryMessagesUseFileNumbering) {
  // coordinate entries: the indices as written
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(kCoord + "3 4 2\n1 1 1\n2 5 1\n")), ParseError,
                   "bad.mtx:4: column index '5' is out of range 1..4");
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(kCoord + "3 4 2\n1 1 1\n4 4 1\n")), ParseError,
                   "bad.mtx:4: row index '4' is out of range 1..3");
  // array values: their 1-based position, column by column
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(
                       "%%MatrixMarket matrix array real general\n2 2\n1\n2\nnan\n4\n")),
                   ParseError, "bad.mtx:5: value 'nan' (row 1, column 2) is not finite: NaN and Inf values are refused");
  EXPECT_THROW_MSG(read_matrix_market_dense<float>(write_text(
                       "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\nx\n6\n")),
                   ParseError, "bad.mtx:7: value 'x' (row 3, column 2) is not a number");
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(
                       "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\ninf\n3\n")),
                   ParseError, "bad.mtx:4: value 'inf' (row 3, column 1) is not finite");
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(
                       "%%MatrixMarket matrix array integer general\n1 3\n1\n2\n3.5\n")),
                   ParseError, "bad.mtx:5: value '3.5' (row 1, column 3) is not an integer");
  // a NaN in a coordinate file (its line names the entry)
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(kCoord + "3 3 2\n1 1 1\n3 2 NaN\n")), ParseError,
                   "bad.mtx:4: value 'NaN' is not finite: NaN and Inf values are refused");
}

// The CLI prints these messages to users: no C++ option names in them.
TEST(MatrixMarket, MessagesNameNoOptions) {
  std::vector<std::string> texts;
  for (const BadCase& c : bad_cases()) texts.push_back(c.text);
  texts.push_back(kCoord + "1 2 2\n1 1 nan\n1 2 inf\n");
  texts.push_back("%%MatrixMarket matrix array real general\n2 1\n-inf\n1\n");
  texts.push_back("%%MatrixMarket matrix array real general\n46340 46340\n1\n");
  texts.push_back(kCoord + "2147483647 2147483647 1\n1 1 1\n");  // (last: read with a limit only)
  MtxReadOptions small;
  small.memory_limit = 1000;
  int messages = 0;
  for (const std::string& text : texts) {
    const fs::path p = write_text(text);
    const bool huge = &text == &texts.back();  // to_csr of 2^31 rows could take 17 GB
    for (const MtxReadOptions& o : {MtxReadOptions{}, small}) {
      if (huge && o.memory_limit == 0) continue;
      auto check = [&](auto&& read) {
        try {
          read();
        } catch (const Error& e) {
          ++messages;
          const std::string m = e.what();
          for (const char* name : {"allow_non_finite", "expand_symmetry", "memory_limit", "MtxReadOptions"})
            EXPECT_EQ(m.find(name), std::string::npos) << m;
        }
      };
      check([&] { read_matrix_market<double>(p, o); });
      check([&] { read_matrix_market_csr<float>(p, o); });
      check([&] { read_matrix_market_dense<double>(p, o); });
    }
  }
  EXPECT_GT(messages, 400);
}


}  // namespace
}  // namespace balsa
