// Internal: the multicolour ordering of the Krylov solvers
// (KrylovOrdering::Multicolour, include/balsa/krylov.hpp). The solver works
// on P A P^T, P the rows of A sorted by the colours of a greedy distance-1
// colouring (include/balsa/graph.hpp): each colour is a diagonal block of
// P A P^T, so the triangles of IC(0)/ILU(0) have one dependency level per
// colour (Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed.,
// sec. 12.4, multicolour ILU(0)). A x = b is (P A P^T)(P x) = P b: b and
// x0 go in through P, x comes out through P^T, so the caller sees A's order.
#pragma once

#include <span>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

namespace balsa::krylov {

class Reordering {
 public:
  // Colours A (canonical and square, checked by the caller) and returns
  // P A P^T in `PA` (its rows sorted).
  template <class T>
  Reordering(const Csr<T>& A, Csr<T>& PA);

  index_t colours() const { return colours_; }
  // The row of A that is row i of P A P^T (perm[new] = old).
  index_t original(index_t i) const { return perm_[std::size_t(i)]; }
  // New values of A (A's CSR order) in P A P^T's order (out: source's size).
  template <class T>
  void values(std::span<const T> a_values, std::span<T> out) const;
  // The position in A's arrays of P A P^T's entry q.
  index_t source(index_t q) const { return source_[std::size_t(q)]; }

  // Host vectors: y = P v (in) and v = P^T y (out), in parallel.
  template <class T>
  void in(std::span<const T> v, std::span<T> y) const;
  template <class T>
  void out(std::span<const T> y, std::span<T> v) const;
  // The same on device arrays of rows values (no aliasing), asynchronous on
  // the current stream, after upload() (also on the current stream).
  void upload();
  template <class T>
  void in_device(const T* v, T* y) const;
  template <class T>
  void out_device(const T* y, T* v) const;

 private:
  std::vector<index_t> perm_;    // perm[new] = old
  std::vector<index_t> source_;  // P A P^T's entry q is A's entry source[q]
  cuda::DeviceBuffer<index_t> device_perm_;
  index_t colours_ = 0;
};

}  // namespace balsa::krylov
