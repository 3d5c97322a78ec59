// Matrix Market reading (sparse/io/matrix_market_read.cpp, _entries, _lines):
// every valid format/field/symmetry combination, symmetry expansion, value
// ranges and non-finite values, and the real matrices of tests/data.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

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
#include "support/test_support.hpp"

namespace balsa {
namespace {

using namespace test::mm;
TYPED_TEST_SUITE(MatrixMarketTyped, ValueTypes);

// ---- keywords ---------------------------------------------------------------

TEST(MatrixMarket, ToStringGivesMatrixMarketKeywords) {
  EXPECT_STREQ(to_string(MtxFormat::Coordinate), "coordinate");
  EXPECT_STREQ(to_string(MtxFormat::Array), "array");
  EXPECT_STREQ(to_string(MtxField::Real), "real");
  EXPECT_STREQ(to_string(MtxField::Integer), "integer");
  EXPECT_STREQ(to_string(MtxField::Pattern), "pattern");
  EXPECT_STREQ(to_string(MtxField::Complex), "complex");
  EXPECT_STREQ(to_string(MtxSymmetry::General), "general");
  EXPECT_STREQ(to_string(MtxSymmetry::Symmetric), "symmetric");
  EXPECT_STREQ(to_string(MtxSymmetry::SkewSymmetric), "skew-symmetric");
  EXPECT_STREQ(to_string(MtxSymmetry::Hermitian), "hermitian");
}

// ---- valid coordinate files ---------------------------------------------------

TYPED_TEST(MatrixMarketTyped, CoordinateRealGeneral) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "3 4 5\n"
      "1 1 1.5\n"
      "3 4 -2.25e2\n"
      "2 3 0\n"
      "1 4 .125\n"
      "3 1 -7\n";
  expect_matrix<T>(text, 3, 4, {{0, 0, T(1.5)}, {2, 3, T(-225)}, {1, 2, T(0)}, {0, 3, T(0.125)}, {2, 0, T(-7)}});
  MtxHeader h;
  read_matrix_market<T>(write_text(text, "h.mtx"), {}, &h);
  EXPECT_EQ(h.format, MtxFormat::Coordinate);
  EXPECT_EQ(h.field, MtxField::Real);
  EXPECT_EQ(h.symmetry, MtxSymmetry::General);
  EXPECT_EQ(h.rows, 3);
  EXPECT_EQ(h.cols, 4);
  EXPECT_EQ(h.stored_entries, 5);
  EXPECT_EQ(h.header_lines, 3);
}

TYPED_TEST(MatrixMarketTyped, CoordinateValuesParseExactly) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n"
      "1 6 6\n"
      "1 1 0.1\n"
      "1 2 -3.4028234663852886e+38\n"
      "1 3 1e-45\n"
      "1 4 +2.5\n"
      "1 5 -0\n"
      "1 6 123456789012345678901234567890\n";
  const Coo<T> A = read_matrix_market<T>(write_text(text));
  ASSERT_EQ(A.nnz(), 6);
  EXPECT_TRUE(same_bits(A.values[0], T(0.1)));
  EXPECT_EQ(A.values[1], T(-3.4028234663852886e+38));
  if constexpr (sizeof(T) == 4) {
    EXPECT_EQ(A.values[2], std::numeric_limits<float>::denorm_min());
  } else {
    EXPECT_EQ(A.values[2], 1e-45);
  }
  EXPECT_EQ(A.values[3], T(2.5));
  EXPECT_TRUE(same_bits(A.values[4], -T(0)));
  if constexpr (sizeof(T) == 4) {  // rounded once from the decimal, not via double
    EXPECT_EQ(A.values[5], 123456789012345678901234567890.0f);
  } else {
    EXPECT_EQ(A.values[5], 123456789012345678901234567890.0);
  }
}

TYPED_TEST(MatrixMarketTyped, CoordinateIntegerGeneral) {
  using T = TypeParam;
  expect_matrix<T>(
      "%%MatrixMarket matrix coordinate integer general\n"
      "2 2 3\n"
      "1 1 7\n"
      "2 1 -12\n"
      "2 2 +3\n",
      2, 2, {{0, 0, T(7)}, {1, 0, T(-12)}, {1, 1, T(3)}});
  // more than 18 digits
  const Coo<T> A = read_matrix_market<T>(write_text(
      "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -123456789012345678901234\n"));
  if constexpr (sizeof(T) == 4) {
    EXPECT_EQ(A.values[0], -123456789012345678901234.0f);
  } else {
    EXPECT_EQ(A.values[0], -123456789012345678901234.0);
  }
}

