// Tests of Matrix Market reading and writing (include/balsa/matrix_market.hpp):
// every valid format/field/symmetry combination, symmetry expansion, every
// kind of malformed input (with the line the error names), the real matrices
// of tests/data, the stream overloads, header-only reads and write/read
// round trips that must give back the very same bits.
#include "balsa/matrix_market.hpp"

#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/memory.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

namespace fs = std::filesystem;
using test::data_file;
using test::real_matrices;
using test::temp_dir;

// ---- helpers ----------------------------------------------------------------

fs::path write_text(const std::string& text, const std::string& name = "bad.mtx") {
  return test::write_temp_file(name, text);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A stream that cannot seek (as a pipe): its size is unknown to the reader.
struct PipeBuf : std::streambuf {
  std::string data;
  explicit PipeBuf(std::string text) : data(std::move(text)) { setg(data.data(), data.data(), data.data() + data.size()); }
};

template <class T>
using Triplet = std::tuple<index_t, index_t, T>;

// The entries of a COO matrix sorted by (row, column, value).
template <class T>
std::vector<Triplet<T>> sorted(const Coo<T>& A) {
  EXPECT_EQ(A.row_idx.size(), A.values.size());
  EXPECT_EQ(A.col_idx.size(), A.values.size());
  std::vector<Triplet<T>> out;
  for (std::size_t k = 0; k < A.values.size(); ++k) out.emplace_back(A.row_idx[k], A.col_idx[k], A.values[k]);
  std::sort(out.begin(), out.end());
  return out;
}

template <class T>
std::vector<Triplet<T>> sorted(std::vector<Triplet<T>> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Reads `text` (written to a file) and checks size and entries exactly.
template <class T>
void expect_matrix(const std::string& text, index_t rows, index_t cols, const std::vector<Triplet<T>>& want,
                   const MtxReadOptions& opt = {}) {
  const fs::path p = write_text(text, "ok.mtx");
  const Coo<T> A = read_matrix_market<T>(p, opt);
  EXPECT_EQ(A.rows, rows);
  EXPECT_EQ(A.cols, cols);
  EXPECT_EQ(sorted(A), sorted(want)) << text;
  // The stream overload gives the same.
  std::istringstream in(text);
  const Coo<T> B = read_matrix_market<T>(in, "stream.mtx", opt);
  EXPECT_EQ(B.rows, rows);
  EXPECT_EQ(B.cols, cols);
  EXPECT_EQ(sorted(B), sorted(want));
}

// Value of A(i, j) in CSR (duplicates summed), 0 when absent.
template <class T>
T entry(const Csr<T>& A, index_t i, index_t j) {
  T s = T(0);
  for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
    if (A.col_idx[k] == j) s += A.values[k];
  return s;
}
template <class T>
bool stored(const Csr<T>& A, index_t i, index_t j) {
  for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
    if (A.col_idx[k] == j) return true;
  return false;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void expect_same_csr(const Csr<T>& A, const Csr<T>& B) {
  ASSERT_EQ(A.rows, B.rows);
  ASSERT_EQ(A.cols, B.cols);
  ASSERT_EQ(A.row_ptr, B.row_ptr);
  ASSERT_EQ(A.col_idx, B.col_idx);
  ASSERT_EQ(A.values.size(), B.values.size());
  for (std::size_t k = 0; k < A.values.size(); ++k)
    ASSERT_TRUE(same_bits(A.values[k], B.values[k])) << "entry " << k << ": " << A.values[k] << " vs " << B.values[k];
}

// Random values of every kind: random bit patterns (all exponents, so
// subnormals too), signed zeros, extremes, short decimals.
template <class T>
T awkward_value(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  const std::uint64_t r = state ^ (state >> 29);
  switch (r % 8) {
    case 0: return T(0);
    case 1: return -T(0);
    case 2: return std::numeric_limits<T>::max() * ((r >> 8) % 2 ? T(1) : T(-1));
    case 3: return std::numeric_limits<T>::denorm_min() * T(double((r >> 8) % 1000 + 1));
    case 4: return T(double(std::int64_t((r >> 8) % 2001) - 1000) / 8);
    default: {
      for (std::uint64_t x = r;; x = x * 2862933555777941757ULL + 3037000493ULL) {
        T v;
        if constexpr (sizeof(T) == 4) {
          const auto bits = static_cast<std::uint32_t>(x >> 16);
          std::memcpy(&v, &bits, 4);
        } else {
          std::memcpy(&v, &x, 8);
        }
        if (std::isfinite(v)) return v;
      }
    }
  }
}

template <class T>
Csr<T> awkward_matrix(index_t rows, index_t cols, int per_row, std::uint64_t seed) {
  // no duplicates, so that to_csr does not add values
  std::map<std::pair<index_t, index_t>, T> m;
  std::uint64_t st = seed;
  for (index_t i = 0; i < rows; ++i)
    for (int k = 0; k < per_row; ++k) {
      st = st * 6364136223846793005ULL + 1;
      const auto j = index_t((st >> 33) % std::uint64_t(cols));
      m[{i, j}] = awkward_value<T>(st);
    }
  Coo<T> C;
  C.rows = rows;
  C.cols = cols;
  for (const auto& [ij, v] : m) {
    C.row_idx.push_back(ij.first);
    C.col_idx.push_back(ij.second);
    C.values.push_back(v);
  }
  return to_csr(C);
}

template <class T>
class MatrixMarketTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
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

// ---- malformed input --------------------------------------------------------------

struct BadCase {
  const char* what;
  std::string text;
  std::string needle;  // expected in the message, e.g. "bad.mtx:7: ..."
};

const std::string kCoord = "%%MatrixMarket matrix coordinate real general\n";

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

// ---- streams ------------------------------------------------------------------------

TYPED_TEST(MatrixMarketTyped, StreamMatchesFile) {
  using T = TypeParam;
  const fs::path file = data_file("bcsstk13.mtx");
  MtxHeader hf, hs;
  const Coo<T> A = read_matrix_market<T>(file, {}, &hf);
  std::ifstream in(file, std::ios::binary);
  const Coo<T> B = read_matrix_market<T>(in, "bcsstk13 stream", {}, &hs);
  EXPECT_EQ(A.rows, B.rows);
  EXPECT_EQ(A.cols, B.cols);
  EXPECT_EQ(A.row_idx, B.row_idx);
  EXPECT_EQ(A.col_idx, B.col_idx);
  EXPECT_EQ(A.values, B.values);
  EXPECT_EQ(hf.stored_entries, hs.stored_entries);
  EXPECT_EQ(hf.header_lines, hs.header_lines);
}

// Input larger than the reader's buffer: lines split across chunk boundaries.
TEST(MatrixMarket, LargeStreamAcrossChunks) {
  std::string text = "%%MatrixMarket matrix coordinate real general\n1000 1000 300000\n";
  std::vector<Triplet<double>> want;
  std::uint64_t st = 42;
  for (int k = 0; k < 300000; ++k) {
    const index_t i = index_t(k % 1000), j = index_t((k * 7) % 1000);
    const double v = awkward_value<double>(st);
    char buf[64];
    const auto r = std::to_chars(buf, buf + 64, v);
    text += std::to_string(i + 1) + (k % 3 ? " " : "\t ") + std::to_string(j + 1) + " " + std::string(buf, r.ptr) +
            (k % 5 ? "\n" : "\r\n");
    want.emplace_back(i, j, v);
  }
  ASSERT_GT(text.size(), std::size_t(5) << 20);  // more than one 4 MiB stream chunk
  std::istringstream in(text);
  const Coo<double> A = read_matrix_market<double>(in, "big");
  ASSERT_EQ(A.nnz(), 300000);
  for (int k = 0; k < 300000; ++k) {
    ASSERT_EQ(A.row_idx[k], std::get<0>(want[k]));
    ASSERT_EQ(A.col_idx[k], std::get<1>(want[k]));
    ASSERT_TRUE(same_bits(A.values[k], std::get<2>(want[k]))) << k;
  }
  // and an error near the end still names the right line
  std::string bad = text;
  bad.insert(bad.size() - 1, "x");
  std::istringstream in2(bad);
  EXPECT_THROW_MSG(read_matrix_market<double>(in2, "big"), ParseError, "big:300002: value");
}

// ---- real matrices ------------------------------------------------------------------

struct RealFile {
  const char* name;
  MtxField field;
  MtxSymmetry symmetry;
  index_t rows, cols;
  std::int64_t stored;
  std::int64_t header_lines;
  std::int64_t diagonal;  // stored diagonal entries (for the expanded count)
};

const RealFile kRealFiles[] = {
    {"Franz6_id1959_aug.mtx", MtxField::Integer, MtxSymmetry::General, 10592, 3016, 48472, 5, 68},
    {"Pd.mtx", MtxField::Real, MtxSymmetry::General, 8081, 8081, 13036, 14, 8081},
    {"arrow.mtx", MtxField::Integer, MtxSymmetry::General, 46500, 46500, 139498, 6, 46500},
    {"bayer10.mtx", MtxField::Real, MtxSymmetry::General, 13436, 13436, 94926, 14, 3},
    {"bcsstk13.mtx", MtxField::Real, MtxSymmetry::Symmetric, 2003, 2003, 42943, 14, 2003},
    {"cryg2500.mtx", MtxField::Real, MtxSymmetry::General, 2500, 2500, 12349, 14, 2500},
    {"dwt_992.mtx", MtxField::Pattern, MtxSymmetry::Symmetric, 992, 992, 8868, 14, 992},
    {"hangGlider_2.mtx", MtxField::Real, MtxSymmetry::Symmetric, 1647, 1647, 7834, 64, 914},
    {"jagmesh7.mtx", MtxField::Pattern, MtxSymmetry::Symmetric, 1138, 1138, 4294, 14, 1138},
    {"lp_e226.mtx", MtxField::Real, MtxSymmetry::General, 223, 472, 2768, 66, 1},
    {"nnc1374.mtx", MtxField::Real, MtxSymmetry::General, 1374, 1374, 8606, 14, 870},
    {"olm1000.mtx", MtxField::Real, MtxSymmetry::General, 1000, 1000, 3996, 14, 1000},
    {"rajat01.mtx", MtxField::Pattern, MtxSymmetry::General, 6833, 6833, 43250, 14, 6562},
    {"temp.mtx", MtxField::Real, MtxSymmetry::General, 180, 180, 2659, 3, 180},
    {"watt_2.mtx", MtxField::Real, MtxSymmetry::General, 1856, 1856, 11550, 14, 1856},
    {"west0479.mtx", MtxField::Real, MtxSymmetry::General, 479, 479, 1910, 14, 8},
    {"zenios.mtx", MtxField::Real, MtxSymmetry::Symmetric, 2873, 2873, 15032, 14, 2873},
};

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

// ---- writing -----------------------------------------------------------------------------

template <class T>
Csr<T> small_csr() {
  Coo<T> A;
  A.rows = 3;
  A.cols = 4;
  A.row_idx = {0, 0, 2, 2};
  A.col_idx = {0, 3, 1, 2};
  A.values = {T(1.5), T(-2), T(0.1), T(1e10)};
  return to_csr(A);
}

TEST(MatrixMarket, WriteExactText) {
  std::ostringstream out;
  write_matrix_market(out, small_csr<double>());
  EXPECT_EQ(out.str(),
            "%%MatrixMarket matrix coordinate real general\n"
            "3 4 4\n"
            "1 1 1.5\n"
            "1 4 -2\n"
            "3 2 0.1\n"
            "3 3 1e+10\n");
  const fs::path file = temp_dir() / "exact.mtx";
  write_matrix_market(file, small_csr<double>());
  EXPECT_EQ(read_text(file), out.str());
  std::ostringstream outf;
  write_matrix_market(outf, small_csr<float>());
  EXPECT_EQ(outf.str(),
            "%%MatrixMarket matrix coordinate real general\n"
            "3 4 4\n"
            "1 1 1.5\n"
            "1 4 -2\n"
            "3 2 0.1\n"
            "3 3 1e+10\n");
  MtxWriteOptions o;
  o.field = MtxField::Pattern;
  o.comment = "first line\n second line\n";
  std::ostringstream outp;
  write_matrix_market(outp, small_csr<double>(), o);
  EXPECT_EQ(outp.str(),
            "%%MatrixMarket matrix coordinate pattern general\n"
            "%first line\n"
            "% second line\n"
            "3 4 4\n"
            "1 1\n"
            "1 4\n"
            "3 2\n"
            "3 3\n");
  DenseMatrix<double> D(2, 2);
  D.values = {1, 2, 3, 4.5};
  std::ostringstream outd;
  MtxWriteOptions c;
  c.comment = "dense";
  write_matrix_market(outd, D, c);
  EXPECT_EQ(outd.str(), "%%MatrixMarket matrix array real general\n%dense\n2 2\n1\n2\n3\n4.5\n");
}

TYPED_TEST(MatrixMarketTyped, RoundTripCoordinate) {
  using T = TypeParam;
  const Csr<T> A = awkward_matrix<T>(200, 150, 6, 7);
  const fs::path p = temp_dir() / "rt.mtx";
  write_matrix_market(p, A);
  MtxHeader h;
  const Csr<T> B = to_csr(read_matrix_market<T>(p, {}, &h));
  expect_same_csr(A, B);
  EXPECT_EQ(h.stored_entries, A.nnz());
  EXPECT_EQ(h.header_lines, 2);
  // through streams, with a comment
  MtxWriteOptions o;
  o.comment = "written by balsa\nround trip";
  std::stringstream ss;
  write_matrix_market(ss, A, o);
  expect_same_csr(A, to_csr(read_matrix_market<T>(ss, "rt", {}, &h)));
  EXPECT_EQ(h.header_lines, 4);
  // double reads what float wrote (to within rounding of the shortest decimal)
  if constexpr (sizeof(T) == 4) {
    const Csr<double> D = read_matrix_market_csr<double>(p);
    ASSERT_EQ(D.values.size(), A.values.size());
    for (std::size_t k = 0; k < A.values.size(); ++k) {
      const float back = static_cast<float>(D.values[k]);
      ASSERT_TRUE(same_bits(back, A.values[k]) || std::nextafter(back, A.values[k]) == A.values[k]) << k;
    }
  }
  // empty matrix
  Csr<T> E;
  E.rows = 4;
  E.cols = 0;
  E.row_ptr.assign(5, 0);
  write_matrix_market(p, E);
  expect_same_csr(E, read_matrix_market_csr<T>(p));
}

TYPED_TEST(MatrixMarketTyped, RoundTripArray) {
  using T = TypeParam;
  DenseMatrix<T> A(17, 9);
  std::uint64_t st = 99;
  for (T& v : A.values) v = awkward_value<T>(st);
  const fs::path p = temp_dir() / "rt.mtx";
  write_matrix_market(p, A);
  const DenseMatrix<T> B = read_matrix_market_dense<T>(p);
  ASSERT_EQ(B.rows, 17);
  ASSERT_EQ(B.cols, 9);
  for (std::size_t k = 0; k < A.values.size(); ++k) ASSERT_TRUE(same_bits(A.values[k], B.values[k])) << k;
  // array files read as triplets give every value, zeros too
  const Coo<T> C = read_matrix_market<T>(p);
  EXPECT_EQ(C.nnz(), 17 * 9);
  std::stringstream ss;
  write_matrix_market(ss, A);
  const Coo<T> S = read_matrix_market<T>(ss, "s");
  for (std::int64_t k = 0; k < S.nnz(); ++k) ASSERT_TRUE(same_bits(S.values[k], A(S.row_idx[k], S.col_idx[k])));
}

template <class T>
Csr<T> symmetric_csr(index_t n, bool skew, std::uint64_t seed) {
  Coo<T> A;
  A.rows = A.cols = n;
  std::uint64_t st = seed;
  std::map<std::pair<index_t, index_t>, T> m;
  for (index_t i = 0; i < n; ++i) {
    if (!skew) m[{i, i}] = awkward_value<T>(st);
    for (int k = 0; k < 3; ++k) {
      st = st * 6364136223846793005ULL + 1;
      const index_t j = index_t((st >> 33) % std::uint64_t(n));
      if (j >= i) continue;
      const T v = awkward_value<T>(st);
      m[{i, j}] = v;
      m[{j, i}] = skew ? -v : v;
    }
  }
  for (const auto& [ij, v] : m) {
    A.row_idx.push_back(ij.first);
    A.col_idx.push_back(ij.second);
    A.values.push_back(v);
  }
  return to_csr(A);
}

TYPED_TEST(MatrixMarketTyped, WriteSymmetricStoresLowerTriangle) {
  using T = TypeParam;
  for (const bool skew : {false, true}) {
    SCOPED_TRACE(skew ? "skew-symmetric" : "symmetric");
    const Csr<T> A = symmetric_csr<T>(300, skew, 3);
    MtxWriteOptions o;
    o.symmetry = skew ? MtxSymmetry::SkewSymmetric : MtxSymmetry::Symmetric;
    const fs::path p = temp_dir() / "sym.mtx";
    write_matrix_market(p, A, o);
    MtxHeader h;
    MtxReadOptions stored_only;
    stored_only.expand_symmetry = false;
    const Coo<T> L = read_matrix_market<T>(p, stored_only, &h);
    EXPECT_EQ(h.symmetry, o.symmetry);
    std::int64_t lower = 0;
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) lower += A.col_idx[k] < i || (!skew && A.col_idx[k] == i);
    EXPECT_EQ(h.stored_entries, lower);
    for (std::int64_t k = 0; k < L.nnz(); ++k) {
      EXPECT_TRUE(skew ? L.col_idx[k] < L.row_idx[k] : L.col_idx[k] <= L.row_idx[k]);
    }
    expect_same_csr(A, read_matrix_market_csr<T>(p));
    // dense symmetric writing
    const DenseMatrix<T> D = to_dense(A);
    write_matrix_market(p, D, o);
    const MtxHeader hd = read_matrix_market_header(p);
    EXPECT_EQ(hd.format, MtxFormat::Array);
    EXPECT_EQ(hd.stored_entries, skew ? 300 * 299 / 2 : 300 * 301 / 2);
    const DenseMatrix<T> E = read_matrix_market_dense<T>(p);
    // (a skew-symmetric file cannot say that an absent upper entry is +0
    // rather than -0 of the lower one: compare values there, bits elsewhere)
    for (std::size_t k = 0; k < D.values.size(); ++k)
      ASSERT_TRUE(skew ? D.values[k] == E.values[k] : same_bits(D.values[k], E.values[k])) << k;
  }
}

TYPED_TEST(MatrixMarketTyped, WriteSymmetricRejectsAsymmetricMatrices) {
  using T = TypeParam;
  MtxWriteOptions sym;
  sym.symmetry = MtxSymmetry::Symmetric;
  MtxWriteOptions skew;
  skew.symmetry = MtxSymmetry::SkewSymmetric;
  const fs::path p = temp_dir() / "never.mtx";

  Coo<T> A;
  A.rows = A.cols = 3;
  A.row_idx = {0, 2, 0, 1};
  A.col_idx = {0, 0, 2, 1};
  A.values = {T(1), T(2), T(3), T(4)};  // A(2,0) = 2 but A(0,2) = 3
  const Csr<T> C = to_csr(A);
  EXPECT_THROW_MSG(write_matrix_market(p, C, sym), MatrixError, "A(2, 0) = 2 but its mirror A(0, 2) = 3 (0-based row, column)");
  EXPECT_FALSE(fs::exists(p));  // checked before the file is created
  std::ostringstream out;
  EXPECT_THROW_MSG(write_matrix_market(out, C, sym), MatrixError, "not symmetric");
  EXPECT_TRUE(out.str().empty());
  EXPECT_THROW_MSG(write_matrix_market(p, to_dense(C), sym), MatrixError, "A(2, 0) = 2 but its mirror A(0, 2) = 3 (0-based row, column)");

  A.row_idx = {1};  // only a lower entry: its mirror is missing
  A.col_idx = {0};
  A.values = {T(5)};
  EXPECT_THROW_MSG(write_matrix_market(p, to_csr(A), sym), MatrixError, "A(1, 0) = 5 but its mirror A(0, 1) is not stored (0-based row, column)");
  MtxWriteOptions pat = sym;
  pat.field = MtxField::Pattern;
  EXPECT_THROW_MSG(write_matrix_market(p, to_csr(A), pat), MatrixError, "A(1, 0) is stored but its mirror A(0, 1) is not stored (0-based row, column)");

  A.row_idx = {1, 0};  // symmetric, not skew
  A.col_idx = {0, 1};
  A.values = {T(5), T(5)};
  EXPECT_NO_THROW(write_matrix_market(p, to_csr(A), sym));
  EXPECT_THROW_MSG(write_matrix_market(p, to_csr(A), skew), MatrixError, "not skew-symmetric: A(1, 0) = 5 but its mirror A(0, 1) = 5 (0-based row, column)");

  A.row_idx = {1, 0, 2};  // skew with a nonzero diagonal
  A.col_idx = {0, 1, 2};
  A.values = {T(5), T(-5), T(1)};
  EXPECT_THROW_MSG(write_matrix_market(p, to_csr(A), skew), MatrixError, "zero diagonal, but A(2, 2) = 1 (0-based row, column)");
  EXPECT_THROW_MSG(write_matrix_market(p, to_dense(to_csr(A)), skew), MatrixError, "zero diagonal, but A(2, 2) = 1 (0-based row, column)");

  Csr<T> D;  // not canonical: duplicates are summed before the comparison
  D.rows = D.cols = 3;
  D.row_ptr = {0, 1, 3, 5};
  D.col_idx = {1, 0, 0, 2, 2};
  D.values = {T(5), T(2), T(3), T(1), T(-1)};
  EXPECT_NO_THROW(write_matrix_market(p, D, sym));
  EXPECT_EQ(read_matrix_market_header(p).stored_entries, 4);
  EXPECT_THROW_MSG(write_matrix_market(p, D, skew), MatrixError, "not skew-symmetric: A(1, 0) = 5 but its mirror A(0, 1) = 5 (0-based row, column)");
  D.values[0] = T(6);
  EXPECT_THROW_MSG(write_matrix_market(p, D, sym), MatrixError, "A(1, 0) = 5 but its mirror A(0, 1) = 6 (0-based row, column)");

  Coo<T> R;  // not square
  R.rows = 2;
  R.cols = 3;
  EXPECT_THROW_MSG(write_matrix_market(p, to_csr(R), sym), MatrixError, "needs a square matrix, got 2 x 3");
  EXPECT_THROW_MSG(write_matrix_market(p, DenseMatrix<T>(2, 3), skew), MatrixError, "needs a square matrix, got 2 x 3");
}

TYPED_TEST(MatrixMarketTyped, WriteIntegerAndPatternFields) {
  using T = TypeParam;
  Coo<T> A;
  A.rows = 2;
  A.cols = 3;
  A.row_idx = {0, 1, 1};
  A.col_idx = {2, 0, 1};
  A.values = {T(-7), T(123456), T(0)};
  MtxWriteOptions o;
  o.field = MtxField::Integer;
  std::ostringstream out;
  write_matrix_market(out, to_csr(A), o);
  EXPECT_EQ(out.str(), "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 3 -7\n2 1 123456\n2 2 0\n");
  std::istringstream in(out.str());
  const Coo<T> B = read_matrix_market<T>(in, "int");
  EXPECT_EQ(sorted(B), sorted(A));
  // very large integral values still round trip
  A.values = {T(1e30), T(-4e20), T(3)};
  const fs::path p = temp_dir() / "int.mtx";
  write_matrix_market(p, to_csr(A), o);
  expect_same_csr(to_csr(A), read_matrix_market_csr<T>(p));
  A.values[2] = T(0.5);
  EXPECT_THROW_MSG(write_matrix_market(p, to_csr(A), o), MatrixError, "integral values, but A(1, 1) = 0.5 (0-based row, column)");
  DenseMatrix<T> D(1, 2);
  D.values = {T(1), T(2.5)};
  EXPECT_THROW_MSG(write_matrix_market(p, D, o), MatrixError, "integral values, but A(0, 1) = 2.5 (0-based row, column)");
  D.values = {T(1), T(-2)};
  std::ostringstream outd;
  write_matrix_market(outd, D, o);
  EXPECT_EQ(outd.str(), "%%MatrixMarket matrix array integer general\n1 2\n1\n-2\n");
  // pattern: values are not written and read back as 1
  MtxWriteOptions pat;
  pat.field = MtxField::Pattern;
  write_matrix_market(p, to_csr(A), pat);
  const Coo<T> P = read_matrix_market<T>(p);
  for (const T v : P.values) EXPECT_EQ(v, T(1));
  EXPECT_EQ(P.nnz(), 3);
}

TEST(MatrixMarket, WriteErrors) {
  const Csr<double> A = small_csr<double>();
  const fs::path nowhere = temp_dir() / "no_such_dir" / "out.mtx";
  EXPECT_THROW_MSG(write_matrix_market(nowhere, A), Error, "no_such_dir/out.mtx");
  EXPECT_THROW_MSG(write_matrix_market(nowhere, to_dense(A)), Error, "no_such_dir/out.mtx");
  EXPECT_THROW_MSG(write_matrix_market(temp_dir(), A), Error, "for writing");
  MtxWriteOptions c;
  c.field = MtxField::Complex;
  EXPECT_THROW_MSG(write_matrix_market(temp_dir() / "c.mtx", A, c), Error, "complex data is not supported");
  MtxWriteOptions herm;
  herm.symmetry = MtxSymmetry::Hermitian;
  EXPECT_THROW_MSG(write_matrix_market(temp_dir() / "c.mtx", A, herm), Error, "complex data is not supported");
  MtxWriteOptions pat;
  pat.field = MtxField::Pattern;
  EXPECT_THROW_MSG(write_matrix_market(temp_dir() / "c.mtx", to_dense(A), pat), Error, "pattern field is not allowed");
  MtxWriteOptions pskew;
  pskew.field = MtxField::Pattern;
  pskew.symmetry = MtxSymmetry::SkewSymmetric;
  EXPECT_THROW_MSG(write_matrix_market(temp_dir() / "c.mtx", Csr<double>{}, pskew), Error, "cannot be skew-symmetric");
  // inconsistent storage
  Csr<double> broken = A;
  broken.col_idx[1] = 9;
  EXPECT_THROW(write_matrix_market(temp_dir() / "b.mtx", broken), MatrixError);
  DenseMatrix<double> D(2, 2);
  D.values.pop_back();
  EXPECT_THROW(write_matrix_market(temp_dir() / "b.mtx", D), MatrixError);
  std::ostringstream bad;
  bad.setstate(std::ios::badbit);
  EXPECT_THROW_MSG(write_matrix_market(bad, A), Error, "stream");
}

TEST(MatrixMarket, RealFilesRoundTrip) {
  for (const RealFile& f : kRealFiles) {
    SCOPED_TRACE(f.name);
    const Csr<double> A = read_matrix_market_csr<double>(data_file(f.name));
    MtxWriteOptions o;
    o.symmetry = f.symmetry;
    o.field = f.field;
    const fs::path p = temp_dir() / f.name;
    write_matrix_market(p, A, o);
    const MtxHeader h = read_matrix_market_header(p);
    EXPECT_EQ(h.stored_entries, f.stored);
    expect_same_csr(A, read_matrix_market_csr<double>(p));
  }
}

// ---- gzip -------------------------------------------------------------------------------

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
  out.close();
  ASSERT_TRUE(out.good()) << "cannot write " << p;
}

// Compresses `from` into `to` with zlib's gzip writer; `members` > 1 splits
// the text into that many gzip members, as `cat a.gz b.gz > c.gz` makes.
void gzip_file(const fs::path& from, const fs::path& to, int members = 1) {
  const std::string text = read_text(from);
  std::string out;
  for (int m = 0; m < members; ++m) {
    const std::size_t b = text.size() * std::size_t(m) / std::size_t(members);
    const std::size_t e = text.size() * std::size_t(m + 1) / std::size_t(members);
    const fs::path part = temp_dir() / "member.gz";
    gzFile gz = gzopen(part.c_str(), "wb9");
    ASSERT_NE(gz, nullptr);
    if (e > b) {
      ASSERT_EQ(gzwrite(gz, text.data() + b, unsigned(e - b)), int(e - b));
    }
    ASSERT_EQ(gzclose(gz), Z_OK);
    out += read_text(part);
  }
  write_bytes(to, out);
}

template <class T>
void expect_same_coo(const Coo<T>& A, const Coo<T>& B) {
  ASSERT_EQ(A.rows, B.rows);
  ASSERT_EQ(A.cols, B.cols);
  ASSERT_EQ(A.row_idx, B.row_idx);
  ASSERT_EQ(A.col_idx, B.col_idx);
  ASSERT_EQ(A.values.size(), B.values.size());
  for (std::size_t k = 0; k < A.values.size(); ++k) ASSERT_TRUE(same_bits(A.values[k], B.values[k])) << k;
}

void expect_same_header(const MtxHeader& a, const MtxHeader& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.field, b.field);
  EXPECT_EQ(a.symmetry, b.symmetry);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.stored_entries, b.stored_entries);
  EXPECT_EQ(a.header_lines, b.header_lines);
}

