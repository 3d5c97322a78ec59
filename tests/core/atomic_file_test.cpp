// Files written whole or not at all (core/atomic_file.hpp,
// balsa::write_file_atomically): a failure mid-write (the test hook, a real
// file-size limit), a writer that throws half-way, a missing or read-only
// folder leave the old file byte for byte and no temporary file; a success
// keeps the old file's permissions, writes through links and writes devices
// in place.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "balsa/atomic_file.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "core/atomic_file.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The names in a folder (temporary files included: they start with '.').
std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  return names;
}

// A folder holding one file `name` with `text`.
fs::path folder_with(const std::string& name, const std::string& text) {
  return test::write_temp_file(name, text).parent_path();
}

// Runs f, which must throw Error; returns its message.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a balsa::Error: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

// Writes `bytes` bytes of 'x' in chunks of 1000.
void write_x(std::ostream& out, std::size_t bytes) {
  const std::string chunk(1000, 'x');
  for (std::size_t done = 0; done < bytes; done += chunk.size()) out << chunk;
}

const std::string kOld = "the old file's bytes\n\x01\x02 stay as they were\n";

// In a folder holding `name` with kOld, write(path) must fail (after
// fail_next_atomic_write_after(fail_after)) with a message holding
// `fragment` (and the path, unless the writer's own exception); the folder
// must then hold the old file, byte for byte, and nothing else. Returns the
// file's path.
template <class W>
fs::path expect_old_file_kept(const std::string& name, std::int64_t fail_after, W&& write,
                              const std::string& fragment) {
  const fs::path dir = folder_with(name, kOld);
  const fs::path file = dir / name;
  fail_next_atomic_write_after(fail_after);
  const std::string m = error_of([&] { write(file); });
  fail_next_atomic_write_after(-1);
  EXPECT_NE(m.find(fragment), std::string::npos) << m;
  if (fragment.rfind("'", 0) == 0) {  // a message of the writer, naming the path
    EXPECT_NE(m.find("cannot write '" + file.string() + fragment), std::string::npos) << m;
  }
  EXPECT_EQ(read_bytes(file), kOld);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{name});
  return file;
}

TEST(AtomicFile, WritesANewFileWithTheUmaskDefault) {
  const fs::path dir = test::temp_dir();
  const fs::path file = dir / "new.txt";
  write_file_atomically(file, [](std::ostream& out) { out << "hello\n"; });
  EXPECT_EQ(read_bytes(file), "hello\n");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"new.txt"});
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(AtomicFile, ReplacesAFileAndKeepsItsPermissions) {
  const fs::path dir = folder_with("old.txt", kOld);
  const fs::path file = dir / "old.txt";
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  const std::string big(300000, 'y');  // several stream blocks
  write_file_atomically(file, [&big](std::ostream& out) { out << big; });
  EXPECT_EQ(read_bytes(file), big);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"old.txt"});
}

TEST(AtomicFile, TemporaryFileIsBesideTheTargetWithAUniqueName) {
  const fs::path dir = test::temp_dir();
  AtomicFile a(dir / "t.mtx"), b(dir / "t.mtx");
  EXPECT_EQ(a.temporary_path().parent_path(), dir);
  EXPECT_EQ(a.temporary_path().filename().string().rfind(".t.mtx.balsa-tmp-" + std::to_string(::getpid()) + "-", 0), 0u)
      << a.temporary_path();
  EXPECT_NE(a.temporary_path(), b.temporary_path());
  EXPECT_TRUE(fs::exists(a.temporary_path()));
  EXPECT_FALSE(fs::exists(dir / "t.mtx"));  // nothing at the target before commit()
}

TEST(AtomicFile, UncommittedFileIsRemoved) {
  const fs::path dir = folder_with("keep.txt", kOld);
  {
    AtomicFile f(dir / "keep.txt");
    f.write("partial", 7);
  }
  EXPECT_EQ(read_bytes(dir / "keep.txt"), kOld);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"keep.txt"});
}

TEST(AtomicFile, InjectedFailureMidWriteLeavesTheOldFile) {
  const fs::path file = expect_old_file_kept(
      "out.json", 100000,
      [](const fs::path& f) { write_file_atomically(f, [](std::ostream& out) { write_x(out, 500000); }); },
      "': injected failure (test hook)");
  // The hook is spent: the next write succeeds.
  write_file_atomically(file, [](std::ostream& out) { out << "new\n"; });
  EXPECT_EQ(read_bytes(file), "new\n");
}

TEST(AtomicFile, InjectedFailureAtTheLastFlushLeavesTheOldFile) {
  // The text fits one stream block: it fails when flushed at the end.
  expect_old_file_kept(
      "small.txt", 3,
      [](const fs::path& f) { write_file_atomically(f, [](std::ostream& out) { out << "0123456789"; }); },
      "': injected failure");
}

TEST(AtomicFile, WriterThatThrowsHalfWayLeavesTheOldFile) {
  expect_old_file_kept(
      "half.txt", -1,
      [](const fs::path& f) {
        write_file_atomically(f, [](std::ostream& out) {
          write_x(out, 200000);
          throw std::runtime_error("the writer gave up half-way");
        });
      },
      "write_file_atomically: the writer gave up half-way");
}