TYPED_TEST(MatrixMarketTyped, CoordinatePatternGeneral) {
  using T = TypeParam;
  expect_matrix<T>(
      "%%MatrixMarket matrix coordinate pattern general\n"
      "3 2 3\n"
      "1 2\n"
      "3 1\n"
      "2 2\n",
      3, 2, {{0, 1, T(1)}, {2, 0, T(1)}, {1, 1, T(1)}});
}

TYPED_TEST(MatrixMarketTyped, CoordinateRealSymmetric) {
  using T = TypeParam;
  // lower entries and diagonal entries, in any order (mirrored when expanding)
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 4\n"
      "2 1 -1.5\n"
      "3 3 2\n"
      "3 1 0.5\n";
  expect_matrix<T>(text, 3, 3,
                   {{0, 0, T(4)}, {1, 0, T(-1.5)}, {0, 1, T(-1.5)}, {2, 2, T(2)}, {0, 2, T(0.5)}, {2, 0, T(0.5)}});
  MtxReadOptions stored_only;
  stored_only.expand_symmetry = false;
  expect_matrix<T>(text, 3, 3, {{0, 0, T(4)}, {1, 0, T(-1.5)}, {2, 2, T(2)}, {2, 0, T(0.5)}}, stored_only);
  MtxHeader h;
  EXPECT_EQ(read_matrix_market<T>(write_text(text), {}, &h).nnz(), 6);
  EXPECT_EQ(h.symmetry, MtxSymmetry::Symmetric);
  EXPECT_EQ(h.stored_entries, 4);
}

// A symmetric or skew-symmetric file may store its upper triangle instead
// (never both: see the malformed-input cases); duplicates on that side sum.
TYPED_TEST(MatrixMarketTyped, CoordinateSymmetricUpperTriangle) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 5\n"
      "1 2 -1.5\n"
      "2 2 3\n"  // diagonal entries go with either triangle
      "1 3 0.5\n"
      "% a comment between entries\n"
      "2 3 1\n"
      "1 3 0.25\n";  // a duplicate on the same side
  expect_matrix<T>(text, 3, 3,
                   {{0, 1, T(-1.5)}, {1, 0, T(-1.5)}, {1, 1, T(3)}, {0, 2, T(0.5)}, {2, 0, T(0.5)}, {1, 2, T(1)},
                    {2, 1, T(1)}, {0, 2, T(0.25)}, {2, 0, T(0.25)}});
  MtxReadOptions stored_only;
  stored_only.expand_symmetry = false;
  expect_matrix<T>(text, 3, 3, {{0, 1, T(-1.5)}, {1, 1, T(3)}, {0, 2, T(0.5)}, {1, 2, T(1)}, {0, 2, T(0.25)}},
                   stored_only);
  // the same matrix as its lower triangle
  const fs::path lower = write_text(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n2 1 -1.5\n2 2 3\n3 1 0.75\n3 2 1\n", "lower.mtx");
  const fs::path upper = write_text(text, "upper.mtx");
  expect_same_csr(read_matrix_market_csr<T>(lower), read_matrix_market_csr<T>(upper));
  EXPECT_EQ(read_matrix_market_dense<T>(upper).values, (std::vector<T>{0, -1.5, 0.75, -1.5, 3, 1, 0.75, 1, 0}));

  // skew-symmetric: the mirror of an upper entry is negated as well
  const std::string skew =
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
      "3 3 3\n"
      "1 2 4\n"
      "3 3 0\n"
      "2 3 -7\n";
  expect_matrix<T>(skew, 3, 3, {{0, 1, T(4)}, {1, 0, T(-4)}, {2, 2, T(0)}, {1, 2, T(-7)}, {2, 1, T(7)}});
  expect_matrix<T>(skew, 3, 3, {{0, 1, T(4)}, {2, 2, T(0)}, {1, 2, T(-7)}}, stored_only);
  // pattern
  expect_matrix<T>("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 3\n2 3\n", 3, 3,
                   {{0, 2, T(1)}, {2, 0, T(1)}, {1, 2, T(1)}, {2, 1, T(1)}});
}

