// Internal: every algorithm's backend (trsv/backend.hpp) made by one factory,
// the CPU ones (trsv/backends.cpp) and the GPU ones (trsv/gpu_algorithm.hpp).
#pragma once

#include <memory>

#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "trsv/backend.hpp"
#include "trsv/spike/spike_plan.hpp"

namespace balsa::trsv {

// TASSL's n_max when TrsvOptions::tassl_n_max is 0: the GPU's (its shared
// memory), or on the CPU an H200's.
template <class T>
index_t default_tassl_n_max(Device device);

// What a backend's set-up reads besides the matrix.
struct Setup {
  const TrsvOptions& options;          // device resolved (Device::Cpu or Device::Cuda)
  const LevelSets& levels;             // of M in `tri`
  const trsv_spike::Partition& spike;  // Spike's chains (the choice made them)
};

// The backend of algorithm `a` on s.options.device for M (the matrix solved,
// triangle `tri`). The CPU backends read M itself, which must outlive them
// (the front end's copy); the GPU ones copy what they need. Errors: an
// algorithm that runs on the other device only (the front end's messages).
template <class T>
std::unique_ptr<Backend<T>> make_backend(TrsvAlgorithm a, const Csr<T>& M, Triangle tri, const Setup& s);

// Plain substitution on the host (TrsvAlgorithm::Reference on the CPU; the
// host solves of Device::Auto on a small triangle).
template <class T>
std::unique_ptr<Backend<T>> make_substitution(const Csr<T>& M, Triangle tri, DiagonalKind diag);

}  // namespace balsa::trsv
