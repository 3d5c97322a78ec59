"""balsa with CuPy: CuPy arrays in, CuPy arrays out, no copies, all the work
ordered on a CuPy stream. Exits 0 with a message where CuPy or a GPU (or a
CUDA build of balsa) is missing.

    python examples/gpu_cupy.py [--grid 40]
"""

import argparse
import sys

import scipy.sparse as sp

import balsa

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--grid", type=int, default=40, help="the 3-D grid side (grid^3 unknowns)")
p.add_argument("--gpu", action="store_true", help="accepted like the other examples' (this one always uses the GPU)")
args = p.parse_args()

try:
    import cupy
    import cupyx.scipy.sparse as csp
except ImportError:
    print("gpu_cupy example: CuPy is not installed; nothing to do (pip install cupy-cuda12x)")
    sys.exit(0)
if not balsa.cuda_available():
    why = "this balsa was built without CUDA" if not balsa.built_with_cuda() else "no GPU is usable"
    print(f"gpu_cupy example: {why}; nothing to do")
    sys.exit(0)
try:
    cupy.cuda.runtime.getDeviceCount()
except cupy.cuda.runtime.CUDARuntimeError as e:
    print(f"gpu_cupy example: CuPy sees no GPU ({e}); nothing to do")
    sys.exit(0)

props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
print(f"GPU: {props['name'].decode()}")

m = args.grid
K, I = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m)), sp.eye(m)
A = (sp.kron(sp.kron(K, I), I) + sp.kron(sp.kron(I, K), I) + sp.kron(sp.kron(I, I), K)).tocsr()
L = sp.tril(A, format="csr")
n = A.shape[0]
A_gpu, L_gpu = csp.csr_matrix(A), csp.csr_matrix(L)  # for the residuals, computed on the GPU
ok = True

stream = cupy.cuda.Stream(non_blocking=True)
with stream:  # CuPy's work goes to `stream`; balsa's too (stream=None takes CuPy's current stream)
    b = cupy.random.default_rng(5).standard_normal(n)

    # 1. A triangular solve: b's device pointer goes to the kernels as it is.
    trsv = balsa.TriangularSolver(L_gpu, device="cuda")  # a cupyx matrix is accepted too
    x = trsv.solve(b)  # asynchronous on `stream`
    r = cupy.linalg.norm(L_gpu @ x - b) / cupy.linalg.norm(b)  # ordered after the solve on the same stream
    stream.synchronize()
    trsv.check()  # raises if the (asynchronous) solve failed
    print(f"TriangularSolver ({trsv.stats['algorithm']}): x is {type(x).__module__}.{type(x).__name__}, "
          f"b and x used in place: {trsv.last_device_pointers == (b.data.ptr, x.data.ptr)}, residual {float(r):.1e}")
    ok &= isinstance(x, cupy.ndarray) and float(r) < 1e-12

    # Many right-hand sides (n x k, a CuPy matrix) in one call, into a preallocated output.
    B = cupy.random.default_rng(6).standard_normal((n, 4))
    X = cupy.empty((n, 4), order="F")
    trsv.solve(B, out=X)
    rk = cupy.linalg.norm(L_gpu @ X - B) / cupy.linalg.norm(B)
    print(f"4 right-hand sides: residual {float(rk):.1e}")
    ok &= float(rk) < 1e-12

    # 2. PCG with IC(0), the whole iteration on the GPU.
    pcg = balsa.KrylovSolver(A, method="pcg-ic0", rtol=1e-8, device="cuda", stream=stream)
    x = pcg.solve(b)
    r = cupy.linalg.norm(b - A_gpu @ x) / cupy.linalg.norm(b)
    print(f"PCG-IC(0) on {m}^3: {pcg.info['outcome']} in {pcg.info['iterations']} iterations, "
          f"true residual {float(r):.1e}")
    ok &= pcg.info["converged"] and float(r) < 1e-7

    # 3. balsa.solve: CuPy in, CuPy out (its values go through the host).
    x, info = balsa.solve(A, b, return_info=True)
    r = cupy.linalg.norm(b - A_gpu @ x) / cupy.linalg.norm(b)
    print(f"balsa.solve: {info['method']} on {info['device']}, x is a CuPy array: {isinstance(x, cupy.ndarray)}, "
          f"true residual {float(r):.1e}")
    ok &= isinstance(x, cupy.ndarray) and float(r) < 1e-7
stream.synchronize()

print("gpu_cupy example:", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
