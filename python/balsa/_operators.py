"""Matrix-free operators for the Krylov solvers: SciPy's and CuPy's
LinearOperator as A, and every kind of preconditioner M SciPy users pass
(a LinearOperator, a sparse matrix, a balsa solver, a callable), turned into
the products the extension calls back during a solve.

A host product is f(x) -> y on NumPy arrays; a device product is
f(x_ptr, y_ptr, stream) writing y on the solver's stream (the pointers are
wrapped as CuPy arrays here). Both check what the user's code returns:
a wrong shape or dtype is a ValueError naming the operator.
"""

import numpy as np

from . import _arrays as arr
from ._errors import DimensionError

_PER_THREAD_STREAM = 2  # cudaStreamPerThread, the solver's stream when none is given


def is_scipy_operator(A):
    """True for a scipy.sparse.linalg.LinearOperator (matrix-free, on the host)."""
    from scipy.sparse.linalg import LinearOperator

    return isinstance(A, LinearOperator)


def is_cupy_operator(A):
    """True for a cupyx.scipy.sparse.linalg.LinearOperator (matrix-free, on the GPU)."""
    return type(A).__module__.startswith("cupyx.") and hasattr(A, "matvec") and hasattr(A, "shape")


def operator_dtype(A, who):
    """A LinearOperator's value type: float32 or float64 (None: float64)."""
    dtype = np.dtype(A.dtype) if getattr(A, "dtype", None) is not None else np.dtype(np.float64)
    if dtype not in arr.FLOATS:
        raise TypeError(f"{who}: a LinearOperator of dtype {dtype} is not supported (float32 or float64)")
    return dtype


def check_square(shape, who, name="A", n=None):
    """shape is (n, n) (n: any when None); a DimensionError otherwise."""
    if len(shape) != 2 or shape[0] != shape[1] or (n is not None and shape[0] != n):
        want = "square" if n is None else f"{n} x {n} (A's shape)"
        raise DimensionError(f"{who}: {name} must be {want}, not {tuple(shape)}")


def _checked(y, n, dtype, name, who, xp):
    """y, a product's result, as a contiguous vector of n values of dtype."""
    if not isinstance(y, xp.ndarray):
        raise ValueError(f"{who}: {name} returned {type(y).__name__}, not a {xp.__name__} array")
    if y.shape not in ((n,), (n, 1)):
        raise ValueError(f"{who}: {name} returned an array of shape {y.shape}, not ({n},)")
    if y.dtype != dtype:
        raise ValueError(f"{who}: {name} returned dtype {y.dtype}, not the solver's {dtype}")
    return xp.ascontiguousarray(y.reshape(n))


def host_product(f, n, dtype, name, who):
    """f (NumPy x -> y) as the extension's host product, its result checked."""

    def apply(x):
        return _checked(f(x), n, dtype, name, who, np)

    return apply


def device_product(f, n, dtype, name, who):
    """f (CuPy x -> y) as the extension's device product: the pointers
    wrapped as CuPy arrays on the current device, f run on the solver's
    stream, its result checked and copied into y."""
    cupy = arr._cupy()
    device_id = cupy.cuda.Device().id
    nbytes = n * np.dtype(dtype).itemsize

    def view(pointer):
        memory = cupy.cuda.UnownedMemory(pointer, nbytes, None, device_id)
        return cupy.ndarray((n,), dtype=dtype, memptr=cupy.cuda.MemoryPointer(memory, 0))

    def apply(x_pointer, y_pointer, stream):
        with cupy.cuda.Device(device_id):
            s = cupy.cuda.Stream.ptds if stream == _PER_THREAD_STREAM else cupy.cuda.ExternalStream(stream)
            with s:
                y = _checked(f(view(x_pointer).copy()), n, dtype, name, who, cupy)
                view(y_pointer)[...] = y

    return apply


def _raw_matvec(op):
    """op's product without LinearOperator.matvec's own reshape (which turns
    a wrong result into a bare reshape error): _matvec, the method SciPy's
    and CuPy's LinearOperator subclasses implement."""
    return getattr(op, "_matvec", op.matvec)


def matrix_free(A, who):
    """(n, dtype, host, device): a LinearOperator A's products."""
    check_square(A.shape, who)
    n, dtype = A.shape[0], operator_dtype(A, who)
    if is_cupy_operator(A):
        return n, dtype, None, device_product(_raw_matvec(A), n, dtype, "A.matvec", who)
    return n, dtype, host_product(_raw_matvec(A), n, dtype, "A.matvec", who), None


def preconditioner(M, n, dtype, on_device, who):
    """(host, device) products of a user's M (None: (None, None)), applied
    as z = M r (M approximates A^-1, SciPy's meaning): a SciPy or CuPy
    LinearOperator (its matvec), a sparse matrix (its product), an object
    with .solve (a balsa solver: z = solve(r)) or a callable (z = M(r)).
    on_device: A's products run on the GPU, so M's callable and .solve
    forms are given CuPy arrays there."""
    if M is None:
        return None, None
    if hasattr(M, "shape"):
        check_square(M.shape, who, "M", n)
    if is_cupy_operator(M):
        return None, device_product(_raw_matvec(M), n, dtype, "M.matvec", who)
    if is_scipy_operator(M):
        return host_product(_raw_matvec(M), n, dtype, "M.matvec", who), None
    if arr._is_cupyx_sparse(M):
        return None, device_product(lambda r: M @ r, n, dtype, "M @ r", who)
    if arr.sp_issparse(M):
        return host_product(lambda r: M @ r, n, dtype, "M @ r", who), None
    f, name = (M.solve, "M.solve") if hasattr(M, "solve") else (M, "M")
    if not callable(f):
        raise TypeError(f"{who}: M must be a LinearOperator, a sparse matrix, an object with .solve or a callable, "
                        f"not {type(M).__name__}")
    host = host_product(f, n, dtype, name, who)
    return (host, device_product(f, n, dtype, name, who)) if on_device else (host, None)
