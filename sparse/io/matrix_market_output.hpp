// Internal to the Matrix Market writer (not installed): where the text goes
// (a file, replaced whole through core/atomic_file.hpp, or a stream) and the
// buffer it is built in.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "core/atomic_file.hpp"

namespace balsa::mtx {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Writes all n bytes or throws Error.
  virtual void write(const char* data, std::size_t n) = 0;
  // Flushes and closes; throws Error if that fails.
  virtual void finish() {}
};

// A file written whole or not at all (core/atomic_file.hpp): a temporary
// file beside it, renamed over it by finish(); destroyed unfinished (a
// failure), the old file stays as it was. A path ending in ".gz" gets gzip
// data (RFC 1952, zlib's deflate), which the reader recognises by its magic
// bytes; the compression happens before the bytes reach the temporary file,
// so the whole-or-nothing rule holds for it too.
class FileSink final : public ByteSink {
 public:
  explicit FileSink(const std::filesystem::path& file);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  void write(const char* data, std::size_t n) override;
  void finish() override;

 private:
  class Gzip;  // zlib's deflate stream, for a ".gz" path
  AtomicFile file_;
  std::unique_ptr<Gzip> gzip_;
};

// Whether `file` names a gzip file by its suffix (".gz").
bool gzip_path(const std::filesystem::path& file);

class StreamSink final : public ByteSink {
 public:
  explicit StreamSink(std::ostream& out);
  void write(const char* data, std::size_t n) override;
  void finish() override;

 private:
  std::ostream& out_;
};

// Text is built at room() (which has space for at least kSlack bytes), then
// commit() marks where it ends; full blocks go to the sink.
class OutBuffer {
 public:
  static constexpr std::size_t kBlock = std::size_t(4) << 20;
  static constexpr std::size_t kSlack = 1024;  // one entry line always fits

  explicit OutBuffer(ByteSink& sink) : sink_(sink), buf_(new char[kBlock + kSlack]), end_(buf_.get()) {}

  char* room() {
    if (end_ - buf_.get() >= static_cast<std::ptrdiff_t>(kBlock)) flush();
    return end_;
  }
  void commit(char* p) { end_ = p; }
  void append(std::string_view text) {
    while (!text.empty()) {
      char* p = room();
      const std::size_t n = std::min(text.size(), kSlack);
      std::memcpy(p, text.data(), n);
      end_ = p + n;
      text.remove_prefix(n);
    }
  }
  void flush() {
    sink_.write(buf_.get(), static_cast<std::size_t>(end_ - buf_.get()));
    end_ = buf_.get();
  }
  void finish() {
    flush();
    sink_.finish();
  }

 private:
  ByteSink& sink_;
  std::unique_ptr<char[]> buf_;
  char* end_;
};

}  // namespace balsa::mtx
