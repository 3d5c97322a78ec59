// Structure validation: every function that accepts user-built arrays calls
// these first, so malformed input is an error and never an out-of-range read.
#include <string>

#include "balsa/sparse.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {
std::string s(std::int64_t v) { return std::to_string(v); }

// Position of the first bad index of outer slice o (out of [0, inner), or,
// with require_sorted, not above its predecessor), or -1.
inline index_t first_bad_index(index_t o, index_t inner, const std::vector<index_t>& ptr,
                               const std::vector<index_t>& idx, bool require_sorted) {
  for (index_t k = ptr[o]; k < ptr[o + 1]; ++k)
    if (idx[k] < 0 || idx[k] >= inner || (require_sorted && k > ptr[o] && idx[k] <= idx[k - 1])) return k;
  return -1;
}

// Shared check of compressed storage: `outer` rows (CSR) or columns (CSC).
// The scans are parallel; each names the first bad slice, as a serial scan would.
template <class T>
void validate_compressed(const char* kind, const char* outer_name, const char* inner_name, index_t outer,
                         index_t inner, const std::vector<index_t>& ptr, const std::vector<index_t>& idx,
                         const std::vector<T>& val, bool require_sorted) {
  if (outer < 0 || inner < 0) throw MatrixError(std::string(kind) + ": negative dimensions");
  if (ptr.size() != std::size_t(outer) + 1)
    throw MatrixError(std::string(kind) + ": pointer array has " + s(std::int64_t(ptr.size())) + " entries, expected " +
                      s(std::int64_t(outer) + 1));
  if (ptr[0] != 0) throw MatrixError(std::string(kind) + ": pointer array must start at 0, starts at " + s(ptr[0]));
  if (idx.size() != std::size_t(ptr[outer]) || val.size() != idx.size())
    throw MatrixError(std::string(kind) + ": pointer array ends at " + s(ptr[outer]) + " but there are " +
                      s(std::int64_t(idx.size())) + " indices and " + s(std::int64_t(val.size())) + " values");
  // The whole pointer array first, so the index scan below never reads past the end.
  if (const index_t o = parallel::first_where(outer, [&](index_t r) { return ptr[r + 1] < ptr[r]; }); o < outer)
    throw MatrixError(std::string(kind) + ": pointer array decreases at " + outer_name + " " + s(o));
  const index_t o = parallel::first_where(
      outer, [&](index_t r) { return first_bad_index(r, inner, ptr, idx, require_sorted) >= 0; });
  if (o == outer) return;
  const index_t k = first_bad_index(o, inner, ptr, idx, require_sorted);
  if (idx[k] < 0 || idx[k] >= inner)
    throw MatrixError(std::string(kind) + ": " + outer_name + " " + s(o) + " has " + inner_name + " index " +
                      s(idx[k]) + " outside [0, " + s(inner) + ")");
  throw MatrixError(std::string(kind) + ": " + outer_name + " " + s(o) + " has " + inner_name +
                    " indices not strictly increasing (" + s(idx[k - 1]) + " then " + s(idx[k]) + ")");
}
}  // namespace

template <class T>
void validate(const Csr<T>& A, bool require_sorted) try {
  validate_compressed("CSR", "row", "column", A.rows, A.cols, A.row_ptr, A.col_idx, A.values, require_sorted);
} catch (...) {
  rethrow_as_balsa_error("validate");
}

template <class T>
void validate(const Csc<T>& A, bool require_sorted) try {
  validate_compressed("CSC", "column", "row", A.cols, A.rows, A.col_ptr, A.row_idx, A.values, require_sorted);
} catch (...) {
  rethrow_as_balsa_error("validate");
}

template <class T>
void validate(const Coo<T>& A) try {
  if (A.rows < 0 || A.cols < 0) throw MatrixError("COO: negative dimensions");
  if (A.row_idx.size() != A.values.size() || A.col_idx.size() != A.values.size())
    throw MatrixError("COO: " + s(std::int64_t(A.row_idx.size())) + " row indices, " +
                      s(std::int64_t(A.col_idx.size())) + " column indices and " +
                      s(std::int64_t(A.values.size())) + " values");
  for (std::size_t k = 0; k < A.values.size(); ++k)
    if (A.row_idx[k] < 0 || A.row_idx[k] >= A.rows || A.col_idx[k] < 0 || A.col_idx[k] >= A.cols)
      throw MatrixError("COO: entry " + s(std::int64_t(k)) + " at (" + s(A.row_idx[k]) + ", " + s(A.col_idx[k]) +
                        ") is outside the " + s(A.rows) + " x " + s(A.cols) + " matrix");
} catch (...) {
  rethrow_as_balsa_error("validate");
}

template <class T>
bool is_canonical(const Csr<T>& A) try {
  try {
    validate(A, true);
    return true;
  } catch (const MatrixError&) {
    return false;
  }
} catch (...) {
  rethrow_as_balsa_error("is_canonical");
}

#define BALSA_INSTANTIATE(T)                          \
  template void validate(const Csr<T>&, bool);        \
  template void validate(const Csc<T>&, bool);        \
  template void validate(const Coo<T>&);              \
  template bool is_canonical(const Csr<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
template void validate(const Csr<index_t>&, bool);

}  // namespace balsa
