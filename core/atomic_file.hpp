// Internal: files written whole or not at all (include/balsa/atomic_file.hpp,
// write_file_atomically, is the public face; the Matrix Market writer uses
// AtomicFile directly).
//
// The bytes go to a temporary file in the target's folder,
// ".<name>.balsa-tmp-<pid>-<counter>" (created with O_EXCL). commit()
// flushes it to the disk (fsync, so that after a power loss the name holds
// the old bytes or the new ones; the folder itself is not synced), gives it
// the target's permission bits when the target exists (else 0666 less the
// umask, as any new file; the owner is the writer's), and renames it over
// the target: a reader sees the old file or the new one, never a part. An
// AtomicFile destroyed before commit() (a failed write, an exception in the
// writer) removes its temporary file, so a failed run leaves the old file
// byte for byte. A symbolic link is written through (its target is
// replaced, the link stays); an existing target that is not a regular file
// (/dev/null, a pipe) is written directly, as there is nothing to replace.
// Every failure is an Error "cannot write '<target>': <the OS's reason>
// (<what was being done>)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <streambuf>
#include <string>

namespace balsa {

class AtomicFile {
 public:
  // Creates the temporary file (an Error when the folder is missing or not
  // writable, or the target is a folder).
  explicit AtomicFile(const std::filesystem::path& target);
  // Removes the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Writes all n bytes or throws Error (no space left, the test hook).
  void write(const char* data, std::size_t n);
  // Syncs, closes and renames the temporary file over the target.
  void commit();
  // Where the bytes go until commit() (the target itself when written directly).
  const std::filesystem::path& temporary_path() const { return temp_; }

 private:
  [[noreturn]] void fail(const std::string& reason, const std::string& doing) const;
  void open_temporary(const std::filesystem::path& folder);
  // Closes and removes the temporary file (not a target written directly).
  void discard() noexcept;

  std::filesystem::path target_, temp_;
  int fd_ = -1;
  bool direct_ = false;       // an existing non-regular target, written in place
  std::int64_t budget_ = -1;  // bytes left before the injected failure; negative: none
};

// A stream buffer over an AtomicFile (64 KiB blocks). A failed write is
// kept, not thrown through the ostream (which would hide it behind badbit):
// rethrow_failure() throws it after the writer returns.
class AtomicFileBuf final : public std::streambuf {
 public:
  explicit AtomicFileBuf(AtomicFile& file);
  // Flushes the buffer and throws the first failed write's Error, if any.
  void rethrow_failure();

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool drain();

  AtomicFile& file_;
  std::unique_ptr<char[]> buf_;
  std::exception_ptr failure_;
};

// Test hook: the next AtomicFile made on the calling thread writes `bytes`
// bytes, then its write throws Error("... injected failure ..."), as a full
// disk would; negative: no failure (the default).
void fail_next_atomic_write_after(std::int64_t bytes);

}  // namespace balsa
