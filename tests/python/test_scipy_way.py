"""examples/scipy_way.py, a script written the SciPy way, runs unchanged with
scipy.sparse.linalg / scipy.optimize and with balsa, and the answers agree."""

import sys
from pathlib import Path

import pytest
import scipy.optimize
import scipy.sparse.linalg

import balsa

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import scipy_way  # noqa: E402

_METHODS = set(balsa._core.krylov_methods())


def _has_linprog_result():
    return hasattr(balsa.linprog([1.0], bounds=(0, 1)), "ineqlin")


@pytest.mark.parametrize("part", [
    "krylov",
    pytest.param("gmres_minres", marks=pytest.mark.xfail(not {"gmres", "minres"} <= _METHODS, strict=True,
                                                         reason="kmethods merges GMRES and MINRES")),
    pytest.param("linear_program", marks=pytest.mark.xfail(not _has_linprog_result(), strict=True,
                                                           reason="pyapi merges linprog OptimizeResult")),
])
def test_balsa_answers_as_scipy(part):
    theirs = scipy_way.main(scipy.sparse.linalg, scipy.optimize, (part,))[part]
    mine = scipy_way.main(balsa, balsa, (part,))[part]
    assert scipy_way.agree(mine, theirs) == []
    for key, value in mine.items():
        if key.endswith("info") or key == "status":
            assert type(value) is int and value == 0, key
