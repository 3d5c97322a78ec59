// Matrix Market writer.
//
// Every check (structure, symmetry, integral values) runs before the first
// byte is written, and a file goes to a temporary file renamed over it at the
// end (FileSink, core/atomic_file.hpp), so a rejected matrix or a failed
// write leaves the old file as it was and no partial file behind. The
// text is built in a large buffer with std::to_chars (shortest round-trip
// form for values) and handed to the file or stream in large blocks.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "balsa/matrix_market.hpp"
#include "core/instantiate.hpp"
#include "sparse/io/matrix_market_output.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

using namespace mtx;
using std::int64_t;

std::string str(int64_t v) { return std::to_string(v); }

// Messages name matrix positions as C++ indexes them, A(i, j) from 0, and
// say so: the file would number the same entry (i + 1, j + 1).
constexpr const char* kZeroBased = " (0-based row, column)";

template <class T>
std::string value_str(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

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
                      ") = " + value_str(v) + kZeroBased);
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
// the pattern field only the positions count): the canonical matrix C
// (duplicates summed) is compared with its transpose, whose row i below the
// diagonal holds the mirrors C(j, i) of the entries C(i, j), j < i.
template <class T>
void check_mirror(const Csr<T>& A, const MtxWriteOptions& o) {
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  const bool pattern = o.field == MtxField::Pattern;
  Csr<T> summed;
  const bool canonical = is_canonical(A);
  if (!canonical) summed = to_csr(to_coo(A));
  const Csr<T>& C = canonical ? A : summed;
  const Csr<T> Ct = transpose(C);
  for (index_t i = 0; i < C.rows; ++i) {
    index_t a = C.row_ptr[i], b = Ct.row_ptr[i];
    const index_t a_end = C.row_ptr[i + 1], b_end = Ct.row_ptr[i + 1];
    if (skew) {
      const auto row_end = C.col_idx.begin() + a_end;
      const auto d = std::lower_bound(C.col_idx.begin() + a, row_end, i);
      if (d != row_end && *d == i && C.values[std::size_t(d - C.col_idx.begin())] != T(0))
        throw MatrixError("a skew-symmetric matrix needs a zero diagonal, but A(" + str(i) + ", " + str(i) +
                          ") = " + value_str(C.values[std::size_t(d - C.col_idx.begin())]) + kZeroBased);
    }
    for (;;) {  // merge the two rows' entries left of the diagonal
      const index_t ja = a < a_end ? C.col_idx[a] : i;
      const index_t jb = b < b_end ? Ct.col_idx[b] : i;
      const index_t j = std::min(ja, jb);
      if (j >= i) break;
      const bool has_low = ja == j, has_up = jb == j;
      const T low = has_low ? C.values[a++] : T(0);
      const T up = has_up ? Ct.values[b++] : T(0);
      if (pattern ? (has_low && has_up) : same(low, skew ? T(-up) : up)) continue;
      auto describe = [&](bool has, T v, index_t r, index_t c) {
        const std::string at = "A(" + str(r) + ", " + str(c) + ")";
        if (!has) return at + " is not stored";
        return pattern ? at + " is stored" : at + " = " + value_str(v);
      };
      throw MatrixError(std::string("the matrix is not ") + to_string(o.symmetry) + ": " +
                        describe(has_low, low, i, j) + " but its mirror " + describe(has_up, up, j, i) +
                        kZeroBased);
    }
  }
}

