// balsa: sparse triangular solve (analysis once, then solve many times).
//
//   balsa::TriangularSolver<double> L_solve(L, {.algorithm = balsa::TrsvAlgorithm::Auto,
//                                              .device = balsa::Device::Cuda});
//   L_solve.solve(b, x);                 // host or device vectors, any number of times
//   L_solve.update_values(new_values);   // same pattern, new numbers
//   L_solve.stats();                     // what the analysis found, times
//
// Algorithms (docs/glossary.md, trsv/):
//   Reference  serial substitution on the CPU (the oracle of every test)
//   LevelSet   level scheduling: rows of one dependency level in parallel;
//              OpenMP on the CPU; on the GPU thin levels are merged into
//              single-block launches and the launch sequence is a CUDA graph
//   SyncFree   GPU only: synchronization-free, each row waits for its own
//              dependencies (CSR; Liu et al. 2016 style, no level barrier)
//   SyncFreeCsc GPU only: Liu et al.'s warp-per-column CSC algorithm with
//              in-degree counters
//   Tassl      Picciau's TASSL: the dependency graph partitioned into
//              sub-graphs that fit one block's shared memory, each run slot
//              by slot with x kept in shared memory (one launch per sub-graph
//              level); on the CPU the same schedule runs serially
//   SyncFreeBlocks GPU only: the rows cut into one chunk of consecutive
//              rows per multiprocessor; a block solves its chunk level by
//              level behind block barriers and waits row by row (sync-free)
//              for rows of earlier chunks: no launch per level
//   Spike      partitioned solve for narrow profiles (bandwidth w): the rows
//              cut into chains solved independently, their coupling through
//              the last w unknowns of each chain resolved exactly by spikes
//              (w x w) and a two-level recurrence over the chain boundaries,
//              then every chain again from its true start (trsv/spike/);
//              GPU (a warp per chain) and CPU (a thread per chain)
//   Cusparse   GPU only: cuSPARSE SpSV (the baseline)
//   Auto       chosen from the analysis statistics (see trsv/auto_choice)
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "balsa/core.hpp"
#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class TrsvAlgorithm { Auto, Reference, LevelSet, SyncFree, SyncFreeCsc, Cusparse, Tassl, SyncFreeBlocks, Spike };
template <>
struct EnumNames<TrsvAlgorithm> {
  static constexpr const char* what = "triangular-solver algorithm";
  static constexpr EnumName<TrsvAlgorithm> names[] = {
      {TrsvAlgorithm::Auto, "auto"},         {TrsvAlgorithm::Reference, "reference"},
      {TrsvAlgorithm::LevelSet, "level-set"}, {TrsvAlgorithm::SyncFree, "sync-free"},
      {TrsvAlgorithm::SyncFreeCsc, "sync-free-csc"}, {TrsvAlgorithm::Cusparse, "cusparse"},
      {TrsvAlgorithm::Tassl, "tassl"},       {TrsvAlgorithm::SyncFreeBlocks, "sync-free-blocks"},
      {TrsvAlgorithm::Spike, "spike"}};
};

