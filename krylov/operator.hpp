// Internal: the matrix of a Krylov solve as an operator (y = A x), for
// composite solvers whose A is not a CSR matrix (the SaP banded solver,
// sap/) and for the public matrix-free A (balsa::LinearOperator, wrapped by
// UserOperator below). KrylovSolver's CSR constructors wrap A's CSR
// themselves and do not use this.
//
// The user's callbacks (operators, preconditioners, the iterate and
// progress hooks) run through call_user: an exception they throw travels
// through balsa's layers as a UserCallbackError (a balsa::Error, so that the
// layers' boundaries pass it on) and leaves KrylovSolver's public call as
// the user's exception itself (rethrow_user_or_balsa_error).
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <utility>

#include "balsa/cuda.hpp"
#include "balsa/error.hpp"
#include "balsa/krylov.hpp"
#include "balsa/sparse.hpp"

namespace balsa::krylov {

template <class T>
class Operator {
 public:
  virtual ~Operator() = default;
  virtual index_t rows() const = 0;
  // CPU path: y = A x on host arrays of rows() values (no aliasing).
  virtual void apply(const T* x, T* y) = 0;
  // GPU path: the same on device arrays, asynchronous on the current stream
  // (the Krylov solver's, cuda/stream.hpp), no host synchronisation.
  virtual void apply_device(const T* x, T* y) = 0;
  // The same, but a no-op on the device once *stopped != 0 (a device int:
  // the Krylov status's stop code, see krylov/gpu_method.cuh). Operators
  // whose products are expensive read it in their kernels; the default
  // ignores it.
  virtual void apply_device_unless(const T* x, T* y, const int* /*stopped*/) { apply_device(x, y); }
  // Named in KrylovStats::spmv.
  virtual std::string name() const = 0;
};

// An exception thrown by a user's callback, carried to the public call.
class UserCallbackError : public Error {
 public:
  explicit UserCallbackError(std::exception_ptr e) : Error("an exception from a user's callback"), cause(std::move(e)) {}
  std::exception_ptr cause;
};

// f(args...), its exception (whatever its type) as a UserCallbackError.
template <class F, class... Args>
void call_user(const F& f, Args&&... args) {
  try {
    f(std::forward<Args>(args)...);
  } catch (const UserCallbackError&) {
    throw;
  } catch (...) {
    throw UserCallbackError(std::current_exception());
  }
}

// The stream handed to a user's device callback: the current one, whose
// nullptr (the per-thread default stream) as CUDA's handle
// cudaStreamPerThread (0x2 in cuda_runtime_api.h), usable as it is by the
// caller's CUDA code.
inline StreamHandle user_stream() {
  const StreamHandle s = cuda::current_stream();
  return s ? s : reinterpret_cast<StreamHandle>(std::uintptr_t(2));
}

// The public LinearOperator as the solvers' Operator (a copy of it).
template <class T>
class UserOperator final : public Operator<T> {
 public:
  explicit UserOperator(const LinearOperator<T>& A) : A_(A) {}
  index_t rows() const override { return A_.rows; }
  void apply(const T* x, T* y) override {
    const std::size_t n = std::size_t(A_.rows);
    call_user(A_.apply, std::span<const T>(x, n), std::span<T>(y, n));
  }
  void apply_device(const T* x, T* y) override { call_user(A_.apply_device, x, y, user_stream()); }
  std::string name() const override { return "operator"; }

 private:
  const LinearOperator<T> A_;
};

}  // namespace balsa::krylov
