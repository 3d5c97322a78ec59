#!/usr/bin/env bash
# The wheel check (issue 41): `python -m pip wheel .` of this checkout (the
# CPU build, BALSA_CUDA=OFF) must give a wheel of the distribution
# balsa-sparse that installs in a fresh virtual environment and passes the
# Python tests, run against the installed package (not the source tree).
#
#   scripts/wheel-check.sh                 # everything under a new /tmp/balsa-wheel-check.XXXXXX
#   BALSA_WHEEL_CHECK_DIR=/tmp/wc scripts/wheel-check.sh
#
# Steps (each timed): copy the checkout's files (tracked and untracked, not
# ignored) to WORK/src, so no build folder of the checkout leaks in; build
# the wheel there (pip's build isolation: pyproject.toml's build
# requirements come from PyPI); make WORK/venv with python3 -m venv;
# install the wheel and python/requirements-test.txt's test packages; check
# that `import balsa` finds the installed package and that its version is
# the VERSION file's; run tests/python from WORK (not the source folder).
# The Debian libraries of scripts/install-deps.sh must be installed. Not a
# ctest test: it takes long (a whole CPU build of the library).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${BALSA_WHEEL_CHECK_DIR:-$(mktemp -d /tmp/balsa-wheel-check.XXXXXX)}
PYTHON=${PYTHON:-python3}
JOBS=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
mkdir -p "$WORK"
echo "wheel-check: checkout $ROOT, work folder $WORK, python $($PYTHON --version 2>&1), $JOBS build jobs"

step() {  # step NAME COMMAND...: runs COMMAND, prints its wall time
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}

copy_checkout() {
  rm -rf "$WORK/src" && mkdir -p "$WORK/src"
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | grep -zv -e '__pycache__/' -e '\.pyc$' |
    xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' | tar --null -T - -cf -) | tar -xf - -C "$WORK/src"
}

build_wheel() {
  rm -rf "$WORK/dist"
  (cd "$WORK/src" && CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "$PYTHON" -m pip wheel . -w "$WORK/dist" --no-deps \
    -C cmake.define.BALSA_CUDA=OFF -C build-dir="$WORK/build")
  ls -l "$WORK"/dist/*.whl
}

install_wheel() {
  rm -rf "$WORK/venv"
  "$PYTHON" -m venv "$WORK/venv"
  "$WORK/venv/bin/python" -m pip install --quiet "$WORK"/dist/balsa_sparse-*.whl
  "$WORK/venv/bin/python" -m pip install --quiet pytest matplotlib
}

check_installed() {
  (cd "$WORK" && "$WORK/venv/bin/python" - "$WORK/src/VERSION" <<'PY'
import importlib.metadata, pathlib, sys
import balsa
where = pathlib.Path(balsa.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in where.parents, f"balsa imported from {where}, not the venv"
want = pathlib.Path(sys.argv[1]).read_text().strip()
got = (balsa.__version__, importlib.metadata.version("balsa-sparse"))
assert got == (want, want), f"versions {got}, VERSION says {want}"
assert (where.parent / "py.typed").exists() and list(where.parent.glob("_balsa*.pyi")), "py.typed or the stub missing"
print(f"balsa {balsa.__version__} from {where.parent}; CUDA build: {balsa.built_with_cuda()}")
PY
  )
}

run_tests() {
  (cd "$WORK" && "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$WORK/src" \
    "$WORK/src/tests/python")
}

total=$SECONDS
step "copy the checkout" copy_checkout
step "pip wheel (CPU build)" build_wheel
step "install into a fresh venv" install_wheel
step "the installed package" check_installed
step "tests/python against the installed package" run_tests
echo "wheel-check: passed in $((SECONDS - total)) s"
