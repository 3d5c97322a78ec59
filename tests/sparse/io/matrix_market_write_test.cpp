// Matrix Market writing (sparse/io/matrix_market_write.cpp, _output): the
// exact text, symmetric and integer/pattern fields, errors, and write/read
// round trips that give back the very same bits.
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
  EXPECT_THROW_MSG(write_matrix_market(temp_dir(), A), Error, "': Is a directory");
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


}  // namespace
}  // namespace balsa
