// Helpers shared by the Matrix Market tests (tests/sparse/io/*_test.cpp):
// temporary files, sorted triplets, exact comparisons, awkward values, the
// real files of tests/data with their known headers, gzip writers.
#pragma once

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
#include "balsa/matrix_market.hpp"

namespace balsa::test::mm {

namespace fs = std::filesystem;
using test::data_file;
using test::real_matrices;
using test::temp_dir;


// ---- helpers ----------------------------------------------------------------

inline fs::path write_text(const std::string& text, const std::string& name = "bad.mtx") {
  return test::write_temp_file(name, text);
}

inline std::string read_text(const fs::path& p) {
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
inline void expect_matrix(const std::string& text, index_t rows, index_t cols, const std::vector<Triplet<T>>& want,
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
inline void expect_same_csr(const Csr<T>& A, const Csr<T>& B) {
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

inline const std::string kCoord = "%%MatrixMarket matrix coordinate real general\n";

// ---- the real files of tests/data -------------------------------------------

struct RealFile {
  const char* name;
  MtxField field;
  MtxSymmetry symmetry;
  index_t rows, cols;
  std::int64_t stored;
  std::int64_t header_lines;
  std::int64_t diagonal;  // stored diagonal entries (for the expanded count)
};

inline const RealFile kRealFiles[] = {
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

// ---- gzip ------------------------------------------------------------------

inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
  out.close();
  ASSERT_TRUE(out.good()) << "cannot write " << p;
}

// Compresses `from` into `to` with zlib's gzip writer; `members` > 1 splits
// the text into that many gzip members, as `cat a.gz b.gz > c.gz` makes.
inline void gzip_file(const fs::path& from, const fs::path& to, int members = 1) {
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
inline void expect_same_coo(const Coo<T>& A, const Coo<T>& B) {
  ASSERT_EQ(A.rows, B.rows);
  ASSERT_EQ(A.cols, B.cols);
  ASSERT_EQ(A.row_idx, B.row_idx);
  ASSERT_EQ(A.col_idx, B.col_idx);
  ASSERT_EQ(A.values.size(), B.values.size());
  for (std::size_t k = 0; k < A.values.size(); ++k) ASSERT_TRUE(same_bits(A.values[k], B.values[k])) << k;
}

inline void expect_same_header(const MtxHeader& a, const MtxHeader& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.field, b.field);
  EXPECT_EQ(a.symmetry, b.symmetry);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.stored_entries, b.stored_entries);
  EXPECT_EQ(a.header_lines, b.header_lines);
}

template <class T>
class MatrixMarketTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;

}  // namespace balsa::test::mm
