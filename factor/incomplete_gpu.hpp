// Internal: the GPU side of balsa::IncompleteFactorization
// (factor/incomplete.cu; factor/incomplete_no_cuda.cpp in a build without
// CUDA). The front end (factor/incomplete_factorization.cpp) owns the checks,
// the pattern analysis and the shift policy; the backend holds the device
// copies and runs one attempt at a time.
//
// Device arrays (all in the factor pattern's CSR order):
//   a       the values being factored (A's, or A's lower triangle)
//   work    the attempt's output: a copied, the diagonal shifted, factored
//   values  the last successful factors (device_values())
// Every call runs on the current stream (cuda/stream.hpp): the
// factorisation's (IncompleteOptions::stream), which its front end opens.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "balsa/factor.hpp"
#include "balsa/graph.hpp"

namespace balsa {
// The factorisation's name in messages ("ILU(0)", "IC(0)"; to_string gives
// the parse name, "ilu0").
inline const char* factor_name(IncompleteKind k) { return k == IncompleteKind::Ilu0 ? "ILU(0)" : "IC(0)"; }
}  // namespace balsa

namespace balsa::factor_gpu {

struct Breakdown {
  index_t row = -1;    // first row that broke down, -1: none
  double pivot = 0.0;  // its pivot (u_ii; d_i for Ic0)
};

template <class T>
class Backend {
 public:
  virtual ~Backend() = default;
  // New values for `a`, in the pattern's order, from the host.
  virtual void set_values(std::span<const T> a) = 0;
  // New values for `a` from A's values on the device (A's CSR order; Ic0
  // gathers its lower triangle). Returns the position of the first
  // non-finite value of A's values, or -1 (then `a` is set).
  virtual std::int64_t set_values_from_device(const T* A_values, std::size_t count) = 0;
  // One attempt on A + alpha diag(A) into `work` (waits for it).
  virtual Breakdown attempt(double alpha) = 0;
  // work -> values (after a successful attempt).
  virtual void commit() = 0;
  virtual const cuda::DeviceBuffer<T>& values() const = 0;
  // `a` as it is now (after set_values_from_device), to the host.
  virtual std::vector<T> a_to_host() const = 0;
  // Factors computed elsewhere (the host) become values().
  virtual void set_factors(std::span<const T> f) = 0;
};

// `pattern` the factor pattern, `diagonal` its diagonal positions, `levels`
// its dependency levels (level_sets(pattern, Lower)), `A_row_ptr` (Ic0) A's
// row pointer (row i of the pattern is the start of A's row i; unused for
// Ilu0), A_nnz the entries of A.
template <class T>
std::unique_ptr<Backend<T>> make_backend(IncompleteKind kind, const Csr<T>& pattern, std::span<const index_t> diagonal,
                                         const LevelSets& levels, std::span<const index_t> A_row_ptr, index_t A_nnz,
                                         double pivot_tolerance);

}  // namespace balsa::factor_gpu
