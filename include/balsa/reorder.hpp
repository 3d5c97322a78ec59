// balsa: the reorderings of SaP's sparse pipeline (Li, Serban & Negrut,
// "SaP::GPU", sec. 2.2.1 and 3.3): diagonal boosting (DB), a maximum-product
// bipartite matching that moves large entries onto the diagonal and scales
// the matrix to I-matrix form, and Cuthill-McKee (CM), a bandwidth-reducing
// symmetric permutation.
//
//   balsa::DiagonalBoosting db = balsa::diagonal_boosting(A);  // Q, D_r, D_c
//   balsa::Csr<double> B = balsa::apply_boosting(A, db);       // D_r Q A D_c: |b_ii| = 1, |b_ij| <= 1
//   balsa::Ordering cm = balsa::cuthill_mckee(B);              // on the pattern of B + B^T
//   balsa::Csr<double> C = balsa::permute_symmetric(B, cm.perm);
//
// Permutations follow include/balsa/sparse.hpp: perm[new] = old.
#pragma once

#include <vector>

#include "balsa/core.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

// ---- DB: maximum-product perfect matching (report sec. 2.2.1, 3.3) ---------
//
// Finds the row permutation Q maximising prod_i |(Q A)_ii| as a minimum-cost
// perfect bipartite matching with the report's weights (eq. 12)
//   c_ij = log a_i - log |a_ij|   (a_i = max_j |a_ij|; no edge where a_ij = 0),
// in four stages:
//   DB-S1  the weights (GPU on Device::Cuda);
//   DB-S2  the duals u_i = min_j c_ij, v_j = min_i (c_ij - u_i) and a greedy
//          partial matching on the tight edges (u_i + v_j = c_ij);
//   DB-S3  shortest augmenting paths (Dijkstra with a binary heap on the
//          reduced costs c_ij - u_i - v_j >= 0) from every unmatched row,
//          over A's rows (no transpose needed);
//   DB-S4  the permutation and, with scaling, the factors
//          D_r(i) = exp(u_i) / a_i, D_c(j) = exp(v_j) that bring D_r Q A D_c to
//          I-matrix form: |diagonal| = 1, every other |entry| <= 1 (GPU on
//          Device::Cuda).
// The duals certify optimality: u_i + v_j <= c_ij on every entry, with
// equality on the matching.
struct MatchingOptions {
  bool scaling = true;           // DB-S4's scaling factors (else all 1)
  Device device = Device::Auto;  // S1 and S4 on the GPU when it resolves to Cuda
  StreamHandle stream = nullptr;  // their CUDA stream (include/balsa/core.hpp; nullptr: per-thread default)
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
};

struct MatchingStats {
  Device device = Device::Cpu;
  index_t initial_matches = 0;   // matched by DB-S2
  index_t augmentations = 0;     // shortest augmenting paths DB-S3 found
  // Seconds per stage; t_transfer: host <-> device copies of the GPU stages.
  double t_s1 = 0, t_s2 = 0, t_s3 = 0, t_s4 = 0, t_transfer = 0, t_total = 0;
};

struct DiagonalBoosting {
  index_t n = 0;
  // Q: row i of Q A is row row_perm[i] of A, and a(row_perm[i], i) is the
  // matched entry that lands on the diagonal.
  std::vector<index_t> row_perm;
  // D_r by row of A, D_c by column: (D_r Q A D_c)(i, j) =
  // row_scale[row_perm[i]] * a(row_perm[i], j) * col_scale[j].
  std::vector<double> row_scale, col_scale;
  // The duals of the matching problem (u by row of A, v by column), in the
  // weights' units (natural log).
  std::vector<double> u, v;
  double log_product = 0;  // sum_i log |a(row_perm[i], i)|
  index_t structural_rank = 0;
  MatchingStats stats;
};

// A square, canonical, finite A. Throws StructurallySingular (message: the
// structural rank and n) when A has no perfect matching, MatrixError for
// NaN/Inf (named) and DimensionError for a non-square A.
template <class T> DiagonalBoosting diagonal_boosting(const Csr<T>& A, const MatchingOptions& options = {});
// The size of a maximum matching of A's stored pattern (any shape; values
// ignored: a stored zero counts, as in SuiteSparse BTF's maximum transversal).
// DB's StructurallySingular error counts nonzero entries only, so a matrix
// with stored zeros can get a smaller rank there.
template <class T> index_t structural_rank(const Csr<T>& A);
// D_r Q A D_c (canonical CSR; T's precision).
template <class T> Csr<T> apply_boosting(const Csr<T>& A, const DiagonalBoosting& db);

// ---- CM: Cuthill-McKee (report sec. 2.2.1, 3.3) ----------------------------
//
// On the pattern of A + A^T (diagonal ignored), each connected component
// ordered by a breadth-first search that visits neighbours by increasing
// degree (CM-S3), from several start nodes (CM-S2): first a node of least
// degree, then the least-degree node of the last level not yet tried; the
// search stops when the level structure stops getting taller or its widest
// level stops getting narrower (the report's rules), or after max_starts
// tries. The ordering with the smallest half-bandwidth wins.
struct CuthillMcKeeOptions {
  bool reverse = false;  // reverse Cuthill-McKee (same bandwidth, less profile)
  int max_starts = 8;    // start nodes tried per component, at most (>= 1)
};

struct Ordering {
  std::vector<index_t> perm;         // perm[new] = old
  index_t bandwidth_before = 0;      // half-bandwidth of A + A^T
  index_t bandwidth_after = 0;       // ... of P (A + A^T) P^T
  index_t components = 0;            // connected components
  int starts = 0;                    // start nodes tried, all components together
  double seconds = 0;
};

// A square, valid A (values ignored).
template <class T> Ordering cuthill_mckee(const Csr<T>& A, const CuthillMcKeeOptions& options = {});

}  // namespace balsa
