// Internal: how much host memory there is, and the check that an allocation
// sized by input (a declared matrix size, a factor's fill) fits before it is
// made, so that a too-large request is a HostOutOfMemory naming the sizes and
// not a std::bad_alloc (or the kernel's OOM killer) later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "balsa/memory.hpp"  // format_bytes, set_host_memory_limit, the estimates

namespace balsa {

// The machine's physical memory in bytes (sysconf), 16 GiB when unknown.
std::size_t physical_memory();

// The memory this process can allocate now, in bytes: the smaller of
// /proc/meminfo's MemAvailable and, under a cgroup memory limit (v2
// memory.max, or v1 memory.limit_in_bytes, at every level of the process's
// cgroup), the limit minus what the cgroup uses. physical_memory() when
// none of these can be read. Reads a few small files (about 17 us); a value
// read in the last 20 ms is returned again.
std::size_t available_memory();

// Throws HostOutOfMemory unless `bytes` fits `limit` (0: host_memory_limit(),
// and when that is 0 too, available_memory()).
// The message reads "<what> needs <bytes>[ for <purpose>]; <available> of
// memory is available" (or "; the memory limit is <limit>"), e.g.
// "f.mtx:2: a 2147483647 x 2147483647 matrix needs 17.2 GB for its row
// pointers; 3.1 GB of memory is available".
void require_host_memory(std::size_t bytes, const std::string& what, std::size_t limit = 0,
                         const std::string& purpose = {});

// "a <rows> x <cols> matrix with <entries> entries" ("1 entry"), the subject
// of the checks' messages.
std::string matrix_words(std::int64_t rows, std::int64_t cols, std::int64_t entries);

}  // namespace balsa
