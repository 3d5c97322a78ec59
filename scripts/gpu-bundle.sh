#!/usr/bin/env bash
# Bundle the library packages of deps/debian-packages.txt (not the build
# tools, which the GPU host has, nor doxygen, which only the docs test
# uses, nor petsc-dev, too large to carry: the PETSc plugin is built here only) into .gpu-deps/ for a GPU host without a package registry; there, `source .gpu-deps/env.sh` (scripts/gpu-host.sh does).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fetch="${BALSA_FETCH_DEBS:-$root/../shared/gpu/fetch-debs.sh}"
mapfile -t libs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' deps/debian-packages.txt | grep -v '^$' |
                    grep -Ev '^(cmake|ninja-build|g\+\+|doxygen|petsc-dev)$')
"$fetch" "${libs[@]}"

# HiGHS for `balsa-bench lp` (scripts/lp-highs.py): the GPU host's python3
# (the CUDA image's, Python 3.12) has no highspy and no registry, so the wheel
# of the highspy installed here travels in .gpu-deps/wheels (about 3 MB each);
# scripts/gpu-host.sh installs it there. BALSA_GPU_PYTHONS="3.11 3.12 ..."
# fetches for other Pythons too.
highs_version="$(python3 -c 'import importlib.metadata as m; print(m.version("highspy"))' 2>/dev/null || true)"
if [ -n "$highs_version" ]; then
  for py in ${BALSA_GPU_PYTHONS:-3.12}; do
    python3 -m pip download -q --disable-pip-version-check "highspy==$highs_version" --only-binary=:all: --no-deps \
      --python-version "$py" --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .gpu-deps/wheels ||
      echo "warning: no highspy $highs_version wheel for Python $py"
  done
  echo "HiGHS wheels: $(find .gpu-deps/wheels -name '*.whl' -printf '%f ' 2>/dev/null); .gpu-deps now $(du -sh .gpu-deps | cut -f1)"
else
  echo "warning: highspy is not installed here (pip install highspy): no HiGHS wheel for the GPU host"
fi
