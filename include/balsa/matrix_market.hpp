// balsa: Matrix Market (.mtx) reading and writing.
//
// Reads real, integer and pattern fields; general, symmetric and
// skew-symmetric symmetry; coordinate and array formats. Pattern entries read
// as 1. Complex and Hermitian files are rejected (balsa is real-valued).
// Every malformed input is a ParseError whose message begins "file:line: ";
// messages name entries by the file's own 1-based row and column numbers.
//
// Files read by path may be gzip-compressed (recognised by the gzip magic
// bytes, whatever the name); corrupt or truncated compressed data is a
// ParseError naming the file and the line reached. Streams are read as text.
//
// Sizes: at the size line, a plain file (or a seekable stream) must have
// bytes enough for the entries it declares (an entry line takes at least 6
// bytes "i j v\n", 4 for pattern "i j\n", an array value 2 "v\n"), else a
// ParseError at the size line. What a read allocates from the declared rows
// and columns (read_matrix_market_csr: the CSR row pointers, 2 * (rows + 1)
// indices; an array file's values; a dense result) is checked against
// MtxReadOptions::memory_limit before the entries are read: a
// HostOutOfMemory at the size line if it does not fit. read_matrix_market
// (triplets) of a coordinate file allocates only for the entries the file
// holds, whatever its declared size: take its entry_census
// (include/balsa/sparse.hpp) before work sized by the declared rows and
// columns; to_csr checks its own memory (include/balsa/memory.hpp). A read
// never lets a std::bad_alloc out: it becomes a HostOutOfMemory naming the
// file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "balsa/sparse.hpp"

namespace balsa {

enum class MtxFormat { Coordinate, Array };
template <>
struct EnumNames<MtxFormat> {
  static constexpr const char* what = "Matrix Market format";
  static constexpr EnumName<MtxFormat> names[] = {{MtxFormat::Coordinate, "coordinate"}, {MtxFormat::Array, "array"}};
};
enum class MtxField { Real, Integer, Pattern, Complex };
template <>
struct EnumNames<MtxField> {
  static constexpr const char* what = "Matrix Market field";
  static constexpr EnumName<MtxField> names[] = {{MtxField::Real, "real"},
                                                 {MtxField::Integer, "integer"},
                                                 {MtxField::Pattern, "pattern"},
                                                 {MtxField::Complex, "complex"}};
};
enum class MtxSymmetry { General, Symmetric, SkewSymmetric, Hermitian };
template <>
struct EnumNames<MtxSymmetry> {
  static constexpr const char* what = "Matrix Market symmetry";
  static constexpr EnumName<MtxSymmetry> names[] = {{MtxSymmetry::General, "general"},
                                                    {MtxSymmetry::Symmetric, "symmetric"},
                                                    {MtxSymmetry::SkewSymmetric, "skew-symmetric"},
                                                    {MtxSymmetry::Hermitian, "hermitian"}};
};

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
  // false: a NaN or Inf value is a ParseError naming its line (the message
  // says the value is not finite and that NaN/Inf values are refused: set
  // this to true to read them).
  bool allow_non_finite = false;
  // Bytes the memory that grows with the declared rows and columns may take
  // (see "Sizes" above); 0: host_memory_limit(), or when that is 0 the memory
  // available now (MemAvailable, or less under a cgroup limit); SIZE_MAX: no
  // check.
  std::size_t memory_limit = 0;
};

// Reads the banner and size line only (a gzip file too). Checks neither the
// file's size nor memory: it reports what the file declares.
MtxHeader read_matrix_market_header(const std::filesystem::path& file);

// Reads a matrix in either format as triplets (array files give every entry,
// zeros included). `header`, if given, receives what the file declared.
template <class T>
Coo<T> read_matrix_market(const std::filesystem::path& file, const MtxReadOptions& options = {},
                          MtxHeader* header = nullptr);
// The same from a stream of text (not gzip data); `name` stands for the file
// in error messages.
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
  // checked to mirror the lower ones and an error is thrown if they do not;
  // the writer's messages name positions 0-based, A(i, j), and say so).
  MtxSymmetry symmetry = MtxSymmetry::General;
  MtxField field = MtxField::Real;  // Real, Integer (values must be integral) or Pattern
  std::string comment;              // written as '%' lines after the banner
};

// Coordinate format. Values are written in the shortest form that reads back
// to the same number ("round trip"). A file is written whole or not at all
// (balsa/atomic_file.hpp): a temporary file beside it is renamed over it at
// the end, so an error (a rejected matrix, a full disk) leaves the old file.
// A path whose name ends in ".gz" is written gzip-compressed (zlib's
// deflate, level 6), whole or not at all the same way; the readers take it
// back by its magic bytes. Streams get plain text.
template <class T>
void write_matrix_market(const std::filesystem::path& file, const Csr<T>& A, const MtxWriteOptions& options = {});
template <class T>
void write_matrix_market(std::ostream& out, const Csr<T>& A, const MtxWriteOptions& options = {});
// Coordinate format from triplets (duplicates summed, entries written sorted
// by row and column): O(nnz log nnz) time and nothing sized by the declared
// rows or columns, so a 1-entry matrix of any declared size writes at once.
template <class T>
void write_matrix_market(const std::filesystem::path& file, const Coo<T>& A, const MtxWriteOptions& options = {});
template <class T>
void write_matrix_market(std::ostream& out, const Coo<T>& A, const MtxWriteOptions& options = {});
// Array format (column-major, as the format prescribes).
template <class T>
void write_matrix_market(const std::filesystem::path& file, const DenseMatrix<T>& A,
                         const MtxWriteOptions& options = {});
template <class T>
void write_matrix_market(std::ostream& out, const DenseMatrix<T>& A, const MtxWriteOptions& options = {});

}  // namespace balsa
