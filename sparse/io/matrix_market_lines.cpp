// The Matrix Market reader's input: files through read(2), streams through
// istream::read, and the line reader's refill (see matrix_market_lines.hpp).
// Gzip files: matrix_market_gzip.cpp.
#include "sparse/io/matrix_market_lines.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <istream>

#include "balsa/error.hpp"

namespace balsa::mtx {

FileSource::FileSource(const std::filesystem::path& file) : name_(file.string()) {
  do {
    fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) {
    const int e = errno;
    throw FileError(name_, e, "cannot open Matrix Market file '" + name_ + "': " + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    size_ = static_cast<int64_t>(st.st_size);
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  // The first two bytes (the gzip magic?): a regular file's by pread (the
  // file offset stays 0), a pipe's read ahead (read() gives them first).
  try {
    if (size_ >= 0) {
      ssize_t r = 0;
      do {
        r = ::pread(fd_, head_, sizeof head_, 0);
      } while (r < 0 && errno == EINTR);
      if (r < 0) {
        const int e = errno;
        throw FileError(name_, e, "cannot read Matrix Market file '" + name_ + "': " + std::strerror(e));
      }
      head_len_ = head_pos_ = static_cast<std::size_t>(r);
    } else {
      while (head_len_ < sizeof head_) {
        const std::size_t got = read_fd(head_ + head_len_, sizeof head_ - head_len_);
        if (got == 0) break;
        head_len_ += got;
      }
    }
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

FileSource::~FileSource() { ::close(fd_); }

std::size_t FileSource::read(char* dst, std::size_t n) {
  if (head_pos_ < head_len_) [[unlikely]] {  // the bytes read ahead, then the rest
    const std::size_t k = std::min(n, head_len_ - head_pos_);
    std::memcpy(dst, head_ + head_pos_, k);
    head_pos_ += k;
    return k == n ? k : k + read_fd(dst + k, n - k);
  }
  return read_fd(dst, n);
}

std::size_t FileSource::read_fd(char* dst, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd_, dst, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    const int e = errno;
    if (e == EINTR) continue;
    throw FileError(name_, e, "cannot read Matrix Market file '" + name_ + "': " + std::strerror(e));
  }
}

StreamSource::StreamSource(std::istream& in, const std::string& name) : in_(in), name_(name) {
  if (!in_) throw Error("cannot read Matrix Market stream '" + name_ + "': the stream is not readable");
  // What is left in a seekable stream (files, string streams) sizes the
  // buffer and the reservations; pipes and terminals stay unknown (-1).
  std::streambuf* sb = in_.rdbuf();
  const auto here = sb->pubseekoff(0, std::ios_base::cur, std::ios_base::in);
  if (here != std::streampos(-1)) {
    const auto end = sb->pubseekoff(0, std::ios_base::end, std::ios_base::in);
    if (sb->pubseekpos(here, std::ios_base::in) == here && end != std::streampos(-1) && end >= here)
      size_ = static_cast<int64_t>(end - here);
  }
}

std::size_t StreamSource::read(char* dst, std::size_t n) {
  if (in_.eof()) return 0;
  in_.read(dst, static_cast<std::streamsize>(n));
  if (in_.bad()) throw Error("cannot read Matrix Market stream '" + name_ + "': read error");
  return static_cast<std::size_t>(in_.gcount());
}

std::size_t chunk_for(const ByteSource& src, std::size_t max_chunk) {
  const int64_t n = src.size();
  if (n < 0) return std::min(max_chunk, kStreamChunk);
  return std::min<std::size_t>(max_chunk, static_cast<std::size_t>(n) + 1);
}

LineReader::LineReader(ByteSource& src, std::size_t chunk) : src_(src), cap_(std::max(chunk, kMinChunk)) {
  buf_.reset(new char[cap_]);
  cur_ = end_ = buf_.get();
}

bool LineReader::next_slow(const char*& b, const char*& e) {
  for (;;) {
    if (eof_) return cur_ != end_ && hand_out(b, e, end_, end_);  // a last line without '\n'
    const std::size_t scanned = refill();  // bytes already known to hold no '\n'
    char* nl = static_cast<char*>(
        std::memchr(cur_ + scanned, '\n', static_cast<std::size_t>(end_ - cur_ - scanned)));
    if (nl) return hand_out(b, e, nl, nl + 1);
  }
}

// Moves the unfinished line to the front (growing the buffer if it fills it)
// and appends what the source gives. Returns the unfinished length.
std::size_t LineReader::refill() {
  const std::size_t rem = static_cast<std::size_t>(end_ - cur_);
  if (rem == cap_) {
    const std::size_t new_cap = cap_ * 2;
    std::unique_ptr<char[]> bigger(new char[new_cap]);
    std::memcpy(bigger.get(), cur_, rem);
    buf_ = std::move(bigger);
    cap_ = new_cap;
  } else if (cur_ != buf_.get() && rem > 0) {
    std::memmove(buf_.get(), cur_, rem);
  }
  cur_ = buf_.get();
  end_ = buf_.get() + rem;
  std::size_t got = 0;
  try {
    got = src_.read(buf_.get() + rem, cap_ - rem);
  } catch (const InputDataError& e) {  // bad data where line line_ + 1 was being read
    throw ParseError(src_.name(), line_ + 1, e.what());
  }
  if (got == 0) eof_ = true;
  read_total_ += static_cast<int64_t>(got);
  end_ = buf_.get() + rem + got;
  return rem;
}

std::unique_ptr<ByteSource> open_file(const std::filesystem::path& file) {
  auto plain = std::make_unique<FileSource>(file);
  if (!plain->gzip_magic()) return plain;
  return std::make_unique<GzipSource>(std::move(plain));
}

}  // namespace balsa::mtx
