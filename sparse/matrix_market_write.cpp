// Matrix Market writer.
//
// Every check (structure, symmetry, integral values) runs before the first
// byte is written, so a rejected matrix leaves no partial file behind. The
// text is built in a large buffer with std::to_chars (shortest round-trip
// form for values) and handed to the file or stream in large blocks.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "balsa/matrix_market.hpp"
#include "sparse/instantiate.hpp"

namespace balsa {

const char* to_string(MtxFormat f) {
  switch (f) {
    case MtxFormat::Coordinate: return "coordinate";
    case MtxFormat::Array: return "array";
  }
  return "unknown";
}

const char* to_string(MtxField f) {
  switch (f) {
    case MtxField::Real: return "real";
    case MtxField::Integer: return "integer";
    case MtxField::Pattern: return "pattern";
    case MtxField::Complex: return "complex";
  }
  return "unknown";
}

const char* to_string(MtxSymmetry s) {
  switch (s) {
    case MtxSymmetry::General: return "general";
    case MtxSymmetry::Symmetric: return "symmetric";
    case MtxSymmetry::SkewSymmetric: return "skew-symmetric";
    case MtxSymmetry::Hermitian: return "hermitian";
  }
  return "unknown";
}

namespace {

using std::int64_t;

std::string str(int64_t v) { return std::to_string(v); }

template <class T>
std::string value_str(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// ---- output ---------------------------------------------------------------

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const char* data, std::size_t n) = 0;
  virtual void finish() {}
};

class FileSink final : public ByteSink {
 public:
  explicit FileSink(const std::filesystem::path& file) : name_(file.string()) {
    do {
      fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) throw Error("cannot open '" + name_ + "' for writing: " + std::strerror(errno));
  }
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  ~FileSink() override {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(const char* data, std::size_t n) override {
    while (n > 0) {
      const ssize_t w = ::write(fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw Error("cannot write '" + name_ + "': " + std::strerror(errno));
      }
      data += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  void finish() override {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error("cannot write '" + name_ + "': " + std::strerror(errno));
  }

 private:
  std::string name_;
  int fd_ = -1;
};

class StreamSink final : public ByteSink {
 public:
  explicit StreamSink(std::ostream& out) : out_(out) {
    if (!out_) throw Error("cannot write Matrix Market data: the output stream is in a failed state");
  }
  void write(const char* data, std::size_t n) override {
    out_.write(data, static_cast<std::streamsize>(n));
    if (!out_) throw Error("cannot write Matrix Market data: the output stream failed");
  }
  void finish() override {
    out_.flush();
    if (!out_) throw Error("cannot write Matrix Market data: the output stream failed");
  }

 private:
  std::ostream& out_;
};

// Text is appended at ptr(); room(n) makes sure n more bytes fit.
class OutBuffer {
 public:
  static constexpr std::size_t kBlock = std::size_t(4) << 20;
  static constexpr std::size_t kSlack = 1024;  // one entry line always fits

  explicit OutBuffer(ByteSink& sink) : sink_(sink), buf_(new char[kBlock + kSlack]), end_(buf_.get()) {}

  char* room() {
    if (end_ - buf_.get() >= static_cast<std::ptrdiff_t>(kBlock)) flush();
    return end_;
  }
  void commit(char* p) { end_ = p; }
  void append(std::string_view text) {
    while (!text.empty()) {
      char* p = room();
      const std::size_t n = std::min(text.size(), kSlack);
      std::memcpy(p, text.data(), n);
      end_ = p + n;
      text.remove_prefix(n);
    }
  }
  void flush() {
    sink_.write(buf_.get(), static_cast<std::size_t>(end_ - buf_.get()));
    end_ = buf_.get();
  }
  void finish() {
    flush();
    sink_.finish();
  }

 private:
  ByteSink& sink_;
  std::unique_ptr<char[]> buf_;
  char* end_;
};

inline char* put_index(char* p, int64_t i) { return std::to_chars(p, p + 24, i).ptr; }

// A value as the field writes it (at most ~330 characters: an integral value
// near the largest double in fixed notation).
template <class T>
inline char* put_value(char* p, T v, MtxField field) {
  if (field == MtxField::Integer) {
    if (std::abs(v) < T(9.2e18)) return std::to_chars(p, p + 24, static_cast<long long>(v)).ptr;
    return std::to_chars(p, p + 400, v, std::chars_format::fixed).ptr;
  }
  return std::to_chars(p, p + 64, v).ptr;
}

void check_options(const MtxWriteOptions& o, MtxFormat format) {
  if (o.field == MtxField::Complex || o.symmetry == MtxSymmetry::Hermitian)
    throw Error("cannot write Matrix Market: complex data is not supported (balsa writes real values; field " +
                std::string(to_string(o.field)) + ", symmetry " + to_string(o.symmetry) + ")");
  if (o.field == MtxField::Pattern && format == MtxFormat::Array)
    throw Error("cannot write Matrix Market: the pattern field is not allowed with the array format");
  if (o.field == MtxField::Pattern && o.symmetry == MtxSymmetry::SkewSymmetric)
    throw Error("cannot write Matrix Market: the pattern field cannot be skew-symmetric");
}

template <class T>
void check_integral(T v, int64_t i, int64_t j) {
  if (!std::isfinite(v) || std::trunc(v) != v)
    throw MatrixError("the integer field needs integral values, but A(" + str(i) + ", " + str(j) +
                      ") = " + value_str(v));
}

template <class T>
bool same(T a, T b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

void header(OutBuffer& out, MtxFormat format, const MtxWriteOptions& o, int64_t rows, int64_t cols,
            int64_t entries) {
  std::string h = "%%MatrixMarket matrix ";
  h += to_string(format);
  h += ' ';
  h += to_string(o.field);
  h += ' ';
  h += to_string(o.symmetry);
  h += '\n';
  std::string_view c = o.comment;
  while (!c.empty()) {
    const std::size_t nl = c.find('\n');
    const std::string_view line = c.substr(0, nl);
    h += '%';
    h += line;
    h += '\n';
    if (nl == std::string_view::npos) break;
    c.remove_prefix(nl + 1);
  }
  h += str(rows) + ' ' + str(cols);
  if (format == MtxFormat::Coordinate) h += ' ' + str(entries);
  h += '\n';
  out.append(h);
}

// ---- coordinate -----------------------------------------------------------

// Throws MatrixError unless A equals s * A^T (s = 1 symmetric, -1 skew; for
// the pattern field only the positions count). Duplicates are summed.
template <class T>
void check_mirror(const Csr<T>& A, const MtxWriteOptions& o) {
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  const bool pattern = o.field == MtxField::Pattern;
  const index_t n = A.rows;
  // U^T: the strictly upper entries, transposed into rows (counting sort).
  std::vector<index_t> ptr(std::size_t(n) + 1, 0);
  for (index_t r = 0; r < n; ++r)
    for (index_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      if (A.col_idx[k] > r) ++ptr[A.col_idx[k] + 1];
  for (index_t r = 0; r < n; ++r) ptr[r + 1] += ptr[r];
  std::vector<index_t> ut_col(ptr[n]);
  std::vector<T> ut_val(ptr[n]);
  {
    std::vector<index_t> next(ptr.begin(), ptr.end() - 1);
    for (index_t r = 0; r < n; ++r)
      for (index_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
        if (A.col_idx[k] > r) {
          const index_t dst = next[A.col_idx[k]]++;
          ut_col[dst] = r;
          ut_val[dst] = A.values[k];
        }
  }
  std::vector<T> low(n, T(0)), up(n, T(0));
  std::vector<char> has_low(n, 0), has_up(n, 0);
  std::vector<index_t> touched;
  for (index_t i = 0; i < n; ++i) {
    touched.clear();
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const index_t j = A.col_idx[k];
      if (j == i && skew && A.values[k] != T(0))
        throw MatrixError("a skew-symmetric matrix needs a zero diagonal, but A(" + str(i) + ", " + str(i) +
                          ") = " + value_str(A.values[k]));
      if (j >= i) continue;
      if (!has_low[j] && !has_up[j]) touched.push_back(j);
      has_low[j] = 1;
      low[j] += A.values[k];
    }
    for (index_t k = ptr[i]; k < ptr[i + 1]; ++k) {
      const index_t j = ut_col[k];
      if (!has_low[j] && !has_up[j]) touched.push_back(j);
      has_up[j] = 1;
      up[j] += ut_val[k];
    }
    for (const index_t j : touched) {
      // lower entry (i, j) against its mirror (j, i)
      const bool ok = pattern ? (has_low[j] && has_up[j]) : same(low[j], skew ? T(-up[j]) : up[j]);
      if (!ok) {
        auto describe = [&](bool has, T v, index_t r, index_t c) {
          const std::string at = "A(" + str(r) + ", " + str(c) + ")";
          if (!has) return at + " is not stored";
          return pattern ? at + " is stored" : at + " = " + value_str(v);
        };
        throw MatrixError(std::string("the matrix is not ") + to_string(o.symmetry) + ": " +
                          describe(has_low[j], low[j], i, j) + " but its mirror " +
                          describe(has_up[j], up[j], j, i) + " (0-based row, column)");
      }
      low[j] = up[j] = T(0);
      has_low[j] = has_up[j] = 0;
    }
  }
}

// Checks everything and returns the number of entry lines.
template <class T>
int64_t check_csr(const Csr<T>& A, const MtxWriteOptions& o) {
  check_options(o, MtxFormat::Coordinate);
  validate(A);
  const bool lower_only = o.symmetry != MtxSymmetry::General;
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  if (lower_only) {
    if (A.rows != A.cols)
      throw MatrixError(std::string("a ") + to_string(o.symmetry) + " Matrix Market file needs a square matrix, got " +
                        str(A.rows) + " x " + str(A.cols));
    check_mirror(A, o);
  }
  int64_t count = 0;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const index_t j = A.col_idx[k];
      if (lower_only && (j > i || (skew && j == i))) continue;
      if (o.field == MtxField::Integer) check_integral(A.values[k], i, j);
      ++count;
    }
  return count;
}

template <class T>
void emit_csr(ByteSink& sink, const Csr<T>& A, const MtxWriteOptions& o, int64_t count) {
  const MtxField field = o.field;
  const bool lower_only = o.symmetry != MtxSymmetry::General;
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  OutBuffer out(sink);
  header(out, MtxFormat::Coordinate, o, A.rows, A.cols, count);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const index_t j = A.col_idx[k];
      if (lower_only && (j > i || (skew && j == i))) continue;
      char* p = out.room();
      p = put_index(p, int64_t(i) + 1);
      *p++ = ' ';
      p = put_index(p, int64_t(j) + 1);
      if (field != MtxField::Pattern) {
        *p++ = ' ';
        p = put_value(p, A.values[k], field);
      }
      *p++ = '\n';
      out.commit(p);
    }
  out.finish();
}

// ---- array ----------------------------------------------------------------

template <class T>
void check_dense(const DenseMatrix<T>& A, const MtxWriteOptions& o) {
  check_options(o, MtxFormat::Array);
  const MtxField field = o.field;
  const bool lower_only = o.symmetry != MtxSymmetry::General;
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  if (A.rows < 0 || A.cols < 0 ||
      A.values.size() != static_cast<std::size_t>(A.rows) * static_cast<std::size_t>(A.cols))
    throw MatrixError("dense matrix of " + str(A.rows) + " x " + str(A.cols) + " holds " +
                      str(int64_t(A.values.size())) + " values");
  if (lower_only) {
    if (A.rows != A.cols)
      throw MatrixError(std::string("a ") + to_string(o.symmetry) + " Matrix Market file needs a square matrix, got " +
                        str(A.rows) + " x " + str(A.cols));
    for (index_t j = 0; j < A.cols; ++j) {
      if (skew && A(j, j) != T(0))
        throw MatrixError("a skew-symmetric matrix needs a zero diagonal, but A(" + str(j) + ", " + str(j) +
                          ") = " + value_str(A(j, j)));
      for (index_t i = j + 1; i < A.rows; ++i) {
        const T lo = A(i, j), hi = A(j, i);
        if (!same(lo, skew ? T(-hi) : hi))
          throw MatrixError(std::string("the matrix is not ") + to_string(o.symmetry) + ": A(" + str(i) + ", " +
                            str(j) + ") = " + value_str(lo) + " but its mirror A(" + str(j) + ", " + str(i) +
                            ") = " + value_str(hi) + " (0-based row, column)");
      }
    }
  }
  auto first_row = [&](index_t j) { return lower_only ? (skew ? j + 1 : j) : 0; };
  if (field == MtxField::Integer)
    for (index_t j = 0; j < A.cols; ++j)
      for (index_t i = first_row(j); i < A.rows; ++i) check_integral(A(i, j), i, j);
}

template <class T>
void emit_dense(ByteSink& sink, const DenseMatrix<T>& A, const MtxWriteOptions& o) {
  const MtxField field = o.field;
  const bool lower_only = o.symmetry != MtxSymmetry::General;
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  auto first_row = [&](index_t j) { return lower_only ? (skew ? j + 1 : j) : 0; };
  OutBuffer out(sink);
  header(out, MtxFormat::Array, o, A.rows, A.cols, 0);
  for (index_t j = 0; j < A.cols; ++j)
    for (index_t i = first_row(j); i < A.rows; ++i) {
      char* p = out.room();
      p = put_value(p, A(i, j), field);
      *p++ = '\n';
      out.commit(p);
    }
  out.finish();
}

}  // namespace

template <class T>
void write_matrix_market(const std::filesystem::path& file, const Csr<T>& A, const MtxWriteOptions& options) {
  const int64_t count = check_csr(A, options);  // before the file is created
  FileSink sink(file);
  emit_csr(sink, A, options, count);
}

template <class T>
void write_matrix_market(std::ostream& out, const Csr<T>& A, const MtxWriteOptions& options) {
  const int64_t count = check_csr(A, options);
  StreamSink sink(out);
  emit_csr(sink, A, options, count);
}

template <class T>
void write_matrix_market(const std::filesystem::path& file, const DenseMatrix<T>& A, const MtxWriteOptions& options) {
  check_dense(A, options);
  FileSink sink(file);
  emit_dense(sink, A, options);
}

template <class T>
void write_matrix_market(std::ostream& out, const DenseMatrix<T>& A, const MtxWriteOptions& options) {
  check_dense(A, options);
  StreamSink sink(out);
  emit_dense(sink, A, options);
}

#define BALSA_INSTANTIATE_MTX_WRITE(T)                                                                          \
  template void write_matrix_market<T>(const std::filesystem::path&, const Csr<T>&, const MtxWriteOptions&);    \
  template void write_matrix_market<T>(std::ostream&, const Csr<T>&, const MtxWriteOptions&);                   \
  template void write_matrix_market<T>(const std::filesystem::path&, const DenseMatrix<T>&,                     \
                                       const MtxWriteOptions&);                                                 \
  template void write_matrix_market<T>(std::ostream&, const DenseMatrix<T>&, const MtxWriteOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE_MTX_WRITE)
#undef BALSA_INSTANTIATE_MTX_WRITE

}  // namespace balsa
