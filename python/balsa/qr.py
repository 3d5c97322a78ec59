"""Sparse QR and least squares: :class:`SparseQR` and :func:`lstsq`.

A multifrontal sparse QR in double precision (float32 input is promoted).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from . import _arrays as arr
from . import _scalars as num
from ._core import core

__all__ = ["SparseQR", "lstsq"]

_F64 = np.dtype(np.float64)


class SparseQR:
    """A column-pivoted ``A P = Q R`` of a sparse m x n matrix (m < n: ``A.T`` is factored).

    Parameters
    ----------
    A : scipy.sparse or cupyx.scipy.sparse matrix, shape (m, n)
        The matrix.
    ordering : {"colamd", "metis", "natural"}, optional
        The fill-reducing column ordering.
    rank_tolerance : float, optional
        Columns whose pivot falls below it are dropped (None: SPQR's
        default).
    device : {"auto", "cpu", "cuda"}, optional
        Where the factorisation runs (``stats["fallback"]`` says why not on
        the GPU).
    stream : cupy.cuda.Stream or int, optional
        The CUDA stream of its GPU work.

    Attributes
    ----------
    shape : tuple of int
        ``(m, n)``.

    Raises
    ------
    balsa.UnknownName
        An unknown ordering (a ValueError listing the names).
    ValueError
        A negative or NaN rank_tolerance.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.csr_array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> qr = balsa.SparseQR(A, device="cpu")
    >>> qr.rank, qr.solve(np.array([1.0, 2.0, 3.0])).round(12).tolist()
    (2, [1.0, 1.0])
    """

    def __init__(self, A: Any, ordering: str = "colamd", rank_tolerance: Optional[float] = None,
                 device: str = "auto", stream: Any = None) -> None:
        who = "balsa.SparseQR"
        arr.check_device(device, who)
        tol = num.real(rank_tolerance, "rank_tolerance", who, allow_none=True)
        tol = -1.0 if tol is None else tol
        m = arr.csr_arrays(A, who, dtype=_F64, square=False)
        self.shape = m.shape
        self._qr = core.Qr.create(m.shape[0], m.shape[1], m.indptr, m.indices, m.data, ordering, tol, device,
                                  *arr.stream_handle(stream))

    def solve(self, b: Any) -> Any:
        """The least-squares solution ``argmin ||A x - b||_2``.

        The basic solution when A is rank deficient; for m < n the
        minimum-norm solution.

        Parameters
        ----------
        b : numpy.ndarray or cupy.ndarray, shape (m,) or (m, k)
            One right-hand side or k.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            x of shape (n,) or (n, k), as b's kind.

        Raises
        ------
        balsa.DimensionError
            b without m rows.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> qr = balsa.SparseQR(sp.csr_array([[2.0, 0.0], [0.0, 1.0], [0.0, 1.0]]), device="cpu")
        >>> qr.solve(np.array([2.0, 1.0, 3.0])).round(12).tolist()
        [1.0, 2.0]
        """
        who = "balsa.SparseQR.solve"
        rows, cols = self.shape
        b = b if arr.is_device_array(b) else np.asarray(b)
        if np.dtype(b.dtype) == np.float32:
            b = b.astype(_F64)
        r = arr.rhs(b, rows, _F64, who)
        x = np.empty((cols,) if r.vector else (cols, r.columns), order="F")
        self._qr.solve(arr.flat(arr.to_host(r)), arr.flat(x), r.columns)
        return arr.like_input(x, r)

    def factorize(self, A: Any) -> None:
        """Factor new values of the same pattern.

        Parameters
        ----------
        A : scipy.sparse matrix, shape (m, n)
            The matrix with its new values.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> A = sp.csr_array([[2.0, 0.0], [0.0, 1.0]])
        >>> qr = balsa.SparseQR(A, device="cpu")
        >>> qr.factorize(2 * A)
        >>> qr.solve(np.array([4.0, 2.0])).round(12).tolist()
        [1.0, 1.0]
        """
        m = arr.csr_arrays(A, "balsa.SparseQR.factorize", dtype=_F64, square=False)
        self._qr.factorise(m.shape[0], m.shape[1], m.indptr, m.indices, m.data)

    @property
    def device(self) -> str:
        """Where the last factorisation ran: "cpu" or "cuda"."""
        return str(self.stats["device"])

    @property
    def rank(self) -> int:
        """The numerical rank the factorisation found."""
        return int(self.stats["rank"])

    @property
    def stats(self) -> Dict[str, Any]:
        """The ordering, the factor's size, the rank, the device, the times."""
        return self._qr.stats()


def lstsq(A: Any, b: Any, ordering: str = "colamd", rank_tolerance: Optional[float] = None, device: str = "auto",
          stream: Any = None) -> Any:
    """Solve the least-squares problem ``argmin ||A x - b||_2`` by sparse QR.

    Parameters
    ----------
    A : scipy.sparse matrix, shape (m, n)
        The matrix.
    b : array_like, shape (m,) or (m, k)
        The right-hand side(s).
    ordering, rank_tolerance, device, stream
        As :class:`SparseQR`.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        x, as b's kind.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> balsa.lstsq(sp.csr_array([[1.0], [1.0]]), np.array([1.0, 3.0]), device="cpu").round(12).tolist()
    [2.0]
    """
    return SparseQR(A, ordering, rank_tolerance, device, stream).solve(b)
