// Internal to the Matrix Market reader (not installed): where the bytes come
// from, and the line reader that hands them out line by line.
//
// The input (a file or a stream) is read in large chunks into one buffer and
// handed out line by line in place: no per-line allocation. The common case
// of next() is inline; refilling the buffer is in matrix_market_lines.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>

namespace balsa::mtx {

using std::int64_t;

inline constexpr std::size_t kFileChunk = std::size_t(16) << 20;    // bytes per read() of a large file
inline constexpr std::size_t kStreamChunk = std::size_t(4) << 20;   // bytes per istream::read
inline constexpr std::size_t kHeaderChunk = std::size_t(64) << 10;  // header-only reads
inline constexpr std::size_t kMinChunk = std::size_t(4) << 10;

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into dst; 0 only at the end of the input. Throws Error.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  // Total size in bytes, or -1 when unknown.
  virtual int64_t size() const { return -1; }
};

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& file);
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override;
  std::size_t read(char* dst, std::size_t n) override;
  int64_t size() const override { return size_; }

 private:
  std::string name_;
  int fd_ = -1;
  int64_t size_ = -1;
};

class StreamSource final : public ByteSource {
 public:
  StreamSource(std::istream& in, const std::string& name);
  std::size_t read(char* dst, std::size_t n) override;
  int64_t size() const override { return size_; }

 private:
  std::istream& in_;
  const std::string& name_;
  int64_t size_ = -1;
};

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
};

}  // namespace balsa::mtx
