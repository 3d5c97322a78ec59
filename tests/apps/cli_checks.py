#!/usr/bin/env python3
"""Checks of the balsa command line as a whole (issue 41): one name per idea
in every command's help, exit codes, warnings for ignored options, -q,
--json FILE, gzip outputs, the default right-hand side and the progress line.

Each check is a function check_<name>; ctest runs one per test
(tests/apps/cli_checks.cmake). The help check runs `balsa --help`, every
subcommand's `--help` (and theirs: gen's generators) and the same for
balsa-bench, parses the option tables and fails when
  - two names of one idea appear (SYNONYMS: --maxit beside --max-iterations,
    --tol beside --rtol, ...), in any commands;
  - one name has two shapes: a flag in one command and takes a value in
    another, or two metavariables (--json FILE here, --json there; a list,
    "N,...", counts as its single value "N");
  - a help line shows a raw CLI11 default ("--no-cpu{false}").

Usage: cli_checks.py --balsa EXE --bench EXE --data DIR --out DIR --check NAME
       cli_checks.py --list   (the check names)
       cli_checks.py --balsa EXE --bench EXE --reference   (docs/cli.md's option table)
"""
import argparse
import gzip
import json
import os
import re
import shutil
import subprocess

# Names of one idea: at most one of each group may appear in any help.
SYNONYMS = [
    {"--maxit", "--max-iterations", "--maxiter", "--max-iter", "--iterations"},
    {"--tol", "--rtol", "--rel-tol", "--tolerance"},
    {"--abs-tol", "--atol"},
    {"--rank-tolerance", "--rank-tol"},
    {"--json", "--json-out", "--json-file"},
    {"--quiet", "--silent"},
    {"--output", "--out"},
    {"--upper", "--triangle"},
    {"--progress", "--verbose-progress"},
    {"--device", "--gpu"},
]

# An option line of CLI11's help: two spaces, the names (comma-separated),
# the metavariable, then at least two spaces and the description (or the
# end of the line when the names are too wide for their column).
OPTION_LINE = re.compile(r"^  (-[^\s,]+(?:,-[^\s,]+)*)((?: (?! )\S+)*)(?:\s{2,}(.*))?$")


def run(args, exe, **kw):
    return subprocess.run([exe] + args, capture_output=True, text=True, timeout=300, **kw)


def help_tree(exe, path=()):
    """{command path: help text} of `exe` and every subcommand below it."""
    out = run(list(path) + ["--help"], exe)
    assert out.returncode == 0, f"{exe} {' '.join(path)} --help: exit {out.returncode}\n{out.stderr}"
    tree = {path: out.stdout}
    in_subcommands = False
    for line in out.stdout.splitlines():
        if line.startswith("Subcommands:"):
            in_subcommands = True
            continue
        if in_subcommands:
            m = re.match(r"^  (\S+)\s", line + " ")
            if not m:
                in_subcommands = bool(line.strip())
                continue
            tree.update(help_tree(exe, path + (m.group(1),)))
    return tree


def options_of(text):
    """[(names, metavariable)] of one help text's option lines."""
    found = []
    for line in text.splitlines():
        m = OPTION_LINE.match(line)
        if m:
            found.append((m.group(1).split(","), m.group(2).strip()))
    return found


