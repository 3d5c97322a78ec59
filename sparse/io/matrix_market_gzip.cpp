// The Matrix Market reader's gzip input: a file whose first bytes are the
// gzip magic (0x1f 0x8b), decompressed with zlib's inflate as the line
// reader asks for bytes (see matrix_market_lines.hpp). The parser above sees
// the same bytes as from the uncompressed file.
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "balsa/error.hpp"
#include "sparse/io/matrix_market_lines.hpp"

namespace balsa::mtx {

struct GzipSource::Inflate {
  z_stream zs{};
};

GzipSource::GzipSource(std::unique_ptr<ByteSource> compressed)
    : in_(std::move(compressed)), z_(std::make_unique<Inflate>()), buf_(new char[kGzipInChunk]) {
  z_->zs.next_in = reinterpret_cast<Bytef*>(buf_.get());
  z_->zs.avail_in = 0;
  // 15 + 16: a 32 kB window and the gzip wrapper (header, CRC-32, length).
  const int rc = inflateInit2(&z_->zs, 15 + 16);
  if (rc == Z_MEM_ERROR)
    throw HostOutOfMemory(name() + ": out of memory while starting gzip decompression");
  if (rc != Z_OK)
    throw Error(name() + ": cannot start gzip decompression (zlib " + std::string(zlibVersion()) + ": " +
                (z_->zs.msg ? z_->zs.msg : "error " + std::to_string(rc)) + ")");
}

GzipSource::~GzipSource() { inflateEnd(&z_->zs); }

// Moves the unread compressed bytes to the front of the buffer and appends
// what the file gives; false when the file has no more.
bool GzipSource::fill() {
  z_stream& zs = z_->zs;
  if (in_eof_) return false;
  if (zs.avail_in > 0 && reinterpret_cast<char*>(zs.next_in) != buf_.get())
    std::memmove(buf_.get(), zs.next_in, zs.avail_in);
  zs.next_in = reinterpret_cast<Bytef*>(buf_.get());
  const std::size_t got = in_->read(buf_.get() + zs.avail_in, kGzipInChunk - zs.avail_in);
  if (got == 0) {
    in_eof_ = true;
    return false;
  }
  zs.avail_in += static_cast<uInt>(got);
  return true;
}

std::size_t GzipSource::read(char* dst, std::size_t n) {
  if (!error_.empty()) throw InputDataError(error_);
  if (done_ || n == 0) return 0;
  z_stream& zs = z_->zs;
  zs.next_out = reinterpret_cast<Bytef*>(dst);
  zs.avail_out = static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX));
  const uInt asked = zs.avail_out;
  // Bad data after some bytes of this call: hand those out first, and the
  // error on the next call (so the line reader names the line it reached).
  auto bad = [&](std::string what) -> std::size_t {
    const std::size_t got = asked - zs.avail_out;
    if (got == 0) throw InputDataError(what);
    error_ = std::move(what);
    produced_ += static_cast<int64_t>(got);
    return got;
  };
  while (zs.avail_out > 0) {
    if (zs.avail_in == 0 && !fill()) {
      // The compressed bytes end inside a member (an empty file cannot
      // start one: the magic bytes were there).
      return bad("the gzip data ends early, after " + std::to_string(produced_ + (asked - zs.avail_out)) +
                 " decompressed bytes: the compressed file is truncated");
    }
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // A member ended (its CRC-32 and length checked). Another may follow
      // (gzip concatenates them); anything else after it is ignored.
      while (zs.avail_in < 2 && fill()) {
      }
      if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
        inflateReset(&zs);
        continue;
      }
      done_ = true;
      break;
    }
    if (rc == Z_OK) continue;
    // No progress: input is missing (read above) unless zlib is stuck.
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) continue;
    if (rc == Z_MEM_ERROR) throw HostOutOfMemory(name() + ": out of memory while decompressing gzip data");
    // Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR: the data is not valid gzip.
    return bad(std::string("the gzip data is corrupt (zlib: ") + (zs.msg ? zs.msg : "error " + std::to_string(rc)) +
               ")");
  }
  const std::size_t got = asked - zs.avail_out;
  produced_ += static_cast<int64_t>(got);
  return got;
}

}  // namespace balsa::mtx
