"""The compiled extension: inside an installed package ``balsa._balsa``; in
the build tree (tests) a top-level ``_balsa`` found on ``sys.path``.

OpenMP's wait policy: GCC's libgomp spins at every barrier unless
OMP_WAIT_POLICY says otherwise, and on cores shared with another busy
process the spinning threads take the time of the thread with the work
(balsa's CPU solvers then ran 5-26x slower with 2 threads than with one:
bench/results/2026-11-29-threads-loaded.md). libgomp reads the variable when
it is loaded, so it is set here, before the extension loads it, unless the
user set it (or GOMP_SPINCOUNT); the `balsa` program does the same. It has
no effect when another module loaded libgomp first.
"""

import os

if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "passive"

try:
    from . import _balsa as core  # noqa: F401,E402
except ImportError:  # pragma: no cover - the build tree's layout
    import _balsa as core  # type: ignore[no-redef]  # noqa: F401,E402
