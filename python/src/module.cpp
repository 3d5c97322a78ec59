// balsa._balsa: the nanobind extension behind `import balsa`. One bind_*
// function per capability (python/src/*.cpp); errors become the Python
// classes of balsa._errors with balsa::Error's messages.
#include <new>
#include <stdexcept>

#include "balsa/cuda.hpp"
#include "balsa/error.hpp"
#include "python/src/common.hpp"

namespace balsa::python {

namespace {

// The class balsa._errors.<name> (imported once, kept for the process).
PyObject* error_class(const char* name) {
  nb::module_ errors = nb::module_::import_("balsa._errors");
  nb::object cls = errors.attr(name);
  return cls.release().ptr();  // a class lives as long as its module: the reference is kept
}

void raise(const char* cls, const std::exception& e) { PyErr_SetObject(error_class(cls), text(e.what()).ptr()); }

void raise_parse_error(const ParseError& e) {
  nb::object cls = nb::borrow(error_class("ParseError"));
  nb::object err = cls(text(e.what()), text(e.file()), nb::int_(e.line()));
  PyErr_SetObject(cls.ptr(), err.ptr());
}

void raise_structurally_singular(const StructurallySingular& e) {
  nb::object cls = nb::borrow(error_class("StructurallySingular"));
  nb::object err = cls(text(e.what()), nb::int_(e.structural_rank()), nb::int_(e.n()));
  PyErr_SetObject(cls.ptr(), err.ptr());
}

// FileError as balsa.FileError (an OSError: errno and filename set, so
// that FileNotFoundError, PermissionError, IsADirectoryError ... match).
void raise_file_error(const FileError& e) {
  nb::object cls = nb::borrow(error_class("file_error"));
  nb::object err = cls(nb::int_(e.error_number()), text(e.what()), text(e.path()));
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
}

void raise_unknown_name(const UnknownName& e) {
  nb::object cls = nb::borrow(error_class("UnknownName"));
  nb::list names;
  for (const std::string& n : e.names()) names.append(text(n));
  nb::object err = cls(text(e.what()), names);
  PyErr_SetObject(cls.ptr(), err.ptr());
}

}  // namespace

void register_errors(nb::module_&) {
  // The most derived class first: the first matching handler wins.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ParseError& e) {
      raise_parse_error(e);
    } catch (const FileError& e) {
      raise_file_error(e);
    } catch (const UnknownName& e) {
      raise_unknown_name(e);
    } catch (const StructurallySingular& e) {
      raise_structurally_singular(e);
    } catch (const SingularMatrix& e) {
      raise("SingularMatrix", e);
    } catch (const IndexOverflow& e) {
      raise("IndexOverflow", e);
    } catch (const DimensionError& e) {
      raise("DimensionError", e);
    } catch (const MatrixError& e) {
      raise("MatrixError", e);
    } catch (const HostOutOfMemory& e) {
      raise("HostOutOfMemory", e);
    } catch (const DeviceOutOfMemory& e) {
      raise("DeviceOutOfMemory", e);
    } catch (const CudaError& e) {
      raise("CudaError", e);
    } catch (const Error& e) {
      raise("Error", e);
    } catch (const std::bad_alloc&) {
      PyErr_SetString(error_class("HostOutOfMemory"), "host out of memory");
    } catch (const std::exception& e) {  // not expected: public functions throw balsa::Error only
      raise("Error", e);
    }
  });
}

void bind_info(nb::module_& m) {
  m.def("built_with_cuda", &cuda::built_with_cuda, "True when this build has balsa's CUDA path.");
  m.def("device_count", &cuda::device_count, "Usable CUDA devices (0 without a driver, a GPU or CUDA).");
  m.def(
      "device_info",
      [](int device) {
        const cuda::DeviceInfo i = cuda::device_info(device);
        nb::dict d;
        d["id"] = i.id;
        d["name"] = i.name;
        d["compute_capability"] = nb::make_tuple(i.major, i.minor);
        d["multiprocessors"] = i.sm_count;
        d["global_memory"] = i.global_memory;
        d["l2_bytes"] = i.l2_bytes;
        d["runtime_version"] = i.runtime_version;
        d["driver_version"] = i.driver_version;
        return d;
      },
      nb::arg("device") = 0, "Properties of a CUDA device (CudaError without one).");
}

}  // namespace balsa::python

NB_MODULE(_balsa, m) {
  using namespace balsa::python;
  m.doc() = "balsa's compiled core; use the `balsa` package, not this module.";
  register_errors(m);
  bind_info(m);
  bind_trsv(m);
  bind_krylov(m);
  bind_direct(m);
  bind_qr(m);
  bind_lp(m);
  bind_io(m);
  // Host threads for every later call (OpenMP and OpenBLAS; include/balsa/core.hpp).
  m.def("set_threads", &balsa::set_threads, nb::arg("threads"));
  m.def("hardware_threads", &balsa::hardware_threads);
  m.def("current_threads", &balsa::current_threads);
  m.def("version", [] { return std::string(balsa::version()); }, "balsa's version (the VERSION file).");
}