TYPED_TEST(MatrixMarketTyped, CoordinateSkewSymmetric) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "3 3 3\n"
      "2 1 1.5\n"
      "3 2 -4\n"
      "3 3 0\n";  // an explicit zero diagonal entry is allowed
  expect_matrix<T>(text, 3, 3,
                   {{1, 0, T(1.5)}, {0, 1, T(-1.5)}, {2, 1, T(-4)}, {1, 2, T(4)}, {2, 2, T(0)}});
  MtxReadOptions stored_only;
  stored_only.expand_symmetry = false;
  expect_matrix<T>(text, 3, 3, {{1, 0, T(1.5)}, {2, 1, T(-4)}, {2, 2, T(0)}}, stored_only);
}

TYPED_TEST(MatrixMarketTyped, CoordinateIntegerSymmetricAndSkew) {
  using T = TypeParam;
  expect_matrix<T>(
      "%%MatrixMarket matrix coordinate integer symmetric\n"
      "2 2 2\n"
      "1 1 5\n"
      "2 1 -3\n",
      2, 2, {{0, 0, T(5)}, {1, 0, T(-3)}, {0, 1, T(-3)}});
  expect_matrix<T>(
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
      "2 2 1\n"
      "2 1 9\n",
      2, 2, {{1, 0, T(9)}, {0, 1, T(-9)}});
}

TYPED_TEST(MatrixMarketTyped, CoordinatePatternSymmetric) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "3 3 3\n"
      "1 1\n"
      "3 1\n"
      "3 2\n";
  expect_matrix<T>(text, 3, 3, {{0, 0, T(1)}, {2, 0, T(1)}, {0, 2, T(1)}, {2, 1, T(1)}, {1, 2, T(1)}});
  MtxReadOptions stored_only;
  stored_only.expand_symmetry = false;
  expect_matrix<T>(text, 3, 3, {{0, 0, T(1)}, {2, 0, T(1)}, {2, 1, T(1)}}, stored_only);
}

TYPED_TEST(MatrixMarketTyped, DuplicatesKeptInCooAndSummedInCsr) {
  using T = TypeParam;
  const fs::path p = write_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 3\n"
      "1 2 1.5\n"
      "2 1 1\n"
      "1 2 2.25\n",
      "dup.mtx");
  EXPECT_EQ(read_matrix_market<T>(p).nnz(), 3);
  const Csr<T> A = read_matrix_market_csr<T>(p);
  EXPECT_EQ(A.nnz(), 2);
  EXPECT_EQ(entry(A, 0, 1), T(3.75));
  EXPECT_EQ(entry(A, 1, 0), T(1));
}

TYPED_TEST(MatrixMarketTyped, TolerantLayout) {
  using T = TypeParam;
  // upper-case keywords, blank and indented comment lines, CRLF, tabs,
  // leading/trailing blanks, comment lines among entries, trailing blank and
  // comment lines, no newline at the very end
  expect_matrix<T>(
      "%%MATRIXMARKET Matrix COORDINATE Real GENERAL\r\n"
      "%\r\n"
      "\r\n"
      "   % indented comment\n"
      "\t\n"
      "  2 2 3  \r\n"
      "1\t1\t1.0\r\n"
      "\n"
      "% between entries\n"
      "  2   1   -2  \r\n"
      "2 2 3e0\n"
      "\n"
      "% the end\n"
      "   ",
      2, 2, {{0, 0, T(1)}, {1, 0, T(-2)}, {1, 1, T(3)}});
  expect_matrix<T>("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5", 1, 1, {{0, 0, T(5)}});
  // a byte order mark before the banner
  expect_matrix<T>("\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5\n", 1, 1,
                   {{0, 0, T(5)}});
}