def check_help(a):
    problems = []
    seen = {}  # an option's long name -> {metavariable: [commands]}
    for exe, program in ((a.balsa, "balsa"), (a.bench, "balsa-bench")):
        for path, text in help_tree(exe).items():
            command = " ".join((program,) + path)
            for line in text.splitlines():
                if re.search(r"^  -\S*\{[^}]*\}", line):
                    problems.append(f"{command}: a raw CLI11 default in '{line.strip()}'")
            for names, meta in options_of(text):
                name = max(names, key=len)  # -q,--quiet: one option, named by --quiet
                if name in ("--help", "--version"):
                    continue
                # A list ("N,...") takes one value as well: the same shape as "N".
                shape = re.sub(r"(,| )\.\.\.$", "", meta)
                seen.setdefault(name, {}).setdefault(shape, []).append(command)
    for name, shapes in sorted(seen.items()):
        if len(shapes) > 1:
            where = "; ".join(f"'{name}{(' ' + m) if m else ''}' in {', '.join(c[:3])}" for m, c in shapes.items())
            problems.append(f"{name} has {len(shapes)} shapes: {where}")
    for group in SYNONYMS:
        present = sorted(n for n in group if n in seen)
        if len(present) > 1:
            problems.append("two names for one idea: " + ", ".join(
                f"{n} (in {', '.join(sorted({c for cs in seen[n].values() for c in cs})[:3])})" for n in present))
    assert not problems, "help inconsistencies:\n  " + "\n  ".join(problems)
    assert "Exit codes:" in run(["--help"], a.balsa).stdout, "balsa --help has no exit-code footer"


def check_renamed(a):
    for args, old, new in ((["solve", f"{a.data}/west0479.mtx", "--maxit", "5"], "--maxit", "--max-iterations"),
                           (["run", "--tol", "1e-6"], "--tol", "--rtol"),
                           (["lsq", f"{a.data}/lp_e226.mtx", "--tol", "1e-3"], "--tol", "--rank-tolerance")):
        r = run(args, a.balsa)
        assert r.returncode == 2, (args, r.returncode, r.stderr)
        assert f"{old} was renamed {new}" in r.stderr, r.stderr


def check_lp_exit_codes(a):
    infeasible = run(["lp", f"{a.data}/lp/itest2.mps.gz", "--device", "cpu"], a.balsa)
    assert infeasible.returncode == 3, (infeasible.returncode, infeasible.stderr)
    assert "status infeasible" in infeasible.stdout and "infeasible" in infeasible.stderr
    limit = run(["lp", f"{a.data}/lp/kb2.mps.gz", "--device", "cpu", "--max-iterations", "2"], a.balsa)
    assert limit.returncode == 3, (limit.returncode, limit.stderr)
    assert "--max-iterations" in limit.stderr, limit.stderr
    optimal = run(["lp", f"{a.data}/lp/afiro.mps.gz", "--device", "cpu"], a.balsa)
    assert optimal.returncode == 0, optimal.stderr


def check_lp_quiet(a):
    r = run(["lp", f"{a.data}/lp/afiro.mps.gz", "--device", "cpu", "-q"], a.balsa)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("status optimal, objective -464.75"), r.stdout
    bad = run(["lp", f"{a.data}/lp/itest2.mps.gz", "--device", "cpu", "-q"], a.balsa)
    assert bad.returncode == 3 and bad.stdout.startswith("status infeasible"), (bad.returncode, bad.stdout)


def check_warnings(a):
    r = run(["solve", f"{a.data}/west0479.mtx", "--device", "cpu", "--method", "umfpack", "--drop", "0.1",
             "--norm", "inf", "--partitions", "2"], a.balsa)
    assert r.returncode == 0, r.stderr
    for option in ("--drop", "--norm", "--partitions"):
        assert re.search(rf"balsa: warning: {option} is ignored: method umfpack does not read it", r.stderr), r.stderr
    assert r.stderr.count("warning") == 3, r.stderr
    quiet = run(["solve", f"{a.data}/bcsstk13.mtx", "--device", "cpu", "--method", "pcg-ic0", "--norm", "inf",
                 "--max-iterations", "5000"], a.balsa)
    assert quiet.returncode == 0 and "warning" not in quiet.stderr, quiet.stderr
    auto = run(["solve", f"{a.data}/west0479.mtx", "--device", "cpu", "--trsv", "level-set"], a.balsa)
    assert "--trsv is ignored: method auto" in auto.stderr, auto.stderr


