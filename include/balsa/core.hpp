// balsa: what every capability shares: the error types (balsa/error.hpp),
// the device, operation and diagonal enums, and the names of every public
// enum.
//
// Names. Each public enum E has one table of names, EnumNames<E>, written
// beside the enum in its header; to_string(e) and from_string<E>("name")
// read it, and so do the command line, the benchmarks and the Python
// module: one spelling of each value everywhere.
//
//   balsa::to_string(balsa::Device::Cuda)              // "cuda"
//   balsa::from_string<balsa::TrsvAlgorithm>("tassl")  // TrsvAlgorithm::Tassl
//   balsa::enum_names<balsa::Device>()                 // {"auto", "cpu", "cuda"}
//   balsa::from_string<balsa::Device>("gpu")           // balsa::Error: unknown device 'gpu' (one of: auto, cpu, cuda)
//
// Devices. Every options struct takes Device::Auto by default: the GPU when
// one is present (a CUDA build and a usable device), else the CPU
// (resolve_device). A solver records the device it resolved to in its
// stats(); where a capability has a reason to prefer the CPU for its data
// (the sparse QR's R solve reads host vectors), its header says so.
//
// Streams. The same options take `stream` (StreamHandle below): where the
// object's GPU work goes. Objects balsa builds inside others (a Krylov
// solver's preconditioner and its triangular solvers, QR's R solve,
// balsa::solve's chain, the LP's basis solves) run on the outer object's.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "balsa/error.hpp"

namespace balsa {

// One value of an enum and its name.
template <class E>
struct EnumName {
  E value;
  const char* name;
};

// Specialised beside each public enum: `what` names the kind of value in
// messages ("device"), `names` lists every value once.
template <class E>
struct EnumNames;

template <class E>
concept NamedEnum = requires {
  { EnumNames<E>::what } -> std::convertible_to<const char*>;
  EnumNames<E>::names[0].name;
};

// The name of e ("?" for a value outside the enum).
template <NamedEnum E>
constexpr const char* to_string(E e) noexcept {
  for (const EnumName<E>& n : EnumNames<E>::names)
    if (n.value == e) return n.name;
  return "?";
}

// Every name of E, in the enum's order.
template <NamedEnum E>
std::vector<std::string> enum_names() {
  std::vector<std::string> v;
  for (const EnumName<E>& n : EnumNames<E>::names) v.emplace_back(n.name);
  return v;
}

namespace detail {
// The message of an unknown name: "unknown <what> '<name>' (one of: a, b, c)".
[[noreturn]] void throw_unknown_name(const char* what, std::string_view name, const std::vector<std::string>& names);
}  // namespace detail

// The value named `name` (exact, case-sensitive); balsa::Error listing the
// names otherwise.
template <NamedEnum E>
E from_string(std::string_view name) {
  for (const EnumName<E>& n : EnumNames<E>::names)
    if (name == n.name) return n.value;
  detail::throw_unknown_name(EnumNames<E>::what, name, enum_names<E>());
}

// ---- internal tags of balsa's composite solvers ----------------------------------------

namespace detail {
// Internal (balsa's own preconditioners, krylov/preconditioner.cpp): the
// matrix passed is one balsa has checked already, or built from one, so it
// has every property the constructor taking this tag would check (canonical,
// square, finite; for TriangularSolver also triangular with a nonzero
// diagonal), and those checks are skipped. Not for user matrices.
struct PrecheckedMatrix {
  explicit PrecheckedMatrix() = default;
};
// Internal tag: analyse the pattern now, the values come later (see the
// constructors that take it).
struct ValuesLater {
  explicit ValuesLater() = default;
};
}  // namespace detail

// ---- version -------------------------------------------------------------------

// balsa's version, "major.minor.patch": the VERSION file at the top of the
// source tree, the one version of the library, the `balsa` program and the
// Python package (balsa.__version__).
const char* version() noexcept;

// ---- devices -------------------------------------------------------------------

enum class Device { Auto, Cpu, Cuda };
template <>
struct EnumNames<Device> {
  static constexpr const char* what = "device";
  static constexpr EnumName<Device> names[] = {{Device::Auto, "auto"}, {Device::Cpu, "cpu"}, {Device::Cuda, "cuda"}};
};

// Auto -> Cuda when a CUDA device can be used (balsa::cuda::available()),
// else Cpu; Cpu and Cuda are returned as they are (a Cuda request on a
// machine without a GPU is the solver's error to report). Never throws.
Device resolve_device(Device device) noexcept;

// ---- streams -------------------------------------------------------------------

// A CUDA stream (a cudaStream_t) as balsa's headers take it, without CUDA's
// headers. Every options struct of a GPU-capable object has one (`stream`,
// nullptr by default): the object orders all its device work on it. nullptr
// means the calling thread's per-thread default stream (cudaStreamPerThread),
// never the legacy default stream (stream 0 of a program built without
// --default-stream per-thread; like any blocking stream, the per-thread one
// still waits for work the program puts there). The stream must outlive the
// object. The threading rules: README, "Threads".
using StreamHandle = void*;

// ---- threads -------------------------------------------------------------------

// The CPU threads of a call. Every options struct of a solver has
// `int threads = 0`: each of the object's public calls (constructor, solve,
// update_values, ...) runs its OpenMP loops on that many threads, and
// restores the calling thread's setting when it returns; 0 takes the calling
// thread's current setting (omp_get_max_threads(): OMP_NUM_THREADS, or
// set_threads below). Objects balsa builds inside others run with the
// outer one's. A value below 0 or above hardware_threads() is an Error.

// This machine's hardware threads (std::thread::hardware_concurrency(), at
// least 1): the most any `threads` may ask for.
int hardware_threads() noexcept;

// The calling thread's OpenMP thread count (what `threads = 0` takes).
int current_threads() noexcept;

// Sets the OpenMP thread count of the calling thread (the program's main
// thread: the whole run) and OpenBLAS's process-wide count to `threads`;
// Error unless 1 <= threads <= hardware_threads().
void set_threads(int threads);

// ---- triangular systems ------------------------------------------------------------

// Solve with A or with A^T.
enum class Operation { NonTranspose, Transpose };
template <>
struct EnumNames<Operation> {
  static constexpr const char* what = "operation";
  static constexpr EnumName<Operation> names[] = {{Operation::NonTranspose, "non-transpose"},
                                                  {Operation::Transpose, "transpose"}};
};

// A triangular matrix's diagonal: stored (NonUnit) or all ones, not read (Unit).
enum class DiagonalKind { NonUnit, Unit };
template <>
struct EnumNames<DiagonalKind> {
  static constexpr const char* what = "diagonal kind";
  static constexpr EnumName<DiagonalKind> names[] = {{DiagonalKind::NonUnit, "non-unit"},
                                                     {DiagonalKind::Unit, "unit"}};
};

}  // namespace balsa
