"""Checks of the numeric arguments (maxiter, tol, partitions, time limits):
an argument of the wrong type is a TypeError, a number out of range (a
negative maxiter, a NaN tolerance, 2.5 iterations) a ValueError naming it,
as SciPy's functions raise them. The library's own checks stay behind these
(threads, for one, is checked there against the machine)."""

import math
import numbers

import numpy as np

from ._validate import INT32_MAX  # also the C++ options' int fields


def _plain(value):
    """A NumPy 0-d array as its Python scalar; anything else as it is."""
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value


def integer(value, name, who, minimum=1, allow_none=False, maximum=None):
    """value as an int in [minimum, maximum] (None: no bound on that side);
    None passes through when allow_none."""
    if value is None and allow_none:
        return None
    value = _plain(value)
    what = {1: "a positive integer", None: "an integer"}.get(minimum, f"an integer >= {minimum}")
    what += " or None" if allow_none else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{who}: {name} must be {what}, not {type(value).__name__}")
    if not isinstance(value, numbers.Integral) or (minimum is not None and value < minimum):
        raise ValueError(f"{who}: {name} must be {what}, not {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{who}: {name} must be at most {maximum}, not {value!r}")
    return int(value)


def threads(value, who):
    """A threads= argument as an int; its range (0: the caller's setting, at
    most the machine's hardware threads) is the library's to check."""
    return integer(value, "threads", who, minimum=None, maximum=INT32_MAX)


def real(value, name, who, positive=False, allow_inf=False, allow_none=False):
    """value as a float, >= 0 (> 0 when positive) and finite (+inf too when
    allow_inf); None passes through when allow_none."""
    if value is None and allow_none:
        return None
    value = _plain(value)
    what = ("positive" if positive else ">= 0") + (" (inf: no limit)" if allow_inf else " and finite")
    what += " or None" if allow_none else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{who}: {name} must be a number {what}, not {type(value).__name__}")
    v = float(value)
    if math.isnan(v) or v < 0 or (positive and v == 0) or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{who}: {name} must be {what}, not {value!r}")
    return v