TYPED_TEST(MatrixMarketTyped, EmptyMatrices) {
  using T = TypeParam;
  expect_matrix<T>("%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0, 0, {});
  expect_matrix<T>("%%MatrixMarket matrix coordinate real general\n5 3 0\n", 5, 3, {});
  expect_matrix<T>("%%MatrixMarket matrix array real general\n0 4\n", 0, 4, {});
  expect_matrix<T>("%%MatrixMarket matrix array real skew-symmetric\n1 1\n", 1, 1, {});
}

// ---- valid array files -----------------------------------------------------------

TYPED_TEST(MatrixMarketTyped, ArrayRealGeneral) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix array real general\n"
      "% column-major\n"
      "2 3\n"
      "1\n2\n3\n0\n-5.5\n6e-1\n";
  expect_matrix<T>(text, 2, 3,
                   {{0, 0, T(1)}, {1, 0, T(2)}, {0, 1, T(3)}, {1, 1, T(0)}, {0, 2, T(-5.5)}, {1, 2, T(0.6)}});
  MtxHeader h;
  read_matrix_market<T>(write_text(text), {}, &h);
  EXPECT_EQ(h.format, MtxFormat::Array);
  EXPECT_EQ(h.stored_entries, 6);
  EXPECT_EQ(h.header_lines, 3);
  const DenseMatrix<T> D = read_matrix_market_dense<T>(write_text(text));
  ASSERT_EQ(D.rows, 2);
  ASSERT_EQ(D.cols, 3);
  EXPECT_EQ(D.values, (std::vector<T>{T(1), T(2), T(3), T(0), T(-5.5), T(0.6)}));
}

TYPED_TEST(MatrixMarketTyped, ArrayIntegerGeneral) {
  using T = TypeParam;
  expect_matrix<T>("%%MatrixMarket matrix array integer general\n2 2\n1\n-2\n3\n40\n", 2, 2,
                   {{0, 0, T(1)}, {1, 0, T(-2)}, {0, 1, T(3)}, {1, 1, T(40)}});
}

TYPED_TEST(MatrixMarketTyped, ArraySymmetric) {
  using T = TypeParam;
  // lower triangle with the diagonal, column by column: a11 a21 a31 a22 a32 a33
  const std::string text = "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n";
  expect_matrix<T>(text, 3, 3,
                   {{0, 0, T(1)}, {1, 0, T(2)}, {0, 1, T(2)}, {2, 0, T(3)}, {0, 2, T(3)}, {1, 1, T(4)},
                    {2, 1, T(5)}, {1, 2, T(5)}, {2, 2, T(6)}});
  MtxReadOptions stored_only;
  stored_only.expand_symmetry = false;
  expect_matrix<T>(text, 3, 3, {{0, 0, T(1)}, {1, 0, T(2)}, {2, 0, T(3)}, {1, 1, T(4)}, {2, 1, T(5)}, {2, 2, T(6)}},
                   stored_only);
  MtxHeader h;
  read_matrix_market<T>(write_text(text), {}, &h);
  EXPECT_EQ(h.stored_entries, 6);
  const DenseMatrix<T> D = read_matrix_market_dense<T>(write_text(text));
  EXPECT_EQ(D.values, (std::vector<T>{1, 2, 3, 2, 4, 5, 3, 5, 6}));
  const DenseMatrix<T> L = read_matrix_market_dense<T>(write_text(text), stored_only);
  EXPECT_EQ(L.values, (std::vector<T>{1, 2, 3, 0, 4, 5, 0, 0, 6}));
}

TYPED_TEST(MatrixMarketTyped, ArraySkewSymmetric) {
  using T = TypeParam;
  // strictly lower triangle, column by column: a21 a31 a32
  const std::string text = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n";
  expect_matrix<T>(text, 3, 3, {{1, 0, T(1)}, {0, 1, T(-1)}, {2, 0, T(2)}, {0, 2, T(-2)}, {2, 1, T(3)}, {1, 2, T(-3)}});
  MtxReadOptions stored_only;
  stored_only.expand_symmetry = false;
  expect_matrix<T>(text, 3, 3, {{1, 0, T(1)}, {2, 0, T(2)}, {2, 1, T(3)}}, stored_only);
  MtxHeader h;
  read_matrix_market<T>(write_text(text), {}, &h);
  EXPECT_EQ(h.stored_entries, 3);
  const DenseMatrix<T> D = read_matrix_market_dense<T>(write_text(text));
  EXPECT_EQ(D.values, (std::vector<T>{0, 1, 2, -1, 0, 3, -2, -3, 0}));
  expect_matrix<T>("%%MatrixMarket matrix array integer skew-symmetric\n2 2\n-7\n", 2, 2,
                   {{1, 0, T(-7)}, {0, 1, T(7)}});
  expect_matrix<T>("%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n", 2, 2,
                   {{0, 0, T(1)}, {1, 0, T(2)}, {0, 1, T(2)}, {1, 1, T(3)}});
}