struct TrsvOptions {
  TrsvAlgorithm algorithm = TrsvAlgorithm::Auto;
  Device device = Device::Auto;  // resolve_device: the GPU when present
  Triangle triangle = Triangle::Lower;  // which triangle A holds
  DiagonalKind diagonal = DiagonalKind::NonUnit;
  Operation operation = Operation::NonTranspose;  // solve with A or with A^T
  // TASSL: most vertices a sub-graph may hold; 0: as many values of T as one
  // block's opt-in shared memory holds beside the kernel's 32 KB staging area
  // (24,960 doubles on an H200), at most 65,535.
  index_t tassl_n_max = 0;
  // SyncFreeBlocks: number of chunks (thread blocks); 0: one per
  // multiprocessor, at least 256 rows each.
  index_t blocks_chunks = 0;
  // Pattern updates of TASSL (replace_columns, thesis ch. 6): a full analysis
  // every this many updates (the thesis' n_repart; 0: only when needed), and
  // when the sub-graph levels have grown past (1 + tassl_level_growth) times
  // those of the last full analysis (+ 2): updates never lower levels.
  int tassl_repartition_every = 0;
  double tassl_level_growth = 0.25;
  // Spike: rows per chain (0: from the cost model, trsv/spike/spike_plan.hpp)
  // and the most bytes its spikes may take (0: 512 MB). A profile too wide
  // for them makes an explicit Spike fall back to Auto's other choices
  // (stats().spike.fallback says why).
  index_t spike_chain_rows = 0;
  std::int64_t spike_max_bytes = 0;
  // Auto on the GPU, triangles of at most 200,000 rows with values: the
  // models' pick is timed against the other candidates at set-up and the
  // fastest kept (trsv/auto_choice.hpp; stats().trial says what ran).
  bool auto_trial = true;
  // GPU sync-free solvers (SyncFree, SyncFreeCsc, SyncFreeBlocks): a
  // dependency wait gives up after this many milliseconds (x then holds NaN
  // and check_last_solve throws); <= 0: 2000. Raise it under
  // compute-sanitizer, which slows the spinning kernels by orders of magnitude.
  // One limit per algorithm and device (a device variable of its kernel
  // file): a solver made with a value other than the default sets it for
  // every solver of that algorithm on that device (a default one leaves it).
  int watchdog_ms = 2000;
  // The CUDA stream of all the solver's GPU work (include/balsa/core.hpp;
  // nullptr: the calling thread's per-thread default stream).
  StreamHandle stream = nullptr;
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
};

// Pattern updates (replace_columns, update_pattern; thesis ch. 6).
struct TrsvUpdateStats {
  int updates = 0;      // calls that changed the matrix
  int incremental = 0;  // done by updating TASSL's analysis
  int reanalyses = 0;   // done by a full analysis (every update of the other algorithms; TASSL's re-partitions)
  int recaptures = 0;   // GPU TASSL: launches changed, the CUDA graph captured again
  std::string last_reason;          // why the last full analysis ran (empty: the last update was incremental)
  double last_seconds = 0.0;        // wall time of the last update (checks, new pattern, analysis, uploads)
  double incremental_seconds = 0.0, reanalysis_seconds = 0.0;  // totals
  double full_analysis_seconds = 0.0;  // the last full analysis (constructor or re-analysis): the update's yardstick
  std::int64_t last_scheduled_edges = 0;  // edges of the sub-graphs the last update scheduled again
  index_t last_blocks = 0;                // GPU blocks laid out again
  index_t last_relocated = 0;             // of which moved to new segments
  std::int64_t last_uploaded_bytes = 0;   // host -> device bytes of the last update
};

// What the sync-free-blocks analysis found; zero for the other algorithms.
struct SyncFreeBlocksStats {
  index_t chunks = 0;
  index_t steps = 0;        // level steps over all chunks (block barriers)
  index_t most_steps = 0;   // steps of the chunk with the most
  index_t widest_step = 0;  // rows of the widest step
};

// What the spike analysis found; zero for the other algorithms.
struct SpikeStats {
  index_t bandwidth = 0;   // w: the farthest entry from the diagonal
  index_t chain_rows = 0;  // m
  index_t chains = 0;      // P
  index_t groups = 0;      // Q: groups of the boundary recurrence
  std::int64_t spike_bytes = 0;
  double predicted_seconds = 0.0;  // the cost model's solve time (GPU)
  std::string fallback;            // why Spike was asked for and not used (empty: it was, or was not asked for)
};

