#!/usr/bin/env python3
"""HiGHS, the second baseline of `balsa-bench lp` (the first, CLP, is linked
into balsa_bench: bench/lp_baselines.hpp).

    python3 scripts/lp-highs.py --repeat R --json out.json FILES...

Each MPS file (plain or .gz: HiGHS reads gzip itself) is read once by HiGHS
(untimed), then solved `R` times, each time by a fresh Highs holding a copy
of the model (passModel, untimed) with HiGHS' simplex (solver=simplex, its
default strategy: the dual simplex) and presolve on, every other option at
HiGHS' default. `seconds` is the median wall time (perf_counter) of run()
alone; `run_clock_seconds` the median of HiGHS' own run clock
(getRunTime()) over the same runs. Status, objective (in the file's sense,
with the objective constant) and iterations (simplex_iteration_count) are
the first run's (the runs agree; `agree` says whether they did).

Status names are balsa's (LpStatus): optimal, infeasible, unbounded,
iteration_limit, time_limit, numerical_trouble (HiGHS' solve, presolve or
postsolve errors and anything else); plus "unbounded_or_infeasible" (HiGHS'
kUnboundedOrInfeasible, which its default allow_unbounded_or_infeasible=false
should resolve) and "error" (the file could not be read; `error` says why).
`highs_status` keeps HiGHS' own name.

The JSON: {"solver": "highs", "version": ..., "options": {...},
"problems": [{"path", "name", "rows", "cols", "nnz", "status",
"highs_status", "objective", "iterations", "seconds", "run_clock_seconds",
"times", "agree", "error"}]}; a summary table goes to stdout.
"""
import argparse
import contextlib
import json
import math
import os
import statistics
import sys
import time

try:
    import highspy
except ImportError:
    sys.exit("lp-highs.py: highspy is not installed (pip install highspy; on the GPU host "
             "scripts/gpu-host.sh installs the wheel from .gpu-deps/wheels)")


@contextlib.contextmanager
def quiet_stdout():
    """HiGHS prints its banner to the C stdout when the first Highs is made."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def new_highs(options):
    with quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for k, v in options.items():
        h.setOptionValue(k, v)
    return h


MS = highspy.HighsModelStatus
STATUS = {
    MS.kOptimal: "optimal",
    MS.kInfeasible: "infeasible",
    MS.kUnbounded: "unbounded",
    MS.kUnboundedOrInfeasible: "unbounded_or_infeasible",
    MS.kIterationLimit: "iteration_limit",
    MS.kTimeLimit: "time_limit",
}


def finite_or_none(x):
    return x if isinstance(x, float) and math.isfinite(x) else None


def solve_file(path, repeat, options):
    name = os.path.basename(path)
    for ext in (".gz", ".mps", ".MPS"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    rec = {"path": path, "name": name, "status": "error", "highs_status": None, "objective": None,
           "iterations": None, "seconds": None, "run_clock_seconds": None, "times": [], "agree": None,
           "error": ""}
    reader = new_highs({})
    if reader.readModel(path) == highspy.HighsStatus.kError:
        rec["error"] = "HiGHS could not read the file"
        return rec
    rec.update(rows=reader.getNumRow(), cols=reader.getNumCol(), nnz=reader.getNumNz())
    model = reader.getModel()  # reader stays alive while the copies are made
    walls, clocks, results = [], [], []
    for _ in range(max(repeat, 1)):
        h = new_highs(options)
        h.passModel(model)
        t0 = time.perf_counter()
        h.run()
        walls.append(time.perf_counter() - t0)
        clocks.append(h.getRunTime())
        ms = h.getModelStatus()
        info = h.getInfo()
        results.append((STATUS.get(ms, "numerical_trouble"), h.modelStatusToString(ms),
                        finite_or_none(info.objective_function_value), int(info.simplex_iteration_count)))
    rec["status"], rec["highs_status"], rec["objective"], rec["iterations"] = results[0]
    rec["seconds"] = statistics.median(walls)
    rec["run_clock_seconds"] = statistics.median(clocks)
    rec["times"] = walls
    rec["agree"] = all(r == results[0] for r in results)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="solves per file (median time), default 1")
    ap.add_argument("--json", required=True, help="where the results go")
    ap.add_argument("--time-limit", type=float, default=math.inf,
                    help="HiGHS' time_limit per solve in seconds (default none)")
    ap.add_argument("files", nargs="+", help="MPS files (.mps or .mps.gz)")
    args = ap.parse_args()

    options = {"solver": "simplex", "presolve": "on"}
    if math.isfinite(args.time_limit):
        options["time_limit"] = args.time_limit
    probe = new_highs(options)
    recorded = dict(options)
    for k in ("simplex_strategy", "threads", "time_limit"):
        value = probe.getOptionValue(k)
        if isinstance(value, tuple):  # (status, value) in highspy 1.x
            value = value[1]
        recorded[k] = value if not (isinstance(value, float) and math.isinf(value)) else None
    version = probe.version()
    del probe

    problems = []
    print(f"{'problem':<12} {'rows':>7} {'cols':>7} {'status':<18} {'objective':>22} {'iters':>8} {'seconds':>9}")
    for path in args.files:
        rec = solve_file(path, args.repeat, options)
        problems.append(rec)
        obj = f"{rec['objective']:.12g}" if rec["objective"] is not None else "-"
        secs = f"{rec['seconds']:.4f}" if rec["seconds"] is not None else "-"
        print(f"{rec['name']:<12} {rec.get('rows', '-'):>7} {rec.get('cols', '-'):>7} {rec['status']:<18} "
              f"{obj:>22} {rec['iterations'] if rec['iterations'] is not None else '-':>8} {secs:>9}"
              + (f"  {rec['error']}" if rec["error"] else ""), flush=True)

    out = {"solver": "highs", "version": version, "highspy": getattr(highspy, "__version__", None),
           "python": sys.version.split()[0], "repeat": max(args.repeat, 1), "options": recorded,
           "problems": problems}
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
