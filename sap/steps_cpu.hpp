// Internal: the CPU reference of SaP's steps on band storage (the oracle of
// the GPU kernels, sap/gpu_*.cu). Blocks are factored and solved in
// parallel (OpenMP over blocks), each block's steps in plain loops.
//
// Interfaces: interface i (0 <= i < P-1) joins block i and block i+1 at row
// t = starts[i+1]; its k x k column-major blocks (report eq. 2 and 7):
//   B(r, c) = a(t-k+r, t+c)   (lower triangle: c <= r)
//   C(r, c) = a(t+r, t-k+c)   (upper triangle: r <= c), the C_{i+1} of the report
//   V = V_i^(b), W = W_{i+1}^(t), R = (I - W V)^{-1}.
//
// The spikes of the example in sap/partition.hpp (n = 12, k = 2, P = 3):
// S = D^{-1} A with D = diag(A_i) has V_i = A_i^{-1} [0; B_i] in block i's
// rows (B_i's columns) and W_{i+1} = A_{i+1}^{-1} [C_{i+1}; 0] in block
// i+1's rows (C_{i+1}'s columns). SaP-C keeps only the k x k ends in capitals,
// V_i^(b) (bottom) and W_{i+1}^(t) (top), and per interface solves
// [I V; W I] with R (report sec. 2.1, eq. 9-10):
//
//   row  0   1 . . . v v . . . . . .
//        1   . 1 . . v v . . . . . .
//        2   . . 1 . V V . . . . . .      V_0^(b)
//        3   . . . 1 V V . . . . . .
//        4   . . W W 1 . . . v v . .      W_1^(t)
//        5   . . W W . 1 . . v v . .
//        6   . . w w . . 1 . V V . .      V_1^(b)
//        7   . . w w . . . 1 V V . .
//        8   . . . . . . W W 1 . . .      W_2^(t)
//        9   . . . . . . W W . 1 . .
//       10   . . . . . . w w . . 1 .
//       11   . . . . . . w w . . . 1
#pragma once

#include <vector>

#include "sap/preconditioner.hpp"

namespace balsa::sap {

template <class P>
struct Interfaces {
  index_t k = 0, count = 0;
  std::vector<P> B, C, V, W, R;  // count blocks of k*k each
  void resize(index_t k_, index_t count_) {
    k = k_;
    count = count_;
    const std::size_t s = std::size_t(k) * std::size_t(k) * std::size_t(count);
    for (auto* v : {&B, &C, &V, &W, &R}) v->assign(s, P(0));
  }
  static P* at(std::vector<P>& v, index_t i, index_t k) { return v.data() + std::size_t(i) * k * k; }
  static const P* at(const std::vector<P>& v, index_t i, index_t k) { return v.data() + std::size_t(i) * k * k; }
};

// The MatrixError of a pivot the rule refuses (kind 0: small without
// boosting; 1: not finite), the same text on both paths.
[[noreturn]] void throw_pivot_error(int kind, double u, const BoostRule& rule, index_t row, index_t block, bool reversed);

// k_i of every block of F (Blocks::bandwidths).
template <class P>
std::vector<index_t> block_bandwidths(const Banded<P>& F, const Blocks& blocks);

// sec. 3.1: every block factored in place, A_i = L_i U_i (L unit lower, U
// upper, both in the band), without pivoting, small pivots boosted by
// `rule`, block i within its bandwidth (blocks.bandwidth(i, F.k)).
// `reversed` says F holds reversed blocks (the UL factorisation): it only
// changes the row an error names. Returns the pivots boosted.
template <class P>
int factor_blocks(Banded<P>& F, const Blocks& blocks, const BoostRule& rule, bool reversed);

// Each block's band reversed in place: block i becomes J A_i J (its LU is
// the UL factorisation of A_i, report sec. 2.1).
template <class P>
void reverse_blocks(Banded<P>& F, const Blocks& blocks);

// x_i = U_i^{-1} L_i^{-1} x_i for every block (in place), within k_i.
template <class P>
void solve_blocks(const Banded<P>& F, const Blocks& blocks, P* x);

// T_BC: the coupling blocks B and C of every interface, from A.
template <class P>
void coupling_blocks(const Banded<P>& A, const Blocks& blocks, Interfaces<P>& c);

// T_SPK: V_i^(b) = U_bb^{-1} L_bb^{-1} B_i from the bottom k x k blocks of
// block i's LU; W_{i+1}^(t) = J Ut_bb^{-1} Lt_bb^{-1} J C_{i+1} from the
// bottom blocks of block i+1's reversed LU (UL).
template <class P>
void truncated_spikes(const Banded<P>& lu, const Banded<P>& ul, const Blocks& blocks, Interfaces<P>& c);

// T_LUrdcd: R_i = (I - W_{i+1}^(t) V_i^(b))^{-1} (LAPACK LU with partial
// pivoting, then the inverse). A singular R_i is a MatrixError naming i.
template <class P>
void reduced_systems(Interfaces<P>& c);

// Eq. 9-10 between the two block solves of SaP-C: from g = D^{-1} r, the
// truncated x~(t), x~(b) of every interface, then rhs -= C x~(b) on each
// block's top k rows and B x~(t) on its bottom k rows.
template <class P>
void coupling_corrections(const Interfaces<P>& c, const Blocks& blocks, const P* g, P* rhs);

}  // namespace balsa::sap