// What TASSL's analysis found (thesis ch. 3-4); zero for the other algorithms.
struct TasslStats {
  index_t n_max = 0;
  index_t subgraphs = 0;
  index_t subgraph_levels = 0;     // launches of the solve
  index_t isolated = 0;            // V0: no parent, no child
  index_t components = 0;          // weakly connected, with at least one edge
  index_t split_components = 0;    // components larger than n_max
  index_t fallbacks = 0;           // split components cut in level order (the heuristic failed)
  std::int64_t external_edges = 0, internal_edges = 0;
  std::int64_t internal_slots = 0;       // over all sub-graphs
  std::int64_t most_slots = 0;           // internal + external slots of the longest sub-graph
  std::int64_t rounds = 0;               // block barriers over all sub-graphs (GPU layout)
  std::int64_t critical_rounds = 0;      // sum over launches of the longest block's rounds
  double partition_seconds = 0.0, schedule_seconds = 0.0, layout_seconds = 0.0;
  double upload_seconds = 0.0;  // GPU: value scaling, uploads, kernel set-up and graph capture
};

struct TrsvStats {
  TrsvAlgorithm algorithm = TrsvAlgorithm::Auto;  // the one chosen
  Device device = Device::Cpu;
  index_t rows = 0;
  index_t nnz = 0;
  // Of the last full analysis (pattern updates keep them): dependency levels
  // of the system actually solved, the widest, the mean width.
  index_t levels = 0;
  index_t widest_level = 0;  // rows in the widest level
  double mean_level_width = 0.0;
  double analysis_seconds = 0.0;    // constructor (checks, analysis, uploads)
  double front_end_seconds = 0.0;   // of which: checks, copy or transpose, level sets (every algorithm)
  double last_solve_seconds = 0.0;  // wall time of the last solve() call
  int solves = 0;
  // Device::Auto on a triangle too small for the GPU: host-vector solves
  // run by substitution on the host (device vectors still on the GPU).
  bool host_solves_on_cpu = false;
  // Where the level sets of the analysis ran (Device::Cuda: the device
  // sweep, on a GPU solver when the rule allows it), their time (part of
  // front_end_seconds), and why the host ran them (empty when the device did).
  Device level_sets_device = Device::Cpu;
  double level_sets_seconds = 0.0;
  std::string level_sets_reason;
  // Auto on the GPU for small triangles (trsv/auto_choice.hpp): the models'
  // pick and cuSPARSE timed at set-up (seconds a solve; 0: no trial).
  double trial_pick_seconds = 0.0, trial_cusparse_seconds = 0.0;
  std::string trial;  // every candidate timed: "name t ms, ..." (the pick first)
  TasslStats tassl;
  SyncFreeBlocksStats blocks;
  SpikeStats spike;
  TrsvUpdateStats updates;
};


// Solves A x = b (or A^T x = b) for a triangular canonical CSR matrix A.
// The constructor checks A (check_triangular_system) and analyses it; every
// bad input is an error naming the row/column (or index for b).
template <class T>
class TriangularSolver {
 public:
  TriangularSolver(const Csr<T>& A, const TrsvOptions& options = {});
  // The same, taking A's arrays instead of copying them (A is left in a
  // valid but unspecified state, unless the checks of A throw).
  TriangularSolver(Csr<T>&& A, const TrsvOptions& options = {});
  // Internal: the same without the checks (detail::PrecheckedMatrix).
  TriangularSolver(Csr<T>&& A, const TrsvOptions& options, detail::PrecheckedMatrix);
  ~TriangularSolver();
  TriangularSolver(TriangularSolver&&) noexcept;
  TriangularSolver& operator=(TriangularSolver&&) noexcept;

