// KLU behind DirectSolver (direct/backend.hpp), the 64-bit interface
// (klu_l_*): a block triangular form (BTF), AMD on each diagonal block and
// a left-looking LU of each, the method of circuit matrices. A's CSR arrays
// are the CSC arrays of A^T: KLU factors A^T and klu_l_tsolve solves its
// transpose, A x = b, all the columns in one call.
//
// Counts: the analysis predicts nnz(L) + nnz(U) (the symbolic object's lnz
// and unz, AMD's estimates per block, diagonals included) and the flops
// (its est_flops); the peak memory is an estimate: KLU's first allocation
// of the factors (Common.initmem_amd times the entries, 8 bytes of value
// and 8 of index each) plus A and the workspace. After the factorisation:
// the factors' actual lnz + unz, the flops counted by klu_l_flops (a
// measurement of this factorisation) and Common.mempeak (KLU's own peak).
// A new factorisation of the same pattern is a fresh klu_l_factor with the
// same symbolic analysis (new pivots: klu_l_refactor would keep the old
// ones, which new values may not suit).
#include <klu.h>

#include <string>
#include <type_traits>

#include "direct/backend.hpp"

namespace balsa::direct {

namespace {

static_assert(std::is_same_v<SuiteSparse_long, std::int64_t>, "klu_l_* indices are std::int64_t");

// KLU takes the diagonal entry as the pivot when it is at least tol times
// the column's largest: KLU's default 0.001 let the growth cost 4 digits on
// a permuted convection-diffusion matrix (tests/direct/direct_test.cpp: errors
// 1e-10 where UMFPACK had 1e-15); UMFPACK's default threshold, 0.1, here.
constexpr double kPivotTolerance = 0.1;

class KluBackend final : public Backend {
 public:
  explicit KluBackend(const Matrix& A) : A_(A) {
    klu_l_defaults(&c_);
    c_.tol = kPivotTolerance;
    symbolic_.s = klu_l_analyze(A.n, ptr(), idx(), &c_);
    check("analysing A");
    if (!symbolic_.s) throw Error("KLU: analysing A failed (status " + std::to_string(c_.status) + ")");
    if (symbolic_.s->structural_rank >= 0 && symbolic_.s->structural_rank < A.n)
      throw_structurally_singular("KLU", symbolic_.s->structural_rank, A.n);
    const double entries = symbolic_.s->lnz + symbolic_.s->unz;
    predicted_ = {std::int64_t(entries), symbolic_.s->est_flops,
                  c_.initmem_amd * 16.0 * entries + 16.0 * double(A.idx.size()) + 64.0 * double(A.n), 0};
  }

  DirectMethod method() const override { return DirectMethod::Klu; }
  FactorCounts predicted() const override { return predicted_; }

  FactorCounts factorize() override {
    numeric_.free();
    c_.mempeak = c_.memusage;  // the peak of this factorisation only
    numeric_.s = klu_l_factor(ptr(), idx(), const_cast<double*>(A_.values.data()), symbolic_.s, &c_);
    if (c_.status == KLU_SINGULAR) throw_singular("KLU", c_.singular_col);
    check("factorising A");
    klu_l_flops(symbolic_.s, numeric_.s, &c_);
    klu_l_rcond(symbolic_.s, numeric_.s, &c_);
    return {numeric_.s->lnz + numeric_.s->unz, c_.flops, double(c_.mempeak), c_.rcond};
  }

  void solve(double* B, std::int64_t k) override {
    klu_l_tsolve(symbolic_.s, numeric_.s, A_.n, k, B, &c_);
    check("solving");
  }

 private:
  struct Symbolic {
    klu_l_common& c;
    klu_l_symbolic* s = nullptr;
    ~Symbolic() {
      if (s) klu_l_free_symbolic(&s, &c);
    }
  };
  struct Numeric {
    klu_l_common& c;
    klu_l_numeric* s = nullptr;
    void free() {
      if (s) klu_l_free_numeric(&s, &c);
    }
    ~Numeric() { free(); }
  };
  std::int64_t* ptr() const { return const_cast<std::int64_t*>(A_.ptr.data()); }
  std::int64_t* idx() const { return const_cast<std::int64_t*>(A_.idx.data()); }
  void check(const char* doing) const {
    if (c_.status == KLU_OUT_OF_MEMORY) throw_out_of_memory("KLU", doing, A_);
    if (c_.status < 0) throw Error("KLU: " + std::string(doing) + " failed (status " + std::to_string(c_.status) + ")");
  }

  const Matrix& A_;
  klu_l_common c_{};
  Symbolic symbolic_{c_};
  Numeric numeric_{c_};
  FactorCounts predicted_;
};

}  // namespace

std::unique_ptr<Backend> make_klu(const Matrix& A) { return std::make_unique<KluBackend>(A); }

}  // namespace balsa::direct