def check_json_file(a):
    for args in (["info", f"{a.data}/west0479.mtx"], ["lp", f"{a.data}/lp/afiro.mps.gz", "--device", "cpu"],
                 ["solve", f"{a.data}/bcsstk13.mtx", "--device", "cpu", "--method", "pcg-ic0",
                  "--max-iterations", "5000"],
                 ["qr", f"{a.data}/bayer10.mtx", "--device", "cpu"]):
        path = os.path.join(a.out, f"{args[0]}.json")
        r = run([args[0], "--json", path] + args[1:], a.balsa)
        assert r.returncode == 0, (args, r.stderr)
        assert '"balsa_version"' not in r.stdout, r.stdout
        with open(path, encoding="utf-8") as f:
            assert "balsa_version" in json.load(f)
        stdout = run(args + ["--json"], a.balsa)  # no FILE: standard output
        assert stdout.returncode == 0 and "balsa_version" in json.loads(stdout.stdout), stdout.stderr


def check_gzip(a):
    out = os.path.join(a.out, "west.mtx.gz")
    r = run(["convert", f"{a.data}/west0479.mtx", out], a.balsa)
    assert r.returncode == 0, r.stderr
    with open(out, "rb") as f:
        assert f.read(2) == b"\x1f\x8b", "not gzip data"
    with gzip.open(out, "rt") as f:
        assert f.readline().startswith("%%MatrixMarket matrix coordinate real general")
    back = os.path.join(a.out, "west-back.mtx")
    r = run(["convert", out, back], a.balsa)
    assert r.returncode == 0, r.stderr
    info = [run(["info", "--json", p], a.balsa) for p in (f"{a.data}/west0479.mtx", back)]
    keep = ("rows", "cols", "nnz")
    assert [{k: json.loads(i.stdout)[k] for k in keep} for i in info][0] == \
           [{k: json.loads(i.stdout)[k] for k in keep} for i in info][1]
    x = os.path.join(a.out, "x.mtx.gz")
    r = run(["solve", f"{a.data}/bcsstk13.mtx", "--device", "cpu", "--method", "pcg-ic0", "--max-iterations", "5000",
             "-o", x], a.balsa)
    assert r.returncode == 0, r.stderr
    with gzip.open(x, "rt") as f:
        assert f.readline().startswith("%%MatrixMarket matrix array real general")


