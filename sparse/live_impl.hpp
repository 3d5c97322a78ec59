// Internal: the object behind a public class's pimpl handle (SparseQR,
// TriangularSolver, KrylovSolver, ...), or a named error once the handle
// has been moved from. Impl::kOwner names the class in the message.
#pragma once

#include <string>

#include "balsa/error.hpp"

namespace balsa {

template <class Impl>
Impl& live_impl(Impl* impl) {
  if (!impl) throw Error(std::string(Impl::kOwner) + ": used after being moved from");
  return *impl;
}

}  // namespace balsa
