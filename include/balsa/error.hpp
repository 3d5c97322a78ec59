// balsa: error types. Every failure is an exception whose message names the
// problem and the place (file and line, row and column, the CUDA call).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

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