TYPED_TEST(MatrixMarketTyped, GzipRoundTrip) {
  using T = TypeParam;
  std::uint64_t st = 11;
  Csr<T> A = test::random_sparse<T>(300, 200, 0.05, 7);
  for (T& v : A.values) v = awkward_value<T>(st);
  const fs::path plain = temp_dir() / "rt.mtx";
  write_matrix_market(plain, A);
  const fs::path gz = temp_dir() / "rt.mtx.gz";
  gzip_file(plain, gz);
  ASSERT_EQ(read_text(gz).substr(0, 2), "\x1f\x8b");
  expect_same_csr(A, read_matrix_market_csr<T>(gz));
  MtxHeader hp, hg;
  const Coo<T> P = read_matrix_market<T>(plain, {}, &hp);
  expect_same_coo(P, read_matrix_market<T>(gz, {}, &hg));
  expect_same_header(hp, hg);
  expect_same_header(hp, read_matrix_market_header(gz));
  // several gzip members (concatenated .gz files) read as one
  const fs::path gz3 = temp_dir() / "rt3.mtx.gz";
  gzip_file(plain, gz3, 3);
  expect_same_csr(A, read_matrix_market_csr<T>(gz3));
  // a symmetric coordinate file (B + B^T) and a dense (array) file
  const Coo<T> B = to_coo(test::random_sparse<T>(200, 200, 0.05, 9));
  Coo<T> sym;
  sym.rows = sym.cols = 200;
  for (std::size_t k = 0; k < B.values.size(); ++k) {
    sym.row_idx.insert(sym.row_idx.end(), {B.row_idx[k], B.col_idx[k]});
    sym.col_idx.insert(sym.col_idx.end(), {B.col_idx[k], B.row_idx[k]});
    sym.values.insert(sym.values.end(), {B.values[k], B.values[k]});
  }
  const Csr<T> Sym = to_csr(sym);
  MtxWriteOptions so;
  so.symmetry = MtxSymmetry::Symmetric;
  const fs::path sp = temp_dir() / "sym.mtx", sgz = temp_dir() / "sym.mtx.gz";
  write_matrix_market(sp, Sym, so);
  gzip_file(sp, sgz);
  expect_same_csr(Sym, read_matrix_market_csr<T>(sp));
  expect_same_csr(Sym, read_matrix_market_csr<T>(sgz));
  const DenseMatrix<T> D = to_dense(A);
  const fs::path dp = temp_dir() / "dense.mtx", dgz = temp_dir() / "dense.mtx.gz";
  write_matrix_market(dp, D);
  gzip_file(dp, dgz);
  const DenseMatrix<T> Dg = read_matrix_market_dense<T>(dgz);
  ASSERT_EQ(Dg.rows, D.rows);
  ASSERT_EQ(Dg.cols, D.cols);
  for (std::size_t k = 0; k < D.values.size(); ++k) ASSERT_TRUE(same_bits(D.values[k], Dg.values[k])) << k;
}

