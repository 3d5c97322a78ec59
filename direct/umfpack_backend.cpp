// UMFPACK's multifrontal LU behind DirectSolver (direct/backend.hpp), the
// 64-bit interface (umfpack_dl_*). A's CSR arrays are the CSC arrays of
// A^T: UMFPACK factors A^T and solves A x = b as its transposed system
// (UMFPACK_At), one column at a time, with its iterative refinement.
//
// Counts: the symbolic analysis' estimates (Info[UMFPACK_LNZ_ESTIMATE] +
// [UMFPACK_UNZ_ESTIMATE], [UMFPACK_FLOPS_ESTIMATE], and
// [UMFPACK_PEAK_MEMORY_ESTIMATE], in Units of Info[UMFPACK_SIZE_OF_UNIT]
// bytes: upper bounds), then the numeric factorisation's actual ones
// ([UMFPACK_LNZ] + [UMFPACK_UNZ], [UMFPACK_FLOPS], [UMFPACK_PEAK_MEMORY]).
// L's and U's counts both hold the diagonal, so it is counted twice.
#include <umfpack.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "direct/backend.hpp"

namespace balsa::direct {

namespace {

static_assert(std::is_same_v<SuiteSparse_long, std::int64_t>, "umfpack_dl_* indices are std::int64_t");

struct Symbolic {
  void* p = nullptr;
  ~Symbolic() {
    if (p) umfpack_dl_free_symbolic(&p);
  }
};
struct Numeric {
  void* p = nullptr;
  ~Numeric() {
    if (p) umfpack_dl_free_numeric(&p);
  }
};

class UmfpackBackend final : public Backend {
 public:
  explicit UmfpackBackend(const Matrix& A) : A_(A) {
    umfpack_dl_defaults(control_);
    check(umfpack_dl_symbolic(A.n, A.n, A.ptr.data(), A.idx.data(), A.values.data(), &symbolic_.p, control_, info_),
          "analysing A");
    predicted_ = counts(UMFPACK_LNZ_ESTIMATE, UMFPACK_UNZ_ESTIMATE, UMFPACK_FLOPS_ESTIMATE,
                        UMFPACK_PEAK_MEMORY_ESTIMATE);
  }

  DirectMethod method() const override { return DirectMethod::Umfpack; }
  FactorCounts predicted() const override { return predicted_; }

  FactorCounts factorize() override {
    if (numeric_.p) umfpack_dl_free_numeric(&numeric_.p);
    const std::int64_t status = umfpack_dl_numeric(A_.ptr.data(), A_.idx.data(), A_.values.data(), symbolic_.p,
                                                   &numeric_.p, control_, info_);
    if (status == UMFPACK_WARNING_singular_matrix) throw_singular("UMFPACK", zero_pivot_row());
    check(status, "factorising A");
    FactorCounts done = counts(UMFPACK_LNZ, UMFPACK_UNZ, UMFPACK_FLOPS, UMFPACK_PEAK_MEMORY);
    done.rcond = info_[UMFPACK_RCOND];
    return done;
  }

  void solve(double* B, std::int64_t k) override {
    std::vector<double> x(std::size_t(A_.n));
    for (std::int64_t j = 0; j < k; ++j) {
      double* b = B + std::size_t(j) * std::size_t(A_.n);
      check(umfpack_dl_solve(UMFPACK_At, A_.ptr.data(), A_.idx.data(), A_.values.data(), x.data(), b, numeric_.p,
                             control_, info_),
            "solving");
      std::copy(x.begin(), x.end(), b);
    }
  }

 private:
  FactorCounts counts(int lnz, int unz, int flops, int peak_units) const {
    return {std::int64_t(info_[lnz] + info_[unz]), info_[flops], info_[peak_units] * info_[UMFPACK_SIZE_OF_UNIT], 0};
  }
  void check(std::int64_t status, const char* doing) const {
    if (status == UMFPACK_ERROR_out_of_memory) throw_out_of_memory("UMFPACK", doing, A_);
    if (status != UMFPACK_OK)
      throw Error("UMFPACK: " + std::string(doing) + " failed (status " + std::to_string(status) + ")");
  }
  // The first zero of U's diagonal, at step k: column Q[k] of the factored
  // A^T, i.e. row Q[k] of A (-1 when UMFPACK cannot say).
  std::int64_t zero_pivot_row() const {
    std::vector<std::int64_t> Q(std::size_t(A_.n));
    std::vector<double> D(std::size_t(A_.n));
    if (umfpack_dl_get_numeric(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, Q.data(), D.data(),
                               nullptr, nullptr, numeric_.p) != UMFPACK_OK)
      return -1;
    for (std::size_t k = 0; k < D.size(); ++k)
      if (D[k] == 0) return Q[k];
    return -1;
  }

  const Matrix& A_;
  double control_[UMFPACK_CONTROL];
  mutable double info_[UMFPACK_INFO];
  Symbolic symbolic_;
  Numeric numeric_;
  FactorCounts predicted_;
};

}  // namespace

std::unique_ptr<Backend> make_umfpack(const Matrix& A) { return std::make_unique<UmfpackBackend>(A); }

}  // namespace balsa::direct
