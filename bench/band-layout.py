#!/usr/bin/env python3
"""SaP's band layout, measured: LAPACK's (2K+1) x N column-major band (A's
column j contiguous, what balsa stores) against the SaP report's N x (2K+1)
column-major one (each diagonal contiguous), on the two access patterns
SaP's GPU path runs (CuPy on the GPU host; not part of the build).

    python3 bench/band-layout.py [--n 1000000] [--k 10,100,200,500] [--json OUT.json]

1. The band SpMV (the Krylov operator, report sec. 3.4):
   - column layout: balsa's kernel (sap/gpu_band.cu, spmv_kernel: a warp per
     column, its in-range entries added into shared accumulators);
   - diagonal layout: a thread per row summing its 2K+1 diagonals (coalesced,
     no atomics: the layout's natural kernel).
2. The factorisation's window update (sap/gpu_block_lu.cu, the wide kernel):
   each step of 16 columns reads and writes the K x K window below the panel,
   P = 50 partitions at once, threads along a column's rows (the LU's data
   flow: L's rows kept in registers, U's columns streamed), 4 columns in
   flight per thread; here the arithmetic is one subtraction per entry so the
   memory pattern alone is timed:
   - column layout: a column's rows are contiguous;
   - diagonal layout, same data flow: a column's rows are n - 1 apart;
   - diagonal layout, lanes along diagonals: the layout's best memory
     pattern for the window (each lane a different row and column: the
     register reuse of L and U is lost; the bound of any LU in this layout).
Times: median of 5 runs (CUDA events), milliseconds; the window per step
(microseconds) and for a whole factorisation (N / (16 P) steps, the P
partitions' steps in parallel).
"""
import argparse, json

import cupy as cp

SRC = r"""
extern "C" __global__ void spmv_col(const double* band, long n, long k, const double* x, double* y) {
  __shared__ double acc[1024];
  const long r0 = blockIdx.x * 1024L, r1 = min(n, r0 + 1024);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) acc[i] = 0;
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const long c_first = max(0L, r0 - k), c_last = min(n - 1, r1 - 1 + k);
  for (long c = c_first + warp; c <= c_last; c += warps) {
    const long lo = max(r0, c - k), hi = min(r1, c + k + 1);
    const double xc = x[c];
    for (long i = lo + lane; i < hi; i += 32) atomicAdd(&acc[i - r0], band[c * (2 * k + 1) + k + i - c] * xc);
  }
  __syncthreads();
  for (long i = r0 + threadIdx.x; i < r1; i += blockDim.x) y[i] = acc[i - r0];
}

extern "C" __global__ void spmv_diag(const double* diag, long n, long k, const double* x, double* y) {
  const long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (r >= n) return;
  double sum = 0;
  for (long d = 0; d <= 2 * k; ++d) {
    const long c = r + d - k;
    if (c >= 0 && c < n) sum += diag[d * n + r] * x[c];
  }
  y[r] = sum;
}

// (r, c) of the window at band[at(r, c)]: layout 0 column, 1 diagonal.
__device__ __forceinline__ long at(int layout, long r, long c, long n, long k) {
  return layout == 0 ? c * (2 * k + 1) + k + r - c : (c - r + k) * n + r;
}

// Steps of the wide LU's window update, lanes along a column's rows, 4 columns at once.
extern "C" __global__ void window_rows(double* band, long n, long k, long rows_per_part, int steps, int layout) {
  const long s0 = blockIdx.x * rows_per_part;
  for (int s = 0; s < steps; ++s) {
    const long lo = s0 + 16L * s + 16, end = lo + k;
    for (long r = lo + threadIdx.x; r < end; r += blockDim.x)
      for (long c = lo; c < end; c += 4) {
        double v[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = c + j < end ? band[at(layout, r, c + j, n, k)] : 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) if (c + j < end) band[at(layout, r, c + j, n, k)] = v[j] - 1e-9;
      }
    __syncthreads();
  }
}

// The same window, diagonal layout, lanes along each diagonal (contiguous).
extern "C" __global__ void window_diagonals(double* diag, long n, long k, long rows_per_part, int steps) {
  const long s0 = blockIdx.x * rows_per_part;
  for (int s = 0; s < steps; ++s) {
    const long lo = s0 + 16L * s + 16;
    for (long d = -(k - 1); d <= k - 1; ++d) {  // entries (r, r + d) inside the window
      const long first = max(lo, lo - d), last = min(lo + k, lo + k - d);
      for (long r = first + threadIdx.x; r < last; r += blockDim.x) diag[(d + k) * n + r] -= 1e-9;
    }
    __syncthreads();
  }
}
"""


