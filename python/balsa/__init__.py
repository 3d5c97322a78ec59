"""balsa: sparse linear algebra on NVIDIA GPUs (and the CPU) from Python.

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

from . import _scalars
from ._core import core as _core
from ._errors import (
    ConvergenceError,
    ConvergenceWarning,
    CudaError,
    DeviceOutOfMemory,
    DimensionError,
    Error,
    HostOutOfMemory,
    IndexOverflow,
    MatrixError,
    ParseError,
    SingularMatrix,
    StructurallySingular,
)
from .direct import DirectSolver, factorized
from .io import read_matrix, write_matrix
from .iterative import BandedSolver, KrylovSolver, bicgstab, cg, gmres, minres, solve
from .lp import LinearProgram, LinprogResult, linprog, read_mps
from .qr import SparseQR, lstsq
from .trsv import TriangularSolver, algorithms

__version__ = "0.1.0"

built_with_cuda = _core.built_with_cuda
device_count = _core.device_count
device_info = _core.device_info


def cuda_available():
    """True when this build has CUDA and a GPU can be used."""
    return _core.built_with_cuda() and _core.device_count() > 0


def set_threads(threads):
    """Host threads (OpenMP and OpenBLAS) of every later balsa call, 1 to
    hardware_threads(); an Error otherwise. balsa.solve and DirectSolver
    also take threads= for one call."""
    _core.set_threads(_scalars.threads(threads, "balsa.set_threads"))


def hardware_threads():
    """This machine's hardware threads."""
    return _core.hardware_threads()


__all__ = [
    "BandedSolver", "ConvergenceError", "ConvergenceWarning", "CudaError", "DeviceOutOfMemory", "DimensionError",
    "DirectSolver", "Error", "HostOutOfMemory", "IndexOverflow", "KrylovSolver", "LinearProgram", "LinprogResult",
    "MatrixError", "ParseError", "SingularMatrix", "SparseQR", "StructurallySingular", "TriangularSolver",
    "algorithms", "built_with_cuda", "cuda_available", "device_count", "device_info", "factorized",
    "hardware_threads", "linprog", "lstsq", "read_matrix", "read_mps", "set_threads", "solve", "write_matrix",
]
__all__ += ["bicgstab", "cg", "gmres", "minres"]  # SciPy's Krylov functions (iterative.py)
