// balsa: host memory checks before input-sized work.
//
// A matrix file declares its sizes; what a step allocates grows with them
// (row pointers, work vectors) and with the entries actually read. The
// library checks the bytes of such a step before it allocates (to_csr,
// transpose, DenseMatrix, the reader, the direct solver's prediction) and throws
// HostOutOfMemory naming the sizes and the bytes, instead of a
// std::bad_alloc or the kernel's OOM killer later. The room is the memory
// available now (MemAvailable, or less under a cgroup limit), or the limit
// set with set_host_memory_limit (the command line's --memory-limit).
// Programs use MemoryPlan to check the steps of a whole command at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace balsa {

// The process's limit on the host memory of one input-sized step, in bytes;
// 0 (the default): the memory available at the time of each check. A
// process-wide setting (as set_threads), read by every check that is given
// no limit of its own.
void set_host_memory_limit(std::size_t bytes);
std::size_t host_memory_limit();

// A byte count as a user writes it: digits with an optional fraction and an
// optional suffix K, M, G or T (powers of 1024, as GNU sort -S and docker
// --memory read them; "KB", "KiB", "k" alike), e.g. "4096", "512M", "1.5G".
// Throws Error naming the text otherwise, or when it passes 2^64 - 1.
std::size_t parse_byte_count(std::string_view text);

// A byte count in decimal units with one decimal: "512 B", "40.0 kB", "8.6 GB".
std::string format_bytes(std::size_t bytes);

// ---- estimates (bytes; saturating at SIZE_MAX) ------------------------------
// value_bytes: sizeof(T) of the values (8 double, 4 float).
// A CSR of `rows` rows and `nnz` entries: row pointers, column indices, values.
std::size_t csr_bytes(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes);
// to_csr of a Coo at its peak: its counting sort's two arrays of rows + 1
// pointers and its copy of the entries, with the CSR it returns.
std::size_t coo_to_csr_bytes(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes);
// transpose of a rows x cols CSR: the CSR of cols rows it returns, the
// entries' source map and the column counters.
std::size_t transpose_bytes(std::int64_t cols, std::int64_t nnz, std::size_t value_bytes);
// `count` vectors of n values of value_bytes each.
std::size_t vectors_bytes(std::int64_t count, std::int64_t n, std::size_t value_bytes);

// ---- the check of a command's steps -----------------------------------------
struct MemoryStep {
  std::string name;  // e.g. "CSR of A"
  std::size_t bytes = 0;
};

// The steps of a computation that are held at once, and what they are
// computed on ("f.mtx: a 100000000 x 100000000 matrix with 1 entry").
struct MemoryPlan {
  std::string what;
  std::vector<MemoryStep> steps;
  MemoryPlan& add(std::string name, std::size_t bytes);
  // The steps' sum, saturating at SIZE_MAX.
  std::size_t total() const;
};

// Throws HostOutOfMemory unless plan.total() fits `limit` (0:
// host_memory_limit(), and when that is 0 the memory available now). The
// message reads "<what> needs <total> (<step> <bytes>, ...); the memory limit
// is <limit>" (or "; <bytes> of memory is available"), the steps largest first.
void require_memory(const MemoryPlan& plan, std::size_t limit = 0);

}  // namespace balsa