// check_mirror of triplets sorted by (row, column) without duplicates: each
// off-diagonal entry's mirror found by binary search; the failure reported
// is the one check_mirror reports (the same message for the same matrix).
template <class T>
void check_mirror_coo(const Coo<T>& A, const MtxWriteOptions& o) {
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  const bool pattern = o.field == MtxField::Pattern;
  const auto at = [&A](index_t i, index_t j) -> std::ptrdiff_t {  // the entry (i, j), or -1
    std::size_t lo = 0, hi = A.values.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (std::pair(A.row_idx[mid], A.col_idx[mid]) < std::pair(i, j))
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < A.values.size() && A.row_idx[lo] == i && A.col_idx[lo] == j ? std::ptrdiff_t(lo) : -1;
  };
  // The first failure in check_mirror's order: by row i, a nonzero skew
  // diagonal (kind 0) before a mirror mismatch at (i, j), j < i (kind 1).
  std::tuple<index_t, int, index_t> first{-1, 0, 0};
  const auto fail = [&first](index_t i, int kind, index_t j) {
    if (std::get<0>(first) < 0 || std::tuple(i, kind, j) < first) first = {i, kind, j};
  };
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    const index_t i = A.row_idx[k], j = A.col_idx[k];
    if (i == j) {
      if (skew && A.values[k] != T(0)) fail(i, 0, i);
      continue;
    }
    const std::ptrdiff_t m = at(j, i);
    const T mirror = m >= 0 ? A.values[std::size_t(m)] : T(0);
    if (!(pattern ? m >= 0 : same(A.values[k], skew ? T(-mirror) : mirror))) fail(std::max(i, j), 1, std::min(i, j));
  }
  const auto [i, kind, j] = first;
  if (i < 0) return;
  const std::ptrdiff_t a = at(i, j), b = at(j, i);
  if (kind == 0)
    throw MatrixError("a skew-symmetric matrix needs a zero diagonal, but A(" + str(i) + ", " + str(i) + ") = " +
                      value_str(A.values[std::size_t(a)]) + kZeroBased);
  auto describe = [&](std::ptrdiff_t e, index_t r, index_t c) {
    const std::string pos = "A(" + str(r) + ", " + str(c) + ")";
    if (e < 0) return pos + " is not stored";
    return pattern ? pos + " is stored" : pos + " = " + value_str(A.values[std::size_t(e)]);
  };
  throw MatrixError(std::string("the matrix is not ") + to_string(o.symmetry) + ": " + describe(a, i, j) +
                    " but its mirror " + describe(b, j, i) + kZeroBased);
}

// Calls f(i, j, value) for each stored entry, row by row.
template <class T, class F>
void for_each_entry(const Csr<T>& A, F&& f) {
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) f(i, A.col_idx[k], A.values[k]);
}
template <class T, class F>
void for_each_entry(const Coo<T>& A, F&& f) {
  for (std::size_t k = 0; k < A.values.size(); ++k) f(A.row_idx[k], A.col_idx[k], A.values[k]);
}

// The square shape symmetric storage needs.
void check_square(index_t rows, index_t cols, const MtxWriteOptions& o) {
  if (o.symmetry != MtxSymmetry::General && rows != cols)
    throw MatrixError(std::string("a ") + to_string(o.symmetry) + " Matrix Market file needs a square matrix, got " +
                      str(rows) + " x " + str(cols));
}

// Checks the entries written (integral values) and returns their count.
template <class M>
int64_t count_written(const M& A, const MtxWriteOptions& o) {
  const bool lower_only = o.symmetry != MtxSymmetry::General;
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  int64_t count = 0;
  for_each_entry(A, [&](index_t i, index_t j, auto v) {
    if (lower_only && (j > i || (skew && j == i))) return;
    if (o.field == MtxField::Integer) check_integral(v, i, j);
    ++count;
  });
  return count;
}

// Checks everything and returns the number of entry lines.
template <class T>
int64_t check_csr(const Csr<T>& A, const MtxWriteOptions& o) {
  check_options(o, MtxFormat::Coordinate);
  validate(A);
  check_square(A.rows, A.cols, o);
  if (o.symmetry != MtxSymmetry::General) check_mirror(A, o);
  return count_written(A, o);
}

// The same for triplets sorted by (row, column) without duplicates
// (sorted_coo): the mirror check searches the triplets themselves
// (check_mirror_coo), so nothing is sized by the declared rows.
template <class T>
int64_t check_sorted_coo(const Coo<T>& A, const MtxWriteOptions& o) {
  check_options(o, MtxFormat::Coordinate);
  check_square(A.rows, A.cols, o);
  if (o.symmetry != MtxSymmetry::General) check_mirror_coo(A, o);
  return count_written(A, o);
}