TYPED_TEST(MatrixMarketTyped, DenseFromCoordinate) {
  using T = TypeParam;
  const DenseMatrix<T> D = read_matrix_market_dense<T>(write_text(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 1\n"
      "3 1 2\n"
      "3 1 0.5\n"  // duplicates sum
      "2 2 3\n"));
  ASSERT_EQ(D.rows, 3);
  ASSERT_EQ(D.cols, 3);
  EXPECT_EQ(D.values, (std::vector<T>{1, 0, 2.5, 0, 3, 0, 2.5, 0, 0}));
  const DenseMatrix<T> P = read_matrix_market_dense<T>(
      write_text("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n"));
  EXPECT_EQ(P.values, (std::vector<T>{0, 1, 0, 0, 1, 0}));
  // a matrix that is far too large to hold densely
  EXPECT_THROW_MSG(read_matrix_market_dense<T>(
                       write_text("%%MatrixMarket matrix coordinate real general\n% c\n100000 100000 1\n1 1 1\n")),
                   ParseError, "bad.mtx:3: a 100000 x 100000 matrix");
  EXPECT_THROW_MSG(read_matrix_market_dense<T>(
                       write_text("%%MatrixMarket matrix coordinate real general\n100000 100000 1\n1 1 1\n")),
                   ParseError, "too large to read as a dense matrix");
  // the dense reader reports malformed files like the others
  EXPECT_THROW_MSG(read_matrix_market_dense<T>(write_text("%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\n")),
                   ParseError, "bad.mtx:5: unexpected end of file: expected 4 entries, found 2");
  EXPECT_THROW_MSG(read_matrix_market_dense<T>(write_text("%%MatrixMarket matrix array real general\n2 2\n1\n2\n")),
                   ParseError,
                   "bad.mtx:2: the size line declares 2 x 2 = 4 values, but the file's 49 bytes can hold at most 2");
}

// ---- values: finiteness, range ----------------------------------------------------

TYPED_TEST(MatrixMarketTyped, NonFiniteValues) {
  using T = TypeParam;
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n"
      "1 4 4\n"
      "1 1 nan\n"
      "1 2 inf\n"
      "1 3 -Infinity\n"
      "1 4 1\n";
  EXPECT_THROW_MSG(read_matrix_market<T>(write_text(text)), ParseError,
                   "bad.mtx:3: value 'nan' is not finite: NaN and Inf values are refused");
  MtxReadOptions allow;
  allow.allow_non_finite = true;
  const Coo<T> A = read_matrix_market<T>(write_text(text), allow);
  ASSERT_EQ(A.nnz(), 4);
  EXPECT_TRUE(std::isnan(A.values[0]));
  EXPECT_EQ(A.values[1], std::numeric_limits<T>::infinity());
  EXPECT_EQ(A.values[2], -std::numeric_limits<T>::infinity());
  EXPECT_THROW_MSG(read_matrix_market<T>(write_text(
                       "%%MatrixMarket matrix array real general\n2 1\n1\n-inf\n")),
                   ParseError, "bad.mtx:4: value '-inf' (row 2, column 1) is not finite: NaN and Inf values are refused");
}

