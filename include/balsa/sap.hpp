// balsa: SaP, the split-and-parallelize solver for dense banded systems
// A x = b (Li, Serban & Negrut, "SaP::GPU", sec. 2.1, 3.1, 3.4), on the GPU
// or the CPU.
//
// A (n x n, half-bandwidth k, balsa::Banded) is split into P diagonal
// blocks A_i of load-balanced sizes (report sec. 3.1). Each A_i is factored
// A_i = L_i U_i without pivoting; a pivot smaller than
// boost_threshold * max|a_ij| is replaced by +-boost_epsilon * max|a_ij|
// ("pivot boosting", counted in stats) or, with boosting off, is an error.
// The result preconditions a Krylov method (BiCGStab(2), or CG when the user
// says A is SPD):
//   SaP-D (Decoupled): M = diag(A_1, ..., A_P), block Jacobi (sec. 2.1.1).
//   SaP-C (Coupled):   truncated SPIKE (eq. 9-10): the bottom k x k block of
//     each right spike V_i^(b) (from the bottom blocks of L_i, U_i) and the
//     top block of each left spike W_{i+1}^(t) (from a UL factorisation of
//     A_{i+1}: the LU of its reversed band, so only its bottom blocks are
//     needed), the reduced systems R_i = I - W_{i+1}^(t) V_i^(b), factored
//     (inverted) once; each application solves D twice around the reduced
//     corrections.
// Phase times follow the report's names (sec. 3.4): T_LU (LU and UL
// factorisations), T_BC (coupling blocks B_i, C_i and the spike blocks
// extracted), T_SPK (truncated spikes), T_LUrdcd (reduced systems formed and
// factored), T_Kry (the Krylov solve).
//
//   balsa::Banded<double> A = balsa::banded_dominant_band<double>(200000, 200, 1.0);
//   balsa::BandedSolver<double> sap(A, {.variant = balsa::SapVariant::Coupled});
//   balsa::KrylovStats st = sap.solve(b, x);  // x: initial guess in, solution out
//
// Several GPUs (options.devices = {0, 1}): the blocks are given to the
// devices in contiguous runs of whole partitions balanced by rows. Each
// device uploads the band columns of its blocks (plus k columns each side
// for the product), factors its blocks on a non-blocking stream of its own
// (all devices at once) and applies them; the Krylov iteration stays on
// devices[0], and each application of A or M copies the other devices'
// slices of the vector to them and their results back (cudaMemcpyPeerAsync,
// ordered by events). SaP-C stays coupled across a device boundary: each device
// also factors the neighbouring device's block next to the boundary (its LU
// and UL), so it forms that interface's spikes and reduced system itself
// and its application needs nothing but the vector slices; the answer is
// the one-GPU answer to rounding with any number of partitions per device.
// P (partitions == 0) is the one-device choice (the same iterations), never fewer than
// the devices. Bad input: a device id outside 0 .. device_count()-1, one
// listed twice, more devices than the given partitions, devices with
// Device::Cpu. stats().boosted_pivots counts the neighbour blocks' pivots
// on both devices.
//
// Choice of P when partitions == 0 (the report left it manual, sec. 3.1 and
// 4.1.1): as many blocks as the device runs thread blocks at once (2 per SM;
// CPU: 4 per thread), each of at least max(2k, 64) rows (sap/partition.hpp).
// A given P is capped so that SaP-C blocks have n_i >= 2k (their top and
// bottom k rows distinct); stats().partitions says the P used.
//
// Per-partition bandwidths (report sec. 3.1): block A_i's bandwidth k_i is
// the largest |r - c| of its nonzeros; its LU without pivoting keeps fill
// inside k_i, so the factorisations and the block solves of A_i work within
// k_i (stats: min/max_block_bandwidth). Storage, coupling blocks and spikes
// keep the global k.
//
// Layout, measured (bench/band-layout.py): the factors keep LAPACK's band
// storage (include/balsa/sparse.hpp, Banded; column j contiguous: the
// factorisation's window updates run 1.9-3.8x faster than on diagonals at K >= 100); on the
// GPU, A itself, which only the products read, is kept in the report's
// diagonal-major layout (its SpMV 2.3-3.9x faster).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/krylov.hpp"
#include "balsa/reorder.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class SapVariant { Decoupled, Coupled };  // SaP-D, SaP-C
template <>
struct EnumNames<SapVariant> {
  static constexpr const char* what = "SaP variant";
  static constexpr EnumName<SapVariant> names[] = {{SapVariant::Decoupled, "sap-d"}, {SapVariant::Coupled, "sap-c"}};
};

