// libFuzzer harness: the MPS reader (lp/mps/) on text, then validate().
// Seeds: tests/data/lp/*.mps.gz, decompressed (scripts/fuzz.sh).
#include <cstdint>
#include <string>

#include "balsa/lp.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  balsa::fuzz::limit_memory();
  return 0;
}

// One input: MPS text; the LP read, when it is read, is validated.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  balsa::fuzz::expect_balsa_errors_only([&] {
    const balsa::LinearProgram lp = balsa::read_mps_text(text, "fuzz.mps");
    balsa::validate(lp);
  });
  return 0;
}
