"""Matrix Market files: :func:`read_matrix` and :func:`write_matrix` (plain or gzip)."""

from __future__ import annotations

import os
from typing import Any, Union

import numpy as np
from numpy.typing import DTypeLike

from . import _arrays as arr
from ._core import core

__all__ = ["read_matrix", "write_matrix"]


def read_matrix(path: Union[str, os.PathLike], dtype: DTypeLike = np.float64) -> Any:
    """Read a Matrix Market file as a ``scipy.sparse.csr_array``.

    Symmetric files are expanded, duplicates summed.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.mtx`` or ``.mtx.gz`` file.
    dtype : {numpy.float64, numpy.float32}, optional
        The values' type.

    Returns
    -------
    scipy.sparse.csr_array
        The matrix.

    Raises
    ------
    FileNotFoundError
        No such file (a :class:`balsa.FileError`; ``PermissionError`` and
        ``IsADirectoryError`` likewise).
    balsa.ParseError
        A malformed file; ``line`` names where (a ValueError).
    TypeError
        Another dtype.

    Examples
    --------
    >>> import os, tempfile, scipy.sparse as sp, balsa
    >>> path = os.path.join(tempfile.mkdtemp(), "a.mtx")
    >>> balsa.write_matrix(path, sp.csr_array([[1.0, 0.0], [2.0, 3.0]]))
    >>> balsa.read_matrix(path).toarray().tolist()
    [[1.0, 0.0], [2.0, 3.0]]
    """
    import scipy.sparse as sp

    dtype = np.dtype(dtype)
    if dtype not in arr.FLOATS:
        raise TypeError(f"balsa.read_matrix: dtype must be float32 or float64, not {dtype}")
    fn = core.read_matrix_f64 if dtype == arr.FLOATS[1] else core.read_matrix_f32
    rows, cols, indptr, indices, data = fn(os.fspath(path))
    return sp.csr_array((data, indices, indptr), shape=(rows, cols))


def write_matrix(path: Union[str, os.PathLike], A: Any) -> None:
    """Write a sparse matrix to a Matrix Market file (coordinate, general).

    NaN and Inf values are written as they are. The file is written whole or
    not at all: a temporary file in the same folder, renamed over `path` on
    success; on an error `path` keeps what it held.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    A : scipy.sparse matrix
        float32 or float64.

    Raises
    ------
    balsa.Error
        The file cannot be written.
    TypeError
        A dense array.

    Examples
    --------
    >>> import os, tempfile, scipy.sparse as sp, balsa
    >>> balsa.write_matrix(os.path.join(tempfile.mkdtemp(), "e.mtx"), sp.eye_array(3, format="csr"))
    """
    m = arr.csr_arrays(A, "balsa.write_matrix", square=False, finite=False)
    fn = core.write_matrix_f64 if m.dtype == arr.FLOATS[1] else core.write_matrix_f32
    fn(os.fspath(path), m.shape[0], m.shape[1], m.indptr, m.indices, m.data)