struct BandedOptions {
  SapVariant variant = SapVariant::Coupled;
  Device device = Device::Auto;  // resolve_device: the GPU when present
  index_t partitions = 0;  // P; 0 chooses it (sap/partition.hpp)
  bool pivot_boost = true;
  double boost_threshold = 1e-10;  // |pivot| < threshold * max|a_ij| is "small"
  double boost_epsilon = 1e-8;     // a small pivot becomes sign * epsilon * max|a_ij|
  // Mixed precision (T = double only): the preconditioner (factors, spikes,
  // reduced systems) in float inside the double Krylov iteration.
  bool float_preconditioner = false;
  bool spd = false;  // A is symmetric positive definite: CG instead of BiCGStab(2)
  // The Krylov iteration's stopping rules (include/balsa/stopping.hpp): the
  // report's relative residual 1e-10 in the 2-norm, 1000 iterations per
  // Krylov run, divergence 1e10, no stagnation test.
  StoppingOptions stopping = {.tolerance = 1e-10, .norm = StoppingNorm::Two, .max_iterations = 1000};
  // Restarts from the current x while a converged run's true residual
  // ||b - A x|| / ||b|| still misses stopping.tolerance: the recursive residual of
  // BiCGStab drifts from the true one, the more so with a float
  // preconditioner or far from diagonal dominance. Each restart starts from
  // the true residual, so it refines x in double (iterative refinement).
  int max_restarts = 3;
  // Device memory the solver may use in bytes (0: the GPU's free memory);
  // a problem that needs more is refused with the bytes it needs.
  std::size_t device_memory_limit = 0;
  // The CUDA stream of all the solver's GPU work, its Krylov iteration's
  // included (include/balsa/core.hpp; nullptr: the calling thread's
  // per-thread default stream).
  StreamHandle stream = nullptr;
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
  // Several GPUs of one host ("Several GPUs" below): the CUDA device ids to
  // spread the partitions over; empty: the current device only (the
  // default). devices[0] is the primary device: the Krylov iteration, its
  // vectors and `stream` (which must belong to it) live there.
  std::vector<int> devices = {};
  // Fewer devices than listed when the work is small: each device used must
  // get at least this many multiply-adds of factorisation (n k^2 in all).
  // Default 5e10: on two H200s, N = 1e7 and K = 50 (n k^2 = 2.5e10, 1.25e10
  // a device) ran 0.81-1.01x as fast as on one (set-up is the band's upload
  // there, bench/results/2026-11-29-sap-multigpu-h200x2.md). 0: always all
  // the devices listed.
  double min_work_per_device = 5e10;
};

struct BandedStats {
  SapVariant variant = SapVariant::Coupled;
  Device device = Device::Cpu;
  index_t n = 0, k = 0;
  index_t partitions = 0;                  // P used
  index_t min_block = 0, max_block = 0;    // smallest and largest n_i
  // Smallest and largest per-partition bandwidth k_i <= k (the largest
  // |i - j| of a nonzero inside A_i): each block is factored and solved
  // within its own k_i; the coupling keeps k.
  index_t min_block_bandwidth = 0, max_block_bandwidth = 0;
  bool float_preconditioner = false;
  int boosted_pivots = 0;                  // LU and UL together
  std::size_t device_bytes = 0;            // the device memory the solver needs at its peak (set-up)
  // Seconds (GPU: each phase ends with a device synchronisation).
  double t_upload = 0;  // host band -> device (one device; several: inside device_setup_seconds)
  double t_lu = 0, t_bc = 0, t_spk = 0, t_lu_rdcd = 0;
  double t_setup = 0;   // the whole constructor
  double t_kry = 0;     // the last solve (restarts included)
  int restarts = 0;     // the last solve's
  // The last solve's Krylov stats: iterations, matvecs, times and history
  // summed over its runs; outcome, residuals and message of the last run.
  KrylovStats krylov;
  // Several GPUs: the devices used (devices[0] the primary; empty on the
  // CPU, the one device otherwise), why that many (devices_reason), whether
  // every pair of them copies peer to peer (false: some copies are staged
  // through host memory by the CUDA driver; `transfers` names the pairs),
  // and per device used: the factorisation's seconds (its own stream, the
  // devices at once) and the device bytes it needs.
  std::vector<int> devices = {};
  std::string devices_reason;
  bool peer_access = true;
  std::string transfers;
  std::vector<double> device_setup_seconds;
  std::vector<std::size_t> device_bytes_each;
};

template <class T>
class BandedSolver {
 public:
  // Analyse (partition, memory check), upload (GPU) and factor.
  BandedSolver(const Banded<T>& A, const BandedOptions& options = {});
  // From CSR: converted to band storage first (its half-bandwidth).
  BandedSolver(const Csr<T>& A, const BandedOptions& options = {});
  ~BandedSolver();
  BandedSolver(BandedSolver&&) noexcept;
  BandedSolver& operator=(BandedSolver&&) noexcept;

  // x: initial guess in, solution out. A solve that does not converge
  // returns its outcome (stats().krylov.outcome != Converged, message says why).
  KrylovStats solve(std::span<const T> b, std::span<T> x);
  // New values, same n and k: refactored.
  void update_values(const Banded<T>& A);

