// Internal: the links of balsa::solve's chain (include/balsa/solve.hpp):
// each method set up once on A (or on DB's boosted matrix, computed once
// for every link that uses it), then solving any number of right-hand sides.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "balsa/direct.hpp"
#include "balsa/reorder.hpp"
#include "balsa/solve.hpp"
#include "sparse/system_map.hpp"

namespace balsa::solve_detail {

// A system the links solve instead of A's: C with c = map(b), x = map^-1(y).
template <class T>
struct Mapped {
  SystemMap map;
  Csr<T> C;
};

// What the links of one call share: A, the options, A's features, DB's
// system D_r Q A D_c and CM's reordering of it (each made on first use,
// once) and the direct solver Auto analysed (kept for its factorisation).
template <class T>
struct Shared {
  const Csr<T>& A;
  const SolveOptions& options;
  const SolveFeatures& features;
  std::optional<Mapped<T>> boosted;  // DB: ILU(0)-BiCGStab(2)'s system
  std::optional<Mapped<T>> banded;   // DB then CM: SaP's
  std::unique_ptr<DirectSolver<T>> analysed;

  const Mapped<T>& boosted_system(Device device);
  const Mapped<T>& banded_system(Device device);
};

// One method, set up.
template <class T>
class Link {
 public:
  virtual ~Link() = default;
  // x: initial guess in, answer out. A direct link answers in one step
  // (outcome Converged, 0 iterations) or throws.
  virtual KrylovStats solve(std::span<const T> b, std::span<T> x) = 0;
  // Columns [first, cols) of the column-major B (rows x cols) into the
  // same columns of X.
  virtual void solve_columns(std::span<const T> B, std::span<T> X, index_t rows, index_t first);
  // The direct solver's stats (nullptr for an iterative link).
  virtual const DirectStats* direct_stats() const { return nullptr; }
  virtual Device device() const = 0;
};

// Sets up method m on `device` (an iterative method's; direct ones run on the
// CPU; SolveMethod::Auto: the direct method DirectSolver's Auto picks, from the
// analysis Auto made when there is one). `progress` is the iterative methods' callback (may throw to stop).
template <class T>
std::unique_ptr<Link<T>> make_link(SolveMethod m, Device device, Shared<T>& shared,
                                   std::function<void(int, double)> progress);

// What a direct link's solve reports: Converged, no iterations.
KrylovStats direct_answer();

// The direct method DirectSolver's Auto picked for A (after its analysis).
SolveMethod solve_method_of(DirectMethod m) noexcept;
DirectMethod direct_method_of(SolveMethod m) noexcept;

}  // namespace balsa::solve_detail
