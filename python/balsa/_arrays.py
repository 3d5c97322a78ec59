"""What users pass, made into what the extension takes.

Matrices: scipy.sparse arrays and matrices (CSR, CSC, COO and the other
formats) and cupyx.scipy.sparse matrices, as CSR with int32 indices and
float32/float64 values. A CSR matrix whose index type and layout already fit
is passed on as it is (the solver copies it into its own storage once).

Vectors: NumPy arrays, and arrays with ``__cuda_array_interface__`` (CuPy),
whose device pointer goes to the kernels as it is (zero-copy) when the array
is contiguous; a non-contiguous array is copied first (documented).
"""

import sys

import numpy as np

from ._errors import DimensionError, IndexOverflow
from ._validate import FINITE_AFTER_CONVERSION, FLOATS, INT32_MAX, check_sparse, finite_values, value_dtype

DEVICES = ("auto", "cpu", "cuda")


def check_device(device, who):
    if device not in DEVICES:
        raise ValueError(f"{who}: device must be one of {', '.join(DEVICES)}, not {device!r}")
    return device


def _cupy():
    import cupy  # noqa: PLC0415 - only for GPU inputs

    return cupy


def _is_cupyx_sparse(A):
    mod = sys.modules.get("cupyx.scipy.sparse")
    return mod is not None and mod.issparse(A)


def is_device_array(x):
    """A GPU array: a CuPy array, or anything with __cuda_array_interface__
    (checked last: CuPy builds that dict on every access)."""
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        return True
    return not isinstance(x, np.ndarray) and hasattr(x, "__cuda_array_interface__")


def current_cuda_device():
    """CuPy's current device id, when CuPy is loaded (else None)."""
    cupy = sys.modules.get("cupy")
    return int(cupy.cuda.Device().id) if cupy is not None else None


def stream_handle(stream):
    """(raw cudaStream_t as an int, the object that owns it). A CuPy stream
    gives its ``ptr``; an int is taken as it is (the caller keeps that stream
    alive); None means CuPy's current stream when CuPy is loaded, else 0 (the
    per-thread default stream, never the legacy one). The solvers keep the
    owner alive as long as themselves: their device memory is freed on it."""
    if stream is None:
        cupy = sys.modules.get("cupy")
        if cupy is None:
            return 0, None
        stream = cupy.cuda.get_current_stream()
    if hasattr(stream, "ptr"):
        return int(stream.ptr), stream
    if isinstance(stream, (int, np.integer)):
        return int(stream), None
    raise TypeError(f"stream must be a CuPy stream, an int handle or None, not {type(stream).__name__}")


def _int32(a, what, who):
    if a.dtype == np.int32:
        return np.ascontiguousarray(a)
    if a.size and (a.max(initial=0) > INT32_MAX or a.min(initial=0) < 0):
        raise IndexOverflow(f"{who}: {what} go beyond balsa's 32-bit indices (largest {int(a.max())})")
    return np.ascontiguousarray(a, dtype=np.int32)


class CsrArrays:
    """A matrix as CSR: shape, int32 indptr and indices, float data;
    `reordered`: its values are not in the order of the caller's matrix's
    own data array (a COO or other format converted, or a CSR/CSC matrix
    with unsorted or duplicate indices made canonical)."""

    __slots__ = ("shape", "indptr", "indices", "data", "reordered")

    def __init__(self, shape, indptr, indices, data, reordered=False):
        self.shape, self.indptr, self.indices, self.data = shape, indptr, indices, data
        self.reordered = reordered

    @property
    def dtype(self):
        return self.data.dtype


def csr_arrays(A, who, dtype=None, square=True, finite=True):
    """A (scipy.sparse or cupyx.scipy.sparse) as CsrArrays on the host, with
    sorted indices and no duplicates. Its raw arrays are checked first
    (_validate.py: on the GPU for a CuPy matrix), and only then converted;
    finite: NaN and Inf are refused. A dense array is a TypeError."""
    import scipy.sparse as sp

    check_matrix(A, who, square, finite)
    fmt = A.format
    if _is_cupyx_sparse(A):
        A = A.tocsr().get()
    A, reordered = _canonical_csr(A, fmt, sp)
    if finite and fmt in FINITE_AFTER_CONVERSION:
        finite_values(A.data, who)
    value_type = value_dtype(A.dtype if dtype is None else dtype, who)
    return CsrArrays(
        A.shape,
        _int32(A.indptr, "row pointers", who),
        _int32(A.indices, "column indices", who),
        np.ascontiguousarray(A.data, dtype=value_type),
        reordered,
    )


def check_matrix(A, who, square=True, finite=True):
    """Checks a scipy.sparse matrix's raw arrays on the host, a
    cupyx.scipy.sparse one's on its device (_validate.py), before anything
    converts them. A dense array is a TypeError."""
    import scipy.sparse as sp

    if _is_cupyx_sparse(A):
        check_sparse(A, _cupy(), who, square, finite)
    elif sp.issparse(A):
        check_sparse(A, np, who, square, finite)
    else:
        kind = type(A).__module__.split(".")[0] + "." + type(A).__name__
        raise TypeError(
            f"{who}: A must be a sparse matrix (scipy.sparse or cupyx.scipy.sparse), not {kind}; "
            "convert a dense array with scipy.sparse.csr_array(A)"
        )


def _canonical_csr(A, fmt, sp):
    """A checked matrix (given in format `fmt`) as canonical CSR (sorted, no
    duplicates), and whether its values' order changed. A CSR matrix is seen
    afresh, so no flag a caller set (has_sorted_indices) is trusted."""
    reordered = fmt != "csr"
    A = sp.csr_array((A.data, A.indices, A.indptr), shape=A.shape) if A.format == "csr" else A.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
        reordered = True
    return A, reordered


