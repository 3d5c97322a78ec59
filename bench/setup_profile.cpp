// Host-side profile of the PCG-IC(0) setup (not part of the build): times,
// on the machine at hand, the host passes that KrylovSolver<double> with an
// IC(0) preconditioner runs on its GPU path, without needing a GPU (the
// sync-free-blocks analysis is called directly). Build and run from the
// repository root, after `cmake --build build`:
//
//   g++ -std=c++20 -O3 -fopenmp -Iinclude -Ibuild/include -I. bench/setup_profile.cpp \
//       build/libbalsa.a -L/usr/local/cuda/lib64 -lcudart -lcusparse -lopenblas -o /tmp/setup_profile
//   /tmp/setup_profile [grid=160] [chunks=132] [repeats=3]
//
// (with build-nocuda/libbalsa.a no CUDA libraries are needed; built against
// a tree without sparse/transpose.hpp, i.e. before the concurrent setup, it
// leaves the new-flow phase out, so one driver measures both). Each phase
// prints its first run (what a process that sets up once pays), the least
// of `repeats` runs, and the fresh memory it touched (minor page faults x
// 4 KB: the kernel zeroes every fresh page, which on a VM is a large part of
// the host setup). The Krylov front end is timed on the CPU path (the GPU
// path copies A's pattern only, not its values).
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <string>
#include <utility>

#include "balsa/balsa.hpp"
#if __has_include("sparse/transpose.hpp")
#include "core/parallel.hpp"
#include "sparse/transpose.hpp"
#endif
#include "trsv/off_diagonal.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_layout.hpp"
#include "trsv/sync_free_blocks/sync_free_blocks_plan.hpp"
#include "core/clock.hpp"

using namespace balsa;

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct Phase {
  double first = 0, least = 0, gb = 0;
};

class Profile {
 public:
  // Runs f and records its wall time (less f's return value: time to leave
  // out) and fresh memory under `name`.
  template <class F>
  void measure(const std::string& name, F&& f) {
    const long f0 = minor_faults();
    const auto t0 = Clock::now();
    const double left_out = f();
    add(name, seconds_since(t0) - left_out, double(minor_faults() - f0) * 4096 / 1e9);
  }
  void add(const std::string& name, double seconds, double gb = 0) {
    auto [it, fresh] = phases_.try_emplace(name, Phase{seconds, seconds, gb});
    if (fresh) names_.push_back(name);
    it->second.least = std::min(it->second.least, seconds);
  }
  void print() const {
    std::printf("%-52s %9s %9s %9s\n", "phase", "first", "least", "fresh GB");
    for (const std::string& n : names_) {
      const Phase& p = phases_.at(n);
      std::printf("%-52s %7.3f s %7.3f s %9.2f\n", n.c_str(), p.first, p.least, p.gb);
    }
  }

 private:
  std::vector<std::string> names_;
  std::map<std::string, Phase> phases_;
};

// The host part of the SyncFreeBlocksSolver constructor (trsv/sync_free_blocks/sync_free_blocks.cu),
// given the front end's level sets: level per row, row work, plan, split,
// layout, the first value gather.
void sync_free_blocks_host(const Csr<double>& M, Triangle tri, const LevelSets& levels, index_t chunks) {
  const index_t n = M.rows;
  std::vector<index_t> level(static_cast<std::size_t>(n)), work(static_cast<std::size_t>(n));
  for (index_t l = 0; l < levels.count(); ++l)
    for (index_t q = levels.level_ptr[l]; q < levels.level_ptr[l + 1]; ++q) level[std::size_t(levels.rows[q])] = l;
  for (index_t i = 0; i < n; ++i) work[std::size_t(i)] = M.row_ptr[i + 1] - M.row_ptr[i] + 1;
  const auto plan = trsv_gpu::detail::plan_sync_free_blocks(level, work, tri, chunks);
  const auto pattern = trsv_gpu::detail::split_diagonal(M, DiagonalKind::NonUnit, plan.order);
  const double mean = double(pattern.nnz()) / double(n);  // trsv_gpu::detail::lanes_for
  const int lanes = mean <= 3 ? 1 : mean <= 8 ? 4 : mean <= 16 ? 8 : mean <= 32 ? 16 : 32;
  const auto layout = trsv_gpu::detail::layout_sync_free_blocks(plan, pattern, lanes, /*kCap=*/4);
  std::vector<double> ell;
  trsv_gpu::detail::gather_positions(std::span<const index_t>(layout.ell_value_pos), std::span<const double>(M.values),
                                     ell);
}

// One triangular solver's host setup on the GPU path: the front end (the CPU
// level-set solver runs the same one) on F, then the sync-free-blocks
// analysis of the matrix solved (M, computed beforehand with its levels),
// then the diagonal positions of the first device value update.
template <class Matrix>
void solver_host(Matrix&& F, const TrsvOptions& o, const Csr<double>& M, const LevelSets& levels, index_t chunks) {
  const TriangularSolver<double> s(std::forward<Matrix>(F), o);
  const bool upper = (o.operation == Operation::Transpose) != (o.triangle == Triangle::Upper);
  sync_free_blocks_host(M, upper ? Triangle::Upper : Triangle::Lower, levels, chunks);
  (void)trsv_gpu::detail::diagonal_positions(M, DiagonalKind::NonUnit);
}

TrsvOptions cpu_level_set(Triangle tri, Operation op) {
  return {.algorithm = TrsvAlgorithm::LevelSet, .device = Device::Cpu, .triangle = tri, .operation = op};
}

