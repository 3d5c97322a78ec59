"""Sparse direct solvers on the CPU: :class:`DirectSolver` and :func:`factorized`.

CHOLMOD's Cholesky, UMFPACK's LU and KLU, from SuiteSparse. Analyse and
factorise once, solve many right-hand sides.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np

from . import _arrays as arr
from . import _scalars as num
from ._core import core

__all__ = ["DirectSolver", "factorized"]

METHODS = ("auto", "cholmod", "umfpack", "klu")


class DirectSolver:
    """A sparse direct factorisation of a square sparse matrix.

    Parameters
    ----------
    A : scipy.sparse or cupyx.scipy.sparse matrix, shape (n, n)
        float32 or float64.
    method : {"auto", "cholmod", "umfpack", "klu"}, optional
        "auto": CHOLMOD when A is symmetric with a positive diagonal (UMFPACK
        when it then proves indefinite), else UMFPACK or KLU by a rule on A's
        pattern.
    threads : int, optional
        Host threads of the factorisation and solves (0: as set).
    device : {"auto", "cpu"}, optional
        The factorisations run on the CPU ("cuda" is a :class:`balsa.CudaError`).

    Attributes
    ----------
    shape : tuple of int
        A's shape.
    dtype : numpy.dtype
        A's value type.

    Raises
    ------
    balsa.SingularMatrix
        A zero pivot (also a ``numpy.linalg.LinAlgError``).
    balsa.StructurallySingular
        A pattern that no values make nonsingular (also a ``LinAlgError``).
    balsa.MatrixError
        CHOLMOD on an indefinite A, NaN or Inf (a ValueError).
    balsa.HostOutOfMemory
        A factorisation predicted not to fit (a MemoryError).
    ValueError
        An unknown method (the message lists the names).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.csr_array([[4.0, 1.0], [1.0, 3.0]])
    >>> lu = balsa.DirectSolver(A)
    >>> np.allclose(A @ lu.solve(np.array([1.0, 2.0])), [1.0, 2.0])
    True
    >>> lu.method
    'cholmod'
    """

    def __init__(self, A: Any, method: str = "auto", threads: int = 0, device: str = "auto") -> None:
        who = "balsa.DirectSolver"
        arr.check_device(device, who)
        if method not in METHODS:
            raise ValueError(f"{who}: method must be one of {', '.join(METHODS)}, not {method!r}")
        m = arr.csr_arrays(A, who)
        self.dtype, self.shape = m.dtype, m.shape
        self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)
        cls = core.DirectF64 if self.dtype == arr.FLOATS[1] else core.DirectF32
        self._solver = cls(m.shape[0], m.indptr, m.indices, m.data, method, num.threads(threads, who), device)

    def solve(self, b: Any) -> Any:
        """Solve ``A x = b``.

        Parameters
        ----------
        b : numpy.ndarray or cupy.ndarray, shape (n,) or (n, k)
            One right-hand side or k (CuPy values go through the host).

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            x, as b's kind.

        Raises
        ------
        balsa.DimensionError
            b without n rows (a ValueError).

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> balsa.DirectSolver(sp.csr_array([[2.0, 0.0], [0.0, 4.0]])).solve(np.array([2.0, 2.0])).tolist()
        [1.0, 0.5]
        """
        n = self.shape[0]
        r = arr.rhs(b, n, self.dtype, "balsa.DirectSolver.solve")
        x = np.empty((n,) if r.vector else (n, r.columns), dtype=self.dtype, order="F")
        self._solver.solve(arr.flat(arr.to_host(r)), r.columns, arr.flat(x))
        return arr.like_input(x, r)

    __call__ = solve

    def update_values(self, values: Any) -> None:
        """Factorise new values of A's pattern with the same analysis.

        Parameters
        ----------
        values : scipy.sparse matrix or array_like
            A matrix with A's pattern, or an array in the order of A's CSR
            data.

        Raises
        ------
        balsa.DimensionError
            Another pattern or number of values.
        balsa.SingularMatrix
            The new values are singular.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> A = sp.csr_array([[2.0, 0.0], [0.0, 4.0]])
        >>> lu = balsa.DirectSolver(A)
        >>> lu.update_values(2 * A)
        >>> lu.solve(np.array([4.0, 8.0])).tolist()
        [1.0, 1.0]
        """
        self._solver.update_values(arr.host_values(values, self._pattern, self.dtype, "balsa.DirectSolver"))

    @property
    def method(self) -> str:
        """The method that factorised A: "cholmod", "umfpack" or "klu"."""
        return str(self.stats["method"])

    @property
    def stats(self) -> Dict[str, Any]:
        """The method used, the factor's entries, flops and peak bytes, rcond, the times."""
        return self._solver.stats()


def factorized(A: Any, method: str = "auto", threads: int = 0) -> Callable[[Any], Any]:
    """Factorise A once and return its solve function, as ``scipy.sparse.linalg.factorized``.

    Parameters
    ----------
    A : scipy.sparse matrix, shape (n, n)
        The matrix.
    method : {"auto", "cholmod", "umfpack", "klu"}, optional
        As :class:`DirectSolver`.
    threads : int, optional
        Host threads (0: as set).

    Returns
    -------
    callable
        ``solve(b)``: x with ``A x = b``; its ``__self__`` is the
        :class:`DirectSolver` (stats, update_values).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> solve = balsa.factorized(sp.csr_array([[2.0, 1.0], [0.0, 1.0]]))
    >>> solve(np.array([3.0, 1.0])).tolist()
    [1.0, 1.0]
    """
    return DirectSolver(A, method=method, threads=threads).solve
