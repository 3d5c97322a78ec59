"""Sparse triangular solves: :class:`TriangularSolver` analyses a triangular
matrix once and solves with it many times."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike

from . import _arrays as arr
from . import _scalars as num
from ._core import core
from ._errors import DimensionError

__all__ = ["TriangularSolver", "algorithms"]


class TriangularSolver:
    """Solve ``L x = b`` (or ``U x = b``, or the transposed systems) many times.

    The constructor analyses the matrix (on the GPU or the CPU); every
    :meth:`solve` then reuses the analysis.

    Parameters
    ----------
    L : scipy.sparse or cupyx.scipy.sparse matrix, shape (n, n)
        Square, float32 or float64. Entries outside the chosen triangle are
        refused (:class:`balsa.MatrixError`), as are zero or missing diagonal
        entries (unless `unit_diagonal`). A CSC matrix is not converted: it
        is read as the CSR of its transpose and solved transposed.
    lower : bool, optional
        The triangle L holds (True: lower).
    unit_diagonal : bool, optional
        Take the diagonal as ones (a stored diagonal is ignored).
    transpose : bool, optional
        Solve with ``L.T`` instead of ``L``.
    algorithm : str, optional
        "auto", or one of :func:`algorithms` ("level-set", "sync-free",
        "sync-free-csc", "sync-free-blocks", "tassl", "cusparse",
        "reference", ...).
    device : {"auto", "cpu", "cuda"}, optional
        Where it runs ("auto": the GPU when there is one).
    stream : cupy.cuda.Stream or int, optional
        The CUDA stream that orders all the solver's GPU work (None: CuPy's
        current stream when CuPy is loaded, else the per-thread default
        stream).
    threads : int, optional
        Host threads of its set-up and solves (0: :func:`balsa.set_threads`'
        or the process's setting).

    Attributes
    ----------
    shape : tuple of int
        ``(n, n)``.
    dtype : numpy.dtype
        float32 or float64.
    device : str
        Where it runs: "cpu" or "cuda".

    Raises
    ------
    balsa.MatrixError
        Not triangular, a zero or missing diagonal, NaN or Inf (a ValueError).
    balsa.UnknownName
        An unknown algorithm (a ValueError listing the names).
    TypeError
        A dense matrix, or values that are not float32 or float64.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> L = sp.csr_array([[2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 3.0, 4.0]])
    >>> solver = balsa.TriangularSolver(L, device="cpu")
    >>> solver.solve(np.array([2.0, 2.0, 7.0])).tolist()
    [1.0, 1.0, 1.0]
    """

    def __init__(self, L: Any, lower: bool = True, unit_diagonal: bool = False, transpose: bool = False,
                 algorithm: str = "auto", device: str = "auto", stream: Any = None, threads: int = 0) -> None:
        who = "balsa.TriangularSolver"
        arr.check_device(device, who)
        self._transposed = getattr(L, "format", None) == "csc"
        if self._transposed:  # L^T as CSR: the other triangle, transposed (L checked as given first)
            arr.check_matrix(L, who)
            L = L.T
            lower, transpose = not lower, not transpose
        m = arr.csr_arrays(L, who)
        self.dtype = m.dtype
        self.shape = m.shape
        self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)
        cls = core.TrsvF64 if self.dtype == arr.FLOATS[1] else core.TrsvF32
        handle, owner = arr.stream_handle(stream)
        self._solver = cls.create(m.shape[0], m.indptr, m.indices, m.data, "lower" if lower else "upper",
                                  bool(unit_diagonal), bool(transpose), algorithm, device, handle,
                                  num.threads(threads, who), owner)
        self.device = self._solver.stats()["device"]
        self._device_id = arr.current_cuda_device() if self.device == "cuda" else None
        # (b, x) of the last GPU-array solve: what the kernels read and wrote.
        self.last_device_pointers: Optional[Tuple[int, int]] = None

    def solve(self, b: Any, out: Any = None) -> Any:
        """Solve ``L x = b``.

        A GPU solver reads a contiguous CuPy `b` of its dtype where it is (no
        copy) and writes x on the device, asynchronously on the solver's
        stream; NumPy arrays are copied to the device and back. Call it where
        the solver's stream is CuPy's current stream (inside ``with
        stream:``), or order b's producer and x's users yourself.

        Parameters
        ----------
        b : numpy.ndarray or cupy.ndarray, shape (n,) or (n, k)
            One right-hand side or k of them.
        out : array, optional
            Where to write x (b's kind, shape and dtype; contiguous).

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            x, as b's kind (`out` when given).

        Raises
        ------
        balsa.DimensionError
            b of the wrong length (a ValueError).
        TypeError
            b of another dtype than the solver's.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> s = balsa.TriangularSolver(sp.csr_array([[2.0, 0.0], [1.0, 1.0]]), device="cpu")
        >>> s.solve(np.array([[2.0, 4.0], [2.0, 3.0]])).tolist()
        [[1.0, 2.0], [1.0, 1.0]]
        """
        who = "balsa.TriangularSolver.solve"
        n = self.shape[0]
        r = arr.rhs(b, n, self.dtype, who, device_id=self._device_id)
        x = arr.empty_like_rhs(r, n) if out is None else arr.check_out(out, r, n, who)
        if r.device == "cuda" and self.device == "cuda":
            xp = x.data.ptr
            self.last_device_pointers = (r.pointer, xp)
            self._solver.solve_device(r.pointer, xp, r.columns)
            return x
        host = arr.to_host(r)
        xh = x if r.device == "cpu" else np.empty(x.shape, dtype=self.dtype, order="F")
        if r.vector:
            self._solver.solve(host, xh)
        else:
            self._solver.solve_columns(arr.flat(host), arr.flat(xh), r.columns)
        if r.device == "cuda":
            x.set(xh)
        return x

    def check(self) -> None:
        """Wait for the last GPU-array solve and raise if it failed.

        Raises
        ------
        balsa.Error
            A sync-free solver's dependency wait timed out.

        Examples
        --------
        >>> import scipy.sparse as sp, balsa
        >>> balsa.TriangularSolver(sp.eye_array(2, format="csr"), device="cpu").check()
        """
        self._solver.check()

    def update_values(self, values: Any) -> None:
        """Give the same pattern new values.

        Diagonal and finiteness are checked again; on an error the solver
        keeps its values.

        Parameters
        ----------
        values : scipy.sparse matrix or array_like
            A matrix with the solver's pattern, or an array of its nonzeros in
            the order of the matrix given to the constructor (``L.data`` of a
            CSR or CSC matrix; CSR order after a pattern change).

        Raises
        ------
        balsa.DimensionError
            Another pattern, or the wrong number of values.
        balsa.MatrixError
            A zero diagonal, NaN or Inf.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> L = sp.csr_array([[2.0, 0.0], [1.0, 1.0]])
        >>> s = balsa.TriangularSolver(L, device="cpu")
        >>> s.update_values(2 * L)
        >>> s.solve(np.array([4.0, 4.0])).tolist()
        [1.0, 1.0]
        """
        if self._transposed and arr.sp_issparse(values):
            values = values.T  # the stored matrix is L^T in CSR: its data is L's CSC order
        self._solver.update_values(arr.host_values(values, self._pattern, self.dtype, "balsa.TriangularSolver"))

    def replace_columns(self, columns: ArrayLike, new_columns: Any) -> None:
        """Replace some columns of the matrix, updating the analysis.

        The incremental analysis of a sequence of matrices: column
        ``columns[k]`` becomes column k of `new_columns` (its pattern may
        differ); the other columns keep theirs. The "tassl" algorithm updates
        its analysis where it can; the others analyse afresh. ``stats["updates"]``
        tells which ran. On an error the solver keeps its matrix.

        Parameters
        ----------
        columns : array_like of int, shape (k,)
            Distinct columns, 0 to n - 1.
        new_columns : scipy.sparse matrix, shape (n, k)
            The new columns, inside the solver's triangle, the diagonal
            included (unless `unit_diagonal`).

        Raises
        ------
        balsa.DimensionError
            new_columns not n x k.
        balsa.MatrixError
            An entry outside the triangle, a missing or zero diagonal, NaN
            or Inf.
        balsa.Error
            A column out of range or given twice.
        ValueError
            A solver built from a CSC matrix (its columns are stored as
            rows): use :meth:`update_pattern`.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> L = sp.csr_array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 4.0]])
        >>> s = balsa.TriangularSolver(L, device="cpu")
        >>> s.replace_columns([0], sp.csc_array([[2.0], [1.0], [4.0]]))
        >>> s.solve(np.array([2.0, 2.0, 8.0])).tolist()
        [1.0, 1.0, 1.0]
        """
        who = "balsa.TriangularSolver.replace_columns"
        if self._transposed:
            raise ValueError(f"{who}: the solver was built from a CSC matrix, stored as the rows of its transpose; "
                             "give the whole new matrix to update_pattern, or build the solver from CSR")
        n = self.shape[0]
        cols = _column_list(columns, n, who)
        C = _new_columns(new_columns, n, cols.shape[0], self.dtype, who)
        indptr = arr._int32(C.indptr, "column pointers", who)
        indices = arr._int32(C.indices, "row indices", who)
        self._solver.replace_columns(cols, indptr, indices, np.ascontiguousarray(C.data, dtype=self.dtype))
        self._pattern = _replaced_pattern(self._pattern, cols, indptr, indices, who)

    def update_pattern(self, L: Any) -> None:
        """Give the solver a new matrix of the same size, pattern changes included.

        The columns whose pattern changed are found and replaced as
        :meth:`replace_columns` does, then every value is updated.

        Parameters
        ----------
        L : scipy.sparse matrix, shape (n, n)
            The new matrix, in the solver's triangle.

        Raises
        ------
        balsa.DimensionError
            Another size.
        balsa.MatrixError
            An entry outside the triangle, a missing or zero diagonal, NaN
            or Inf.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> s = balsa.TriangularSolver(sp.eye_array(2, format="csr"), device="cpu")
        >>> s.update_pattern(sp.csr_array([[1.0, 0.0], [1.0, 2.0]]))
        >>> s.solve(np.array([1.0, 3.0])).tolist()
        [1.0, 1.0]
        """
        who = "balsa.TriangularSolver.update_pattern"
        if self._transposed:
            arr.check_matrix(L, who)
            L = L.T
        m = arr.csr_arrays(L, who, dtype=self.dtype)
        if m.shape != self.shape:
            raise DimensionError(f"{who}: the new matrix is {m.shape[0]} x {m.shape[1]}, the solver's "
                                 f"{self.shape[0]} x {self.shape[1]}")
        self._solver.update_pattern(m.shape[0], m.indptr, m.indices, m.data)
        self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)

    @property
    def stats(self) -> Dict[str, Any]:
        """What the analysis found and the times.

        Returns
        -------
        dict
            algorithm, device, levels, times (``*_seconds``), ``updates``
            (the pattern changes), ...
        """
        return self._solver.stats()

    def __repr__(self) -> str:
        s = self.stats
        return f"<balsa.TriangularSolver {self.shape[0]}x{self.shape[1]} {self.dtype} {s['algorithm']} on {s['device']}>"


def _column_list(columns: ArrayLike, n: int, who: str) -> np.ndarray:
    """columns as int32, 1-D, each in [0, n)."""
    c = np.asarray(columns)
    if c.dtype.kind not in "iu" and not (c.size == 0 and c.dtype.kind == "f"):
        raise TypeError(f"{who}: columns must be integers, not {c.dtype}")
    if c.ndim != 1:
        raise DimensionError(f"{who}: columns must be 1-D, not of shape {c.shape}")
    if c.size and (c.min() < 0 or c.max() >= n):
        raise ValueError(f"{who}: columns must be in [0, {n}), not {int(c.min())} .. {int(c.max())}")
    return np.ascontiguousarray(c, dtype=np.int32)


def _new_columns(new_columns: Any, n: int, k: int, dtype: np.dtype, who: str) -> Any:
    """new_columns checked and as canonical scipy.sparse CSC of shape (n, k)."""
    import scipy.sparse as sp

    arr.check_matrix(new_columns, who, square=False)
    if arr._is_cupyx_sparse(new_columns):
        new_columns = new_columns.get()
    if new_columns.shape != (n, k):
        raise DimensionError(f"{who}: new_columns must be {n} x {k} (a column for each of the {k} columns), "
                             f"not {new_columns.shape[0]} x {new_columns.shape[1]}")
    arr.value_dtype(new_columns.dtype, who, "new_columns")
    C = sp.csc_array(new_columns, dtype=dtype, copy=True)
    C.sum_duplicates()
    C.sort_indices()
    return C


def _replaced_pattern(pattern: Any, cols: np.ndarray, indptr: np.ndarray, indices: np.ndarray, who: str) -> Any:
    """The canonical CSR pattern after `cols` were replaced by the columns
    (indptr, indices): what update_values then takes."""
    import scipy.sparse as sp

    n = pattern.shape[0]
    rows = np.repeat(np.arange(n), np.diff(pattern.indptr))
    keep = ~np.isin(pattern.indices, cols)
    new_rows = indices
    new_cols = np.repeat(cols, np.diff(indptr))
    r = np.concatenate([rows[keep], new_rows])
    c = np.concatenate([pattern.indices[keep], new_cols])
    P = sp.coo_array((np.ones(r.shape[0]), (r, c)), shape=pattern.shape).tocsr()
    P.sort_indices()
    return arr.CsrArrays(P.shape, arr._int32(P.indptr, "row pointers", who), arr._int32(P.indices, "column indices", who),
                         None, False)


def algorithms() -> List[str]:
    """The triangular solvers' algorithm names.

    Returns
    -------
    list of str
        What ``TriangularSolver(algorithm=...)`` accepts besides "auto".

    Examples
    --------
    >>> import balsa
    >>> "level-set" in balsa.algorithms()
    True
    """
    return list(core.trsv_algorithms())
