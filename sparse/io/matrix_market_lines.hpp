// Internal to the Matrix Market reader (not installed): where the bytes come
// from, and the line reader that hands them out line by line.
//
// The input (a file, a gzip-compressed file or a stream) is read in large
// chunks into one buffer and handed out line by line in place: no per-line
// allocation. The common case of next() is inline; refilling the buffer is in
// matrix_market_lines.cpp, decompression in matrix_market_gzip.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>

#include "balsa/error.hpp"

namespace balsa::mtx {

using std::int64_t;

inline constexpr std::size_t kFileChunk = std::size_t(16) << 20;    // bytes per read() of a large file
inline constexpr std::size_t kStreamChunk = std::size_t(4) << 20;   // bytes per istream::read
inline constexpr std::size_t kHeaderChunk = std::size_t(64) << 10;  // header-only reads
inline constexpr std::size_t kMinChunk = std::size_t(4) << 10;
inline constexpr std::size_t kGzipInChunk = std::size_t(1) << 20;  // compressed bytes per read of a .gz file

// Bad data found below the line reader (a corrupt or truncated gzip stream).
// The line reader turns it into a ParseError naming the file and the line it
// was reading; it never leaves the reader.
class InputDataError : public Error {
 public:
  using Error::Error;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into dst; 0 only at the end of the input. Throws
  // Error, or InputDataError for bad data.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  // Total size in bytes of what read() will give, or -1 when unknown.
  virtual int64_t size() const { return -1; }
  // The input's name for messages (a stream's stands for a file).
  virtual const std::string& name() const = 0;
};

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& file);
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override;
  std::size_t read(char* dst, std::size_t n) override;
  int64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }
  // Whether the file begins with the gzip magic bytes 0x1f 0x8b.
  bool gzip_magic() const { return head_len_ == 2 && head_[0] == '\x1f' && head_[1] == '\x8b'; }

 private:
  std::size_t read_fd(char* dst, std::size_t n);

  std::string name_;
  int fd_ = -1;
  int64_t size_ = -1;
  // The first bytes, read ahead to look for the gzip magic; read() hands
  // them out first.
  char head_[2] = {0, 0};
  std::size_t head_len_ = 0;
  std::size_t head_pos_ = 0;
};

class StreamSource final : public ByteSource {
 public:
  StreamSource(std::istream& in, const std::string& name);
  std::size_t read(char* dst, std::size_t n) override;
  int64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }

 private:
  std::istream& in_;
  const std::string& name_;
  int64_t size_ = -1;
};

// The decompressed bytes of a gzip file (one or more gzip members, as
// gzip(1) writes and concatenates them; bytes after the last member that do
// not start another one are ignored, as gzip -d does). Its size is unknown.
// Corrupt or truncated data is an InputDataError, thrown once the bytes
// before it have been handed out.
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> compressed);
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  ~GzipSource() override;
  std::size_t read(char* dst, std::size_t n) override;
  const std::string& name() const override { return in_->name(); }

 private:
  struct Inflate;  // zlib's state (zlib.h stays out of this header)
  bool fill();     // more compressed bytes; false at their end

  std::unique_ptr<ByteSource> in_;
  std::unique_ptr<Inflate> z_;
  std::unique_ptr<char[]> buf_;
  bool in_eof_ = false;
  bool done_ = false;        // the last member ended
  std::string error_;        // bad data found after bytes still to hand out
  int64_t produced_ = 0;     // decompressed bytes so far
};

// Opens a file for reading: a GzipSource when it starts with the gzip magic
// bytes (whatever its name), else the plain FileSource.
std::unique_ptr<ByteSource> open_file(const std::filesystem::path& file);

// The buffer size for reading `src`: at most max_chunk, and no more than the
// input (plus one byte) when its size is known.
std::size_t chunk_for(const ByteSource& src, std::size_t max_chunk);

inline bool is_space(char c) {
  // ' ', '\t', '\v', '\f', '\r' ('\n' never occurs inside a line)
  return c == ' ' || static_cast<unsigned char>(c - '\t') <= 4;
}
inline void skip_space(const char*& p, const char* e) {
  while (p < e && is_space(*p)) ++p;
}
inline const char* token_end(const char* p, const char* e) {
  while (p < e && !is_space(*p)) ++p;
  return p;
}

// Hands out the input line by line (without the '\n'; a last line without
// '\n' counts). Lines point into the buffer and stay valid until the next call.
class LineReader {
 public:
  LineReader(ByteSource& src, std::size_t chunk);

  // The next line [b, e). False at the end of the input.
  bool next(const char*& b, const char*& e) {
    char* nl = static_cast<char*>(std::memchr(cur_, '\n', static_cast<std::size_t>(end_ - cur_)));
    if (nl) [[likely]]
      return hand_out(b, e, nl, nl + 1);
    return next_slow(b, e);
  }

  // The next line that holds data, skipping blank lines and '%' comment
  // lines: p is its first non-blank character, e its end. False at the end.
  bool next_data_line(const char*& p, const char*& e) {
    for (;;) {
      const char* b = nullptr;
      if (!next(b, e)) [[unlikely]]
        return false;
      p = b;
      skip_space(p, e);
      if (p != e && *p != '%') [[likely]]
        return true;
    }
  }

  // Number of the last line handed out (1-based; 0 before the first).
  int64_t line() const { return line_; }

  // Bytes of the input handed out so far (lines with their '\n'), and bytes
  // read from the source but not yet handed out.
  int64_t consumed() const { return read_total_ - buffered(); }
  int64_t buffered() const { return static_cast<int64_t>(end_ - cur_); }

 private:
  // The line [cur_, end) goes out; the next one starts at `resume`.
  bool hand_out(const char*& b, const char*& e, char* end, char* resume) {
    b = cur_;
    e = end;
    cur_ = resume;
    ++line_;
    return true;
  }
  bool next_slow(const char*& b, const char*& e);
  std::size_t refill();

  ByteSource& src_;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  bool eof_ = false;
  int64_t line_ = 0;
  int64_t read_total_ = 0;  // bytes the source has given
};

}  // namespace balsa::mtx