TEST(MatrixMarket, ValueRangeDependsOnType) {
  const fs::path big = write_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e300\n");
  EXPECT_EQ(read_matrix_market<double>(big).values[1], 1e300);
  EXPECT_THROW_MSG(read_matrix_market<float>(big), ParseError, "bad.mtx:4: value '1e300' is out of range for float");
  const fs::path huge = write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 -1.5e400\n");
  EXPECT_THROW_MSG(read_matrix_market<double>(huge), ParseError, "bad.mtx:3: value '-1.5e400' is out of range for double");
  // Values too small for the type round to zero (keeping the sign).
  const fs::path tiny = write_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e-50\n2 2 -1e-400\n");
  const Coo<float> f = read_matrix_market<float>(tiny);
  EXPECT_TRUE(same_bits(f.values[0], 0.0f));
  EXPECT_TRUE(same_bits(f.values[1], -0.0f));
  const Coo<double> d = read_matrix_market<double>(tiny);
  EXPECT_EQ(d.values[0], 1e-50);
  EXPECT_TRUE(same_bits(d.values[1], -0.0));
  // underflow and overflow however the number is spelled: a long fraction,
  // a long integer part, an exponent beyond any type's range
  const std::string zeros(400, '0');
  const fs::path spelled = write_text("%%MatrixMarket matrix coordinate real general\n1 4 4\n1 1 -0." + zeros +
                                      "1\n1 2 0.0001e-99999999999999999999\n1 3 " + zeros + "1e-800\n1 4 0e999999\n");
  for (const double v : read_matrix_market<double>(spelled).values) EXPECT_EQ(v, 0.0);
  EXPECT_TRUE(same_bits(read_matrix_market<float>(spelled).values[0], -0.0f));
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(
                       "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1" + zeros + "\n")),
                   ParseError, "bad.mtx:3: value '1000");
  EXPECT_THROW_MSG(read_matrix_market<double>(write_text(
                       "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.0" + zeros + "1e99999999999\n")),
                   ParseError, "is out of range for double");
  EXPECT_THROW_MSG(read_matrix_market<float>(write_text(
                       "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -3.5e38\n")),
                   ParseError, "bad.mtx:3: value '-3.5e38' is out of range for float");
  EXPECT_TRUE(same_bits(read_matrix_market<float>(write_text(
                            "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -1e-46\n")).values[0],
                        -0.0f));
  // integer field values that do not fit a float
  EXPECT_THROW_MSG(read_matrix_market<float>(write_text(
                       "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 " + std::string(50, '9') + "\n")),
                   ParseError, "bad.mtx:3: value '99999");
}


// ---- real matrices ------------------------------------------------------------------



TEST(MatrixMarket, RealFilesHeadersAndCounts) {
  const auto files = real_matrices();
  ASSERT_EQ(files.size(), std::size(kRealFiles));
  for (const RealFile& f : kRealFiles) {
    SCOPED_TRACE(f.name);
    const fs::path p = data_file(f.name);
    ASSERT_NE(std::find(files.begin(), files.end(), p), files.end());
    const MtxHeader h = read_matrix_market_header(p);
    EXPECT_EQ(h.format, MtxFormat::Coordinate);
    EXPECT_EQ(h.field, f.field);
    EXPECT_EQ(h.symmetry, f.symmetry);
    EXPECT_EQ(h.rows, f.rows);
    EXPECT_EQ(h.cols, f.cols);
    EXPECT_EQ(h.stored_entries, f.stored);
    EXPECT_EQ(h.header_lines, f.header_lines);

    MtxHeader hr;
    const Coo<double> A = read_matrix_market<double>(p, {}, &hr);
    EXPECT_EQ(hr.stored_entries, h.stored_entries);
    EXPECT_EQ(hr.header_lines, h.header_lines);
    EXPECT_EQ(A.rows, f.rows);
    EXPECT_EQ(A.cols, f.cols);
    const bool sym = f.symmetry != MtxSymmetry::General;
    const std::int64_t expanded = sym ? 2 * f.stored - f.diagonal : f.stored;
    EXPECT_EQ(A.nnz(), expanded);
    MtxReadOptions stored_only;
    stored_only.expand_symmetry = false;
    EXPECT_EQ(read_matrix_market<double>(p, stored_only).nnz(), f.stored);
    // no duplicates in these files: CSR keeps every entry
    const Csr<double> C = read_matrix_market_csr<double>(p);
    EXPECT_EQ(C.nnz(), expanded);
    if (f.field == MtxField::Pattern) {
      for (double v : A.values) ASSERT_EQ(v, 1.0);
    }
    if (sym) {
      for (index_t i = 0; i < C.rows; ++i)
        for (index_t k = C.row_ptr[i]; k < C.row_ptr[i + 1]; ++k)
          ASSERT_EQ(entry(C, C.col_idx[k], i), C.values[k]) << "row " << i;
    }
  }
}

