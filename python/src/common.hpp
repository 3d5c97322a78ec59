// The Python extension's shared pieces: array types, CSR from SciPy's three
// arrays, option names, and the error translation (python/balsa/_errors.py
// holds the Python classes). The Python layer (python/balsa/*.py) checks and
// converts what users pass; the functions here take canonical arrays.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "balsa/core.hpp"
#include "balsa/sparse.hpp"

namespace balsa::python {

namespace nb = nanobind;

// Host arrays, C-contiguous (the Python layer makes them so).
template <class T>
using In = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Out = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Indices = In<std::int32_t>;

template <class T>
std::span<const T> span_of(const In<T>& a) {
  return {a.data(), a.shape(0)};
}
template <class T>
std::span<T> span_of(const Out<T>& a) {
  return {a.data(), a.shape(0)};
}

// A CSR matrix from SciPy's indptr/indices/data (copied: balsa's solvers own
// their matrices). The checks are the solvers' own (validate, diagonal, NaN).
template <class T>
Csr<T> csr_from(std::int64_t rows, std::int64_t cols, const Indices& indptr, const Indices& indices,
                const In<T>& data) {
  Csr<T> A;
  A.rows = checked_index(rows, "rows");
  A.cols = checked_index(cols, "columns");
  A.row_ptr.assign(indptr.data(), indptr.data() + indptr.shape(0));
  A.col_idx.assign(indices.data(), indices.data() + indices.shape(0));
  A.values.assign(data.data(), data.data() + data.shape(0));
  return A;
}

// Option names are the library's own (EnumNames), e.g. "tassl", "pcg-ic0".
template <NamedEnum E>
E named(const std::string& name) {
  return from_string<E>(name);
}

// A cudaStream_t handed over from Python as an integer (0: none given).
inline StreamHandle stream_from(std::uintptr_t handle) { return reinterpret_cast<StreamHandle>(handle); }

// Device pointers from __cuda_array_interface__.
template <class T>
T* device_pointer(std::uintptr_t p) {
  return reinterpret_cast<T*>(p);
}

// A vector handed to NumPy without a copy (the array owns it).
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

// Methods bound with this run with the GIL released (they touch no Python object).
using without_gil = nb::call_guard<nb::gil_scoped_release>;

// f() run with the GIL released (it must touch no Python object); its
// C++ result comes back with the GIL held again.
template <class F>
auto released(F&& f) {
  nb::gil_scoped_release release;
  return f();
}

// A wrapper W built with the GIL released (set-ups on several Python threads
// run concurrently), then given `owner`, the Python object that owns its
// CUDA stream: W declares `nb::object stream_owner` before its solver, so
// the solver, which frees device memory on that stream, is destroyed first.
// W's constructor runs without the GIL: it takes its arguments by reference
// and touches no Python object.
template <class W, class... Args>
W* make_released(nb::object owner, const Args&... args) {
  std::unique_ptr<W> w = released([&] { return std::make_unique<W>(args...); });
  w->stream_owner = std::move(owner);
  return w.release();
}

// Text from files and messages as a Python str; bytes that are not UTF-8
// (a Latin-1 name in an MPS file) become U+FFFD rather than an error.
inline nb::str text(const std::string& s) {
  return nb::steal<nb::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// Registers the translation of balsa::Error and its subclasses, and of
// std:: exceptions, into the classes of balsa._errors.
void register_errors(nb::module_& m);

void bind_info(nb::module_& m);
void bind_trsv(nb::module_& m);
void bind_krylov(nb::module_& m);
void bind_direct(nb::module_& m);
void bind_qr(nb::module_& m);
void bind_lp(nb::module_& m);
void bind_io(nb::module_& m);

}  // namespace balsa::python