def median_ms(f, runs=5):
    times = []
    for _ in range(runs):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", default="10,100,200,500")
    ap.add_argument("--partitions", type=int, default=50)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--json")
    a = ap.parse_args()
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    f = {name: mod.get_function(name) for name in ("spmv_col", "spmv_diag", "window_rows", "window_diagonals")}
    n, P = a.n, a.partitions
    rows_per_part = n // P
    full_steps = rows_per_part // 16
    out = []
    print(f"GPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, N = {n}, P = {P}, "
          f"window steps timed: {a.steps} (a factorisation: {full_steps})")
    print("| K | band GB | SpMV column ms | SpMV diagonal ms | col/diag | window step column us | "
          "diagonal, same flow us | diagonal, along diagonals us | LU window column ms | diag same flow ms | diag along diagonals ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in [int(v) for v in a.k.split(",")]:
        ld = 2 * k + 1
        col = cp.random.random(n * ld, dtype=cp.float64)
        diag = cp.random.random(n * ld, dtype=cp.float64)
        x = cp.random.random(n, dtype=cp.float64)
        y1, y2 = cp.empty(n), cp.empty(n)
        N, K = cp.int64(n), cp.int64(k)
        spmv_c = median_ms(lambda: f["spmv_col"](((n + 1023) // 1024,), (256,), (col, N, K, x, y1)))
        spmv_d = median_ms(lambda: f["spmv_diag"](((n + 255) // 256,), (256,), (diag, N, K, x, y2)))
        steps = min(a.steps, full_steps - (k // 16) - 2)
        args = (N, K, cp.int64(rows_per_part), cp.int32(steps))
        w_col = median_ms(lambda: f["window_rows"]((P,), (256,), (col,) + args + (cp.int32(0),)))
        w_diag = median_ms(lambda: f["window_rows"]((P,), (256,), (diag,) + args + (cp.int32(1),)))
        w_along = median_ms(lambda: f["window_diagonals"]((P,), (256,), (diag,) + args))
        per = [1e3 * w / steps for w in (w_col, w_diag, w_along)]
        lu = [us * full_steps / 1e3 for us in per]
        row = {"N": n, "K": k, "P": P, "band_gb": 8 * n * ld / 1e9, "spmv_column_ms": spmv_c, "spmv_diagonal_ms": spmv_d,
               "window_step_us": {"column": per[0], "diagonal_same_flow": per[1], "diagonal_along_diagonals": per[2]},
               "lu_window_ms": {"column": lu[0], "diagonal_same_flow": lu[1], "diagonal_along_diagonals": lu[2]},
               "steps_timed": steps, "steps_per_factorisation": full_steps}
        out.append(row)
        print(f"| {k} | {row['band_gb']:.2f} | {spmv_c:.3f} | {spmv_d:.3f} | {spmv_c / spmv_d:.2f} | {per[0]:.1f} | "
              f"{per[1]:.1f} | {per[2]:.1f} | {lu[0]:.1f} | {lu[1]:.1f} | {lu[2]:.1f} |")
        del col, diag
        cp.get_default_memory_pool().free_all_blocks()
    if a.json:
        json.dump({"cases": out}, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