TEST(AtomicFile, WriterThatFailsItsStreamLeavesTheOldFile) {
  expect_old_file_kept(
      "bad.txt", -1,
      [](const fs::path& f) { write_file_atomically(f, [](std::ostream& out) { out.setstate(std::ios::failbit); }); },
      "': the writer left its stream in a failed state");
}

TEST(AtomicFile, MissingFolderNamesThePathAndTheReason) {
  const fs::path file = test::temp_dir() / "no-such-folder" / "x.mtx";
  const std::string m = error_of([&] { write_file_atomically(file, [](std::ostream& out) { out << "x"; }); });
  EXPECT_NE(m.find("cannot write '" + file.string() + "': No such file or directory"), std::string::npos) << m;
  EXPECT_NE(m.find("no-such-folder"), std::string::npos) << m;
}

TEST(AtomicFile, FolderWithoutWritePermission) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: a folder's permissions do not stop root";
  const fs::path dir = folder_with("ro.txt", kOld);
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  const std::string m = error_of([&] { write_file_atomically(dir / "ro.txt", [](std::ostream& out) { out << "x"; }); });
  ::chmod(dir.c_str(), 0755);
  EXPECT_NE(m.find("Permission denied"), std::string::npos) << m;
  EXPECT_EQ(read_bytes(dir / "ro.txt"), kOld);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"ro.txt"});
}

TEST(AtomicFile, FolderAsTargetIsAnError) {
  const fs::path dir = test::temp_dir();
  const std::string m = error_of([&] { write_file_atomically(dir, [](std::ostream& out) { out << "x"; }); });
  EXPECT_NE(m.find("Is a directory"), std::string::npos) << m;
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(AtomicFile, WritesThroughASymbolicLink) {
  const fs::path dir = folder_with("real.txt", kOld);
  fs::create_symlink(dir / "real.txt", dir / "link.txt");
  write_file_atomically(dir / "link.txt", [](std::ostream& out) { out << "through\n"; });
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(read_bytes(dir / "real.txt"), "through\n");
  EXPECT_EQ(names_in(dir).size(), 2u);
}

TEST(AtomicFile, DeviceIsWrittenInPlace) {
  {
    AtomicFile f("/dev/null");  // destroyed uncommitted: a wrong temporary file would be removed
    ASSERT_EQ(f.temporary_path(), fs::path("/dev/null")) << "it would replace /dev/null";
  }
  write_file_atomically("/dev/null", [](std::ostream& out) { out << "discarded\n"; });
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// ---- the Matrix Market writer ------------------------------------------------

Csr<double> big_matrix() { return laplacian_2d<double>(200, 200); }  // about 1 MB of text

TEST(AtomicMatrixMarket, InjectedFailureMidWriteLeavesTheOldFile) {
  expect_old_file_kept(
      "A.mtx", 4096, [](const fs::path& f) { write_matrix_market(f, big_matrix()); }, "': injected failure");
}

TEST(AtomicMatrixMarket, DenseInjectedFailureLeavesTheOldFile) {
  expect_old_file_kept(
      "X.mtx", 100, [](const fs::path& f) { write_matrix_market(f, DenseMatrix<double>(1000, 3)); },
      "': injected failure");
}

TEST(AtomicMatrixMarket, RejectedMatrixLeavesTheOldFile) {
  Csr<double> A = big_matrix();
  A.values[1] = 5;  // no longer symmetric
  MtxWriteOptions o;
  o.symmetry = MtxSymmetry::Symmetric;
  expect_old_file_kept(
      "S.mtx", -1, [&](const fs::path& f) { write_matrix_market(f, A, o); }, "not symmetric");
}

TEST(AtomicMatrixMarket, ReplacedFileReadsBack) {
  const fs::path dir = folder_with("R.mtx", kOld);
  const Csr<double> A = big_matrix();
  write_matrix_market(dir / "R.mtx", A);
  const Csr<double> B = read_matrix_market_csr<double>(dir / "R.mtx");
  EXPECT_EQ(B.col_idx, A.col_idx);
  EXPECT_EQ(B.values, A.values);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"R.mtx"});
}

// A real failure of the operating system mid-write: a file-size limit
// (RLIMIT_FSIZE's soft limit, with SIGXFSZ ignored so that write(2) answers
// EFBIG), root held to it too; both are restored when it goes.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : old_signal_(std::signal(SIGXFSZ, SIG_IGN)) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit limit = old_;
    limit.rlim_cur = bytes;
    set_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_signal_);
  }
  bool set() const { return set_; }

 private:
  void (*old_signal_)(int);
  rlimit old_{};
  bool set_ = false;
};

TEST(AtomicMatrixMarket, FileSizeLimitLeavesTheOldFile) {
  const Csr<double> A = big_matrix();
  expect_old_file_kept(
      "L.mtx", -1,
      [&A](const fs::path& f) {
        const FileSizeLimit limit(65536);
        ASSERT_TRUE(limit.set());
        write_matrix_market(f, A);
      },
      "': File too large");
}

}  // namespace
}  // namespace balsa
