// Matrix Market reader: the public read functions (the header is read by
// matrix_market_header.cpp, the entries by matrix_market_entries.cpp).
//
// Sizes: at the size line, the declared entries must fit the bytes left in
// the input (check_declared_count), and what the read will allocate from the
// declared rows and columns must fit the memory (one require_host_memory
// per read); a std::bad_alloc later becomes a HostOutOfMemory naming the
// file and what was being built.
#include <istream>
#include <memory>
#include <new>
#include <string>

#include "balsa/matrix_market.hpp"
#include "core/instantiate.hpp"
#include "core/memory.hpp"
#include "sparse/io/matrix_market_entries.hpp"
#include "sparse/io/matrix_market_header.hpp"
#include "sparse/io/matrix_market_lines.hpp"
#include "sparse/io/matrix_market_numbers.hpp"
#include "core/exceptions.hpp"

namespace balsa {
namespace {

using namespace mtx;

// What a read is doing, for the message if memory runs out.
struct Progress {
  const char* doing = "opening the file";
  int64_t line = 0;  // the line reached, when reading (0: none)
};

[[noreturn]] [[gnu::cold]] void out_of_memory(const std::string& name, const Progress& pr) {
  throw HostOutOfMemory(name + (pr.line > 0 ? ":" + str(pr.line) : std::string()) + ": out of memory while " +
                        pr.doing);
}

// One read of an input: its line reader and header, checked at the size line
// (the declared entries must fit the input's bytes). Leaves the line reached
// in `pr` when it ends, even by an exception.
struct Reading {
  const ByteSource& src;
  const std::string& name;
  Progress& pr;
  LineReader lr;
  MtxHeader h;
  Reading(ByteSource& s, const std::string& n, Progress& p)
      : src(s), name(n), pr(p), lr(s, chunk_for(s, kFileChunk)) {
    pr.doing = "reading the header";
    h = parse_header(lr, name, false);
    check_declared_count(lr, src, h);
  }
  Reading(const Reading&) = delete;
  Reading& operator=(const Reading&) = delete;
  ~Reading() { pr.line = lr.line(); }
};

// What the result of a read is, for its memory check.
enum class Result { Triplets, Csr, Dense };

// Before the entries are read: the memory the read will take that grows
// with the declared rows and columns (not with the file's bytes), against
// options.memory_limit (0: host_memory_limit(), else what is available now).
template <class T>
void check_memory(const Reading& r, Result result, const MtxReadOptions& options) {
  const MtxHeader& h = r.h;
  const std::size_t rows = std::size_t(h.rows), cols = std::size_t(h.cols);
  const std::size_t ix = sizeof(index_t);
  std::size_t bytes = 0;
  std::string purpose;
  if (result == Result::Dense) {
    bytes = rows * cols * sizeof(T);
    if (h.format == MtxFormat::Array && h.symmetry != MtxSymmetry::General)
      bytes += std::size_t(h.stored_entries) * sizeof(T);  // the stored triangle, then the matrix
    purpose = "its dense values";
  } else {
    // Triplets take what the file holds; read_matrix_market_csr then converts
    // them with to_csr, whose counting sort holds two arrays of rows + 1 row
    // pointers at a time. A Coo result leaves that step to its caller (to_csr
    // checks it), so that a Coo of any declared size can be read and looked
    // at (entry_census) first.
    if (result == Result::Csr) {
      bytes = 2 * (rows + 1) * ix;
      purpose = "its row pointers (2 arrays of " + str(int64_t(rows) + 1) + " indices when converted to CSR)";
    }
    if (h.format == MtxFormat::Array) {  // an entry per position, whatever the file's bytes
      const bool mirror = h.symmetry != MtxSymmetry::General && options.expand_symmetry;
      const std::size_t n = mirror ? rows * cols : std::size_t(h.stored_entries);
      bytes += n * (2 * ix + sizeof(T)) * (result == Result::Csr ? 2 : 1);
      purpose = "its " + str(int64_t(n)) + " values as triplets" +
                (result == Result::Csr ? " and as CSR and its row pointers" : "");
    }
  }
  if (bytes == 0) return;  // (require_host_memory skips small needs without a limit)
  require_host_memory(bytes,
                      r.name + ":" + str(h.header_lines) + ": a " + str(h.rows) + " x " + str(h.cols) + " matrix",
                      options.memory_limit, purpose);
}

template <class T>
Coo<T> read_coo(ByteSource& src, const std::string& name, const MtxReadOptions& options, MtxHeader* header,
                Progress& pr) {
  Reading r(src, name, pr);
  check_memory<T>(r, Result::Triplets, options);
  pr.doing = "reading the entries into triplets";
  Coo<T> A = read_entries<T>(r.lr, src, name, r.h, options);
  if (header) *header = r.h;
  return A;
}

}  // namespace

template <class T>
Coo<T> read_matrix_market(const std::filesystem::path& file, const MtxReadOptions& options, MtxHeader* header) try {
  const std::string name = file.string();
  Progress pr;
  try {
    const auto src = open_file(file);
    return read_coo<T>(*src, name, options, header, pr);
  } catch (const std::bad_alloc&) {
    out_of_memory(name, pr);
  }
} catch (...) {
  rethrow_as_balsa_error("read_matrix_market");
}

template <class T>
Coo<T> read_matrix_market(std::istream& in, const std::string& name, const MtxReadOptions& options,
                          MtxHeader* header) try {
  Progress pr;
  try {
    StreamSource src(in, name);
    return read_coo<T>(src, name, options, header, pr);
  } catch (const std::bad_alloc&) {
    out_of_memory(name, pr);
  }
} catch (...) {
  rethrow_as_balsa_error("read_matrix_market");
}

template <class T>
Csr<T> read_matrix_market_csr(const std::filesystem::path& file, const MtxReadOptions& options) try {
  const std::string name = file.string();
  Progress pr;
  try {
    Coo<T> A;
    {
      const auto src = open_file(file);
      Reading r(*src, name, pr);
      check_memory<T>(r, Result::Csr, options);
      pr.doing = "reading the entries into triplets";
      A = read_entries<T>(r.lr, *src, name, r.h, options);
    }
    pr.line = 0;
    pr.doing = "converting the triplets to CSR";
    return to_csr(A);
  } catch (const std::bad_alloc&) {
    out_of_memory(name, pr);
  }
} catch (...) {
  rethrow_as_balsa_error("read_matrix_market_csr");
}

template <class T>
DenseMatrix<T> read_matrix_market_dense(const std::filesystem::path& file, const MtxReadOptions& options) try {
  const std::string name = file.string();
  Progress pr;
  try {
    const auto src = open_file(file);
    Reading r(*src, name, pr);
    const MtxHeader& h = r.h;
    const int64_t positions = int64_t(h.rows) * int64_t(h.cols);
    if (h.format == MtxFormat::Coordinate && positions > max_index)
      fail_at(name, h.header_lines,
              "a " + str(h.rows) + " x " + str(h.cols) + " matrix (" + str(positions) +
                  " entries) is too large to read as a dense matrix (at most " + str(max_index) + " entries)");
    check_memory<T>(r, Result::Dense, options);
    if (h.format == MtxFormat::Array) {
      pr.doing = "reading the values of the dense matrix";
      return read_dense_array<T>(r.lr, *src, name, h, options);
    }
    pr.doing = "reading the entries into triplets";
    const Coo<T> A = read_entries<T>(r.lr, *src, name, h, options);
    pr.doing = "building the dense matrix";
    DenseMatrix<T> D(h.rows, h.cols, T(0));
    for (std::size_t k = 0; k < A.values.size(); ++k) D(A.row_idx[k], A.col_idx[k]) += A.values[k];  // duplicates sum
    return D;
  } catch (const std::bad_alloc&) {
    out_of_memory(name, pr);
  }
} catch (...) {
  rethrow_as_balsa_error("read_matrix_market_dense");
}

#define BALSA_INSTANTIATE_MTX_READ(T)                                                                    \
  template Coo<T> read_matrix_market<T>(const std::filesystem::path&, const MtxReadOptions&, MtxHeader*); \
  template Coo<T> read_matrix_market<T>(std::istream&, const std::string&, const MtxReadOptions&,        \
                                        MtxHeader*);                                                     \
  template Csr<T> read_matrix_market_csr<T>(const std::filesystem::path&, const MtxReadOptions&);        \
  template DenseMatrix<T> read_matrix_market_dense<T>(const std::filesystem::path&, const MtxReadOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE_MTX_READ)
#undef BALSA_INSTANTIATE_MTX_READ

}  // namespace balsa
