// libFuzzer harness: the Matrix Market reader from a stream (sparse/io/),
// then the conversion to CSR. The first byte picks the options, the rest is
// the text: bit 0 float (else double), bit 1 expand_symmetry, bit 2
// allow_non_finite. Seeds: tests/data/*.mtx, cut short (scripts/fuzz.sh).
#include <cstdint>
#include <sstream>
#include <string>

#include "balsa/matrix_market.hpp"
#include "fuzz_common.hpp"

namespace {

// Reads `text` with `options` as T and converts the triplets to CSR.
template <class T>
void read_as(const std::string& text, const balsa::MtxReadOptions& options) {
  std::istringstream in(text);
  balsa::MtxHeader header;
  const balsa::Coo<T> A = balsa::read_matrix_market<T>(in, "fuzz.mtx", options, &header);
  const balsa::Csr<T> B = balsa::to_csr(A);
  if (B.rows != header.rows || B.cols != header.cols) __builtin_trap();  // the header's shape, always
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  balsa::fuzz::limit_memory();
  return 0;
}

// One input: an options byte, then Matrix Market text.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const balsa::MtxReadOptions options = balsa::fuzz::read_options((data[0] & 2) != 0, (data[0] & 4) != 0);
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  balsa::fuzz::expect_balsa_errors_only([&] {
    if (data[0] & 1)
      read_as<float>(text, options);
    else
      read_as<double>(text, options);
  });
  return 0;
}
