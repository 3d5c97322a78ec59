"""Checks of a sparse matrix's raw arrays, made before any SciPy or CuPy call
that could sort, sum or convert them: SciPy's and CuPy's canonicalisations
(sum_duplicates, sort_indices, tocsr, ...) trust those arrays, and a
decreasing indptr or an index out of range makes them write outside their
buffers (the interpreter aborts). Every check is a vectorised reduction
(LIL's and DOK's Python lists and keys are gathered into arrays first); on
the GPU they run on the device and come back in one host sync.

Errors: MatrixError (a ValueError) for a malformed structure or NaN/Inf,
DimensionError for shapes, IndexOverflow beyond balsa's 32-bit indices,
TypeError for dtypes and unsupported types, as SciPy raises them.
"""

import itertools

import numpy as np

from ._errors import DimensionError, IndexOverflow, MatrixError

INT32_MAX = int(np.iinfo(np.int32).max)
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def value_dtype(dtype, who, what="A"):
    """The float type balsa computes in for values of `dtype`: float32 and
    float64 as they are, integers and booleans as float64; complex and the
    rest are a TypeError."""
    dtype = np.dtype(dtype)
    if dtype in FLOATS:
        return dtype
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype.kind == "c":
        raise TypeError(f"{who}: {what} has complex values ({dtype}); balsa works in real float32 or float64")
    raise TypeError(f"{who}: values of type {dtype} are not supported (float32 or float64)")


def check_shape(shape, who, square):
    """(rows, cols) of a two-dimensional shape within 32-bit indices."""
    if len(shape) != 2:
        raise DimensionError(f"{who}: A must be two-dimensional, not of shape {tuple(shape)}")
    m, n = (int(s) for s in shape)
    if m > INT32_MAX or n > INT32_MAX:
        raise IndexOverflow(f"{who}: a {m} x {n} matrix goes beyond balsa's 32-bit indices")
    if square and m != n:
        raise DimensionError(f"{who}: A must be square, not {m} x {n}")
    return m, n


def _vector(a, what, who, integer=True):
    """An array's metadata: one-dimensional, of integers when `integer`."""
    if a.ndim != 1:
        raise DimensionError(f"{who}: {what} must be one-dimensional, not of shape {tuple(a.shape)}")
    if integer and a.dtype.kind not in "iu":
        raise TypeError(f"{who}: {what} must hold integers, not {a.dtype}")


def _entries(count, who):
    """nnz within 32-bit indices."""
    if count > INT32_MAX:
        raise IndexOverflow(f"{who}: {count} stored entries go beyond balsa's 32-bit indices")


def _range_problems(index, bound, what):
    """(flag, message) pairs: every entry of `index` in [0, bound)."""
    if index.shape[0] == 0:
        return []
    lo, hi = index.min(), index.max()
    return [(lo < 0, lambda: f"{what} must be >= 0 (found {int(lo)})"),
            (hi >= bound, lambda: f"{what} must be < {bound} (found {int(hi)})")]


def _finite_problems(xp, data):
    """(flag, message) pairs: no NaN or Inf among the values. The flag is the
    sum's (one pass, no temporary array; NaN or Inf anywhere makes it
    non-finite); the message looks for the entry, and finds none when the
    sum only overflowed."""
    if data.size == 0 or data.dtype.kind in "biu":
        return []
    flat = data.ravel()

    def message():
        bad = ~xp.isfinite(flat)
        if not bool(bad.any()):
            return None
        k = int(xp.argmax(bad))
        return f"A's stored value {k} is {float(flat[k])}: NaN and Inf are not allowed"

    with np.errstate(over="ignore", invalid="ignore"):  # NumPy's warning for the sum's overflow or Inf - Inf
        total = xp.sum(flat)
    return [(~xp.isfinite(total), message)]


