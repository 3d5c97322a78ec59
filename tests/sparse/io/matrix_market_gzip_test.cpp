// Matrix Market streams and gzip (sparse/io/matrix_market_gzip.cpp): the
// stream overloads, chunked large streams, gzip files (with and without the
// suffix, many members, corrupt or truncated) against the plain text.
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


// ---- gzip -------------------------------------------------------------------------------



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

// The writer compresses a path ending in .gz (issue 41): gzip bytes that read
// back to the same matrix (CSR, triplets, dense; zlib's gzread agrees), and
// a rejected matrix leaves the old .gz file whole.
TYPED_TEST(MatrixMarketTyped, WriterGzipsByName) {
  using T = TypeParam;
  std::uint64_t st = 13;
  Csr<T> A = test::random_sparse<T>(400, 300, 0.05, 5);
  for (T& v : A.values) v = awkward_value<T>(st);
  const fs::path gz = temp_dir() / "written.mtx.gz", plain = temp_dir() / "written.mtx";
  write_matrix_market(gz, A);
  write_matrix_market(plain, A);
  ASSERT_EQ(read_text(gz).substr(0, 2), "\x1f\x8b");
  EXPECT_LT(fs::file_size(gz), fs::file_size(plain) / 2);
  expect_same_csr(A, read_matrix_market_csr<T>(gz));
  gzFile f = gzopen(gz.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof(buf))) > 0;) text.append(buf, std::size_t(n));
  gzclose(f);
  EXPECT_EQ(text, read_text(plain));  // the same text, compressed
  const fs::path cgz = temp_dir() / "coo.mtx.gz", dgz = temp_dir() / "dense.mtx.gz";
  write_matrix_market(cgz, to_coo(A));
  expect_same_coo(read_matrix_market<T>(plain), read_matrix_market<T>(cgz));
  const DenseMatrix<T> D = to_dense(A);
  write_matrix_market(dgz, D);
  const DenseMatrix<T> Dg = read_matrix_market_dense<T>(dgz);
  for (std::size_t k = 0; k < D.values.size(); ++k) ASSERT_TRUE(same_bits(D.values[k], Dg.values[k])) << k;
  // not symmetric: refused before a byte is written, the old file kept
  const std::string before = read_text(gz);
  MtxWriteOptions sym;
  sym.symmetry = MtxSymmetry::Symmetric;
  EXPECT_THROW(write_matrix_market(gz, test::random_sparse<T>(50, 50, 0.2, 3), sym), Error);
  EXPECT_EQ(read_text(gz), before);
}

// An empty matrix and an empty array compress too (a gzip stream of the header alone).
TEST(MatrixMarket, WriterGzipsEmpty) {
  const fs::path gz = temp_dir() / "empty.mtx.gz";
  Csr<double> E;
  E.rows = 7;
  E.cols = 5;
  E.row_ptr.assign(8, 0);
  write_matrix_market(gz, E);
  const Csr<double> back = read_matrix_market_csr<double>(gz);
  EXPECT_EQ(back.rows, 7);
  EXPECT_EQ(back.cols, 5);
  EXPECT_EQ(back.nnz(), 0);
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


}  // namespace
}  // namespace balsa
