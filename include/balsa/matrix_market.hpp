// balsa: Matrix Market (.mtx) reading and writing.
//
// Reads real, integer and pattern fields; general, symmetric and
// skew-symmetric symmetry; coordinate and array formats. Pattern entries read
// as 1. Complex and Hermitian files are rejected (balsa is real-valued).
// Every malformed input is a ParseError whose message begins "file:line: ".
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "balsa/sparse.hpp"

namespace balsa {

enum class MtxFormat { Coordinate, Array };
enum class MtxField { Real, Integer, Pattern, Complex };
enum class MtxSymmetry { General, Symmetric, SkewSymmetric, Hermitian };

struct MtxHeader {
  MtxFormat format = MtxFormat::Coordinate;
  MtxField field = MtxField::Real;
  MtxSymmetry symmetry = MtxSymmetry::General;
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t stored_entries = 0;  // entries written in the file (coordinate), rows*cols or its triangle (array)
  std::int64_t header_lines = 0;    // banner, comments and size line
};

struct MtxReadOptions {
  // Symmetric and skew-symmetric files store one triangle. true: return the
  // whole matrix (mirrored entries added). false: return what is stored.
  bool expand_symmetry = true;
  // false: a NaN or Inf value is a ParseError naming its line.
  bool allow_non_finite = false;
};

// Reads the banner and size line only.
MtxHeader read_matrix_market_header(const std::filesystem::path& file);

// Reads a matrix in either format as triplets (array files give every entry,
// zeros included). `header`, if given, receives what the file declared.
template <class T>
Coo<T> read_matrix_market(const std::filesystem::path& file, const MtxReadOptions& options = {},
                          MtxHeader* header = nullptr);
// The same from a stream; `name` stands for the file in error messages.
template <class T>
Coo<T> read_matrix_market(std::istream& in, const std::string& name, const MtxReadOptions& options = {},
                          MtxHeader* header = nullptr);
// Convenience: read and convert to canonical CSR (duplicates summed).
template <class T>
Csr<T> read_matrix_market_csr(const std::filesystem::path& file, const MtxReadOptions& options = {});
// Reads a dense matrix (array format, or a coordinate file that fits in memory as dense).
template <class T>
DenseMatrix<T> read_matrix_market_dense(const std::filesystem::path& file, const MtxReadOptions& options = {});

struct MtxWriteOptions {
  // General: every entry. Symmetric / SkewSymmetric: only the lower triangle
  // is written; the matrix must be square (entries above the diagonal are
  // checked to mirror the lower ones and an error is thrown if they do not).
  MtxSymmetry symmetry = MtxSymmetry::General;
  MtxField field = MtxField::Real;  // Real, Integer (values must be integral) or Pattern
  std::string comment;              // written as '%' lines after the banner
};

// Coordinate format. Values are written in the shortest form that reads back
// to the same number ("round trip").
template <class T>
void write_matrix_market(const std::filesystem::path& file, const Csr<T>& A, const MtxWriteOptions& options = {});
template <class T>
void write_matrix_market(std::ostream& out, const Csr<T>& A, const MtxWriteOptions& options = {});
// Array format (column-major, as the format prescribes).
template <class T>
void write_matrix_market(const std::filesystem::path& file, const DenseMatrix<T>& A,
                         const MtxWriteOptions& options = {});
template <class T>
void write_matrix_market(std::ostream& out, const DenseMatrix<T>& A, const MtxWriteOptions& options = {});

const char* to_string(MtxFormat f);
const char* to_string(MtxField f);
const char* to_string(MtxSymmetry s);

}  // namespace balsa
