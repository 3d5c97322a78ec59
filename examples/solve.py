"""A general sparse system with balsa.solve: one call runs balsa's chain of
methods (iterative first, a direct fallback last) and reports which one
solved it. Checked by the true residual and against SciPy's spsolve.

    python examples/solve.py [MATRIX.mtx[.gz]] [--gpu]
    (default: tests/data/west0479.mtx, a chemical-process matrix that has
    no diagonal to speak of)
"""

import argparse
import pathlib
import sys
import time

import numpy as np
import scipy.sparse.linalg as spla

import balsa
from _device import array_module

default = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "west0479.mtx"
p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("matrix", nargs="?", default=str(default), help="a square Matrix Market file (.mtx or .mtx.gz)")
p.add_argument("--gpu", action="store_true", help="CuPy arrays on the GPU (when CuPy imports)")
args = p.parse_args()

xp, device, to_host = array_module(args.gpu)

A = balsa.read_matrix(args.matrix)
n = A.shape[0]
print(f"{pathlib.Path(args.matrix).name}: {n} x {A.shape[1]}, {A.nnz} nonzeros")
x_true = np.random.default_rng(2).standard_normal(n)
b = A @ x_true

t = time.perf_counter()
x, info = balsa.solve(A, xp.asarray(b), return_info=True, device=device)
seconds = time.perf_counter() - t
x = to_host(x)

print("the chain:")
for a in info["chain"]:
    state = "solved" if a["solved"] else "failed"
    reason = f" ({a['reason']})" if a["reason"] else ""
    print(f"  {a['method']:>20}: {state}{reason}; {a['iterations']} iterations, "
          f"residual {a['true_residual']:.1e}, set-up {a['setup_seconds']:.4f} s, solve {a['solve_seconds']:.4f} s")
print(f"solved by {info['method']} ({'direct' if info['direct'] else 'iterative'}) on {info['device']} "
      f"in {seconds:.3f} s")

res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
x_ref = spla.spsolve(A.tocsc(), b)
diff = np.linalg.norm(x - x_ref) / np.linalg.norm(x_ref)
print(f"true residual {res:.1e} (balsa says {info['true_residual']:.1e}); vs scipy spsolve: {diff:.1e}")
ok = res < 1e-6
print("solve example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
