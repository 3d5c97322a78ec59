"""balsa: sparse linear algebra on NVIDIA GPUs (and the CPU) from Python.

The distribution is ``balsa-sparse`` (``pip install balsa-sparse``); the
import name is ``balsa``.

Analyse once, solve many times; every entry point takes ``device=`` ("auto",
"cpu", "cuda") and, on the GPU, ``stream=``. Inputs are scipy.sparse /
cupyx.scipy.sparse matrices and NumPy / CuPy arrays; results come back as the
input's kind (NumPy in, NumPy out; CuPy in, CuPy out).

    import balsa, scipy.sparse as sp
    L = sp.tril(A, format="csr")
    solver = balsa.TriangularSolver(L)       # analysis once
    x = solver.solve(b)                      # many times
    x = balsa.solve(A, b)                    # a general sparse system
    lu = balsa.DirectSolver(A); x = lu.solve(b)   # CHOLMOD / UMFPACK / KLU
    x = balsa.lstsq(A_tall, b)               # least squares (sparse QR)
    res = balsa.linprog(c, A_ub, b_ub)       # a linear program
"""

from __future__ import annotations

from typing import Any, Dict

from . import _scalars
from ._core import core as _core
from ._errors import (
    ConvergenceError,
    ConvergenceWarning,
    CudaError,
    DeviceOutOfMemory,
    DimensionError,
    Error,
    FileAccessDenied,
    FileError,
    FileIsADirectory,
    HostOutOfMemory,
    IndexOverflow,
    IntegralityWarning,
    MatrixError,
    MissingFile,
    ParseError,
    SingularMatrix,
    StructurallySingular,
    UnknownName,
)
from .direct import DirectSolver, factorized
from .io import read_matrix, write_matrix
from .iterative import BandedSolver, KrylovSolver, bicgstab, cg, gmres, minres, solve
from .lp import LinearProgram, linprog, read_mps
from .qr import SparseQR, lstsq
from .trsv import TriangularSolver, algorithms

#: balsa's version: the C++ library's (``balsa::version()``, the source
#: tree's VERSION file), the same as the installed distribution's.
__version__: str = _core.version()


def built_with_cuda() -> bool:
    """Whether this build has balsa's CUDA path.

    Returns
    -------
    bool
        True when the extension was compiled with CUDA.

    Examples
    --------
    >>> import balsa
    >>> isinstance(balsa.built_with_cuda(), bool)
    True
    """
    return bool(_core.built_with_cuda())


def device_count() -> int:
    """The number of usable CUDA devices.

    Returns
    -------
    int
        0 without a driver, a GPU or a CUDA build.

    Examples
    --------
    >>> import balsa
    >>> balsa.device_count() >= 0
    True
    """
    return int(_core.device_count())


def device_info(device: int = 0) -> Dict[str, Any]:
    """Properties of a CUDA device.

    Parameters
    ----------
    device : int, optional
        The device's number.

    Returns
    -------
    dict
        ``id``, ``name``, ``compute_capability``, ``multiprocessors``,
        ``global_memory``, ``l2_bytes``, ``runtime_version``,
        ``driver_version``.

    Raises
    ------
    balsa.CudaError
        No such device, or a build without CUDA.

    Examples
    --------
    >>> import balsa
    >>> if balsa.cuda_available():
    ...     _ = balsa.device_info(0)["name"]
    """
    return dict(_core.device_info(device))


def cuda_available() -> bool:
    """Whether balsa can use a GPU here.

    Returns
    -------
    bool
        True when this build has CUDA and a GPU can be used.

    Examples
    --------
    >>> import balsa
    >>> balsa.cuda_available() == (balsa.built_with_cuda() and balsa.device_count() > 0)
    True
    """
    return bool(_core.built_with_cuda()) and _core.device_count() > 0


def set_threads(threads: int) -> None:
    """Set the host threads of every later balsa call.

    OpenMP's and OpenBLAS's. :func:`solve` and :class:`DirectSolver` also
    take ``threads=`` for one call.

    Parameters
    ----------
    threads : int
        1 to :func:`hardware_threads`.

    Raises
    ------
    balsa.Error
        A count out of that range.
    TypeError
        Not an integer.

    Examples
    --------
    >>> import balsa
    >>> balsa.set_threads(1)  # doctest: +SKIP
    """
    _core.set_threads(_scalars.threads(threads, "balsa.set_threads"))


def hardware_threads() -> int:
    """This machine's hardware threads.

    Returns
    -------
    int
        The most threads balsa's calls may use (at least 1).

    Examples
    --------
    >>> import balsa
    >>> balsa.hardware_threads() >= 1
    True
    """
    return int(_core.hardware_threads())


def __getattr__(name: str) -> Any:
    """``LinprogResult``: the class of :func:`linprog`'s results
    (scipy.optimize.OptimizeResult), imported when first asked for."""
    if name == "LinprogResult":
        from scipy.optimize import OptimizeResult

        return OptimizeResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BandedSolver", "ConvergenceError", "ConvergenceWarning", "CudaError", "DeviceOutOfMemory", "DimensionError",
    "DirectSolver", "Error", "FileAccessDenied", "FileError", "FileIsADirectory", "HostOutOfMemory", "IndexOverflow",
    "IntegralityWarning", "KrylovSolver", "LinearProgram", "MatrixError", "MissingFile", "ParseError",
    "SingularMatrix", "SparseQR", "StructurallySingular", "TriangularSolver", "UnknownName", "__version__",
    "algorithms", "bicgstab", "built_with_cuda", "cg", "cuda_available", "device_count", "device_info", "factorized",
    "gmres", "hardware_threads", "linprog", "lstsq", "minres", "read_matrix", "read_mps", "set_threads", "solve",
    "write_matrix",
]
