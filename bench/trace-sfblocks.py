#!/usr/bin/env python3
"""Summarise a sync-free-blocks solve trace (BALSA_TRSV_BLOCKS_TRACE=file).

Prints where the solve's time goes: when each chunk starts and ends, the
per-step duration (SM clock, within a chunk) split by whether some thread of
the step waited on an earlier chunk, and how step duration grows with width.
Usage: trace-sfblocks.py trace.csv [clock_GHz]
"""
import sys
import numpy as np

path = sys.argv[1]
ghz = float(sys.argv[2]) if len(sys.argv) > 2 else 1.98
chunks, steps = [], []
with open(path) as f:
    next(f)
    for line in f:
        k, c, s, w, t, clk, waits = line.rstrip("\n").split(",")
        if k == "chunk":
            chunks.append((int(c), int(t), int(clk)))
        else:
            steps.append((int(c), int(s), int(w), int(t), int(clk), int(waits)))
ch = np.array(chunks, dtype=np.int64)
st = np.array(steps, dtype=np.int64)
st = st[st[:, 3] != 0] if len(st) else st  # the dataflow kernel times chunks only
t0 = ch[:, 1].min()
total = ch[:, 2].max() - t0
print(f"chunks {len(ch)}  steps {len(st)}  kernel span {total/1e3:.1f} us")
order = np.argsort(ch[:, 0])
ch = ch[order]
starts, ends = (ch[:, 1] - t0) / 1e3, (ch[:, 2] - t0) / 1e3
print("chunk start us (every 11th):", " ".join(f"{x:.0f}" for x in starts[::11]))
print("chunk end   us (every 11th):", " ".join(f"{x:.0f}" for x in ends[::11]))
if len(st) == 0:
    spans = ends - starts
    print(f"chunk span median {np.median(spans):.1f} us (dataflow kernel: no step times)")
    sys.exit(0)
# Time from a chunk's start to its first step's start, and its steps.
dur, wid, wait, first_gap = [], [], [], []
for c in range(len(ch)):
    rows = st[st[:, 0] == c]
    if len(rows) == 0:
        continue
    first_gap.append((rows[0, 3] - ch[c, 1]) / 1e3)
    clk = rows[:, 4]
    d = np.diff(clk) / ghz  # ns, steps 0..n-2 of the chunk
    dur.extend(d)
    wid.extend(rows[:-1, 2])
    wait.extend(rows[:-1, 5])
dur, wid, wait = np.array(dur), np.array(wid), np.array(wait)
print(f"first step after chunk start: median {np.median(first_gap):.2f} us, max {np.max(first_gap):.2f} us")
print(f"step duration ns: median {np.median(dur):.0f}  mean {dur.mean():.0f}  p10 {np.percentile(dur,10):.0f}  p90 {np.percentile(dur,90):.0f}")
nw = wait == 0
print(f"steps without waits: {nw.sum()} median {np.median(dur[nw]) if nw.any() else float('nan'):.0f} ns;"
      f" with waits: {(~nw).sum()} median {np.median(dur[~nw]) if (~nw).any() else float('nan'):.0f} ns")
print(f"sum of step durations per chunk (median over chunks) vs chunk span:")
spans = ends - starts
print(f"  chunk span median {np.median(spans):.1f} us, steps per chunk median {np.median(np.bincount(st[:,0])):.0f}")
for lo, hi in [(0, 32), (32, 64), (64, 128), (128, 256), (256, 512), (512, 1 << 30)]:
    m = (wid >= lo) & (wid < hi)
    if m.any():
        print(f"  width [{lo},{hi}): {m.sum()} steps, median {np.median(dur[m]):.0f} ns, waits in {np.mean(wait[m]>0)*100:.0f}%")