def _decrease(xp, indptr, step, name):
    """The message for a decreasing indptr: the first row (column) that ends before it starts."""
    i = int(xp.argmax(step))
    return f"indptr must not decrease, but {name} {i} runs from {int(indptr[i])} to {int(indptr[i + 1])}"


def _compressed(xp, indptr, indices, data_rows, major, minor, names, who):
    """A compressed structure (CSR, CSC, BSR in blocks): `major` rows of
    pointers, `minor` the bound of `indices`, `data_rows` values (blocks);
    names: the words for a major and a minor index."""
    _vector(indptr, "indptr", who)
    _vector(indices, "indices", who)
    if indptr.shape[0] != major + 1:
        raise DimensionError(f"{who}: indptr has {indptr.shape[0]} entries, expected {names[0]}s + 1 = {major + 1}")
    nnz = indices.shape[0]
    if data_rows != nnz:
        raise MatrixError(f"{who}: indices has {nnz} entries but data has {data_rows}: they must be the same size")
    _entries(nnz, who)
    step = indptr[1:] < indptr[:-1]
    return [
        (indptr[0] != 0, lambda: f"indptr must start at 0, not {int(indptr[0])}"),
        (step.any(), lambda: _decrease(xp, indptr, step, names[0])),
        (indptr[-1] != nnz, lambda: f"indptr must end at nnz = len(indices) = len(data) = {nnz}, "
                                    f"not {int(indptr[-1])}"),
    ] + _range_problems(indices, minor, f"{names[1]} indices")


def _csr(xp, A, m, n, who):
    _vector(A.data, "data", who, integer=False)
    return _compressed(xp, A.indptr, A.indices, A.data.shape[0], m, n, ("row", "column"), who)


def _csc(xp, A, m, n, who):
    _vector(A.data, "data", who, integer=False)
    return _compressed(xp, A.indptr, A.indices, A.data.shape[0], n, m, ("column", "row"), who)


def _bsr(xp, A, m, n, who):
    """BSR: data holds r x c blocks that tile the matrix (SciPy reads the
    block size from data's shape)."""
    if A.data.ndim != 3:
        raise DimensionError(f"{who}: BSR data must be three-dimensional, not of shape {tuple(A.data.shape)}")
    r, c = (int(s) for s in A.data.shape[1:])
    if r < 1 or c < 1 or m % r or n % c:
        raise DimensionError(f"{who}: BSR blocks of {r} x {c} do not tile a {m} x {n} matrix")
    _entries(A.data.size, who)
    return _compressed(xp, A.indptr, A.indices, A.data.shape[0], m // r, n // c, ("block row", "block column"),
                       who)


def _coo(xp, A, m, n, who):
    row, col = A.row, A.col
    _vector(row, "row", who)
    _vector(col, "col", who)
    _vector(A.data, "data", who, integer=False)
    if not row.shape[0] == col.shape[0] == A.data.shape[0]:
        raise MatrixError(f"{who}: row, col and data have {row.shape[0]}, {col.shape[0]} and {A.data.shape[0]} "
                          "entries: they must be the same size")
    _entries(row.shape[0], who)
    return _range_problems(row, m, "row indices") + _range_problems(col, n, "column indices")


def _dia(xp, A, m, n, who):
    """DIA: distinct integer offsets, one row of data each (the values
    outside the matrix are never read: finiteness is checked after the
    conversion)."""
    _vector(A.offsets, "offsets", who)
    if A.data.ndim != 2 or A.data.shape[0] != A.offsets.shape[0]:
        raise DimensionError(f"{who}: DIA data of shape {tuple(A.data.shape)} for {A.offsets.shape[0]} offsets")
    _entries(A.data.size, who)
    if A.offsets.shape[0] < 2:
        return []
    s = xp.sort(A.offsets)
    return [((s[1:] == s[:-1]).any(), lambda: "DIA offsets must be distinct")]


