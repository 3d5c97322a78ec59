"""balsa's exceptions: one class per ``balsa::Error`` subclass of the C++
library, with the library's messages. Each subclass of Error also derives
from the built-in exception a Python user would catch for the same fault
(ValueError for bad input, MemoryError for memory, ...); what the library
raises as a plain balsa::Error (an unknown option name, NaN in b, a missing
file) is a plain Error."""


class Error(Exception):
    """Any error raised by balsa (``balsa::Error``)."""


class ParseError(Error, ValueError):
    """A malformed file; ``file`` and ``line`` name where."""

    def __init__(self, message, file="", line=0):
        super().__init__(message)
        self.file = file
        self.line = line


class IndexOverflow(Error, OverflowError):
    """A size or an index beyond balsa's 32-bit indices."""


class DimensionError(Error, ValueError):
    """Shapes that do not fit together."""


class MatrixError(Error, ValueError):
    """A matrix balsa cannot use: bad structure, a zero or missing diagonal,
    NaN/Inf, a singular or indefinite matrix."""


class StructurallySingular(MatrixError):
    """No nonzero diagonal can be matched (``structural_rank`` < ``n``)."""

    def __init__(self, message, structural_rank=0, n=0):
        super().__init__(message)
        self.structural_rank = structural_rank
        self.n = n


class SingularMatrix(MatrixError):
    """A direct factorisation found A numerically singular (a zero pivot);
    the message names the method and, where known, the row or column."""


class HostOutOfMemory(Error, MemoryError):
    """Host memory ran out."""


class CudaError(Error, RuntimeError):
    """A CUDA failure, or the GPU asked of a build or machine without one."""


class DeviceOutOfMemory(CudaError, MemoryError):
    """GPU memory ran out (the message gives the sizes)."""


class ConvergenceError(Error, RuntimeError):
    """``balsa.solve`` found no method that solves the system; ``info`` holds
    every method's reason."""

    def __init__(self, message, info=None):
        super().__init__(message)
        self.info = info


class ConvergenceWarning(UserWarning):
    """An iterative solve stopped without meeting its tolerance."""
