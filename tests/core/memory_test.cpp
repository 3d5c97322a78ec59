// Host memory checks (include/balsa/memory.hpp, core/memory_plan.cpp): byte
// counts as users write them, the estimates of the input-sized steps, a
// command's plan against a limit, and the library's own checks (to_csr,
// transpose, DenseMatrix, the reader) under set_host_memory_limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "balsa/matrix_market.hpp"
#include "balsa/memory.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// set_host_memory_limit for one test, then back.
struct LimitGuard {
  std::size_t before = host_memory_limit();
  explicit LimitGuard(std::size_t bytes) { set_host_memory_limit(bytes); }
  ~LimitGuard() { set_host_memory_limit(before); }
};

TEST(ByteCount, SuffixesArePowersOf1024) {
  EXPECT_EQ(parse_byte_count("4096"), 4096u);
  EXPECT_EQ(parse_byte_count("0"), 0u);
  EXPECT_EQ(parse_byte_count("512M"), 512u << 20);
  EXPECT_EQ(parse_byte_count("4G"), std::size_t(4) << 30);
  EXPECT_EQ(parse_byte_count("4g"), std::size_t(4) << 30);
  EXPECT_EQ(parse_byte_count("4GB"), std::size_t(4) << 30);
  EXPECT_EQ(parse_byte_count("4GiB"), std::size_t(4) << 30);
  EXPECT_EQ(parse_byte_count("1.5K"), 1536u);
  EXPECT_EQ(parse_byte_count("2T"), std::size_t(2) << 40);
  EXPECT_EQ(parse_byte_count("100B"), 100u);
}

TEST(ByteCount, BadTextIsAnError) {
  for (const char* bad : {"", "G", "-1", "1e9", "4X", "4GBs", "1.2.3", ".", " 4G", "4 G"})
    EXPECT_THROW_MSG(parse_byte_count(bad), Error, "memory size '" + std::string(bad) + "'");
  EXPECT_THROW_MSG(parse_byte_count("99999999T"), Error, "more than 2^64 - 1 bytes");
}

TEST(MemoryEstimates, CountTheArrays) {
  // 10 rows, 7 entries of doubles: 11 pointers + 7 (index + value)
  EXPECT_EQ(csr_bytes(10, 7, 8), 11u * 4 + 7u * 12);
  // to_csr: ptr (11) and next (10), the scattered copy (7 x 12), the result
  EXPECT_EQ(coo_to_csr_bytes(10, 7, 8), 21u * 4 + 7u * 12 + csr_bytes(10, 7, 8));
  // transpose to 5 rows: 5 counters, the CSR of 5 rows, the source map
  EXPECT_EQ(transpose_bytes(5, 7, 4), 5u * 4 + csr_bytes(5, 7, 4) + 7u * 4);
  EXPECT_EQ(vectors_bytes(3, 100000000, 8), 2400000000u);
  // the declared size alone: 1 entry of 2^31 - 1 rows
  EXPECT_EQ(coo_to_csr_bytes(2147483647, 1, 8), (2 * 2147483647ull + 1) * 4 + 12 + (2147483648ull * 4 + 12));
  // saturating, never wrapping
  EXPECT_EQ(vectors_bytes(std::int64_t(1) << 40, std::int64_t(1) << 40, 8), std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(vectors_bytes(-1, 5, 8), 0u);
}

TEST(MemoryPlan, MessageNamesTheStepsLargestFirst) {
  MemoryPlan plan{"f.mtx: a 100000000 x 100000000 matrix with 1 entry", {}};
  plan.add("x and b", 1600000000).add("its conversion to CSR", 1200000000).add("nothing", 0);
  EXPECT_EQ(plan.total(), 2800000000u);
  EXPECT_NO_THROW(require_memory(plan, 2800000000u));
  EXPECT_THROW_MSG(require_memory(plan, 1000000000u), HostOutOfMemory,
                   "f.mtx: a 100000000 x 100000000 matrix with 1 entry needs 2.8 GB for the steps held at once (x and "
                   "b 1.6 GB, its conversion to CSR 1.2 GB); the memory limit is 1.0 GB");
  const LimitGuard limit(2000000000);  // the process's limit when none is given
  EXPECT_THROW_MSG(require_memory(plan), HostOutOfMemory, "the memory limit is 2.0 GB");
  EXPECT_NO_THROW(require_memory(plan, 3000000000u));  // a limit given wins
}

TEST(MemoryPlan, WithoutALimitTheAvailableMemoryDecides) {
  MemoryPlan plan{"everything", {}};
  plan.add("all", std::numeric_limits<std::size_t>::max());
  EXPECT_THROW_MSG(require_memory(plan), HostOutOfMemory, " of memory is available");
  MemoryPlan small{"a little", {}};
  small.add("one vector", 1000);
  EXPECT_NO_THROW(require_memory(small));
}

// The library's own checks: a Coo of any declared size reads, and its
// conversion is refused before it allocates.
TEST(MemoryChecks, ToCsrAndTransposeRefuseBeforeAllocating) {
  const LimitGuard limit(std::size_t(1) << 30);
  Coo<double> A{2147483647, 2147483647, {0}, {0}, {1.0}};
  EXPECT_THROW_MSG(to_csr(A), HostOutOfMemory,
                   "to_csr: a 2147483647 x 2147483647 matrix with 1 entry needs 25.8 GB for its conversion to CSR "
                   "(2147483648 row pointers); the memory limit is 1.1 GB");
  Csr<double> wide{1, 2147483647, {0, 1}, {0}, {1.0}};  // 1 x 2^31 - 1: its transpose has 2^31 rows
  EXPECT_THROW_MSG(transpose(wide), HostOutOfMemory,
                   "transpose: a 1 x 2147483647 matrix with 1 entry needs 17.2 GB for its transpose");
  EXPECT_EQ(to_csr(Coo<double>{1000, 1000, {3}, {4}, {2.0}}).nnz(), 1);  // small ones pass
  EXPECT_THROW_MSG(DenseMatrix<double>(40000, 40000), HostOutOfMemory,
                   "DenseMatrix: a 40000 x 40000 matrix needs 12.8 GB for its dense values; the memory limit is 1.1 GB");
}

TEST(MemoryChecks, ReaderLeavesTheConversionToItsCaller) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n";
  const LimitGuard limit(std::size_t(1) << 30);
  std::istringstream in(text);
  const Coo<double> A = read_matrix_market<double>(in, "s.mtx");
  EXPECT_EQ(A.rows, 2147483647);
  EXPECT_EQ(A.nnz(), 1);
  EXPECT_EQ(entry_census(A).first_empty_row, 1);
  EXPECT_THROW(to_csr(A), HostOutOfMemory);
}