// The gzip magic bytes decide, not the name.
TEST(MatrixMarket, GzipWithoutSuffix) {
  const fs::path plain = data_file("bcsstk13.mtx");
  const fs::path gz = temp_dir() / "compressed_but_named.mtx";
  gzip_file(plain, gz);
  MtxHeader hp, hg;
  expect_same_coo(read_matrix_market<double>(plain, {}, &hp), read_matrix_market<double>(gz, {}, &hg));
  expect_same_header(hp, hg);
  expect_same_header(read_matrix_market_header(plain), read_matrix_market_header(gz));
  expect_same_csr(read_matrix_market_csr<float>(plain), read_matrix_market_csr<float>(gz));
  // and a .gz name on a plain file reads it as text
  const fs::path named = temp_dir() / "plain_text.mtx.gz";
  write_bytes(named, read_text(plain));
  expect_same_csr(read_matrix_market_csr<double>(plain), read_matrix_market_csr<double>(named));
}

TEST(MatrixMarket, GzipTestDataMatchesPlain) {
  const fs::path gz = data_file("west0479.mtx.gz");
  ASSERT_EQ(read_text(gz).substr(0, 2), "\x1f\x8b");
  MtxHeader hp, hg;
  expect_same_coo(read_matrix_market<double>(data_file("west0479.mtx"), {}, &hp), read_matrix_market<double>(gz, {}, &hg));
  expect_same_header(hp, hg);
  const MtxHeader h = read_matrix_market_header(gz);
  EXPECT_EQ(h.rows, 479);
  EXPECT_EQ(h.stored_entries, 1910);
  EXPECT_EQ(h.header_lines, 14);
  const Csr<float> W = read_matrix_market_csr<float>(gz);
  EXPECT_EQ(entry(W, 30, 0), -.03764813f);  // "31 1 -.03764813"
}

