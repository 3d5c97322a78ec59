// UMFPACK behind balsa::solve's direct fallback (solve/umfpack.hpp). A's
// CSR arrays are the CSC arrays of A^T, so A x = b is UMFPACK's transposed
// solve (UMFPACK_At) of the matrix it is given. The 64-bit interface
// (umfpack_dl_*): the 32-bit one runs out of index range on large 3D
// problems (and says "out of memory").
#include "solve/umfpack.hpp"

#include <umfpack.h>

#include <memory>
#include <vector>

#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"

namespace balsa::direct {

namespace {
struct Symbolic {
  void* p = nullptr;
  ~Symbolic() { if (p) umfpack_dl_free_symbolic(&p); }
};
struct Numeric {
  void* p = nullptr;
  ~Numeric() { if (p) umfpack_dl_free_numeric(&p); }
};
std::string status_words(SuiteSparse_long status) {
  switch (status) {
    case UMFPACK_ERROR_out_of_memory: return "out of memory";
    case UMFPACK_WARNING_singular_matrix: return "the matrix is numerically singular (a zero pivot)";
    case UMFPACK_ERROR_invalid_matrix: return "invalid matrix";
    default: return "status " + std::to_string(status);
  }
}
}  // namespace

template <class T>
UmfpackResult umfpack_solve(const Csr<T>& A, std::span<const T> b, std::span<T> x) try {
  UmfpackResult r;
  const SuiteSparse_long n = A.rows;
  const std::vector<SuiteSparse_long> ptr(A.row_ptr.begin(), A.row_ptr.end()), idx(A.col_idx.begin(), A.col_idx.end());
  std::vector<double> values(A.values.begin(), A.values.end()), bd(b.begin(), b.end()), xd(b.size());
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  umfpack_dl_defaults(control);
  const auto t0 = Clock::now();
  Symbolic sym;
  Numeric num;
  SuiteSparse_long status = umfpack_dl_symbolic(n, n, ptr.data(), idx.data(), values.data(), &sym.p, control, info);
  if (status == UMFPACK_OK) status = umfpack_dl_numeric(ptr.data(), idx.data(), values.data(), sym.p,
                                                        &num.p, control, info);
  r.rcond = info[UMFPACK_RCOND];
  r.factor_seconds = seconds_since(t0);
  if (status == UMFPACK_ERROR_out_of_memory)
    throw HostOutOfMemory("UMFPACK: out of host memory factoring A (n = " + std::to_string(n) + ", " +
                          std::to_string(A.nnz()) + " entries)");
  if (status != UMFPACK_OK) {
    r.singular = status == UMFPACK_WARNING_singular_matrix;
    r.message = "UMFPACK: " + status_words(status);
    return r;
  }
  const auto t1 = Clock::now();
  status = umfpack_dl_solve(UMFPACK_At, ptr.data(), idx.data(), values.data(), xd.data(), bd.data(),
                            num.p, control, info);
  r.solve_seconds = seconds_since(t1);
  if (status != UMFPACK_OK) {
    r.message = "UMFPACK solve: " + status_words(status);
    return r;
  }
  for (std::size_t i = 0; i < xd.size(); ++i) x[i] = T(xd[i]);
  r.ok = true;
  return r;
} catch (...) {
  rethrow_as_balsa_error("umfpack_solve");
}

#define BALSA_INSTANTIATE(T) template UmfpackResult umfpack_solve(const Csr<T>&, std::span<const T>, std::span<T>);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::direct
