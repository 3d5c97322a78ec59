// balsa: multifrontal sparse QR and least squares (Yeralan, Davis, Ranka,
// "Sparse QR factorization on the GPU", sec. 1-2: the CPU side, which the
// GPU bucket scheduler reuses).
//
//   balsa::SparseQR qr(A);                  // analyse + factorise, A m x n, m >= n
//   std::vector<double> x = qr.solve(b);    // min ||A x - b||_2
//
// Singletons first (SuiteSparseQR's pre-pass): a column with one entry
// > the tolerance among the rows not yet taken gives its row to R as it
// stands (Q = I there), cascading; a column left empty is dead. Only the
// remaining matrix A22 goes through the fronts. The singletons depend on
// the values: SparseQR(A) finds them by value; analyse(A) by the pattern,
// and factorise(A) finds them again by value, redoing the analysis when
// they differ (stats().reanalyses).
//
// Analysis of A22: a fill-reducing column ordering (COLAMD by default, METIS
// nested dissection of A^T A, or natural; COLAMD called as SPQR calls it,
// so that Heath's rank decisions, which depend on the column order, are
// SPQR's), then the column elimination tree
// of A^T A, its postorder, the column counts of R and relaxed supernodes,
// found without forming A^T A (CHOLMOD's analysis of A^T, as SPQR does).
// Each supernode is a front: its pivotal columns and the columns of R's
// rows it produces; each row of A goes to the front of its leftmost
// column. Relaxed amalgamation uses CHOLMOD's rule and defaults: a child
// merges into its parent when the merged front has <= 4 columns, or <= 16
// with at most 80% added zeros, <= 48 with 10%, or any size with 5%.
//
// Numeric factorisation (CPU): each front is assembled from its rows of A
// and its children's contribution blocks (no arithmetic), rows sorted by
// their leftmost column (the staircase), then factored by LAPACK's
// Householder QR panel by panel (64 columns), each panel over the rows
// that reach it. The factor keeps each panel's reflector block (compact),
// so Q^T b can be applied later, and R as one sparse upper-triangular
// matrix on the live columns, which balsa's triangular solver solves
// (options.r_solve: on the CPU, or the GPU). At full rank (no Heath
// column) R's pattern depends on the analysis alone: it is made once, each
// factorisation only writes R's values (the GPU copies its fronts' R rows
// straight into them), and the R solver of the previous factorisation takes
// them by update_values instead of a new analysis; R is then held twice
// (SparseQR's copy and the solver's).
// Independent subtrees run in parallel (a front is a task, started when
// its last child ends, one BLAS thread each); fronts over 1e8 flops and
// their ancestors then run in postorder with all of BLAS's threads.
//
// Rank (as SPQR, Heath's method): a column whose norm below the current
// row is <= the tolerance is dead: it gets no R row and its entries are
// dropped; a front meeting one is refactored column by column. rank =
// columns kept; solve() then returns the basic solution (0 on the dead
// columns), the least-squares solution of A + E for the dropped entries E
// (stats().dropped_norm = ||E||_F, SPQR's norm_E_fro).
//
// m < n: A^T is factored (A^T P = Q R) and solve() returns the
// minimum-norm solution x = Q [R^{-T} P^T b; 0] (the one SPQR's min2norm
// gives); rows of A that Heath's rule finds dependent drop their equations.
//
// GPU (sec. 3; options.device): the fronts of the whole tree live in one
// device arena of 32 x 32 tiles, assembled there (S-assembly of A's
// entries, pack assembly of each child's contribution block into its
// parent) and factored by one task kernel per launch whose tasks come from
// many fronts at once: each front's bucket scheduler (row tiles bucketed by
// their leftmost column tile, bundles of up to 3 row tiles, Factorize,
// Apply and pipelined Apply/Factorize tasks, sec. 3.1-3.2) and the packs of
// finished children. The schedule depends on the pattern only: made once
// per analysis, replayed by every factorisation (the task kernel's
// launches as CUDA graphs, one per run between cuSOLVER's fronts; the
// Apply's three products and T's V^T V on the FP64 tensor cores, DMMA).
// Q is kept (each bundle's V
// and T), so solve() applies Q^T b (or Q z) on the GPU by replaying the same
// launches, then R x = y by balsa's triangular solver (on the CPU unless
// options.r_solve.device asks for the GPU). Rank per front: a front whose
// GPU factor has a pivot <= the tolerance and all its ancestors are
// factored again on the CPU by Heath's rule, each fed the contribution
// blocks of its GPU-factored children; every other front keeps its GPU
// factor (stats().gpu_fronts_redone counts the fronts redone, and
// stats().fallback says how many and their share of the flops), so the
// rank is SPQR's. Such a mixed factor's solves run on the host; when the
// fronts redone hold over 90% of the flops the whole factorisation runs on
// the CPU instead (fallback says so).
// Device::Auto takes the GPU when one is present and the analysis finds
// enough work (flops and flop/byte intensity above the options' thresholds,
// the paper's Fig. 15: below an intensity of ~10 the CPU wins).
// Staging (sec. 3.4): when the fronts do not fit the GPU's free memory (or
// options.device_memory_limit), the postorder of the fronts is cut into
// stages that do (Auto and Cuda alike): each stage's fronts are assembled
// and factored in one of two device window buffers while the previous
// stage's results (R's rows, its fronts and reflectors, for Q in the
// solves) go to pinned host memory on a copy stream; a contribution block
// whose parent is in a later stage waits in pinned host memory and is
// uploaded for that stage. The budget holds the two window buffers (the
// even stages' largest window and the odd ones'; stages are cut at half
// the room) besides A's values and every stage's maps
// (stats().device_bytes: that peak; gpu_stages, staged_bytes_to_host). The
// solves upload each stage's windows again. A front too large for the
// budget alone (two windows of it) is a DeviceOutOfMemory naming it (index,
// m x n) and the bytes (Cuda), or the CPU with that reason in
// stats().fallback (Auto).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"