// Corrupt and truncated compressed data: a ParseError naming the file and the
// line reached, from every entry point.
TEST(MatrixMarket, GzipCorruptOrTruncated) {
  const fs::path plain = data_file("bcsstk13.mtx");
  const fs::path gz = temp_dir() / "whole.mtx.gz";
  gzip_file(plain, gz);
  const std::string bytes = read_text(gz);

  const fs::path cut = temp_dir() / "cut.mtx.gz";
  write_bytes(cut, bytes.substr(0, bytes.size() / 2));
  try {
    read_matrix_market<double>(cut);
    ADD_FAILURE() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), cut.string());
    EXPECT_GT(e.line(), 1000);  // about half of the 42,957 lines came out
    EXPECT_NE(std::string(e.what()).find(cut.string() + ":" + std::to_string(e.line()) +
                                         ": the gzip data ends early, after "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("decompressed bytes: the compressed file is truncated"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW_MSG(read_matrix_market_csr<float>(cut), ParseError, "the gzip data ends early");
  EXPECT_THROW_MSG(read_matrix_market_dense<float>(cut), ParseError, "the gzip data ends early");

  // cut inside the gzip header: nothing comes out
  const fs::path stub = temp_dir() / "stub.mtx.gz";
  write_bytes(stub, bytes.substr(0, 2));
  EXPECT_THROW_MSG(read_matrix_market_header(stub), ParseError,
                   stub.string() + ":1: the gzip data ends early, after 0 decompressed bytes");
  EXPECT_THROW_MSG(read_matrix_market<double>(stub), ParseError, stub.string() + ":1: the gzip data ends early");

  // a wrong CRC-32 in the trailer: every line came out, the check fails at the end
  std::string bad_crc = bytes;
  bad_crc[bad_crc.size() - 8] = char(bad_crc[bad_crc.size() - 8] ^ 0x55);
  const fs::path crc = temp_dir() / "crc.mtx.gz";
  write_bytes(crc, bad_crc);
  EXPECT_THROW_MSG(read_matrix_market<double>(crc), ParseError, ": the gzip data is corrupt (zlib: incorrect data check)");
  // a damaged compression method byte
  std::string bad_method = bytes;
  bad_method[2] = 7;
  const fs::path method = temp_dir() / "method.mtx.gz";
  write_bytes(method, bad_method);
  EXPECT_THROW_MSG(read_matrix_market_header(method), ParseError,
                   method.string() + ":1: the gzip data is corrupt (zlib: unknown compression method)");
  // damaged data in the middle: a balsa error naming the file, whatever it
  // decompresses to (a zlib error, or text the parser rejects)
  for (std::size_t at : {bytes.size() / 3, bytes.size() / 2, 2 * bytes.size() / 3}) {
    std::string damaged = bytes;
    for (std::size_t k = at; k < at + 16; ++k) damaged[k] = char(damaged[k] ^ 0xA5);
    const fs::path dp = temp_dir() / "damaged.mtx.gz";
    write_bytes(dp, damaged);
    EXPECT_THROW_MSG(read_matrix_market<double>(dp), ParseError, dp.string() + ":");
  }
}

// Gzip data through a stream is refused with a message that says why.
TEST(MatrixMarket, GzipStreamIsExplained) {
  const fs::path gz = data_file("west0479.mtx.gz");
  std::ifstream in(gz, std::ios::binary);
  EXPECT_THROW_MSG(read_matrix_market<double>(in, "w.mtx.gz"), ParseError,
                   "w.mtx.gz:1: the input is gzip-compressed: balsa reads compressed Matrix Market files by their "
                   "path");
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
  EXPECT_THROW_MSG(read_matrix_market<double>(p, o), HostOutOfMemory, want);
  std::istringstream in(text);
  EXPECT_THROW_MSG(read_matrix_market<float>(in, "s.mtx", o), HostOutOfMemory,
                   "s.mtx:2: a 2147483647 x 2147483647 matrix needs 17.2 GB");
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
