// balsa: files written whole or not at all. Every file balsa writes
// (write_matrix_market to a path, the balsa command's outputs, balsa-bench's
// results, Python's balsa.write_matrix) is written to a temporary file in the
// target's folder (".<name>.balsa-tmp-<pid>-<counter>"), synced to the disk
// and renamed over the target only when all of it was written: a failed or
// interrupted run leaves the old file as it was, byte for byte, and no
// temporary file (a run killed outright may leave one, never a part of the
// target). The new file keeps the old one's permission bits (a new name gets
// 0666 less the umask); a symbolic link is written through; an existing
// device or pipe (/dev/null) is written directly. The one exception is the
// set-up trace (balsa/setup_trace.hpp), a log that is appended to.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>

namespace balsa {

// Calls `write` with a stream into a temporary file beside `file`, then
// renames it over `file`. An Error naming the path and the reason ("No
// space left on device", "Permission denied", a missing folder) when it
// cannot be written; an exception thrown by `write`, or a stream it leaves
// failed, also leaves `file` untouched (any std:: exception becomes a
// balsa::Error). "-" is a file named "-" here: standard output is the
// caller's to handle.
void write_file_atomically(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write);

}  // namespace balsa