namespace balsa {

enum class QrOrdering { Colamd, Metis, Natural };
template <>
struct EnumNames<QrOrdering> {
  static constexpr const char* what = "QR column ordering";
  static constexpr EnumName<QrOrdering> names[] = {
      {QrOrdering::Colamd, "colamd"}, {QrOrdering::Metis, "metis"}, {QrOrdering::Natural, "natural"}};
};

struct QrOptions {
  QrOrdering ordering = QrOrdering::Colamd;
  // |R(j, j)| <= tolerance counts as zero (rank deficient). < 0: SPQR's
  // default, 20 (m + n) eps max_j ||A(:, j)||_2.
  double rank_tolerance = -1;
  // Bytes the factorisation may take, about: the factor kept, R assembled
  // beside the fronts' copies of it, twice the largest front, and twice a
  // task-sized front per OpenMP thread. A larger need is a HostOutOfMemory
  // naming it. 0: half the machine's physical memory.
  std::size_t memory_limit = 0;
  // The R solve (R x = y, or R^T z = c for m < n) by balsa's triangular
  // solver: its algorithm and device (Cuda needs a CUDA build and a GPU);
  // triangle and operation are SparseQR's. Device::Auto means the CPU here:
  // R and every right-hand side are host data, and one solve per
  // factorisation does not pay a GPU set-up (Device::Cuda asks for the GPU).
  TrsvOptions r_solve{.algorithm = TrsvAlgorithm::Auto, .device = Device::Auto};
  // Where the fronts are factored and Q applied: Cpu; Cuda (a CUDA build
  // and a GPU); Auto: the GPU when present and the analysis' flops >=
  // gpu_min_flops and intensity >= gpu_min_intensity (bench/results: the
  // measured crossover), else the CPU. On the GPU path Q^T b runs on the
  // GPU and the R solve where r_solve.device says (Auto: the CPU, whose
  // solver's set-up is cheaper; Cuda for many solves per factorisation).
  Device device = Device::Auto;
  double gpu_min_flops = 2e9;
  double gpu_min_intensity = 10;
  // On the GPU, a front of at least this many flops (as a dense QR) is
  // factored whole by cuSOLVER's dgeqrf (Q^T by dormqr) instead of the
  // task kernel's tiles (bench qr --fronts: the measured crossover).
  double gpu_dense_front_flops = 1e10;
  // Device bytes the GPU factor may take (its tile arena, V and T records,
  // maps; QrStats::device_bytes): 0, the GPU's free memory. Over it, the
  // fronts are factored in stages that fit (sec. 3.4; two window buffers,
  // QrStats::gpu_stages); a front too large for it alone sends Auto to the
  // CPU (stats().fallback says why) and is a DeviceOutOfMemory naming the
  // front and the bytes for Cuda.
  std::size_t device_memory_limit = 0;
  // The CUDA stream of the GPU factorisation, of Q's products and of a GPU
  // R solve (r_solve.stream is not read) (include/balsa/core.hpp; nullptr:
  // the calling thread's per-thread default stream).
  StreamHandle stream = nullptr;
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
};

struct QrStats {
  index_t rows = 0, cols = 0;
  std::int64_t nnz = 0;
  QrOrdering ordering = QrOrdering::Colamd;
  index_t singletons = 0;       // column singletons: R's rows taken from A as they stand, before the fronts
  index_t reanalyses = 0;       // factorisations whose values changed the singletons (the analysis redone)
  index_t fronts = 0;
  index_t max_front_rows = 0, max_front_cols = 0;
  double flops = 0;             // the analysis' count: the staircase panels' Householder QR (4 per multiply-add
                                // pair, as LAPACK), exact at full rank
  double dense_flops = 0;       // the fronts as dense QRs (the paper's bound, no staircase)
  double flops_done = 0;        // what the factorisation did: `flops` at full rank; a front refactored column by
                                // column (Heath) counts whole at its actual size
  std::int64_t r_nnz = 0;       // entries of R (the singletons' rows included)
  // flops / (8 (nnz(A) + nnz(R))): the flop/byte intensity the paper uses to
  // route small problems to the CPU (intensity < 10: the CPU wins).
  double intensity = 0;
  std::size_t factor_bytes = 0;     // the factor kept (R's rows, the reflectors): the analysis' estimate, then
                                    // what factorise() kept
  std::size_t max_front_bytes = 0;  // the largest front while it is factored
  double tolerance = 0;         // the rank tolerance used
  index_t heath_fronts = 0;     // fronts refactored column by column (a pivot <= tolerance)
  double dropped_norm = 0;      // ||E||_F of the entries Heath's rule dropped: R is the factor of A P + E
  index_t rank = 0;             // columns kept (Heath: |R(j, j)| > tolerance); rank < n: rank deficient
  double t_order = 0, t_analyse = 0, t_factorise = 0, t_solve = 0;  // seconds
  // The GPU path (sec. 3).
  Device device = Device::Cpu;  // where the last factorisation ran
  std::string fallback;         // why Auto or Cuda ended on the CPU, or which fronts a dead pivot sent
                                // there (empty: none)
  index_t gpu_launches = 0;     // task-kernel launches of the factorisation (the tree's critical path in rounds)
  index_t gpu_tasks = 0;        // tasks in them (Factorize, Apply, Apply/Factorize, Pack)
  index_t gpu_bundles = 0;      // bundles factorized (Q's blocks)
  std::size_t device_bytes = 0; // the GPU factor: tile arena, V and T records, maps (staged: the peak, two windows)
  index_t gpu_stages = 0;       // stages of the GPU factorisation (sec. 3.4; 1: unstaged; 0: none ran)
  std::size_t staged_bytes_to_host = 0;  // staged: bytes copied to the host per factorisation (R, windows, blocks)
  index_t gpu_fronts_redone = 0;  // fronts refactored on the CPU after the GPU: a dead pivot's and its ancestors'
                                  // (Heath; device stays Cuda, the solves run on the host)
  double t_gpu_plan = 0;        // the bucket schedules and assembly maps (once per analysis; in t_factorise)
  double t_gpu_device = 0;      // the last GPU factorisation's device time (CUDA events): assembly, fronts and
                                // R's gather (staged: to the last stage's copies); the rest of t_factorise is the
                                // host's (checks, R's values, transfers)
};

class SparseQR {
 public:
  // Analyse and factorise A (m x n; m < n: A^T).
  explicit SparseQR(const Csr<double>& A, const QrOptions& options = {});
  // Analysis only (ordering, fronts, the analysis' stats; A's pattern is
  // read, its values are checked by factorise): factorise(A) with values of
  // this pattern comes next, before any solve.
  static SparseQR analyse(const Csr<double>& A, const QrOptions& options = {});
  ~SparseQR();
  SparseQR(SparseQR&&) noexcept;
  SparseQR& operator=(SparseQR&&) noexcept;

  // New values, same pattern: factorised again.
  void factorise(const Csr<double>& A);
  // x = argmin ||A x - b||_2 (b: m values; one right-hand side); rank
  // deficient: the basic solution (0 on the dead columns); m < n: the
  // minimum-norm solution of A x = b.
  std::vector<double> solve(std::span<const double> b);
  // nrhs right-hand sides, column-major m x nrhs; x: n x nrhs.
  std::vector<double> solve(std::span<const double> B, index_t nrhs);

  const QrStats& stats() const;
  bool factorised() const;

 private:
  SparseQR(const Csr<double>& A, const QrOptions& options, bool factorise_now);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace balsa
