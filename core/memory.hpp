// Internal: how much host memory there is, and the check that an allocation
// sized by input (a declared matrix size, a factor's fill) fits before it is
// made, so that a too-large request is a HostOutOfMemory naming the sizes and
// not a std::bad_alloc (or the kernel's OOM killer) later.
#pragma once

#include <cstddef>
#include <string>

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

// A byte count in decimal units with one decimal: "512 B", "40.0 kB",
// "8.6 GB".
std::string format_bytes(std::size_t bytes);

// Throws HostOutOfMemory unless `bytes` fits `limit` (0: available_memory()).
// The message reads "<what> needs <bytes>[ for <purpose>]; <available> of
// memory is available" (or "; the memory limit is <limit>"), e.g.
// "f.mtx:2: a 2147483647 x 2147483647 matrix needs 17.2 GB for its row
// pointers; 3.1 GB of memory is available".
void require_host_memory(std::size_t bytes, const std::string& what, std::size_t limit = 0,
                         const std::string& purpose = {});

}  // namespace balsa
