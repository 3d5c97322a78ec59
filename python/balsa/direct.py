"""balsa.DirectSolver and balsa.factorized: sparse direct solvers on the CPU
(include/balsa/direct.hpp): CHOLMOD's Cholesky, UMFPACK's LU and KLU, from
SuiteSparse. Analyse and factorise once, solve many right-hand sides."""

import numpy as np

from . import _arrays as arr
from . import _scalars as num
from ._core import core

METHODS = ("auto", "cholmod", "umfpack", "klu")


class DirectSolver:
    """A sparse direct factorisation of a square sparse A.

    method : "auto" (CHOLMOD when A is symmetric with a positive diagonal,
        UMFPACK when it then proves indefinite; else UMFPACK or KLU by a rule
        on A's pattern), "cholmod", "umfpack" or "klu".
    threads : host threads of the factorisation and solves (0: as set).
    device : "auto" or "cpu" (the factorisations run on the CPU; "cuda" is
        an Error).

    solve(b) takes a vector or an n x k array (NumPy, or CuPy, whose values
    go through the host and come back as CuPy) and returns x as b's kind.
    update_values(values) factorises new values of the same pattern (a
    sparse matrix, or an array in the order of A's CSR data) without a new
    analysis. `stats`: the method used, the factor's entries, flops and
    peak bytes, rcond, the times. Errors: SingularMatrix (a zero pivot),
    StructurallySingular, MatrixError (CHOLMOD on an indefinite A, NaN),
    HostOutOfMemory (a factorisation predicted not to fit).
    """

    def __init__(self, A, method="auto", threads=0, device="auto"):
        who = "balsa.DirectSolver"
        arr.check_device(device, who)
        if method not in METHODS:
            raise ValueError(f"{who}: method must be one of {', '.join(METHODS)}, not {method!r}")
        m = arr.csr_arrays(A, who)
        self.dtype, self.shape = m.dtype, m.shape
        self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)
        cls = core.DirectF64 if self.dtype == arr.FLOATS[1] else core.DirectF32
        self._solver = cls(m.shape[0], m.indptr, m.indices, m.data, method, num.threads(threads, who), device)

    def solve(self, b):
        """x = A^-1 b for a vector or an n x k array b."""
        n = self.shape[0]
        r = arr.rhs(b, n, self.dtype, "balsa.DirectSolver.solve")
        x = np.empty((n,) if r.vector else (n, r.columns), dtype=self.dtype, order="F")
        self._solver.solve(arr.flat(arr.to_host(r)), r.columns, arr.flat(x))
        return arr.like_input(x, r)

    __call__ = solve

    def update_values(self, values):
        """New values of A's pattern (a sparse matrix, or an array in CSR
        order): factorised again with the same analysis."""
        self._solver.update_values(arr.host_values(values, self._pattern, self.dtype, "balsa.DirectSolver"))

    @property
    def method(self):
        """The method that factorised A ("cholmod", "umfpack" or "klu")."""
        return self.stats["method"]

    @property
    def stats(self):
        return self._solver.stats()


def factorized(A, method="auto", threads=0):
    """A function solve(b) = A^-1 b, like scipy.sparse.linalg.factorized: A
    is factorised once (DirectSolver), each call only solves. The solver is
    the function's __self__ (its stats, update_values)."""
    return DirectSolver(A, method=method, threads=threads).solve
