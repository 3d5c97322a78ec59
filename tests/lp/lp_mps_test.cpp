// Tests of the MPS reader and LinearProgram's checks (include/balsa/lp.hpp):
// one LP written in fixed and in free format with every section and bound
// type (every number checked), names with spaces in fixed format, gzip
// files, the Netlib files of tests/data/lp against their published sizes,
// every kind of malformed input (the error and the line it names), validate.
#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "balsa/lp.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

namespace fs = std::filesystem;
using test::data_file;
using test::temp_dir;

constexpr double inf = std::numeric_limits<double>::infinity();

// ---- helpers ------------------------------------------------------------------

// A fixed-format line: the fields at columns 2-3, 5-12, 15-22, 25-36, 40-47
// and 50-61 (1-based).
std::string fx(const std::vector<std::string>& fields) {
  static constexpr int start[] = {1, 4, 14, 24, 39, 49};
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    line.resize(std::size_t(start[i]), ' ');
    line += fields[i];
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

fs::path write_file(const std::string& name, const std::string& text) { return test::write_temp_file(name, text); }

fs::path write_gzip(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  gzFile gz = gzopen(p.c_str(), "wb9");
  EXPECT_NE(gz, nullptr);
  EXPECT_EQ(gzwrite(gz, text.data(), unsigned(text.size())), int(text.size()));
  EXPECT_EQ(gzclose(gz), Z_OK);
  return p;
}

index_t col_of(const LinearProgram& lp, const std::string& name) {
  for (std::size_t j = 0; j < lp.col_names.size(); ++j)
    if (lp.col_names[j] == name) return index_t(j);
  ADD_FAILURE() << "no column " << name;
  return 0;
}
index_t row_of(const LinearProgram& lp, const std::string& name) {
  for (std::size_t i = 0; i < lp.row_names.size(); ++i)
    if (lp.row_names[i] == name) return index_t(i);
  ADD_FAILURE() << "no row " << name;
  return 0;
}

// A(i, j), 0 when not stored.
double entry(const LinearProgram& lp, index_t i, index_t j) {
  for (index_t k = lp.A.col_ptr[j]; k < lp.A.col_ptr[j + 1]; ++k)
    if (lp.A.row_idx[k] == i) return lp.A.values[k];
  return 0.0;
}

// ---- one LP with every section and bound type, in both formats ----------------
//
// Rows: COST (objective), LIM1 E, LIM2 L, MYEQN G, R4 E, FREE2 (a second N
// row: dropped), R5 L, R6 G, R7 E. RHS: COST -7.5 (objective constant 7.5),
// FREE2 ignored, a second RHS set ignored. RANGES: E with R > 0 and R < 0, L,
// G, L with a negative R. Bounds: every type; X8 a negative UP alone (lower
// -Inf), X9 a negative UP after LO (kept), X11 integer by its markers alone
// ([0, +Inf)), X12 a bound of a second set (ignored).

const char* const kRows[][2] = {{"N", "COST"}, {"E", "LIM1"}, {"L", "LIM2"},  {"G", "MYEQN"}, {"E", "R4"},
                                {"N", "FREE2"}, {"L", "R5"},  {"G", "R6"}, {"E", "R7"}};

std::string fixed_example() {
  std::string t = "* the example LP in fixed format\n";
  t += "NAME          TESTLP\n";
  t += "OBJSENSE\n";
  t += "    MAX\n";
  t += "ROWS\n";
  for (const auto& r : kRows) t += fx({r[0], r[1]});
  t += "COLUMNS\n";
  t += fx({"", "X1", "COST", "1.0", "MYEQN", "2.5"});
  t += fx({"", "X1", "LIM1", "1."});
  t += fx({"", "MARKER", "'MARKER'", "", "'INTORG'"});
  t += fx({"", "X2", "LIM2", "-1.5", "COST", "2"});
  t += fx({"", "X2", "R4", "1e1", "FREE2", "9"});
  t += fx({"", "MARKER", "'MARKER'", "", "'INTEND'"});
  t += fx({"", "X3", "R5", "3", "LIM1", "-4"});
  t += fx({"", "X4", "MYEQN", "1"});
  t += fx({"", "X5", "R6", "1", "COST", "-1"});
  t += fx({"", "X6", "R7", "2"});
  t += fx({"", "X7", "LIM1", ".5"});
  t += fx({"", "X8", "R4", "1"});
  t += fx({"", "X9", "R5", "1"});
  t += fx({"", "X10", "R6", "2"});
  t += fx({"", "MARKER", "'MARKER'", "", "'INTORG'"});
  t += fx({"", "X11", "R7", "1", "COST", "3"});
  t += fx({"", "MARKER", "'MARKER'", "", "'INTEND'"});
  t += fx({"", "X12", "COST", "0.25"});
  t += "RHS\n";
  t += fx({"", "RHS1", "COST", "-7.5", "LIM1", "4"});
  t += fx({"", "RHS1", "LIM2", "1", "MYEQN", "2"});
  t += fx({"", "RHS1", "R4", "5", "R5", "6"});
  t += fx({"", "RHS1", "FREE2", "99", "R6", "-3"});
  t += fx({"", "RHS2", "LIM1", "100"});
  t += "RANGES\n";
  t += fx({"", "RNG", "LIM1", "2.5", "R4", "-3"});
  t += fx({"", "RNG", "LIM2", "4", "MYEQN", "1.5"});
  t += fx({"", "RNG", "R5", "-2"});
  t += "BOUNDS\n";
  t += fx({"UP", "BND", "X1", "4"});
  t += fx({"LO", "BND", "X2", "-1"});
  t += fx({"UP", "BND", "X2", "2"});
  t += fx({"FX", "BND", "X3", "2.5"});
  t += fx({"FR", "BND", "X4"});
  t += fx({"UP", "BND", "X5", "3"});
  t += fx({"MI", "BND", "X5"});
  t += fx({"BV", "BND", "X6"});
  t += fx({"LI", "BND", "X7", "-3"});
  t += fx({"UI", "BND", "X7", "8"});
  t += fx({"UP", "BND", "X8", "-2"});
  t += fx({"LO", "BND", "X9", "1"});
  t += fx({"UP", "BND", "X9", "-1"});
  t += fx({"UP", "BND", "X10", "7"});
  t += fx({"PL", "BND", "X10"});
  t += fx({"UP", "BND2", "X12", "5"});
  t += "ENDATA\n";
  return t;
}

// The same LP in free format: OBJSENSE on one line, set names left out on
// some lines, tabs, numbers spelled otherwise.
const char* const kFreeExample = R"(NAME TESTLP
OBJSENSE MAXIMIZE
ROWS
 N COST
 E LIM1
 L LIM2
 G MYEQN
 E R4
 N FREE2
 L R5
 G R6
 E R7
COLUMNS
 X1 COST 1 MYEQN 2.5e0
 X1 LIM1 +1
 M1 'MARKER' 'INTORG'
 X2 LIM2 -1.5 COST 2
 X2	R4	10	FREE2	9
 M2 'MARKER' 'INTEND'
 X3 R5 3 LIM1 -4
 X4 MYEQN 1
 X5 R6 1 COST -1
 X6 R7 2
 X7 LIM1 0.5
 X8 R4 1
 X9 R5 1
 X10 R6 2
 M3 'MARKER' 'INTORG'
 X11 R7 1 COST 3
 M4 'MARKER' 'INTEND'
 X12 COST 0.25
RHS
 COST -7.5 LIM1 4
 LIM2 1
 RHS MYEQN 2 R4 5
 RHS R5 6 FREE2 99
 RHS R6 -3
 OTHER LIM1 100
RANGES
 LIM1 2.5 R4 -3
 RNG LIM2 4 MYEQN 1.5
 RNG R5 -2
BOUNDS
 UP X1 4
 LO BND X2 -1
 UP BND X2 2
 FX X3 2.5
 FR X4
 UP X5 3
 MI BND X5
 BV X6
 LI X7 -3
 UI X7 8
 UP X8 -2
 LO X9 1
 UP X9 -1
 UP X10 7
 PL X10
 UP BND2 X12 5
ENDATA
)";

