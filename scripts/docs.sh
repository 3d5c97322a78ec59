#!/usr/bin/env bash
# balsa's API reference: the C++ headers (include/balsa/) through Doxygen
# (docs/api/Doxyfile) and the Python package through Sphinx
# (docs/api/python/), with a landing page linking both, built into
# $BALSA_BUILD_DIR/docs (default build/docs). The Python reference imports
# the built extension: build first (scripts/build.sh).
#
# Exit status: 0 when both built without a warning that counts, 1 when one
# did (the warnings are printed; docs/api/README.md says which count), 77
# when Doxygen or Sphinx is missing (the ctest test `docs` reports skipped;
# scripts/install-deps.sh and scripts/python-env.sh install them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${BALSA_BUILD_DIR:-$root/build}")"
out="$build/docs"
python="$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)"
[ -n "$python" ] || python="$build/python-env/bin/python"

if ! command -v doxygen >/dev/null 2>&1; then
  echo "balsa docs: skipped: doxygen is not installed (Debian: apt-get install doxygen; scripts/install-deps.sh)" >&2
  exit 77
fi
if ! "$python" -c "import sphinx" 2>/dev/null; then
  echo "balsa docs: skipped: Sphinx is not installed in $python (python/requirements-test.txt; scripts/python-env.sh)" >&2
  exit 77
fi

rm -rf "$out" "$build/docs-doctrees"
mkdir -p "$out/cpp" "$out/cpp-undocumented" "$out/python"
cp "$root/docs/api/index.html" "$out/index.html"
export BALSA_SOURCE_DIR="$root"
status=0

# C++: the reference (every public name) and, beside it, a run without
# output that lists the names with no comment (counted, not failing).
cpp() {  # OUTPUT_FOLDER EXTRACT_ALL HTML
  BALSA_CPP_DOCS="$1" BALSA_EXTRACT_ALL="$2" BALSA_DOCS_HTML="$3" doxygen "$root/docs/api/Doxyfile" 2>&1 |
    { grep -v "No output formats selected" || true; }
}
cpp "$out/cpp-undocumented" NO NO &
counting=$!
cpp "$out/cpp" YES YES || status=1
wait "$counting" || status=1
"$python" "$root/docs/api/doxygen_warnings.py" "$out/cpp/warnings.log" "$out/cpp-undocumented/warnings.log" || status=1

# Python: Sphinx, nitpicky; every warning counts but the known ones
# (docs/api/python/known-warnings.txt, each a docstring being rewritten).
export PYTHONPATH="$root/python:$build/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
if ! "$python" -c "import balsa" 2>"$out/python/import.log"; then
  cat "$out/python/import.log" >&2
  echo "balsa docs: error: the Python reference imports balsa and its extension: build it first (scripts/build.sh)" >&2
  exit 1
fi
# (-q: Sphinx prints only its warnings, which the log below also has.)
if ! "$python" -m sphinx -b html -E -q -n --keep-going -d "$build/docs-doctrees" \
    -w "$out/python/warnings.log" "$root/docs/api/python" "$out/python" 2>"$out/python/sphinx.log"; then
  cat "$out/python/sphinx.log" >&2
  echo "balsa docs: error: Sphinx failed" >&2
  status=1
fi
"$python" "$root/docs/api/sphinx_warnings.py" "$out/python/warnings.log" \
  "$root/docs/api/python/known-warnings.txt" || status=1

if [ "$status" = 0 ]; then
  echo "balsa docs: the API reference is in $out/index.html (C++: $out/cpp/html/index.html, Python: $out/python/index.html)"
else
  echo "balsa docs: warnings above ($out/cpp/warnings.log, $out/python/warnings.log)" >&2
fi
exit "$status"
