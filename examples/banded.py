"""A banded system with balsa.BandedSolver: SaP-C (coupled spikes) and SaP-D
(decoupled) on a random banded matrix, checked by the true residual and
against scipy.linalg.solve_banded (LAPACK's banded LU).

    python examples/banded.py [--gpu] [--n 20000] [--k 10]
"""

import argparse
import sys
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

import balsa
from _device import array_module

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--gpu", action="store_true", help="CuPy arrays on the GPU (when CuPy imports)")
p.add_argument("--n", type=int, default=20000, help="rows")
p.add_argument("--k", type=int, default=10, help="half-bandwidth")
args = p.parse_args()

xp, device, to_host = array_module(args.gpu)

# A random band of half-bandwidth k, made diagonally dominant by a factor
# d = 1.2 (|a_ii| = 1.2 * sum_j |a_ij|), the kind of matrix SaP-D is for.
n, k = args.n, args.k
rng = np.random.default_rng(3)
offsets = [o for o in range(-k, k + 1) if o != 0]
bands = [rng.uniform(-1.0, 1.0, n - abs(o)) for o in offsets]
off = sp.diags(bands, offsets, shape=(n, n), format="csr")
dominance = np.asarray(abs(off).sum(axis=1)).ravel()
A = (off + sp.diags(1.2 * dominance)).tocsr()
b = rng.standard_normal(n)
print(f"band: n = {n}, half-bandwidth {k}, nnz = {A.nnz}")

# The reference: LAPACK's banded LU on the (2k+1) x n band storage.
ab = np.zeros((2 * k + 1, n))
for o, v in zip(offsets + [0], bands + [A.diagonal()]):
    if o >= 0:
        ab[k - o, o:] = v
    else:
        ab[k - o, :o] = v
t = time.perf_counter()
x_ref = sla.solve_banded((k, k), ab, b)
print(f"scipy.linalg.solve_banded: {time.perf_counter() - t:.3f} s")

ok = True
for variant in ("sap-c", "sap-d"):
    t = time.perf_counter()
    solver = balsa.BandedSolver(A, variant=variant, device=device)
    setup = time.perf_counter() - t
    t = time.perf_counter()
    x = to_host(solver.solve(xp.asarray(b)))
    seconds = time.perf_counter() - t
    s = solver.stats
    res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    diff = np.linalg.norm(x - x_ref) / np.linalg.norm(x_ref)
    print(f"{variant}: {s['partitions']} partitions on {s['device']}, set-up {setup:.3f} s, solve {seconds:.3f} s "
          f"({s['krylov']['iterations']} iterations); residual {res:.1e}, vs solve_banded {diff:.1e}")
    ok &= res < 1e-8 and diff < 1e-8

# The same pattern, new values: factored again without a new analysis.
A2 = A.copy()
A2.data = A.data * rng.uniform(0.9, 1.1, A.nnz)
A2 = (A2 + sp.diags(0.5 * dominance)).tocsr()  # keep it dominant after the scaling
solver.update_values(A2)
x2 = to_host(solver.solve(xp.asarray(b)))
res2 = np.linalg.norm(b - A2 @ x2) / np.linalg.norm(b)
print(f"update_values (sap-d): residual {res2:.1e}")
ok &= res2 < 1e-8

print("banded example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
