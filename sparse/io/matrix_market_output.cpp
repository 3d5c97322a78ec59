// The Matrix Market writer's output: files through write(2), and streams
// (see matrix_market_output.hpp).
#include "sparse/io/matrix_market_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ostream>

#include "balsa/error.hpp"

namespace balsa::mtx {

FileSink::FileSink(const std::filesystem::path& file) : name_(file.string()) {
  do {
    fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) throw Error("cannot open '" + name_ + "' for writing: " + std::strerror(errno));
}

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSink::write(const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write '" + name_ + "': " + std::strerror(errno));
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

void FileSink::finish() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw Error("cannot write '" + name_ + "': " + std::strerror(errno));
}

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

}  // namespace balsa::mtx
