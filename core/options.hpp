// Internal: an options struct with its Device::Auto resolved
// (balsa::resolve_device), the first thing each solver's set-up does, so
// that everything below it, and its stats(), see Cpu or Cuda only.
#pragma once

#include "balsa/core.hpp"

namespace balsa {

template <class Options>
Options with_device_resolved(Options o) {
  o.device = resolve_device(o.device);
  return o;
}

}  // namespace balsa
