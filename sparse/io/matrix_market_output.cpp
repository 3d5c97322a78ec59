// The Matrix Market writer's outputs (matrix_market_output.hpp): a stream,
// or a file replaced whole (core/atomic_file.hpp), gzip-compressed when its
// name ends in ".gz".
#include "sparse/io/matrix_market_output.hpp"

#include <zlib.h>

#include <ostream>
#include <string>

#include "balsa/error.hpp"

namespace balsa::mtx {

StreamSink::StreamSink(std::ostream& out) : out_(out) {
  if (!out_) throw Error("cannot write Matrix Market data: the output stream is in a failed state");
}

void StreamSink::write(const char* data, std::size_t n) {
  out_.write(data, static_cast<std::streamsize>(n));
  if (!out_) throw Error("cannot write Matrix Market data: the output stream failed");
}

void StreamSink::finish() {
  out_.flush();
  if (!out_) throw Error("cannot write Matrix Market data: the output stream failed");
}

bool gzip_path(const std::filesystem::path& file) { return file.extension() == ".gz"; }

// deflate with a gzip wrapper (windowBits 15 + 16), level 6 (zlib's
// default: the size within a few per cent of level 9 at a fraction of the
// time). Compressed blocks go to the AtomicFile as they fill.
class FileSink::Gzip {
 public:
  explicit Gzip(AtomicFile& file) : file_(file) {
    if (deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error("cannot start gzip compression (zlib's deflateInit2 failed)");
  }
  ~Gzip() { deflateEnd(&z_); }
  Gzip(const Gzip&) = delete;
  Gzip& operator=(const Gzip&) = delete;

  void write(const char* data, std::size_t n) {
    while (n > 0) {  // avail_in is 32-bit: feed at most 1 GiB at a time
      const std::size_t part = std::min<std::size_t>(n, std::size_t(1) << 30);
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
      z_.avail_in = static_cast<uInt>(part);
      drain(Z_NO_FLUSH);
      data += part;
      n -= part;
    }
  }
  void finish() { drain(Z_FINISH); }

 private:
  // Deflates until the input is consumed (Z_NO_FLUSH) or the stream ended
  // (Z_FINISH), writing each full output block.
  void drain(int flush) {
    for (;;) {
      z_.next_out = reinterpret_cast<Bytef*>(out_);
      z_.avail_out = sizeof(out_);
      const int rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) throw Error("gzip compression failed (zlib's deflate: stream error)");
      file_.write(out_, sizeof(out_) - z_.avail_out);
      if (flush == Z_FINISH ? rc == Z_STREAM_END : z_.avail_in == 0 && z_.avail_out != 0) return;
    }
  }

  AtomicFile& file_;
  z_stream z_{};
  char out_[1 << 16];
};

FileSink::FileSink(const std::filesystem::path& file) : file_(file) {
  if (gzip_path(file)) gzip_ = std::make_unique<Gzip>(file_);
}

FileSink::~FileSink() = default;

void FileSink::write(const char* data, std::size_t n) {
  if (gzip_)
    gzip_->write(data, n);
  else
    file_.write(data, n);
}

void FileSink::finish() {
  if (gzip_) gzip_->finish();
  file_.commit();
}

}  // namespace balsa::mtx