def write_singular(path):
    """A 3 x 3 matrix with an entry in every row and column whose rows 1 and 2 are equal."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 7\n"
                "1 1 2\n1 2 1\n2 1 2\n2 2 1\n3 1 1\n3 2 1\n3 3 4\n")


def check_default_rhs(a):
    singular = os.path.join(a.out, "singular.mtx")
    write_singular(singular)
    r = run(["solve", singular, "--device", "cpu"], a.balsa)
    assert r.returncode in (1, 3), ("a singular A 'solved' with the default b", r.returncode, r.stdout, r.stderr)
    assert "b = random (seed 1)" in r.stdout, r.stdout
    j = run(["solve", f"{a.data}/west0479.mtx", "--device", "cpu", "--json"], a.balsa)
    assert j.returncode == 0 and json.loads(j.stdout)["rhs"] == "random", j.stderr
    ax = run(["solve", f"{a.data}/west0479.mtx", "--device", "cpu", "--rhs", "ax"], a.balsa)
    assert ax.returncode == 0 and "b = A x_true" in ax.stdout and ", error " in ax.stdout, ax.stdout
    lsq = run(["lsq", f"{a.data}/lp_e226.mtx", "--json"], a.balsa)
    assert lsq.returncode == 0 and json.loads(lsq.stdout)["rhs"] == "random", lsq.stderr


def check_progress(a):
    args = ["run", "--grid", "12", "--device", "cpu", "--method", "cg"]
    piped = run(args, a.balsa)
    assert piped.returncode == 0 and "\r" not in piped.stderr and piped.stderr == "", repr(piped.stderr)
    forced = run(args + ["--progress"], a.balsa)
    assert forced.returncode == 0 and re.search(r"[0-9.]+ s  solving: iteration [0-9]+, residual", forced.stderr), \
        repr(forced.stderr)
    lsq = run(["lsq", f"{a.data}/lp_e226.mtx", "--progress"], a.balsa)
    assert lsq.returncode == 0 and " s  solving" in lsq.stderr, repr(lsq.stderr)


def check_progress_terminal(a):
    """On a pseudo-terminal, a run of more than a second redraws its line in place and clears it."""
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(a.balsa, [a.balsa, "run", "--grid", "80", "--device", "cpu", "--method", "cg", "--rtol", "1e-10"])
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    text = data.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    # The line shows once the set-up and solve (after the problem is built) pass a second.
    m = re.search(r"time to the answer ([0-9.]+) s", text)
    assert m, text
    if float(m.group(1)) < 1.3:
        print(f"set-up and solve took {m.group(1)} s: too short for the line to show; not checked")
        return
    assert "\r  " in text and "\x1b[K" in text and "solving" in text, repr(text[-500:])


def check_qr_summary(a):
    r = run(["qr", f"{a.data}/bayer10.mtx", "--device", "cpu"], a.balsa)
    assert r.returncode == 0, r.stderr
    assert re.search(r"rank 13291 of [0-9]+.*R: [0-9]+ entries", r.stdout), r.stdout
    assert "factorisation" in r.stdout, r.stdout


def check_trsv_triangle(a):
    r = run(["trsv", f"{a.data}/west0479.mtx", "--triangle", "lower", "--device", "cpu", "--unit-diagonal"], a.balsa)
    assert r.returncode == 0, r.stderr
    assert re.search(r"warning: .*entries above the diagonal are ignored", r.stderr), r.stderr
    plain = run(["trsv", f"{a.data}/west0479.mtx", "--device", "cpu"], a.balsa)
    assert plain.returncode == 1 and "not lower triangular" in plain.stderr, plain.stderr


def reference(a):
    """docs/cli.md's option table, in Markdown: each option once, its meaning(s) and the commands that have it."""
    rows = {}  # name -> {(meta, description): [commands]}
    for exe, program in ((a.balsa, "balsa"), (a.bench, "balsa-bench")):
        for path, text in help_tree(exe).items():
            if not path:
                continue
            command = " ".join(path) if program == "balsa" else "bench " + " ".join(path)
            for line in text.splitlines():
                m = OPTION_LINE.match(line)
                if not m or m.group(1) in ("-h,--help",):
                    continue
                desc = (m.group(3) or "").strip()
                rows.setdefault(m.group(1), {}).setdefault((m.group(2).strip(), desc), []).append(command)
    everywhere = {"--threads", "--memory-limit", "--setup-trace"}
    out = ["| option | meaning | commands |", "|---|---|---|"]
    for name in sorted(rows, key=lambda n: n.lstrip("-").lower()):
        for (meta, desc), commands in rows[name].items():
            where = "every command" if name.split(",")[-1] in everywhere else ", ".join(commands)
            shown = f"`{name}{(' ' + meta) if meta else ''}`".replace("|", "\\|")
            out.append(f"| {shown} | {desc.replace('|', '/')} | {where} |")
    print("\n".join(out))


CHECKS = {name[len("check_"):]: f for name, f in sorted(globals().items()) if name.startswith("check_")}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--balsa")
    p.add_argument("--bench")
    p.add_argument("--data")
    p.add_argument("--out")
    p.add_argument("--check")
    p.add_argument("--list", action="store_true")
    p.add_argument("--reference", action="store_true", help="print docs/cli.md's option table")
    a = p.parse_args()
    if a.list:
        print("\n".join(CHECKS))
        return
    if a.reference:
        reference(a)
        return
    a.out = os.path.join(a.out, a.check)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    CHECKS[a.check](a)
    print(f"{a.check}: ok")


if __name__ == "__main__":
    main()
