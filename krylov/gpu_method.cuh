// Internal: what a GPU Krylov method (krylov/gpu_{cg,bicgstab,bicgstab_l}.cu)
// gets from the driver (krylov/gpu_solver.cu), and what it gives back.
//
// A method enqueues work only: start() the initial residual and the first
// direction, iterate(k) iteration k (0-based) with every kernel masked by the
// status, finish() what x still needs once the solve has stopped. All of it
// on the current stream (the Krylov solver's, cuda/stream.hpp), without host
// synchronisation; the driver decides how far ahead to enqueue and reads the
// status.
#pragma once

#include <memory>

#include "balsa/cuda.hpp"
#include "krylov/gpu.hpp"
#include "krylov/gpu_common.cuh"
#include "krylov/operator.hpp"

namespace balsa::krylov::gpu {

enum class Phase { Vector = 0, Spmv = 1, Preconditioner = 2 };

// Where a method says which phase of the iteration starts (the driver
// records CUDA events there on the iterations it samples).
class PhaseMarks {
 public:
  virtual ~PhaseMarks() = default;
  virtual void mark(Phase phase) = 0;
};

template <class T>
struct Context {
  index_t n = 0;
  Stopping stopping{};
  int l = 2;                        // BiCGStab(l)
  int restart = 30;                 // GMRES(m): m
  Preconditioner<T>* M = nullptr;   // null: none (z = r)
  cuda::DeviceCsr<T> A;             // A, unless op is set
  Operator<T>* op = nullptr;        // A as an operator (krylov/operator.hpp)
  std::unique_ptr<cuda::CusparseSpmv<T>> cusparse;  // null: balsa's own SpMV kernel
  cuda::DeviceBuffer<State> state;
  cuda::DeviceBuffer<double> partials;
  Launcher launch;
  PhaseMarks* marks = nullptr;
  // While the driver enqueues iterations: the status's stop code on the
  // device, handed to the operator and the preconditioner so that those
  // whose work is expensive skip it in the iterations enqueued beyond the
  // stop (their results are not used: every vector kernel is masked too).
  // Null outside iterate(), so start() and finish() always compute.
  const int* stopped = nullptr;

  // y = A x on device arrays of n values (not masked unless `stopped` is
  // set and the operator reads it: after a stop it recomputes from vectors
  // that no longer change).
  void spmv(const T* x, T* y) {
    marks->mark(Phase::Spmv);
    if (op)
      op->apply_device_unless(x, y, stopped);
    else if (cusparse)
      cusparse->apply(T(1), x, T(0), y);
    else
      cuda::spmv(A, x, y);
    marks->mark(Phase::Vector);
  }
  void spmv(const cuda::DeviceBuffer<T>& x, cuda::DeviceBuffer<T>& y) { spmv(x.data(), y.data()); }
  // z = M^{-1} r (only called when M is set).
  void precondition(const T* r, T* z) {
    marks->mark(Phase::Preconditioner);
    M->apply_device_unless(r, z, stopped);
    marks->mark(Phase::Vector);
  }
};

template <class T>
class Method {
 public:
  virtual ~Method() = default;
  // The method's scalars before start() (the driver zeroes the rest of the State).
  virtual void initial_scalars(Scalars&) const {}
  // r = b - A x and what the first iteration needs (b and x: device arrays
  // of n values; x is updated in place until the solve ends); the
  // InitialResidual finish records history[0] and stops when b == 0, b or x
  // is not finite, or x already meets the tolerance.
  virtual void start(const T* b, T* x) = 0;
  virtual void iterate(int k) = 0;
  // After the last iteration (not masked): BiCGStab(l) forms x = x0 + M^{-1} y.
  virtual void finish(T* /*x*/) {}
};

template <class T> std::unique_ptr<Method<T>> make_cg(Context<T>& c);          // gpu_cg.cu
template <class T> std::unique_ptr<Method<T>> make_bicgstab(Context<T>& c);    // gpu_bicgstab.cu
template <class T> std::unique_ptr<Method<T>> make_bicgstab_l(Context<T>& c);  // gpu_bicgstab_l.cu
template <class T> std::unique_ptr<Method<T>> make_gmres(Context<T>& c);       // gpu_gmres.cu
template <class T> std::unique_ptr<Method<T>> make_minres(Context<T>& c);      // gpu_minres.cu

}  // namespace balsa::krylov::gpu
