// DirectMethod::Auto (direct/direct_choice.hpp). CHOLMOD for a symmetric A
// with a positive diagonal (the front end falls back to UMFPACK when it is
// not positive definite after all); otherwise KLU's analysis runs first
// (BTF, then AMD on each block: cheap) and KLU keeps A when that analysis
// predicts fewer than kKluFlopsLimit = 5.35e7 flops, else UMFPACK analyses
// it again.
//
// The rule's fit (bench/fit-direct-choice.py on `balsa-bench direct
// --max-flops 1e10`, bench/results/2026-11-29-direct-cpu.json; 2 shared
// cores): the 44 square matrices of the shared data set (shared/data/matrices,
// outside this repository) that Auto does
// not give to CHOLMOD and both LU methods factorise, sorted by name,
// alternately into a fit half (even positions: ACTIVSg200_..._01, NSR8K,
// ScaleMicrogrid_..._01, a_asymmetric01, add32, ash85, bfwa782, cage9,
// fs_183_1, gemat12, impcol_a, impcol_e, linearized_qevp_a, neumann,
// olm1000, orsirr_2, rw136, temp, watt_2, west0156, west0479, west1505)
// and a score half (the other 22). Time: analyse + factor + solve. The
// features tried, one threshold each: n, nnz, nnz/n, pattern symmetry, the
// fraction of zero diagonals and KLU's predicted flops; the least total
// regret sum(t_chosen / t_best - 1) on the fit half: "KLU when KLU's
// predicted flops < 5.35e7" (the geometric middle between watt_2's 6.9e6,
// where KLU wins, and cage9's 4.4e8, where UMFPACK does).
//   fit half:   right 22 of 22, time / best time geomean 1.000, worst 1.00
//   score half: right 19 of 22, geomean 1.072, worst 2.47 (nnc1374, whose
//               KLU analysis predicts 2.6e6 flops and pivoting makes 2.3e7;
//               also bayer10 1.31, sherman5 1.42)
//   always UMFPACK on the score half: right 3 of 22, geomean 2.71, worst 93
//   always KLU on the score half: the same as the rule (it holds no large
//   factorisation); on the fit half KLU takes 5.1x (cage9) and 6.3x (NSR8K)
//   UMFPACK's time.
// KLU wins on nearly every small matrix of the set (UMFPACK's set-up costs
// 2x-3x on them, 7x-90x on ScaleMicrogrid and arrow); UMFPACK once the
// factorisation has flops enough for its BLAS fronts. The times are small
// (most under 10 ms) and the 2 cores were shared: expect noise of 1.5x.
#include "direct/direct_choice.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/exceptions.hpp"
#include "core/instantiate.hpp"

namespace balsa::direct {

namespace {

// Whether (j, i) is stored (rows sorted).
template <class T>
bool stored(const Csr<T>& A, index_t i, index_t j) {
  return std::binary_search(A.col_idx.begin() + A.row_ptr[i], A.col_idx.begin() + A.row_ptr[i + 1], j);
}

}  // namespace

template <class T>
LuFeatures lu_features(const Csr<T>& A) try {
  LuFeatures f;
  f.nnz_per_row = A.rows ? double(A.nnz()) / double(A.rows) : 0;
  const std::vector<T> d = diagonal(A);  // zeros where missing
  const std::int64_t zero_diagonal = std::count(d.begin(), d.end(), T(0));
  std::int64_t off = 0, mirrored = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t j = A.col_idx[p];
      if (j == i) continue;
      ++off;
      mirrored += stored(A, j, i);
    }
  }
  f.pattern_symmetry = off ? double(mirrored) / double(off) : 1;
  f.zero_diagonal = A.rows ? double(zero_diagonal) / double(A.rows) : 0;
  return f;
} catch (...) {
  rethrow_as_balsa_error("lu_features");
}

bool klu_suits(double klu_predicted_flops) { return klu_predicted_flops < kKluFlopsLimit; }

template <class T>
bool cholesky_suits(const Csr<T>& A) try {
  const std::vector<T> d = diagonal(A);  // zeros where missing
  return std::all_of(d.begin(), d.end(), [](T v) { return v > T(0); }) && first_asymmetry(A).symmetric();
} catch (...) {
  rethrow_as_balsa_error("cholesky_suits");
}

#define BALSA_INSTANTIATE(T)                               \
  template LuFeatures lu_features(const Csr<T>&);          \
  template bool cholesky_suits(const Csr<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::direct