// Writes the header and the entry lines of A (Csr, or sorted Coo).
template <class M>
void emit_entries(ByteSink& sink, const M& A, const MtxWriteOptions& o, int64_t count) {
  const MtxField field = o.field;
  const bool lower_only = o.symmetry != MtxSymmetry::General;
  const bool skew = o.symmetry == MtxSymmetry::SkewSymmetric;
  OutBuffer out(sink);
  header(out, MtxFormat::Coordinate, o, A.rows, A.cols, count);
  for_each_entry(A, [&](index_t i, index_t j, auto v) {
    if (lower_only && (j > i || (skew && j == i))) return;
    char* p = out.room();
    p = put_index(p, int64_t(i) + 1);
    *p++ = ' ';
    p = put_index(p, int64_t(j) + 1);
    if (field != MtxField::Pattern) {
      *p++ = ' ';
      p = put_value(p, v, field);
    }
    *p++ = '\n';
    out.commit(p);
  });
  out.finish();
}

// Triplets sorted, checked, then written to the sink `open` makes (a file
// is created only after the checks).
template <class T, class Open>
void write_coo(const Coo<T>& A, const MtxWriteOptions& o, Open&& open) {
  const Coo<T> C = sorted_coo(A);
  const int64_t count = check_sorted_coo(C, o);
  auto sink = open();
  emit_entries(sink, C, o, count);
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
                          ") = " + value_str(A(j, j)) + kZeroBased);
      for (index_t i = j + 1; i < A.rows; ++i) {
        const T lo = A(i, j), hi = A(j, i);
        if (!same(lo, skew ? T(-hi) : hi))
          throw MatrixError(std::string("the matrix is not ") + to_string(o.symmetry) + ": A(" + str(i) + ", " +
                            str(j) + ") = " + value_str(lo) + " but its mirror A(" + str(j) + ", " + str(i) +
                            ") = " + value_str(hi) + kZeroBased);
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
void write_matrix_market(const std::filesystem::path& file, const Csr<T>& A, const MtxWriteOptions& options) try {
  const int64_t count = check_csr(A, options);  // before the file is created
  FileSink sink(file);
  emit_entries(sink, A, options, count);
} catch (...) {
  rethrow_as_balsa_error("write_matrix_market");
}

template <class T>
void write_matrix_market(std::ostream& out, const Csr<T>& A, const MtxWriteOptions& options) try {
  const int64_t count = check_csr(A, options);
  StreamSink sink(out);
  emit_entries(sink, A, options, count);
} catch (...) {
  rethrow_as_balsa_error("write_matrix_market");
}

template <class T>
void write_matrix_market(const std::filesystem::path& file, const Coo<T>& A, const MtxWriteOptions& options) try {
  write_coo(A, options, [&file] { return FileSink(file); });
} catch (...) {
  rethrow_as_balsa_error("write_matrix_market");
}

template <class T>
void write_matrix_market(std::ostream& out, const Coo<T>& A, const MtxWriteOptions& options) try {
  write_coo(A, options, [&out] { return StreamSink(out); });
} catch (...) {
  rethrow_as_balsa_error("write_matrix_market");
}

template <class T>
void write_matrix_market(const std::filesystem::path& file, const DenseMatrix<T>& A, const MtxWriteOptions& options) try {
  check_dense(A, options);
  FileSink sink(file);
  emit_dense(sink, A, options);
} catch (...) {
  rethrow_as_balsa_error("write_matrix_market");
}

template <class T>
void write_matrix_market(std::ostream& out, const DenseMatrix<T>& A, const MtxWriteOptions& options) try {
  check_dense(A, options);
  StreamSink sink(out);
  emit_dense(sink, A, options);
} catch (...) {
  rethrow_as_balsa_error("write_matrix_market");
}

#define BALSA_INSTANTIATE_MTX_WRITE(T)                                                                          \
  template void write_matrix_market<T>(const std::filesystem::path&, const Csr<T>&, const MtxWriteOptions&);    \
  template void write_matrix_market<T>(std::ostream&, const Csr<T>&, const MtxWriteOptions&);                   \
  template void write_matrix_market<T>(const std::filesystem::path&, const Coo<T>&, const MtxWriteOptions&);    \
  template void write_matrix_market<T>(std::ostream&, const Coo<T>&, const MtxWriteOptions&);                   \
  template void write_matrix_market<T>(const std::filesystem::path&, const DenseMatrix<T>&,                     \
                                       const MtxWriteOptions&);                                                 \
  template void write_matrix_market<T>(std::ostream&, const DenseMatrix<T>&, const MtxWriteOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE_MTX_WRITE)
#undef BALSA_INSTANTIATE_MTX_WRITE

}  // namespace balsa