TEST(MemoryChecks, TripletsWriteAtAnyDeclaredSize) {
  const Coo<double> A{2147483647, 2147483647, {7, 0, 7}, {0, 7, 0}, {1.5, 3.0, 1.5}};
  std::ostringstream out;
  const LimitGuard limit(std::size_t(1) << 20);  // 1 MiB: nothing sized by the declared rows
  write_matrix_market(out, A, {.symmetry = MtxSymmetry::Symmetric});
  EXPECT_EQ(out.str(), "%%MatrixMarket matrix coordinate real symmetric\n2147483647 2147483647 1\n8 1 3\n");
  std::ostringstream general;
  write_matrix_market(general, A);
  EXPECT_EQ(general.str(), "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 2\n1 8 3\n8 1 3\n");
  const Coo<double> B{5, 5, {3, 1}, {1, 3}, {1.0, 2.0}};
  std::ostringstream bad;
  EXPECT_THROW_MSG(write_matrix_market(bad, B, {.symmetry = MtxSymmetry::Symmetric}), MatrixError,
                   "the matrix is not symmetric: A(3, 1) = 1 but its mirror A(1, 3) = 2 (0-based row, column)");
  const Coo<double> C{5, 5, {4, 2, 2}, {0, 2, 0}, {1.0, 5.0, 1.0}};
  EXPECT_THROW_MSG(write_matrix_market(bad, C, {.symmetry = MtxSymmetry::Symmetric}), MatrixError,
                   "the matrix is not symmetric: A(2, 0) = 1 but its mirror A(0, 2) is not stored (0-based row, column)");
  // skew: row by row, a nonzero diagonal before a mirror in the same row, as the CSR writer
  const Coo<double> D{5, 5, {3, 2, 4}, {3, 0, 4}, {1.0, 1.0, 2.0}};
  EXPECT_THROW_MSG(write_matrix_market(bad, D, {.symmetry = MtxSymmetry::SkewSymmetric}), MatrixError,
                   "the matrix is not skew-symmetric: A(2, 0) = 1 but its mirror A(0, 2) is not stored");
  const Coo<double> E{5, 5, {3, 3, 4}, {3, 0, 4}, {1.0, 1.0, 2.0}};
  EXPECT_THROW_MSG(write_matrix_market(bad, E, {.symmetry = MtxSymmetry::SkewSymmetric}), MatrixError,
                   "a skew-symmetric matrix needs a zero diagonal, but A(3, 3) = 1");
  EXPECT_EQ(bad.str(), "");  // checked before the first byte
}

}  // namespace
}  // namespace balsa
