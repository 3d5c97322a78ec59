// UMFPACK behind balsa::solve's direct fallback (solve/umfpack.hpp). A's
// CSR arrays are the CSC arrays of A^T, so A x = b is UMFPACK's transposed
// solve (UMFPACK_At) of the matrix it is given: no conversion.
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
  ~Symbolic() { if (p) umfpack_di_free_symbolic(&p); }
};
struct Numeric {
  void* p = nullptr;
  ~Numeric() { if (p) umfpack_di_free_numeric(&p); }
};
std::string status_words(int status) {
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
  const index_t n = A.rows;
  std::vector<double> values(A.values.begin(), A.values.end()), bd(b.begin(), b.end()), xd(b.size());
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  umfpack_di_defaults(control);
  const auto t0 = Clock::now();
  Symbolic sym;
  Numeric num;
  int status = umfpack_di_symbolic(n, n, A.row_ptr.data(), A.col_idx.data(), values.data(), &sym.p, control, info);
  if (status == UMFPACK_OK) status = umfpack_di_numeric(A.row_ptr.data(), A.col_idx.data(), values.data(), sym.p,
                                                        &num.p, control, info);
  r.rcond = info[UMFPACK_RCOND];
  r.factor_seconds = seconds_since(t0);
  if (status == UMFPACK_ERROR_out_of_memory) throw HostOutOfMemory("UMFPACK: out of host memory factoring A");
  if (status != UMFPACK_OK) {
    r.singular = status == UMFPACK_WARNING_singular_matrix;
    r.message = "UMFPACK: " + status_words(status);
    return r;
  }
  const auto t1 = Clock::now();
  status = umfpack_di_solve(UMFPACK_At, A.row_ptr.data(), A.col_idx.data(), values.data(), xd.data(), bd.data(),
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