void check_example(const LinearProgram& lp) {
  EXPECT_EQ(lp.name, "TESTLP");
  EXPECT_EQ(lp.sense, ObjectiveSense::Maximize);
  EXPECT_EQ(lp.objective_name, "COST");
  EXPECT_EQ(lp.objective_constant, 7.5);
  EXPECT_EQ(lp.free_rows_dropped, 1);
  ASSERT_EQ(lp.rows(), 7);
  ASSERT_EQ(lp.cols(), 12);
  EXPECT_EQ(lp.row_names, (std::vector<std::string>{"LIM1", "LIM2", "MYEQN", "R4", "R5", "R6", "R7"}));
  EXPECT_EQ(lp.col_names,
            (std::vector<std::string>{"X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "X9", "X10", "X11", "X12"}));
  // A, column by column, rows sorted (X1's file order was MYEQN, LIM1).
  EXPECT_EQ(lp.A.col_ptr, (std::vector<index_t>{0, 2, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 14}));
  EXPECT_EQ(lp.A.row_idx, (std::vector<index_t>{0, 2, 1, 3, 0, 4, 2, 5, 6, 0, 3, 4, 5, 6}));
  EXPECT_EQ(lp.A.values, (std::vector<double>{1, 2.5, -1.5, 10, -4, 3, 1, 1, 2, 0.5, 1, 1, 2, 1}));
  EXPECT_EQ(lp.cost, (std::vector<double>{1, 2, 0, 0, -1, 0, 0, 0, 0, 0, 3, 0.25}));
  // Rows: LIM1 E 4 R 2.5; LIM2 L 1 R 4; MYEQN G 2 R 1.5; R4 E 5 R -3; R5 L 6 R -2; R6 G -3; R7 E 0.
  EXPECT_EQ(lp.row_lower, (std::vector<double>{4, -3, 2, 2, 4, -3, 0}));
  EXPECT_EQ(lp.row_upper, (std::vector<double>{6.5, 1, 3.5, 5, 6, inf, 0}));
  EXPECT_EQ(lp.col_lower, (std::vector<double>{0, -1, 2.5, -inf, -inf, 0, -3, -inf, 1, 0, 0, 0}));
  EXPECT_EQ(lp.col_upper, (std::vector<double>{4, 2, 2.5, inf, 3, 1, 8, -2, -1, inf, inf, inf}));
  EXPECT_EQ(lp.integer, (std::vector<std::uint8_t>{0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(lp.integer_columns(), 4);
  EXPECT_NO_THROW(validate(lp));  // X9's lower > upper is no error
}

TEST(MpsRead, FixedFormatEverySection) { check_example(read_mps_text(fixed_example(), "fixed.mps")); }

TEST(MpsRead, FreeFormatEverySection) { check_example(read_mps_text(kFreeExample, "free.mps")); }

TEST(MpsRead, CrLfLineEnds) {
  std::string crlf;
  for (const char c : fixed_example()) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  check_example(read_mps_text(crlf));
}

TEST(MpsRead, PlainAndGzipFiles) {
  check_example(read_mps(write_file("example.mps", fixed_example()).string()));
  check_example(read_mps(write_gzip("example.mps.gz", kFreeExample).string()));
  // gzip is told by the first bytes, not the name
  check_example(read_mps(write_gzip("example-compressed.mps", kFreeExample).string()));
}

// Fixed format with names holding spaces (columns 5-12, 15-22, 40-47).
TEST(MpsRead, FixedFormatNamesWithSpaces) {
  std::string t = "NAME          MY LP\nROWS\n";
  t += fx({"N", "OBJ ROW"});
  t += fx({"L", "ROW A"});
  t += fx({"G", "ROW B"});
  t += "COLUMNS\n";
  t += fx({"", "MY COL", "ROW A", "1.5", "OBJ ROW", "-2"});
  t += fx({"", "MY COL", "ROW B", "3"});
  t += fx({"", "X 2", "ROW B", "4"});
  t += "RHS\n";
  t += fx({"", "RHS 1", "ROW A", "10", "ROW B", "1"});
  t += "RANGES\n";
  t += fx({"", "R", "ROW A", "2"});
  t += "BOUNDS\n";
  t += fx({"UP", "BND 1", "MY COL", "4"});
  t += fx({"FR", "BND 1", "X 2"});
  t += "ENDATA\n";
  const LinearProgram lp = read_mps_text(t);
  EXPECT_EQ(lp.name, "MY LP");
  EXPECT_EQ(lp.objective_name, "OBJ ROW");
  EXPECT_EQ(lp.row_names, (std::vector<std::string>{"ROW A", "ROW B"}));
  EXPECT_EQ(lp.col_names, (std::vector<std::string>{"MY COL", "X 2"}));
  EXPECT_EQ(lp.A.col_ptr, (std::vector<index_t>{0, 2, 3}));
  EXPECT_EQ(lp.A.row_idx, (std::vector<index_t>{0, 1, 1}));
  EXPECT_EQ(lp.A.values, (std::vector<double>{1.5, 3, 4}));
  EXPECT_EQ(lp.cost, (std::vector<double>{-2, 0}));
  EXPECT_EQ(lp.row_lower, (std::vector<double>{8, 1}));
  EXPECT_EQ(lp.row_upper, (std::vector<double>{10, inf}));
  EXPECT_EQ(lp.col_lower, (std::vector<double>{0, -inf}));
  EXPECT_EQ(lp.col_upper, (std::vector<double>{4, inf}));
}

TEST(MpsRead, SmallCases) {
  // OBJSENSE on its own line; several dropped N rows; the objective row last,
  // without entries; no RHS; bounds FR/MI/PL/BV with a value after the
  // column; lower-case keywords; endata in lower case.
  const LinearProgram lp = read_mps_text(
      "OBJSENSE\n  MINIMIZE\nROWS\n E  C1\n N  F1\n N  F2\n N  OBJ\ncolumns\n X C1 1 F1 5\n X F2 6\n"
      "BOUNDS\n BV B X 1\nendata\n");
  EXPECT_EQ(lp.sense, ObjectiveSense::Minimize);
  EXPECT_EQ(lp.objective_name, "F1");  // the first N row is the objective
  EXPECT_EQ(lp.free_rows_dropped, 2);
  EXPECT_EQ(lp.cost, (std::vector<double>{5}));
  EXPECT_EQ(lp.row_lower, (std::vector<double>{0}));
  EXPECT_EQ(lp.row_upper, (std::vector<double>{0}));
  EXPECT_EQ(lp.col_upper, (std::vector<double>{1}));
  EXPECT_EQ(lp.integer_columns(), 1);
  EXPECT_EQ(lp.name, "");
  // the sense in column 1
  EXPECT_EQ(read_mps_text("OBJSENSE\nMAX\nROWS\n N O\n E C\nCOLUMNS\n X C 1\nENDATA\n").sense,
            ObjectiveSense::Maximize);
  // "MI X 0": no set name, a value after the column (ignored)
  EXPECT_EQ(read_mps_text("ROWS\n N O\n E C\nCOLUMNS\n X C 1\nBOUNDS\n MI X 0\nENDATA\n").col_lower[0], -inf);
  // rows but no columns
  const LinearProgram rows_only = read_mps_text("ROWS\n N O\n G C\nRHS\n C 2\nENDATA\n");
  EXPECT_EQ(rows_only.rows(), 1);
  EXPECT_EQ(rows_only.cols(), 0);
  EXPECT_EQ(rows_only.A.col_ptr, (std::vector<index_t>{0}));
  EXPECT_EQ(rows_only.row_lower[0], 2);
  EXPECT_NO_THROW(validate(rows_only));
  // bounds may be +-Inf where they make sense
  const LinearProgram infinite =
      read_mps_text("ROWS\n N O\n E C\nCOLUMNS\n X C 1\nBOUNDS\n LO B X -inf\n UP B X Infinity\nENDATA\n");
  EXPECT_EQ(infinite.col_lower[0], -inf);
  EXPECT_EQ(infinite.col_upper[0], inf);
}

// ---- the Netlib files of tests/data/lp ------------------------------------------

// Rows (constraints, without the objective), columns and nonzeros of A as
// the shared data set's lp/reference.csv gives them (tests/data/lp/reference.csv).
struct NetlibSize {
  const char* file;
  index_t rows, cols;
  index_t nnz;
};
const NetlibSize kNetlib[] = {
    {"afiro", 27, 32, 83},       {"adlittle", 56, 97, 383},  {"kb2", 43, 41, 286},
    {"sc50a", 50, 48, 130},      {"boeing2", 166, 143, 1196}, {"bore3d", 233, 315, 1429},
    {"vtpbase", 198, 203, 908},  {"gfrd-pnc", 616, 1092, 2377}, {"woodinfe", 35, 89, 140},
    {"itest2", 9, 4, 17},
};

TEST(MpsNetlib, SizesAsReference) {
  for (const NetlibSize& s : kNetlib) {
    SCOPED_TRACE(s.file);
    const LinearProgram lp = read_mps(data_file(std::string("lp/") + s.file + ".mps.gz").string());
    EXPECT_EQ(lp.rows(), s.rows);
    EXPECT_EQ(lp.cols(), s.cols);
    EXPECT_EQ(lp.A.nnz(), s.nnz);
    EXPECT_EQ(lp.row_names.size(), std::size_t(s.rows));
    EXPECT_EQ(lp.col_names.size(), std::size_t(s.cols));
    EXPECT_EQ(lp.free_rows_dropped, 0);
    EXPECT_EQ(lp.integer_columns(), 0);
    EXPECT_EQ(lp.objective_constant, 0.0);
    EXPECT_NO_THROW(validate(lp));
  }
}

TEST(MpsNetlib, Values) {
  const LinearProgram afiro = read_mps(data_file("lp/afiro.mps.gz").string());
  EXPECT_EQ(afiro.name, "AFIRO");  // NAME          AFIRO   SIZE: ...
  EXPECT_EQ(afiro.objective_name, "COST");
  EXPECT_EQ(afiro.cost[std::size_t(col_of(afiro, "X02"))], -0.4);  // "-.4"
  EXPECT_EQ(entry(afiro, row_of(afiro, "X48"), col_of(afiro, "X01")), 0.301);
  EXPECT_EQ(afiro.row_upper[std::size_t(row_of(afiro, "X50"))], 310.0);

  // RANGES on L rows: [rhs - |R|, rhs]
  const LinearProgram boeing2 = read_mps(data_file("lp/boeing2.mps.gz").string());
  const std::size_t r1 = std::size_t(row_of(boeing2, "DMBOSORD")), r2 = std::size_t(row_of(boeing2, "DCBOSCLE"));
  EXPECT_EQ(boeing2.row_lower[r1], 302.0 - 61.0);
  EXPECT_EQ(boeing2.row_upper[r1], 302.0);
  EXPECT_EQ(boeing2.row_lower[r2], 16.0 - 3.2);
  int ranged = 0;
  for (index_t i = 0; i < boeing2.rows(); ++i)
    ranged += std::isfinite(boeing2.row_lower[std::size_t(i)]) && std::isfinite(boeing2.row_upper[std::size_t(i)]) &&
              boeing2.row_lower[std::size_t(i)] < boeing2.row_upper[std::size_t(i)];
  EXPECT_EQ(ranged, 19);

  // FX, LO bounds with set names like "0.BOUND"; FR
  const LinearProgram bore3d = read_mps(data_file("lp/bore3d.mps.gz").string());
  EXPECT_EQ(bore3d.col_lower[std::size_t(col_of(bore3d, "EMR...XI"))], 17.9327);
  EXPECT_EQ(bore3d.col_upper[std::size_t(col_of(bore3d, "EMR...XI"))], 17.9327);
  EXPECT_EQ(bore3d.col_lower[std::size_t(col_of(bore3d, "KLQ.PRXI"))], 10.0);
  const LinearProgram vtpbase = read_mps(data_file("lp/vtpbase.mps.gz").string());
  EXPECT_EQ(vtpbase.col_lower[std::size_t(col_of(vtpbase, "FOC....."))], -inf);
  EXPECT_EQ(vtpbase.col_upper[std::size_t(col_of(vtpbase, "FOC....."))], inf);
  int fixed = 0;
  for (index_t j = 0; j < vtpbase.cols(); ++j) fixed += vtpbase.col_lower[std::size_t(j)] == vtpbase.col_upper[std::size_t(j)];
  EXPECT_EQ(fixed, 18);

  // RHS and BOUNDS lines without set names (empty field 2 in fixed format)
  const LinearProgram gfrd = read_mps(data_file("lp/gfrd-pnc.mps.gz").string());
  EXPECT_EQ(gfrd.row_upper[std::size_t(row_of(gfrd, "PAF"))], 1095.2);
  EXPECT_EQ(gfrd.row_lower[std::size_t(row_of(gfrd, "PAF"))], -inf);
  EXPECT_EQ(gfrd.col_lower[std::size_t(col_of(gfrd, "MILL1"))], 70000.0);
  EXPECT_EQ(gfrd.col_upper[std::size_t(col_of(gfrd, "P1AG"))], 1.0);

  // the objective row last, no cost entries
  const LinearProgram itest2 = read_mps(data_file("lp/itest2.mps.gz").string());
  EXPECT_EQ(itest2.objective_name, "OBJ10");
  EXPECT_EQ(itest2.cost, (std::vector<double>(4, 0.0)));
}

// ---- malformed input: a ParseError naming the line --------------------------------

struct BadCase {
  const char* name;
  std::string text;
  std::int64_t line;
  const char* needle;
};

const char* const kHead = "NAME T\nROWS\n N OBJ\n E C1\n L C2\nCOLUMNS\n X C1 1 OBJ 2\n";  // lines 1-7

std::vector<BadCase> bad_cases() {
  const std::string h = kHead;
  return {
      {"UnknownRowInColumns", h + " Y C3 1\nENDATA\n", 8, "unknown row 'C3' in COLUMNS"},
      {"UnknownRowInRhs", h + "RHS\n RHS C1 1\n RHS C9 2\nENDATA\n", 10, "unknown row 'C9' in RHS"},
      {"UnknownRowInRanges", h + "RANGES\n R C7 1\nENDATA\n", 9, "unknown row 'C7' in RANGES"},
      {"UnknownColumnInBounds", h + "BOUNDS\n UP B X 1\n UP B Z 1\nENDATA\n", 10, "unknown column 'Z' in BOUNDS"},
      {"UnknownSection", h + "QUADOBJ\n X X 1\nENDATA\n", 8, "unknown section 'QUADOBJ'"},
      {"MissingValueColumns", h + " Y C1\nENDATA\n", 8, "missing value"},
      {"MissingSecondValueColumns", h + " Y C1 1 C2\nENDATA\n", 8, "missing value after row 'C2'"},
      {"MissingValueRhs", h + "RHS\n C1\nENDATA\n", 9, "missing value"},
      {"MissingValueRhsWithSet", h + "RHS\n RHS C1 1 C2\nENDATA\n", 9, "missing value after row 'C2'"},
      {"MissingValueBounds", h + "BOUNDS\n UP B\nENDATA\n", 9, "missing value"},
      {"MissingValueBoundsWithSet", h + "BOUNDS\n UP BND X\nENDATA\n", 9, "missing value after column 'X'"},
      {"NonNumericValue", h + " Y C1 1.2.3\nENDATA\n", 8, "value '1.2.3' is not a number"},
      {"NonNumericRhs", h + "RHS\n RHS C1 abc\nENDATA\n", 9, "value 'abc' is not a number"},
      {"OutOfRangeValue", h + " Y C1 1e999\nENDATA\n", 8, "value '1e999' is out of range"},
      {"NanInMatrix", h + " Y C1 nan\nENDATA\n", 8, "value 'nan' is not finite"},
      {"InfInMatrix", h + " Y C2 -inf\nENDATA\n", 8, "value '-inf' is not finite"},
      {"InfInCost", h + " Y OBJ inf\nENDATA\n", 8, "value 'inf' is not finite"},
      {"NanBound", h + "BOUNDS\n UP B X nan\nENDATA\n", 9, "value 'nan' is not finite"},
      {"RangeOnObjectiveRow", h + "RANGES\n R OBJ 1\nENDATA\n", 9, "RANGES entry on the N row 'OBJ'"},
      {"RangeOnDroppedRow", "ROWS\n N OBJ\n N F\n E C1\nCOLUMNS\n X C1 1\nRANGES\n R C1 1 F 2\nENDATA\n", 8,
       "RANGES entry on the N row 'F'"},
      {"DataBeforeRows", "NAME T\n N OBJ\nROWS\n", 2, "data line before the ROWS section"},
      {"DataBeforeAnySection", "* comment\n\n X C1 1\n", 3, "data line before the ROWS section"},
      {"ColumnsBeforeRows", "NAME T\nCOLUMNS\n X C1 1\n", 2, "COLUMNS section before the ROWS section"},
      {"NoColumnsNoEndata", "NAME T\nROWS\n N OBJ\n E C1\n", 4, "ends without a COLUMNS section"},
      {"NoEndata", "NAME T\nROWS\n N OBJ\n L C1\nCOLUMNS\n X OBJ -1 C1 1\n", 6, "ends without ENDATA: is it truncated?"},
      {"EmptyInput", "", 1, "ends without a COLUMNS section"},
      {"EmptyProblem", "NAME T\nROWS\n N OBJ\nCOLUMNS\nENDATA\n", 5, "empty problem"},
      {"DuplicateRow", "ROWS\n N OBJ\n E C1\n L C1\n", 4, "row 'C1' is defined twice"},
      {"DuplicateObjectiveName", "ROWS\n N OBJ\n E OBJ\n", 3, "row 'OBJ' is defined twice"},
      {"DuplicateColumn", h + " Y C1 1\n X C2 1\nENDATA\n", 9, "column 'X' appears again after other columns (first at line 7)"},
      {"DuplicateEntry", h + " X C2 1 C1 3\nENDATA\n", 8, "column 'X' has a second entry in row 'C1'"},
      {"DuplicateEntryOneLine", h + " Y C2 1 C2 3\nENDATA\n", 8, "column 'Y' has a second entry in row 'C2'"},
      {"DuplicateCost", h + " X OBJ 5\nENDATA\n", 8, "second entry in the objective row 'OBJ'"},
      {"DuplicateRhs", h + "RHS\n RHS C1 1\n RHS C2 1 C1 2\nENDATA\n", 10, "second RHS for row 'C1' (first at line 9)"},
      {"DuplicateObjectiveRhs", h + "RHS\n OBJ 1\n OBJ 2\nENDATA\n", 10, "second RHS for the objective row"},
      {"DuplicateRange", h + "RANGES\n C1 1\n C1 2\nENDATA\n", 10, "second RANGES entry for row 'C1'"},
      {"SemiContinuous", h + "BOUNDS\n SC B X 5\nENDATA\n", 9, "semi-continuous bounds are not supported"},
      {"UnknownBoundType", h + "BOUNDS\n XX B X 5\nENDATA\n", 9, "unknown bound type 'XX'"},
      {"InfiniteLowerBound", h + "BOUNDS\n LO B X inf\nENDATA\n", 9, "lower bound of column 'X' is +Inf"},
      {"InfiniteUpperBound", h + "BOUNDS\n UP B X -inf\nENDATA\n", 9, "upper bound of column 'X' is -Inf"},
      {"InfiniteFixedBound", h + "BOUNDS\n FX B X inf\nENDATA\n", 9, "fixed bound of column 'X' is infinite"},
      {"UnknownRowType", "ROWS\n N OBJ\n X C1\n", 3, "unknown row type 'X'"},
      {"MissingRowName", "ROWS\n N OBJ\n E\n", 3, "missing row name"},
      {"BadObjsense", "OBJSENSE\n    UP\nROWS\n", 2, "unknown objective sense 'UP'"},
      {"BadObjsenseOneLine", "OBJSENSE SIDEWAYS\nROWS\n", 1, "unknown objective sense 'SIDEWAYS'"},
      {"BadMarker", h + " M 'MARKER' 'INTSTART'\nENDATA\n", 8, "malformed MARKER line"},
      {"TooManyFields", h + " Y C1 1 C2 2 C1\nENDATA\n", 8, "too many fields on a COLUMNS line"},
      {"SecondRowsSection", h + "ROWS\n", 8, "second ROWS section"},
      {"SecondColumnsSection", h + "RHS\nCOLUMNS\n", 9, "second COLUMNS section (the first at line 6)"},
  };
}

class MpsBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(MpsBadInput, ParseErrorNamesTheLine) {
  const BadCase& c = GetParam();
  try {
    read_mps_text(c.text, "bad.mps");
    FAIL() << "no error for:\n" << c.text;
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_EQ(e.file(), "bad.mps");
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("bad.mps:" + std::to_string(c.line) + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(c.needle), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, MpsBadInput, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(MpsRead, MissingEndataIsATruncatedFile) {
  // A file cut after a whole section would read as a smaller LP: refused.
  EXPECT_THROW_MSG(read_mps_text(std::string(kHead) + "RHS\n C1 3\n"), ParseError, "ends without ENDATA");
  EXPECT_EQ(read_mps_text(std::string(kHead) + "RHS\n C1 3\nENDATA\n").row_lower[0], 3.0);
  // what follows ENDATA is not read
  EXPECT_EQ(read_mps_text(std::string(kHead) + "ENDATA\nthis is not MPS\n").cols(), 1);
}

TEST(MpsRead, FileErrors) {
  EXPECT_THROW_MSG(read_mps((temp_dir() / "no-such.mps").string()), Error, "cannot open MPS file");
  EXPECT_THROW_MSG(read_mps(temp_dir().string()), Error, "is a directory");
  // FileError: the path and errno (Python's FileNotFoundError, IsADirectoryError).
  const std::string missing = (temp_dir() / "no-such.mps").string();
  try {
    (void)read_mps(missing);
    ADD_FAILURE() << "a missing file was read";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), missing);
  }
  try {
    (void)read_mps(temp_dir().string());
    ADD_FAILURE() << "a folder was read";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error_number(), EISDIR);
  }
  // a file path names the file in the message
  const fs::path bad = write_file("bad-file.mps", std::string(kHead) + " Y C9 1\n");
  EXPECT_THROW_MSG(read_mps(bad.string()), ParseError, bad.string() + ":8: unknown row 'C9'");
  // a truncated gzip file: a ParseError from the line reader
  const fs::path gz = write_gzip("whole.mps.gz", fixed_example());
  std::ifstream in(gz, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path cut = write_file("cut.mps.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW_MSG(read_mps(cut.string()), ParseError, "gzip data ends early");
}

// ---- validate -------------------------------------------------------------------

LinearProgram small_lp() {
  LinearProgram lp;
  lp.A.rows = 2;
  lp.A.cols = 2;
  lp.A.col_ptr = {0, 2, 3};
  lp.A.row_idx = {0, 1, 1};
  lp.A.values = {1, 2, 3};
  lp.cost = {1, -1};
  lp.col_lower = {0, -inf};
  lp.col_upper = {inf, 4};
  lp.row_lower = {-inf, 1};
  lp.row_upper = {5, 1};
  return lp;
}

TEST(LpValidate, GoodAndBad) {
  LinearProgram lp = small_lp();
  EXPECT_NO_THROW(validate(lp));  // integer and names may be left empty
  EXPECT_EQ(lp.integer_columns(), 0);
  lp.integer = {1, 1};
  EXPECT_EQ(lp.integer_columns(), 2);
  lp.col_lower[0] = 7;  // lower > upper: infeasible, not an error
  lp.col_upper[0] = 6;
  EXPECT_NO_THROW(validate(lp));

  const auto bad = [](auto change, auto type_tag, const char* needle) {
    LinearProgram b = small_lp();
    change(b);
    EXPECT_THROW_MSG(validate(b), decltype(type_tag), needle);
  };
  bad([](LinearProgram& b) { b.cost.pop_back(); }, DimensionError(""), "cost has 1 entries, expected 2");
  bad([](LinearProgram& b) { b.row_upper.push_back(0); }, DimensionError(""), "row_upper has 3 entries");
  bad([](LinearProgram& b) { b.col_lower.clear(); }, DimensionError(""), "col_lower has 0 entries");
  bad([](LinearProgram& b) { b.integer = {1}; }, DimensionError(""), "integer has 1 entries, expected 2 (or none)");
  bad([](LinearProgram& b) { b.row_names = {"a"}; }, DimensionError(""), "row_names");
  bad([](LinearProgram& b) { b.A.row_idx = {1, 0, 1}; }, MatrixError(""), "not strictly increasing");
  bad([](LinearProgram& b) { b.A.values[2] = std::nan(""); }, MatrixError(""), "A has NaN in row 1, column 1");
  bad([](LinearProgram& b) { b.cost[1] = inf; }, Error(""), "the cost of column 1 is +Inf");
  bad([](LinearProgram& b) { b.objective_constant = -inf; }, Error(""), "objective constant is -Inf");
  bad([](LinearProgram& b) { b.col_upper[0] = std::nan(""); }, Error(""), "column 0 has bounds [0, NaN]");
  bad([](LinearProgram& b) { b.row_lower[1] = inf; }, Error(""), "row 1 has bounds [+Inf, 1");
  bad(
      [](LinearProgram& b) {
        b.col_upper[1] = -inf;
        b.col_names = {"x", "y"};
        b.name = "P";
      },
      Error(""), "LP 'P': column 1 ('y') has bounds [-Inf, -Inf]");
}

}  // namespace
}  // namespace balsa
