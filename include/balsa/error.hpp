// balsa: error types. Every failure is an exception whose message names the
// problem and the place (file and line, row and column, the CUDA call).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace balsa {

// Base of every error balsa throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed input file: the message starts with "file:line: ".
class ParseError : public Error {
 public:
  ParseError(std::string file, std::int64_t line, std::string_view what);
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::int64_t line_;
};

// A file that cannot be opened or read: path() names it, error_number() is
// the system's errno (ENOENT, EACCES, EISDIR, ...); the message is
// "cannot open <kind> file '<path>': <strerror>".
class FileError : public Error {
 public:
  FileError(std::string path, int error_number, const std::string& what)
      : Error(what), path_(std::move(path)), errno_(error_number) {}
  const std::string& path() const noexcept { return path_; }
  int error_number() const noexcept { return errno_; }

 private:
  std::string path_;
  int errno_;
};

// A name that is not one of an option's names (from_string): names() lists
// the accepted ones, and so does the message
// "unknown <what> '<name>' (one of: a, b, c)".
class UnknownName : public Error {
 public:
  UnknownName(std::vector<std::string> names, const std::string& what) : Error(what), names_(std::move(names)) {}
  const std::vector<std::string>& names() const noexcept { return names_; }

 private:
  std::vector<std::string> names_;
};

// A size that does not fit the 32-bit index type.
class IndexOverflow : public Error {
 public:
  using Error::Error;
};

// Sizes of operands that do not agree (wrong-length vector, non-square matrix).
class DimensionError : public Error {
 public:
  using Error::Error;
};

// A matrix that violates what an operation needs: entry outside the triangle,
// zero or missing diagonal, NaN/Inf, unsorted or out-of-range indices.
class MatrixError : public Error {
 public:
  using Error::Error;
};

// A square matrix without a perfect bipartite matching of its rows to its
// columns (no row permutation puts nonzeros on the whole diagonal): every
// matrix with this pattern is singular. structural_rank() is the size of a
// maximum matching (maximum transversal).
class StructurallySingular : public MatrixError {
 public:
  StructurallySingular(std::int64_t rank, std::int64_t n, const std::string& what)
      : MatrixError(what), rank_(rank), n_(n) {}
  std::int64_t structural_rank() const noexcept { return rank_; }
  std::int64_t n() const noexcept { return n_; }

 private:
  std::int64_t rank_, n_;
};

// A matrix a direct factorisation found numerically singular (a zero or
// negligible pivot): the message names the method and, where known, the column.
class SingularMatrix : public MatrixError {
 public:
  using MatrixError::MatrixError;
};

// A computation whose host memory need passes the limit it was given (the
// message names the bytes needed).
class HostOutOfMemory : public Error {
 public:
  using Error::Error;
};

// A failed CUDA, cuSPARSE or cuBLAS call, or a GPU feature used in a build
// without CUDA. The message names the call, the status and the source place.
class CudaError : public Error {
 public:
  using Error::Error;
};

// The GPU has not enough free memory for an allocation.
class DeviceOutOfMemory : public CudaError {
 public:
  using CudaError::CudaError;
};

}  // namespace balsa
