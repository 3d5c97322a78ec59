// Files written whole or not at all (core/atomic_file.hpp) and
// balsa::write_file_atomically (include/balsa/atomic_file.hpp).
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ostream>

#include "balsa/atomic_file.hpp"
#include "balsa/error.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

thread_local std::int64_t injected_failure_after = -1;
std::atomic<unsigned long> temporary_counter{0};
constexpr std::size_t kStreamBlock = std::size_t(64) << 10;

// (Strings here are appended to, not built as "x" + s: GCC 12 warns falsely,
// -Wrestrict, on that form.)
std::string quoted(const std::filesystem::path& p) {
  std::string q = "'";
  q += p.string();
  q += '\'';
  return q;
}

// The file a symbolic link names (written through, the link kept); any
// other path as given.
std::filesystem::path resolve_links(const std::filesystem::path& target) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(target, ec))) return target;
  std::filesystem::path resolved = std::filesystem::canonical(target, ec);
  return ec ? target : resolved;
}

// "." for a bare file name, so that the temporary file is beside it.
std::filesystem::path folder_of(const std::filesystem::path& target) {
  const std::filesystem::path folder = target.parent_path();
  return folder.empty() ? std::filesystem::path(".") : folder;
}

int open_retrying(const char* path, int flags, mode_t mode) {
  int fd;
  do {
    fd = ::open(path, flags, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

}  // namespace

void fail_next_atomic_write_after(std::int64_t bytes) { injected_failure_after = bytes; }

AtomicFile::AtomicFile(const std::filesystem::path& target) : target_(resolve_links(target)) {
  budget_ = injected_failure_after;
  injected_failure_after = -1;
  struct stat st {};
  const bool exists = ::stat(target_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(std::strerror(EISDIR), "a folder is not replaced by a file");
  if (exists && !S_ISREG(st.st_mode)) {  // a device or a pipe: nothing to replace
    direct_ = true;
    temp_ = target_;
    fd_ = open_retrying(target_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) fail(std::strerror(errno), "opening it");
    return;
  }
  open_temporary(folder_of(target_));
  if (exists && ::fchmod(fd_, st.st_mode & 07777) != 0) {
    const int e = errno;
    discard();  // no destructor runs for a constructor that throws
    fail(std::strerror(e), "copying its permissions");
  }
}

void AtomicFile::open_temporary(const std::filesystem::path& folder) {
  // At most 200 bytes of the name, so that the temporary name fits NAME_MAX (255).
  std::string prefix = ".";
  prefix += target_.filename().string().substr(0, 200);
  prefix += ".balsa-tmp-" + std::to_string(::getpid()) + "-";
  for (int attempt = 0;; ++attempt) {
    temp_ = folder / (prefix + std::to_string(temporary_counter.fetch_add(1)));
    fd_ = open_retrying(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EEXIST || attempt == 100) {
      const int e = errno;
      temp_.clear();  // nothing to remove
      fail(std::strerror(e), "creating a temporary file in the folder " + quoted(folder));
    }
  }
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!direct_ && !temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

void AtomicFile::fail(const std::string& reason, const std::string& doing) const {
  throw Error("cannot write " + quoted(target_) + ": " + reason + " (" + doing + ")");
}

void AtomicFile::write(const char* data, std::size_t n) {
  if (fd_ < 0) fail("the file is already closed", "writing");
  if (budget_ >= 0 && n > static_cast<std::size_t>(budget_)) {  // the test hook: a part, then the failure
    const std::size_t allowed = static_cast<std::size_t>(budget_);
    budget_ = -1;
    write(data, allowed);
    budget_ = 0;
    fail("injected failure (test hook)", "writing " + quoted(temp_));
  }
  if (budget_ >= 0) budget_ -= static_cast<std::int64_t>(n);
  while (n > 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(std::strerror(errno), "writing " + quoted(temp_));
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) fail("the file is already closed", "committing");
  if (!direct_ && ::fsync(fd_) != 0) fail(std::strerror(errno), "syncing " + quoted(temp_));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(std::strerror(errno), "closing " + quoted(temp_));
  if (direct_) return;
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    fail(std::strerror(errno), "renaming " + quoted(temp_) + " over it");
  temp_.clear();  // it is the target now
}

AtomicFileBuf::AtomicFileBuf(AtomicFile& file) : file_(file), buf_(new char[kStreamBlock]) {
  setp(buf_.get(), buf_.get() + kStreamBlock);
}

bool AtomicFileBuf::drain() {
  if (failure_) return false;
  try {
    file_.write(pbase(), static_cast<std::size_t>(pptr() - pbase()));
  } catch (...) {
    failure_ = std::current_exception();
  }
  setp(buf_.get(), buf_.get() + kStreamBlock);
  return !failure_;
}

AtomicFileBuf::int_type AtomicFileBuf::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

int AtomicFileBuf::sync() { return drain() ? 0 : -1; }

void AtomicFileBuf::rethrow_failure() {
  drain();
  if (failure_) std::rethrow_exception(failure_);
}

void write_file_atomically(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) try {
  AtomicFile out(file);
  AtomicFileBuf buf(out);
  std::ostream stream(&buf);
  write(stream);
  buf.rethrow_failure();
  if (!stream) throw Error("cannot write " + quoted(file) + ": the writer left its stream in a failed state");
  out.commit();
} catch (...) {
  rethrow_as_balsa_error("write_file_atomically");
}

}  // namespace balsa
