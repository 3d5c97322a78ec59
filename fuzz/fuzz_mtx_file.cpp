// libFuzzer harness: the Matrix Market readers from a file (sparse/io/),
// gzip included. The first byte picks how the rest is written and read:
//   bits 0-1  the file: 0 or 3 the bytes as they are (gzip magic included,
//             when the fuzzer makes it), 1 gzip-compressed, 2 gzip-compressed
//             and cut short (the last third of the compressed bytes dropped);
//   bits 2-3  the reader: 0 read_matrix_market<double>, 1
//             read_matrix_market_csr<float>, 2 read_matrix_market_dense<double>,
//             3 read_matrix_market_header;
//   bit 4     expand_symmetry;  bit 5 allow_non_finite.
// Seeds: tests/data/*.mtx cut short, with varied first bytes (scripts/fuzz.sh).
#include <zlib.h>

#include <cstdint>
#include <filesystem>

#include "balsa/matrix_market.hpp"
#include "fuzz_common.hpp"

namespace {

// Writes `size` bytes to `path` gzip-compressed; with `cut`, the file then
// loses the last third of its bytes.
void write_gzip(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size, bool cut) {
  gzFile g = gzopen(path.c_str(), "wb");
  if (g == nullptr) std::abort();
  if (size > 0 && gzwrite(g, data, static_cast<unsigned>(size)) != static_cast<int>(size)) std::abort();
  if (gzclose(g) != Z_OK) std::abort();
  if (cut) std::filesystem::resize_file(path, std::filesystem::file_size(path) * 2 / 3);
}

// Reads `path` with the reader that `mode` names (bits 2-3).
void read_with(const std::filesystem::path& path, std::uint8_t mode, const balsa::MtxReadOptions& options) {
  switch ((mode >> 2) & 3) {
    case 0:
      (void)balsa::read_matrix_market<double>(path, options);
      break;
    case 1:
      (void)balsa::read_matrix_market_csr<float>(path, options);
      break;
    case 2:
      (void)balsa::read_matrix_market_dense<double>(path, options);
      break;
    default:
      (void)balsa::read_matrix_market_header(path);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  balsa::fuzz::limit_memory();
  return 0;
}

// One input: a mode byte, then the file's bytes.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::filesystem::path path = balsa::fuzz::scratch_folder() / "input.mtx";
  const std::uint8_t mode = data[0];
  const unsigned file = mode & 3;
  if (file == 1 || file == 2)
    write_gzip(path, data + 1, size - 1, file == 2);
  else
    balsa::fuzz::write_bytes(path, data + 1, size - 1);
  const balsa::MtxReadOptions options = balsa::fuzz::read_options((mode & 16) != 0, (mode & 32) != 0);
  balsa::fuzz::expect_balsa_errors_only([&] { read_with(path, mode, options); });
  return 0;
}
