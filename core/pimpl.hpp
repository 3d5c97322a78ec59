// Internal: the implementation behind a public class's pimpl handle
// (SparseQR, TriangularSolver, KrylovSolver, ...). Each public class holds
// `std::unique_ptr<Impl> impl_` and defines its destructor and moves as
// `= default` where Impl is complete; live_impl gives the Impl, or a named
// error once the handle has been moved from. Impl::kOwner names the class
// in the message.
#pragma once

#include <memory>
#include <string>

#include "balsa/error.hpp"

namespace balsa {

template <class Impl>
Impl& live_impl(const std::unique_ptr<Impl>& impl) {
  if (!impl) throw Error(std::string(Impl::kOwner) + ": used after being moved from");
  return *impl;
}

}  // namespace balsa
