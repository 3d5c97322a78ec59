// Internal: the GPU Krylov solvers as the front end (krylov/krylov_solver.cpp)
// sees them; no CUDA headers. Implemented in krylov/gpu_solver.cu (driver)
// and krylov/gpu_{cg,bicgstab,bicgstab_l}.cu (the methods' kernels); in a
// build without CUDA, krylov/gpu_no_cuda.cpp throws CudaError.
//
// The whole iteration runs on the device: scalars and the stopping test live
// in device memory, and the host only enqueues iterations and reads the
// status every few of them (see krylov/gpu_solver.cu).
#pragma once

#include <memory>
#include <span>

#include "balsa/krylov.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"

namespace balsa::krylov::gpu {

template <class T>
class Solver {
 public:
  virtual ~Solver() = default;
  // b and x: device arrays of rows() values each, ordered on the current
  // stream (the Krylov solver's); x is the initial guess and receives the
  // solution. Fills stats' solve fields (outcome, message, iterations,
  // matvecs, residual, true_residual, history, phase times), not
  // solve_seconds. Returns when the solve is over (x is final). Throws,
  // naming the index, when b or x holds NaN/Inf; b == 0 gives x = 0,
  // converged at iteration 0.
  virtual void solve(const T* b, T* x, KrylovStats& stats) = 0;
  // New values of A (A's CSR order, already checked): uploaded in place.
  virtual void update_values(std::span<const T> values) = 0;
  // The user's per-iterate callback (null: none; it must outlive the
  // solves): with one, the solve reads the status every iteration and
  // copies x_k to the host for the call (KrylovSolver::set_iterate_callback).
  virtual void set_iterate_callback(const IterateCallback<T>* /*f*/) {}
};

// Takes A's device copy (uploaded by the caller, beside the preconditioner's
// setup, from a matrix checked square, canonical and finite), chooses the
// SpMV (cuSPARSE or balsa's own kernel: the faster in a short timing, or
// the one options.spmv names) and allocates the work vectors. M (may
// be null: no preconditioner) must outlive the solver. Names the SpMV in
// setup.spmv.
template <class T>
std::unique_ptr<Solver<T>> make_solver(cuda::DeviceCsr<T> A, Preconditioner<T>* M, const KrylovOptions& options,
                                       KrylovStats& setup);
// The same with A as an operator (its device products; must outlive the
// solver), named in setup.spmv by its name().
template <class T>
std::unique_ptr<Solver<T>> make_solver(Operator<T>* A, Preconditioner<T>* M, const KrylovOptions& options,
                                       KrylovStats& setup);

// The explicit instantiations for T, one list for gpu_solver.cu and its stand-in (gpu_no_cuda.cpp).
#define BALSA_KRYLOV_GPU_SOLVERS(T) \
  template std::unique_ptr<Solver<T>> make_solver(cuda::DeviceCsr<T>, Preconditioner<T>*, const KrylovOptions&, \
  KrylovStats&); \
  template std::unique_ptr<Solver<T>> make_solver(Operator<T>*, Preconditioner<T>*, const KrylovOptions&, \
  KrylovStats&);

}  // namespace balsa::krylov::gpu