def _lil(xp, A, m, n, who):
    """LIL (host): one list of columns and one of values per row, of equal
    lengths (SciPy's conversion writes as many values as columns)."""
    if A.rows.shape != (m,) or A.data.shape != (m,):
        raise DimensionError(f"{who}: LIL rows and data must hold {m} lists")
    counts = np.fromiter(map(len, A.rows), np.int64, m)
    differ = counts != np.fromiter(map(len, A.data), np.int64, m)
    if differ.any():
        raise MatrixError(f"{who}: LIL row {int(np.argmax(differ))} has a different number of columns and values")
    _entries(int(counts.sum()), who)
    cols = np.array(list(itertools.chain.from_iterable(A.rows)))
    if cols.size == 0:
        return []
    _vector(cols, "LIL column indices", who)
    return _range_problems(cols, n, "column indices")


def _dok(xp, A, m, n, who):
    """DOK (host): its keys as coordinates."""
    keys = np.array(list(A.keys()))
    if keys.size == 0:
        return []
    if keys.ndim != 2 or keys.shape[1] != 2 or keys.dtype.kind not in "iu":
        raise TypeError(f"{who}: DOK keys must be pairs of integers")
    _entries(keys.shape[0], who)
    return _range_problems(keys[:, 0], m, "row indices") + _range_problems(keys[:, 1], n, "column indices")


_FORMATS = {"csr": _csr, "csc": _csc, "bsr": _bsr, "coo": _coo, "dia": _dia, "lil": _lil, "dok": _dok}
FINITE_AFTER_CONVERSION = ("dia", "lil", "dok")  # formats whose values are checked on the CSR made from them


def _raise_first(xp, problems, who):
    """Raises MatrixError for the first problem whose flag is set and whose
    message confirms it (a message of None: a false alarm); on the GPU the
    flags come to the host together (one sync)."""
    if not problems:
        return
    if xp is np:
        flags = [bool(f) for f, _ in problems]
    else:
        flags = xp.stack([xp.asarray(f) for f, _ in problems]).get().tolist()
    for flag, (_, message) in zip(flags, problems):
        text = message() if flag else None
        if text is not None:
            raise MatrixError(f"{who}: {text}")


def check_sparse(A, xp, who, square=True, finite=True):
    """Checks A's raw arrays (scipy.sparse with xp = numpy, cupyx.scipy.sparse
    with xp = cupy) before anything converts them; returns (rows, cols).
    finite: no NaN or Inf among the values; those of the formats in
    FINITE_AFTER_CONVERSION are the caller's to check on the CSR made from
    them (finite_values)."""
    m, n = check_shape(A.shape, who, square)
    check = _FORMATS.get(A.format)
    if check is None:
        raise TypeError(f"{who}: sparse format {A.format!r} is not supported")
    value_dtype(A.dtype, who)
    problems = check(xp, A, m, n, who)
    if finite and A.format not in FINITE_AFTER_CONVERSION:
        problems += _finite_problems(xp, A.data)
    _raise_first(xp, problems, who)
    return m, n


def finite_values(data, who, xp=np):
    """No NaN or Inf in an array of values."""
    _raise_first(xp, _finite_problems(xp, data), who)


def dense_matrix(A, who, what):
    """A dense 2-D array of real numbers (linprog's A_ub, A_eq), as float64."""
    a = np.asarray(A)
    if a.dtype.kind not in "biuf":
        if a.dtype.kind == "c":
            raise TypeError(f"{who}: {what} has complex values ({a.dtype}); balsa works in real numbers")
        raise TypeError(f"{who}: {what} must be a 2-D array of numbers, not {a.dtype}")
    if a.ndim != 2:
        raise DimensionError(f"{who}: {what} must be two-dimensional, not of shape {a.shape}")
    check_shape(a.shape, who, square=False)
    a = a.astype(np.float64, copy=False)
    if not np.isfinite(a).all():
        raise MatrixError(f"{who}: {what} must not contain NaN or Inf")
    return a