def sp_issparse(A):
    """A scipy.sparse or cupyx.scipy.sparse matrix."""
    import scipy.sparse as sp

    return sp.issparse(A) or _is_cupyx_sparse(A)


def host_values(values, pattern, dtype, who):
    """New values for a fixed pattern (`pattern`: the CsrArrays the solver was
    built from): a sparse matrix with exactly that pattern, or an array of nnz
    values in the order of the matrix given to the constructor (refused when
    that order was changed on the way: pass a matrix then)."""
    nnz = int(pattern.indptr[-1])
    if sp_issparse(values):
        m = csr_arrays(values, who, dtype, square=False)
        if (m.shape != pattern.shape or not np.array_equal(m.indptr, pattern.indptr)
                or not np.array_equal(m.indices, pattern.indices)):
            raise DimensionError(f"{who}: the new matrix's pattern differs from the one analysed")
        return m.data
    if pattern.reordered:
        raise ValueError(f"{who}: the matrix given to the constructor was reordered (converted to canonical CSR), "
                         "so an array of values has no defined order: pass a sparse matrix with the same pattern")
    if is_device_array(values):
        values = _cupy().asnumpy(values)
    values = np.asarray(values)
    value_dtype(values.dtype, who, "values")
    if values.ndim != 1 or values.shape[0] != nnz:
        raise DimensionError(f"{who}: {nnz} values expected, got shape {values.shape}")
    finite_values(values, who)
    return np.ascontiguousarray(values, dtype=dtype)


class Rhs:
    """Right-hand sides as the extension takes them: on the host a
    contiguous array (columns column-major), on the GPU its pointer."""

    __slots__ = ("device", "array", "columns", "vector")

    def __init__(self, device, array, columns, vector):
        self.device, self.array, self.columns, self.vector = device, array, columns, vector

    @property
    def pointer(self):
        return self.array.data.ptr  # a cupy.ndarray


def _check_dtype(dtype, expected, name, who):
    if dtype == expected:
        return
    if dtype in FLOATS:
        raise TypeError(
            f"{who}: {name} is {dtype} but the solver works in {expected}; "
            f"pass {name}.astype({expected.name}) (mixed precisions are not converted silently)"
        )
    if dtype.kind not in "biu":
        raise TypeError(f"{who}: {name} of type {dtype} is not supported (float32 or float64)")


def _check_shape(shape, rows, name, who):
    if len(shape) not in (1, 2) or shape[0] != rows:
        raise DimensionError(f"{who}: {name} must have {rows} rows (shape ({rows},) or ({rows}, k)), not {shape}")


def rhs(b, rows, dtype, who, name="b", device_id=None):
    """b as Rhs: float of the solver's dtype, `rows` rows, 1 or k columns."""
    if is_device_array(b):
        cupy = _cupy()
        if not isinstance(b, cupy.ndarray):
            b = cupy.asarray(b)  # zero-copy view of another __cuda_array_interface__ array
        if device_id is not None and b.data.device_id != device_id:
            raise ValueError(f"{who}: {name} is on CUDA device {b.data.device_id}, the solver on device {device_id}")
        _check_dtype(b.dtype, dtype, name, who)
        _check_shape(b.shape, rows, name, who)
        vector = b.ndim == 1
        if b.dtype != dtype or not (b.flags.c_contiguous if vector else b.flags.f_contiguous):
            b = cupy.ascontiguousarray(b, dtype=dtype) if vector else cupy.asfortranarray(b, dtype=dtype)
        return Rhs("cuda", b, 1 if vector else b.shape[1], vector)
    b = np.asarray(b)
    _check_dtype(b.dtype, dtype, name, who)
    _check_shape(b.shape, rows, name, who)
    if b.ndim == 1:
        return Rhs("cpu", np.ascontiguousarray(b, dtype=dtype), 1, True)
    return Rhs("cpu", np.asfortranarray(b, dtype=dtype), b.shape[1], False)


def flat(a):
    """A contiguous 1-D view of a host array (column-major for matrices)."""
    return a.reshape(-1, order="F")


def empty_like_rhs(r, rows):
    """An output for r's columns with `rows` rows, of r's kind and layout."""
    shape = (rows,) if r.vector else (rows, r.columns)
    if r.device == "cuda":
        return _cupy().empty(shape, dtype=r.array.dtype, order="F")
    return np.empty(shape, dtype=r.array.dtype, order="F")


def check_out(out, r, rows, who):
    """A caller's output array: the same kind, dtype and shape as the answer."""
    expected = (rows,) if r.vector else (rows, r.columns)
    if is_device_array(out) != (r.device == "cuda"):
        raise TypeError(f"{who}: out must be on the same side (host or GPU) as b")
    if tuple(out.shape) != expected or out.dtype != r.array.dtype:
        raise DimensionError(f"{who}: out must be {r.array.dtype} of shape {expected}, not {out.dtype} {out.shape}")
    if r.vector:
        ok = out.flags.c_contiguous
    else:
        ok = out.flags.f_contiguous
    if not ok:
        raise ValueError(f"{who}: out must be contiguous ({'C' if r.vector else 'Fortran'} order)")
    return out


def to_host(r):
    """r's values on the host (a copy when they are on the GPU)."""
    return _cupy().asnumpy(r.array) if r.device == "cuda" else r.array


def like_input(x, r):
    """x (a host array) as r's kind: a CuPy array when r is on the GPU."""
    return _cupy().asarray(x) if r.device == "cuda" else x