  const BandedStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- SaP for general sparse systems (report sec. 2.2, 3.3, 3.4) ------------
//
// The sparse pipeline in front of the banded solver:
//   DB    diagonal boosting (include/balsa/reorder.hpp): the row permutation
//         of a maximum-product matching and the I-matrix scaling,
//         B = D_r Q A D_c;
//   CM    Cuthill-McKee on the pattern of B + B^T: C = P B P^T (the heavy
//         diagonal stays on the diagonal);
//   split C into P blocks (as BandedSolver does);
//   3rd   SaP-D only: Cuthill-McKee again inside every diagonal block C_i
//         (the report's third-stage reordering), each block with its own
//         bandwidth k_i. SaP-C keeps the CM order (a documented restriction:
//         reordering inside the blocks would need the full spikes, sec. 2.2);
//   Drop  entries outside a band are dropped from the preconditioner (not
//         from the operator): the smallest k whose dropped entries hold at
//         most drop_tolerance of ||C||_F (the rule the report left open),
//         capped by max_bandwidth;
//   Asmbl the kept entries assembled into band storage;
// then SaP-D or SaP-C (the dense banded factorisations) preconditions
// BiCGStab(2) whose operator is the permuted, scaled sparse matrix itself,
// and x = D_c P^T y is mapped back.
struct SparseSapOptions {
  SapVariant variant = SapVariant::Decoupled;
  Device device = Device::Auto;
  bool boosting = true;             // DB (matching and scaling)
  bool bandwidth_reduction = true;  // CM
  bool third_stage = true;          // per-block CM (SaP-D)
  double drop_tolerance = 0.05;     // Frobenius fraction the dropped entries may hold
  index_t max_bandwidth = 0;        // cap on k (0: from the work budget below)
  // k is also capped so that the blocks' factorisations cost at most this
  // many multiply-adds (n k^2; 0: no cap).
  double max_factor_flops = 2e9;
  index_t partitions = 0;           // P (0: chosen)
  bool pivot_boost = true;          // as BandedOptions (threshold 1e-10, epsilon 1e-8); off: a small pivot is an error
  bool float_preconditioner = false;
  // Of the (scaled) system; as BandedOptions' (1e-10 in the 2-norm, 1000 iterations).
  StoppingOptions stopping = {.tolerance = 1e-10, .norm = StoppingNorm::Two, .max_iterations = 1000};
  int max_restarts = 3;  // as BandedOptions::max_restarts
  std::function<void(int, double)> progress = nullptr;
  StreamHandle stream = nullptr;    // as BandedOptions::stream (DB's GPU stages too)
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
  // As BandedOptions::devices and min_work_per_device: the banded
  // preconditioner's blocks are spread over them; the sparse operator (A's
  // CSR product), DB and the Krylov vectors stay on devices[0].
  std::vector<int> devices = {};
  double min_work_per_device = 5e10;
};

struct SparseSapStats {
  Device device = Device::Cpu;
  index_t n = 0, nnz = 0;
  index_t k_original = 0;   // half-bandwidth of A
  index_t k_cm = 0;         // after DB and CM
  index_t k = 0;            // of the assembled band (after drop-off and the third stage)
  std::int64_t dropped = 0; // entries left out of the band
  double dropped_norm = 0;  // their Frobenius norm / ||C||_F
  double log_product = 0;   // DB: sum log|diagonal| after the matching
  MatchingStats matching;
  Ordering ordering;        // the global CM's
  // The report's phase times (seconds, sec. 3.4): T_DB, T_CM (global and
  // third stage), T_Drop, T_Asmbl, T_Dtransf (host <-> device copies of the
  // pipeline), then the dense phases in `banded`.
  double t_db = 0, t_cm = 0, t_drop = 0, t_asmbl = 0, t_dtransf = 0, t_setup = 0;
  BandedStats banded;       // P, k_i range, T_LU, T_BC, T_SPK, T_LUrdcd, T_Kry, restarts, the Krylov stats
};

template <class T>
class SparseSapSolver {
 public:
  // A square, canonical, finite. Throws StructurallySingular (with the
  // structural rank) when DB finds no perfect matching.
  SparseSapSolver(const Csr<T>& A, const SparseSapOptions& options = {});
  ~SparseSapSolver();
  SparseSapSolver(SparseSapSolver&&) noexcept;
  SparseSapSolver& operator=(SparseSapSolver&&) noexcept;

  // x: initial guess in, solution out (of A x = b, in A's own unknowns);
  // the residual in the stats is of the permuted, scaled system.
  KrylovStats solve(std::span<const T> b, std::span<T> x);
  // One application z = M^{-1} r of SaP's preconditioner as a
  // preconditioner of A itself, no Krylov iteration: M^{-1} = D_c P^T
  // B^{-1} P D_r Q, B^{-1} the SaP-D/SaP-C application on the assembled
  // band (what balsa::Preconditioner's sap-d and sap-c apply, for a
  // caller's own iteration). Host vectors of n values (r and z distinct); on
  // the GPU r and z are copied to and from the device around it.
  void precondition(std::span<const T> r, std::span<T> z);
  const SparseSapStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace balsa
