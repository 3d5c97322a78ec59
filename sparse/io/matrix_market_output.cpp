// The Matrix Market writer's output to streams (files: FileSink over
// core/atomic_file.hpp; see matrix_market_output.hpp).
#include "sparse/io/matrix_market_output.hpp"

#include <ostream>

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

}  // namespace balsa::mtx
