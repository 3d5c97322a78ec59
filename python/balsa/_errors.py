"""balsa's exceptions and warnings.

One class per error of the C++ library, with the library's messages. Each
class also derives from the built-in exception a Python user catches for the
same fault: ``ValueError`` for bad input (and for an unknown option name),
``MemoryError`` for memory, ``FileNotFoundError`` / ``PermissionError`` /
``IsADirectoryError`` for files, ``numpy.linalg.LinAlgError`` for singular
matrices. What the library raises as a plain error is a plain :class:`Error`.

Examples
--------
>>> import balsa
>>> try:
...     balsa.read_matrix("no-such-file.mtx")
... except FileNotFoundError as e:
...     print(e.errno == 2, e.filename)
True no-such-file.mtx
"""

from __future__ import annotations

import errno as _errno
from typing import Any, Optional, Sequence

import numpy as np


class Error(Exception):
    """Any error raised by balsa."""


class ParseError(Error, ValueError):
    """A malformed file.

    Parameters
    ----------
    message : str
        The message, ``"file:line: what"``.
    file : str
        The file's name.
    line : int
        The line (1-based).
    """

    def __init__(self, message: str, file: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


class FileError(Error, OSError):
    """A file balsa cannot open or read.

    An ``OSError`` with ``errno``, ``strerror`` and ``filename`` set; the
    subclasses :class:`MissingFile`, :class:`FileAccessDenied` and
    :class:`FileIsADirectory` are also ``FileNotFoundError``,
    ``PermissionError`` and ``IsADirectoryError``.

    Parameters
    ----------
    errno : int
        The system's error number.
    message : str
        balsa's message (it names the kind of file and the path).
    filename : str
        The file's path.
    """

    def __init__(self, errno: int, message: str, filename: str) -> None:
        super().__init__(errno, message, filename)

    def __str__(self) -> str:
        return str(self.strerror)


class MissingFile(FileError, FileNotFoundError):
    """A file that does not exist (``errno.ENOENT``)."""


class FileAccessDenied(FileError, PermissionError):
    """A file balsa may not read (``errno.EACCES``, ``errno.EPERM``)."""


class FileIsADirectory(FileError, IsADirectoryError):
    """A folder where a file was expected (``errno.EISDIR``)."""


_FILE_ERRORS = {_errno.ENOENT: MissingFile, _errno.EACCES: FileAccessDenied, _errno.EPERM: FileAccessDenied,
                _errno.EISDIR: FileIsADirectory}


def file_error(errno: int, message: str, filename: str) -> FileError:
    """The :class:`FileError` subclass that matches `errno`.

    Parameters
    ----------
    errno : int
        The system's error number.
    message : str
        The message.
    filename : str
        The file's path.

    Returns
    -------
    FileError
        A :class:`MissingFile`, :class:`FileAccessDenied`,
        :class:`FileIsADirectory` or plain :class:`FileError`.

    Examples
    --------
    >>> import errno
    >>> isinstance(file_error(errno.ENOENT, "cannot open 'a'", "a"), FileNotFoundError)
    True
    """
    return _FILE_ERRORS.get(errno, FileError)(errno, message, filename)


class UnknownName(Error, ValueError):
    """An option value that is not one of its names.

    Parameters
    ----------
    message : str
        ``"unknown <what> '<name>' (one of: a, b, c)"``.
    names : sequence of str
        The accepted names (kept as ``names``).
    """

    def __init__(self, message: str, names: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.names = list(names)


class IndexOverflow(Error, OverflowError):
    """A size or an index beyond balsa's 32-bit indices."""


class DimensionError(Error, ValueError):
    """Shapes that do not fit together."""


class MatrixError(Error, ValueError):
    """A matrix balsa cannot use.

    Bad structure, a zero or missing diagonal, NaN/Inf, a singular or
    indefinite matrix.
    """


class StructurallySingular(MatrixError, np.linalg.LinAlgError):
    """A matrix whose pattern alone makes it singular.

    No nonzero diagonal can be matched: ``structural_rank`` < ``n``.

    Parameters
    ----------
    message : str
        The message.
    structural_rank : int
        The size of a maximum matching of rows to columns.
    n : int
        The matrix's order.
    """

    def __init__(self, message: str, structural_rank: int = 0, n: int = 0) -> None:
        super().__init__(message)
        self.structural_rank = structural_rank
        self.n = n


class SingularMatrix(MatrixError, np.linalg.LinAlgError):
    """A matrix a direct factorisation found numerically singular.

    A zero pivot; the message names the method and, where known, the row or
    column.
    """


class HostOutOfMemory(Error, MemoryError):
    """Host memory ran out."""


class CudaError(Error, RuntimeError):
    """A CUDA failure, or the GPU asked of a build or machine without one."""


class DeviceOutOfMemory(CudaError, MemoryError):
    """GPU memory ran out (the message gives the sizes)."""


class ConvergenceError(Error, RuntimeError):
    """No method solved the system.

    Parameters
    ----------
    message : str
        The message.
    info : dict, optional
        Every method's reason (kept as ``info``).
    """

    def __init__(self, message: str, info: Optional[Any] = None) -> None:
        super().__init__(message)
        self.info = info


class ConvergenceWarning(UserWarning):
    """An iterative solve stopped without meeting its tolerance."""


class IntegralityWarning(UserWarning):
    """A linear program with integer variables was solved as its LP relaxation.

    balsa solves linear programs only: integer markers of an MPS file (and
    ``integrality=`` of :func:`balsa.linprog`) are not enforced.
    """
