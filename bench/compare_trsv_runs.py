#!/usr/bin/env python3
"""Old against new: the `balsa-bench trsv --json` files of two builds run
alternately on one GPU (scripts/gpu-host.sh compare), case by case.

    python3 bench/compare_trsv_runs.py OLD.json [OLD2.json ...] -- NEW.json [NEW2.json ...]

Prints one row per (case, precision, algorithm): the median solve time of each
build (in ms; files with `solve_seconds` or older ones with `solve_ms` alike), the ratio new/old and whether Auto chose the same algorithm; then the
geometric mean of the ratios and the rows outside [0.9, 1.1]. Standard library only.
"""
import json
import math
import sys


def solve_ms(r):
    """The median solve time in ms: `solve_seconds` (since issue 38) or an older file's `solve_ms`; None if none."""
    if r.get("solve_seconds") is not None:
        return 1e3 * float(r["solve_seconds"])
    return None if r.get("solve_ms") is None else float(r["solve_ms"])


def rows(paths):
    out = {}
    for path in paths:
        with open(path) as f:
            for r in json.load(f).get("results", []):
                t = solve_ms(r)
                if t is None:
                    continue
                key = (r["case"], r.get("precision", ""), r["algorithm"])
                out[key] = (t, r.get("chosen") or r.get("note") or "")
    return out


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    old, new = rows(argv[:cut]), rows(argv[cut + 1:])
    ratios, outliers = [], []
    print(f"{'case':34s} {'prec':6s} {'algorithm':18s} {'old ms':>10s} {'new ms':>10s} {'new/old':>8s}")
    for key in sorted(old.keys() & new.keys()):
        (t_old, c_old), (t_new, c_new) = old[key], new[key]
        if t_old <= 0 or t_new <= 0 or math.isnan(t_old) or math.isnan(t_new):
            continue
        ratio = t_new / t_old
        ratios.append(ratio)
        same = "" if key[2] != "auto" or c_old == c_new else f"  chose {c_old!r} -> {c_new!r}"
        print(f"{key[0]:34s} {key[1]:6s} {key[2]:18s} {t_old:10.4g} {t_new:10.4g} {ratio:8.3f}{same}")
        if not 0.9 <= ratio <= 1.1:
            outliers.append((key, ratio))
    missing = sorted(old.keys() ^ new.keys())
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{len(ratios)} rows; geometric mean new/old {geo:.3f}; min {min(ratios):.3f}, max {max(ratios):.3f}; "
              f"{len(outliers)} outside [0.9, 1.1]")
    for key, ratio in outliers:
        print(f"  outside: {key} {ratio:.3f}")
    for key in missing:
        print(f"  in one build only: {key} ({'old' if key in old else 'new'})")


if __name__ == "__main__":
    main(sys.argv[1:])