  // Host vectors (on a CUDA solver: copied to the device and back).
  void solve(std::span<const T> b, std::span<T> x);
  // Many right-hand sides: the columns of B (rows() x k), into X (resized).
  // On the GPU every column goes in one call (TASSL: one launch per sub-graph
  // level for all of them); on the CPU the columns are solved in parallel.
  void solve(const DenseMatrix<T>& B, DenseMatrix<T>& X);
  // Device vectors (CUDA solvers only): enqueued on the solver's stream
  // (options.stream) and asynchronous with respect to the host: the caller
  // synchronises that stream before reading x, and orders b with it when b
  // was written on another stream. b is not checked for NaN/Inf on this path.
  void solve(const cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& x);
  // Device matrices: `columns` right-hand sides of rows() values each,
  // column-major (B and X hold rows() * columns values). Asynchronous on the
  // solver's stream, as above.
  void solve(const cuda::DeviceBuffer<T>& B, cuda::DeviceBuffer<T>& X, index_t columns);
  // Raw device pointers (CUDA solvers only) of rows() values each, b and x
  // distinct: the same as the DeviceBuffer overload, for callers that keep
  // vectors inside larger buffers (the Krylov solvers, zero-copy bindings).
  void solve_device(const T* b, T* x);
  // The same for `columns` right-hand sides: B and X hold rows() * columns
  // values each, column-major, and do not overlap (columns == 1 is the call
  // above). Asynchronous on the solver's stream.
  void solve_device(const T* B, T* X, index_t columns);
  // Waits for the last solve (the solver's stream) and throws if a sync-free
  // solver's dependency wait exceeded its watchdog (x then holds NaN).
  // Host-vector solves check this themselves; device-vector solves leave it
  // to the caller.
  void check_last_solve();
  // New values for the same pattern, in A's CSR order (A.values' layout).
  // The diagonal and finiteness checks are repeated; on an error the solver
  // keeps its previous values.
  void update_values(std::span<const T> values);
  // The same from device memory (Device::Cuda solvers): checked on the
  // device (finite, nonzero diagonal), then gathered into the solver's layout
  // on the device (level-set, sync-free-blocks, cuSPARSE; the other algorithms copy
  // through the host). Waits once for the check (the solver's stream).
  void update_values(const cuda::DeviceBuffer<T>& values);

  // Pattern changes (a sequence of matrices, thesis ch. 6). Column
  // columns[k] of A (the matrix given to the constructor, in its triangle)
  // becomes the entries row_idx[col_ptr[k] .. col_ptr[k + 1]) (rows strictly
  // increasing, the diagonal included unless Unit) with `values`; the other
  // columns keep theirs. TASSL updates its analysis: the partition (new
  // vertices placed, sub-graph levels raised), the time slots of the
  // sub-graphs touched, and on the GPU only those blocks' arrays and values
  // (the CUDA graph is captured again only when the launches change). It
  // analyses afresh on a cycle between sub-graphs, when the update would cost
  // more than a full analysis (a rule from the measured times of both), on
  // options.tassl_repartition_every / tassl_level_growth; the other
  // algorithms always analyse afresh (Auto may then choose another). See
  // stats().updates. Bad input (a column out of range or twice, an entry
  // outside the triangle, a missing or zero diagonal, NaN/Inf, unsorted rows)
  // is an error that leaves the solver as it was.
  void replace_columns(std::span<const index_t> columns, std::span<const index_t> col_ptr,
                       std::span<const index_t> row_idx, std::span<const T> values);
  // A whole new matrix of A's size: the columns whose pattern changed are
  // found (O(nnz)) and replaced as above, then every value updated.
  void update_pattern(const Csr<T>& A);

  const TrsvStats& stats() const;
  index_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Serial forward (Lower) or backward (Upper) substitution on the CPU,
// accumulating in T: the oracle. A must be square canonical CSR (sorted
// columns, no duplicates) with every stored entry in the triangle; with
// NonUnit the diagonal must be present and nonzero; with Unit stored diagonal
// entries are ignored and taken as 1. b and x must be finite-valued, of A's size.
template <class T>
void trsv_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b, std::span<T> x);

// The checks above without solving (every triangular solver runs them):
// canonical, square, triangular, diagonal, finite values.
template <class T>
void check_triangular_system(const Csr<T>& A, Triangle tri, DiagonalKind diag);

}  // namespace balsa
