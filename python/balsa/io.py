"""Matrix Market files (include/balsa/matrix_market.hpp): plain or gzip."""

import os

import numpy as np

from . import _arrays as arr
from ._core import core


def read_matrix(path, dtype=np.float64):
    """A Matrix Market file (.mtx or .mtx.gz) as a scipy.sparse.csr_array
    (symmetric files expanded, duplicates summed). Malformed files raise
    balsa.ParseError naming the line."""
    import scipy.sparse as sp

    dtype = np.dtype(dtype)
    if dtype not in arr.FLOATS:
        raise TypeError(f"balsa.read_matrix: dtype must be float32 or float64, not {dtype}")
    fn = core.read_matrix_f64 if dtype == arr.FLOATS[1] else core.read_matrix_f32
    rows, cols, indptr, indices, data = fn(os.fspath(path))
    return sp.csr_array((data, indices, indptr), shape=(rows, cols))


def write_matrix(path, A):
    """A sparse matrix to a Matrix Market file (coordinate, general); NaN
    and Inf values are written as they are. The file is written whole or not
    at all: a temporary file in the same folder, renamed over `path` on
    success; on an error `path` keeps what it held."""
    m = arr.csr_arrays(A, "balsa.write_matrix", square=False, finite=False)
    fn = core.write_matrix_f64 if m.dtype == arr.FLOATS[1] else core.write_matrix_f32
    fn(os.fspath(path), m.shape[0], m.shape[1], m.indptr, m.indices, m.data)
