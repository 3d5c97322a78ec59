"""balsa.SparseQR and balsa.lstsq: multifrontal sparse QR and least squares
(include/balsa/qr.hpp). Double precision: float32 input is promoted."""

import numpy as np

from . import _arrays as arr
from . import _scalars as num
from ._core import core

_F64 = np.dtype(np.float64)


class SparseQR:
    """A P = Q R of a sparse m x n matrix (m < n: A^T is factored).

    ordering : "colamd", "metis" or "natural". rank_tolerance : None for
    SPQR's default; columns whose pivot falls below it are dropped (Heath).
    device : "auto", "cpu" or "cuda" (the paper's bucket scheduler on the GPU
    where it pays; stats["fallback"] says why not). solve(b) returns
    argmin ||A x - b||_2 (the basic solution when rank deficient; m < n: the
    minimum-norm solution), b a vector or an m x k matrix.
    """

    def __init__(self, A, ordering="colamd", rank_tolerance=None, device="auto", stream=None):
        who = "balsa.SparseQR"
        arr.check_device(device, who)
        tol = num.real(rank_tolerance, "rank_tolerance", who, allow_none=True)
        tol = -1.0 if tol is None else tol
        m = arr.csr_arrays(A, who, dtype=_F64, square=False)
        self.shape = m.shape
        self._qr = core.Qr.create(m.shape[0], m.shape[1], m.indptr, m.indices, m.data, ordering, tol, device,
                           *arr.stream_handle(stream))

    def solve(self, b):
        who = "balsa.SparseQR.solve"
        rows, cols = self.shape
        b = b if arr.is_device_array(b) else np.asarray(b)
        if np.dtype(b.dtype) == np.float32:
            b = b.astype(_F64)
        r = arr.rhs(b, rows, _F64, who)
        x = np.empty((cols,) if r.vector else (cols, r.columns), order="F")
        self._qr.solve(arr.flat(arr.to_host(r)), arr.flat(x), r.columns)
        return arr.like_input(x, r)

    def factorize(self, A):
        """New values of the same pattern: factored again."""
        m = arr.csr_arrays(A, "balsa.SparseQR.factorize", dtype=_F64, square=False)
        self._qr.factorise(m.shape[0], m.shape[1], m.indptr, m.indices, m.data)

    @property
    def device(self):
        """Where the last factorisation ran ("cpu" or "cuda"; stats["fallback"] says why not the GPU)."""
        return self.stats["device"]

    @property
    def rank(self):
        return self.stats["rank"]

    @property
    def stats(self):
        return self._qr.stats()


def lstsq(A, b, ordering="colamd", rank_tolerance=None, device="auto", stream=None):
    """x = argmin ||A x - b||_2 by sparse QR (see SparseQR)."""
    return SparseQR(A, ordering, rank_tolerance, device, stream).solve(b)
