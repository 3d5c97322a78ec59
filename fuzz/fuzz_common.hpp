// What the libFuzzer harnesses share (docs/reliability.md): the errors a reader
// may throw on bad input, and a scratch folder of the process for files.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "balsa/error.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/memory.hpp"

namespace balsa::fuzz {

// Memory the readers may take for what a fuzz input declares (rows,
// columns): well under the run's -rss_limit_mb, so a large declared size is
// refused by the reader's check, not by the fuzzer's RSS limit.
inline constexpr std::size_t kMemoryLimit = std::size_t{64} << 20;

// Every harness's LLVMFuzzerInitialize: the process's host memory limit
// (balsa::set_host_memory_limit) at kMemoryLimit, so that the steps after a
// read (to_csr, a dense matrix) refuse a large declared size too.
inline void limit_memory() { balsa::set_host_memory_limit(kMemoryLimit); }

// The Matrix Market readers' options an input's bits choose, with the
// readers' memory limit at kMemoryLimit.
inline MtxReadOptions read_options(bool expand_symmetry, bool allow_non_finite) {
  MtxReadOptions options;
  options.expand_symmetry = expand_symmetry;
  options.allow_non_finite = allow_non_finite;
  options.memory_limit = kMemoryLimit;
  return options;
}

// A folder of this process under the system's temporary folder, made on
// the first call (mkdtemp), removed when the process exits normally.
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "balsa-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    return std::filesystem::path(pattern);
  }();
  static const bool removed_at_exit = std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(scratch_folder(), ec);
  }) == 0;
  (void)removed_at_exit;
  return folder;
}

// Writes `size` bytes to `path` (replacing it); aborts when it cannot, a
// failure of the harness and not of the code under test.
inline void write_bytes(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) std::abort();
}

// Runs `read` on the input; a balsa::Error is the expected answer to bad
// input. Anything else escapes and libFuzzer reports it as a crash: no
// std:: exception may leave a public function.
template <class Read>
void expect_balsa_errors_only(Read&& read) {
  try {
    read();
  } catch (const balsa::Error&) {
  }
}

}  // namespace balsa::fuzz
