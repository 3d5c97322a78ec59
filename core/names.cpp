// The enum-name machinery's one out-of-line piece (include/balsa/core.hpp),
// the resolution of Device::Auto and the library's version.
#include <string>

#include "balsa/config.hpp"
#include "balsa/core.hpp"
#include "balsa/cuda.hpp"

namespace balsa {

namespace detail {
void throw_unknown_name(const char* what, std::string_view name, const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw UnknownName(names, "unknown " + std::string(what) + " '" + std::string(name) + "' (one of: " + list + ")");
}
}  // namespace detail

Device resolve_device(Device device) noexcept {
  if (device != Device::Auto) return device;
  return cuda::available() ? Device::Cuda : Device::Cpu;
}

const char* version() noexcept { return BALSA_VERSION; }

}  // namespace balsa
