// The benchmarks' matrix files (bench/bench.hpp, read_bench_matrix): the
// memory of the conversion and of the benchmark's work checked from the
// entries read, before anything of the declared size is allocated.
#include <algorithm>
#include <filesystem>

#include "balsa/matrix_market.hpp"
#include "balsa/memory.hpp"
#include "bench.hpp"
#include "core/memory.hpp"

namespace balsa::bench {

Csr<double> read_bench_matrix(const std::filesystem::path& file) {
  const Coo<double> A = read_matrix_market<double>(file);
  const EntryCensus c = entry_census(A);
  MemoryPlan plan{file.string() + ": " + matrix_words(c.rows, c.cols, c.entries), {}};
  plan.add("its conversion to CSR", coo_to_csr_bytes(c.rows, c.entries, sizeof(double)));
  plan.add("the benchmark's work (at least 3 copies of A and 8 vectors of n)",
           3 * csr_bytes(c.rows, c.positions, sizeof(double)) +
               vectors_bytes(8, std::max(c.rows, c.cols), sizeof(double)));
  require_memory(plan);
  return to_csr(A);
}

}  // namespace balsa::bench