// What the solvers' constructors compute themselves (untimed here): L, L^T and their levels.
struct Inputs {
  const Csr<double>& A;
  index_t chunks;
  Csr<double> L0 = extract_triangle(A, Triangle::Lower);
  Csr<double> LT = transpose(L0);
  LevelSets L_levels = level_sets(L0, Triangle::Lower), LT_levels = level_sets(LT, Triangle::Upper);
};

#if __has_include("sparse/transpose.hpp")
void measure_new_flow(Profile& prof, const Inputs& in) {
  // The flow of the third session (krylov/preconditioner.cpp has moved on
  // since: patterns without values, U from A's upper triangle when A's
  // pattern is symmetric, the factors from A's device copy): the solvers
  // on two threads beside the factorisation, the cores shared, each
  // building its pattern (values 1) and taking it: L = A's lower
  // triangle, U = its transpose with the map back into L.
  prof.measure("GPU-path host setup, concurrent (the new flow)", [&] {
    const int share = std::max(1, omp_get_max_threads() / 3);
    auto L = std::async(std::launch::async, [&] {
      omp_set_num_threads(share);
      Csr<double> lower = extract_triangle(in.A, Triangle::Lower);
      std::fill(lower.values.begin(), lower.values.end(), 1.0);
      solver_host(std::move(lower), cpu_level_set(Triangle::Lower, Operation::NonTranspose), in.L0, in.L_levels, in.chunks);
    });
    auto U = std::async(std::launch::async, [&] {
      omp_set_num_threads(share);
      const std::vector<index_t> L_ptr = parallel::kept_row_ptr(
          in.A.rows, in.A.row_ptr, [&](index_t i, index_t p) { return in.A.col_idx[std::size_t(p)] <= i; });
      TransposedPattern t = transpose_pattern(in.A.rows, in.A.cols, in.A.row_ptr, in.A.col_idx, Triangle::Lower);
      for (std::size_t q = 0; q < t.source.size(); ++q)
        t.source[q] += L_ptr[std::size_t(t.col_idx[q])] - in.A.row_ptr[std::size_t(t.col_idx[q])];
      Csr<double> upper{in.A.cols, in.A.rows, std::move(t.row_ptr), std::move(t.col_idx),
                        std::vector<double>(t.source.size(), 1.0)};
      solver_host(std::move(upper), cpu_level_set(Triangle::Upper, Operation::NonTranspose), in.LT, in.LT_levels, in.chunks);
    });
    const int saved = omp_get_max_threads();
    omp_set_num_threads(share);
    IncompleteFactorization<double> f(in.A, {.kind = IncompleteKind::Ic0, .device = Device::Cpu});
    omp_set_num_threads(saved);
    L.get();
    U.get();
    return f.stats().factor_seconds;
  });
}
#else
void measure_new_flow(Profile&, const Inputs&) {}
#endif

// One run of every phase.
void measure_round(Profile& prof, const Inputs& in) {
  const Csr<double>& A = in.A;
  const index_t chunks = in.chunks;
  const Csr<double>& L0 = in.L0;
  const Csr<double>& LT = in.LT;
  const LevelSets &L_levels = in.L_levels, &LT_levels = in.LT_levels;
  // The Krylov front end without a preconditioner (checks, symmetry, copy of A).
  prof.measure("krylov front end (checks, symmetry, copy of A)", [&] {
    KrylovSolver<double> s(A, {.method = KrylovMethod::Cg, .preconditioner = PreconditionerKind::None,
                               .device = Device::Cpu});
    return 0.0;
  });
  // The pieces, one at a time.
  prof.measure("IC(0) constructor, less its numeric factorisation", [&] {
    IncompleteFactorization<double> f(A, {.kind = IncompleteKind::Ic0, .device = Device::Cpu});
    return f.stats().factor_seconds;
  });
  const TrsvOptions lower_o = cpu_level_set(Triangle::Lower, Operation::NonTranspose);
  const TrsvOptions transposed_o = cpu_level_set(Triangle::Lower, Operation::Transpose);
  prof.measure("trsv L   front end + sync-free-blocks analysis",
               [&] { return solver_host(L0, lower_o, L0, L_levels, chunks), 0.0; });
  prof.measure("trsv L^T front end + sync-free-blocks analysis",
               [&] { return solver_host(L0, transposed_o, LT, LT_levels, chunks), 0.0; });
  // The old flow: factorisation, one host copy of the factors, the solvers in turn.
  prof.measure("GPU-path host setup, in turn (the old flow)", [&] {
    IncompleteFactorization<double> f(A, {.kind = IncompleteKind::Ic0, .device = Device::Cpu});
    const Csr<double> F = f.factors();
    solver_host(F, lower_o, L0, L_levels, chunks);
    solver_host(F, transposed_o, LT, LT_levels, chunks);
    return f.stats().factor_seconds;
  });
  measure_new_flow(prof, in);
  // The whole CPU PCG-IC(0) setup (level-set solvers, numeric factorisation included).
  prof.measure("KrylovSolver CPU PCG-IC(0) setup", [&] {
    KrylovSolver<double> s(A, {.method = KrylovMethod::Cg, .preconditioner = PreconditionerKind::Ic0,
                               .device = Device::Cpu});
    return 0.0;
  });
}

}  // namespace

int main(int argc, char** argv) {
  const index_t g = argc > 1 ? std::atoi(argv[1]) : 160;
  const index_t chunks = argc > 2 ? std::atoi(argv[2]) : 132;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  const Csr<double> A = laplacian_3d<double>(g, g, g);
  std::printf("lap3d %d^3: n = %d, nnz(A) = %d, %d runs, %d OpenMP threads\n", g, A.rows, A.nnz(), repeats,
              omp_get_max_threads());
  const Inputs in{A, chunks};
  Profile prof;
  for (int r = 0; r < repeats; ++r) measure_round(prof, in);
  prof.print();
  return 0;
}
