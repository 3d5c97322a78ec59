// balsa: when an iterative solve stops. One StoppingOptions is nested as
// `stopping` in every iterative solver's options (KrylovOptions,
// BandedOptions, SparseSapOptions, SolveOptions) and handed down unchanged
// to the Krylov iteration that runs inside them; each solver gives it its own
// defaults (its header says which).
//
//   balsa::KrylovOptions o;
//   o.stopping.tolerance = 1e-10;  // the other stopping fields keep KrylovOptions' defaults
//
// A designated initializer `.stopping = {.tolerance = 1e-10}` starts from
// StoppingOptions' own defaults below, not from the solver's: set single
// fields as above to keep the solver's.
//
// Checked every iteration (on the device on the GPU path), in this order:
//   converged:   ||r|| <= max(tolerance * ||b||, absolute_tolerance) in `norm`
//                (SciPy's rtol and atol; r the recursively updated residual);
//   diverged:    ||r|| > divergence * the smallest ||r|| so far (0: never);
//   stagnation:  ||r|| has not fallen below 0.9 times its value at the last
//                such fall for stagnation_window iterations (0: never);
//   max-iterations after max_iterations iterations.
#pragma once

#include "balsa/core.hpp"

namespace balsa {

enum class StoppingNorm { Infinity, Two };
template <>
struct EnumNames<StoppingNorm> {
  static constexpr const char* what = "stopping norm";
  static constexpr EnumName<StoppingNorm> names[] = {{StoppingNorm::Infinity, "inf"}, {StoppingNorm::Two, "2"}};
};

struct StoppingOptions {
  double tolerance = 1e-8;                     // relative residual (> 0, finite): SciPy's rtol
  // SciPy's atol: the test above is ||r|| <= max(tolerance * ||b||,
  // absolute_tolerance) (>= 0, finite; 0: the relative test alone). b == 0
  // gives x = 0, converged at iteration 0, whatever the tolerances.
  double absolute_tolerance = 0.0;
  // Of r and b in the test above: the 2-norm (SciPy's) unless asked;
  // Infinity is the thesis' max-norm test (CG and the BiCGStab methods only:
  // GMRES and MINRES know their residual's 2-norm from their recurrences).
  StoppingNorm norm = StoppingNorm::Two;
  int max_iterations = 10000;                  // >= 0
  double divergence = 1e10;                    // 0 (off) or a finite factor > 1
  int stagnation_window = 0;                   // iterations (>= 0; 0: off)
};

}  // namespace balsa
