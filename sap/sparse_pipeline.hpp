// Internal: the steps of SaP's sparse pipeline between the reorderings and
// the dense banded factorisation (report sec. 2.2, 3.4; the front end is
// sap/sparse_solver.cpp): the drop-off rule, the third-stage reordering
// inside the blocks, and the assembly into band storage. CPU code: each
// step is one pass over the nonzeros (the third stage: one CM per block, in
// parallel).
#pragma once

#include <cstdint>
#include <vector>

#include "balsa/sap.hpp"
#include "sap/partition.hpp"

namespace balsa::sap {

// The drop-off rule (the report leaves it open, sec. 2.2): the smallest
// half-bandwidth k such that the entries with |i - j| > k hold at most
// `tolerance` of the Frobenius norm of the rows considered, then capped by
// `cap`. Over the whole matrix (SaP-C) or per block, counting only the
// block's own entries and its rows' norm (SaP-D, whose preconditioner never
// sees entries outside the blocks).
struct DropResult {
  index_t k = 0;                  // the largest kept half-bandwidth (band storage's k)
  std::vector<index_t> bandwidths;  // per block (SaP-D); empty for the whole matrix
  std::int64_t dropped = 0;       // entries left out by the rule (inside the blocks for SaP-D)
  double dropped_norm = 0;        // their Frobenius norm / ||C||_F
  std::int64_t outside = 0;       // SaP-D: entries outside every block (never in the preconditioner)
  double outside_norm = 0;        // their Frobenius norm / ||C||_F
};
template <class T>
DropResult drop_whole(const Csr<T>& C, double tolerance, index_t cap);
template <class T>
DropResult drop_per_block(const Csr<T>& C, const Blocks& blocks, double tolerance, index_t cap);

// The largest k (>= 0) whose factorisation work sum_i n_i k^2 stays within
// `flops` (0: no cap) and that is at most max_bandwidth (0: none) and n - 1.
index_t bandwidth_cap(index_t n, double flops, index_t max_bandwidth);

// Third-stage reordering (report sec. 2.2, 4.3.2): Cuthill-McKee inside each
// diagonal block of C; a block keeps its order when CM does not narrow it.
// Returns the block-local symmetric permutation as one global perm
// (perm[new] = old, each block mapped onto itself) and how many blocks changed.
template <class T>
std::vector<index_t> third_stage(const Csr<T>& C, const Blocks& blocks, index_t& blocks_reordered);

// Assembly (T_Asmbl): the kept entries of C into band storage of
// half-bandwidth k: every entry with |i - j| <= k (bandwidths empty), or
// only the entries inside block b with |i - j| <= bandwidths[b].
template <class T>
Banded<T> assemble(const Csr<T>& C, index_t k, const Blocks& blocks, const std::vector<index_t>& bandwidths);

}  // namespace balsa::sap