TEST(MatrixMarket, RealFilesSpecificEntries) {
  // Looked up with grep in the files (1-based there, 0-based here).
  const Csr<double> K = read_matrix_market_csr<double>(data_file("bcsstk13.mtx"));
  EXPECT_EQ(K.rows, 2003);
  EXPECT_EQ(K.nnz(), 83883);
  EXPECT_EQ(entry(K, 0, 0), 277281165.183);      // "1 1 277281165.183"
  EXPECT_EQ(entry(K, 2, 0), -51131286.8839);     // "3 1 -51131286.8839"
  EXPECT_EQ(entry(K, 0, 2), -51131286.8839);     // its mirror
  EXPECT_EQ(entry(K, 2002, 2001), -1.86264514923e-9);  // "2003 2002 -1.86264514923e-9"
  EXPECT_EQ(entry(K, 2001, 2002), -1.86264514923e-9);
  EXPECT_EQ(entry(K, 2002, 2002), 5552681.3139);  // "2003 2003 5552681.3139"

  const Csr<float> W = read_matrix_market_csr<float>(data_file("west0479.mtx"));
  EXPECT_EQ(entry(W, 24, 0), 1.0f);          // "25 1 1"
  EXPECT_EQ(entry(W, 30, 0), -.03764813f);   // "31 1 -.03764813"
  EXPECT_EQ(entry(W, 86, 0), -.3442396f);    // "87 1 -.3442396"
  EXPECT_FALSE(stored(W, 0, 24));

  const Csr<double> A = read_matrix_market_csr<double>(data_file("arrow.mtx"));
  EXPECT_EQ(entry(A, 0, 0), 2.0);         // "1 1 2"
  EXPECT_EQ(entry(A, 46499, 0), 2.0);     // "46500 1 2"
  EXPECT_EQ(entry(A, 46499, 46499), 1.0);  // "46500 46500 1" (last line)

  const Csr<float> D = read_matrix_market_csr<float>(data_file("dwt_992.mtx"));
  EXPECT_TRUE(stored(D, 1, 0));  // "2 1"
  EXPECT_TRUE(stored(D, 0, 1));  // mirrored
  EXPECT_EQ(entry(D, 991, 991), 1.0f);  // "992 992"

  const Csr<double> F = read_matrix_market_csr<double>(data_file("Franz6_id1959_aug.mtx"));
  EXPECT_EQ(entry(F, 0, 0), -1.0);  // "1 1 -1"
  EXPECT_EQ(entry(F, 1, 0), 1.0);   // "2 1 1"

  const Csr<double> B = read_matrix_market_csr<double>(data_file("bayer10.mtx"));
  EXPECT_EQ(entry(B, 12223, 2411), 7.630486546499983e-55);  // "12224 2412 7.630486546499983e-55"
}

TEST(MatrixMarket, RealFilesAsFloat) {
  for (const RealFile& f : kRealFiles) {
    SCOPED_TRACE(f.name);
    const fs::path p = data_file(f.name);
    if (std::string(f.name) == "temp.mtx") {
      // "178 178 -4.804616956432674e+38" on line 2650 exceeds FLT_MAX
      EXPECT_THROW_MSG(read_matrix_market<float>(p), ParseError,
                       "temp.mtx:2650: value '-4.804616956432674e+38' is out of range for float");
      continue;
    }
    const Coo<float> A = read_matrix_market<float>(p);
    const Coo<double> B = read_matrix_market<double>(p);
    ASSERT_EQ(A.nnz(), B.nnz());
    EXPECT_EQ(A.row_idx, B.row_idx);
    EXPECT_EQ(A.col_idx, B.col_idx);
    // float parsing rounds the decimal once; via double it may differ by one ulp
    for (std::size_t k = 0; k < A.values.size(); ++k) {
      const float via_double = static_cast<float>(B.values[k]);
      const float inf = std::numeric_limits<float>::infinity();
      ASSERT_TRUE(A.values[k] == via_double || A.values[k] == std::nextafter(via_double, inf) ||
                  A.values[k] == std::nextafter(via_double, -inf))
          << k << ": " << A.values[k] << " vs " << B.values[k];
    }
  }
  // values below the float range read as zero
  const Csr<float> B = read_matrix_market_csr<float>(data_file("bayer10.mtx"));
  EXPECT_EQ(entry(B, 12223, 2411), 0.0f);
  // all of temp.mtx reads as double
  EXPECT_EQ(read_matrix_market<double>(data_file("temp.mtx")).nnz(), 2659);
}


}  // namespace
}  // namespace balsa
