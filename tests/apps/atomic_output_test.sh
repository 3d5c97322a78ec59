#!/bin/sh
# The balsa command's outputs are written whole or not at all
# (include/balsa/atomic_file.hpp): a write that fails part-way (a file-size
# limit, `ulimit -f`, with SIGXFSZ ignored, so that write(2) answers EFBIG as
# a full disk would), a read-only folder (skipped as root) and an output that
# is a link to the input leave the old file byte for byte and no temporary
# file; a successful write keeps the old file's permissions.
# Usage: atomic_output_test.sh BALSA SCRATCH-FOLDER
set -u
balsa=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
old='%%MatrixMarket matrix coordinate real general
% the old file
1 1 1
1 1 7'
printf '%s\n' "$old" > old.mtx
only_old() {  # the folder holds old.mtx as it was, and nothing else but $1
  [ "$(cat out.mtx)" = "$old" ] || fail "$2: out.mtx changed"
  extra=$(ls -A | grep -v -x -e old.mtx -e out.mtx -e err.txt ${1:+-e "$1"})
  [ -z "$extra" ] || fail "$2: left $extra"
}

# 1. A failure mid-write: 64 blocks of 1 kB (bash) or 512 B (dash) at most.
cp old.mtx out.mtx
(trap '' XFSZ; ulimit -f 64 && exec "$balsa" gen laplace2d --nx 300 -o out.mtx) 2> err.txt
code=$?
[ $code -eq 1 ] || fail "file-size limit: exit $code, expected 1"
grep -q "cannot write '.*out.mtx': File too large" err.txt || fail "file-size limit: message: $(cat err.txt)"
only_old "" "file-size limit"

# 2. The output is a link to the input: refused before any work (usage error).
ln -s out.mtx link.mtx
"$balsa" convert out.mtx link.mtx 2> err.txt
code=$?
[ $code -eq 2 ] || fail "link to the input: exit $code, expected 2"
grep -q "the output 'link.mtx' is the input 'out.mtx'" err.txt || fail "link to the input: message: $(cat err.txt)"
only_old link.mtx "link to the input"
rm link.mtx

# 3. A read-only folder (root writes anyway: skipped).
if [ "$(id -u)" != 0 ]; then
  mkdir ro && cp old.mtx ro/out.mtx && chmod 555 ro
  "$balsa" gen laplace2d --nx 10 -o ro/out.mtx 2> err.txt
  code=$?
  chmod 755 ro
  [ $code -eq 1 ] || fail "read-only folder: exit $code, expected 1"
  grep -q "cannot write 'ro/out.mtx': Permission denied" err.txt || fail "read-only folder: message: $(cat err.txt)"
  [ "$(cat ro/out.mtx)" = "$old" ] || fail "read-only folder: out.mtx changed"
  [ "$(ls -A ro)" = out.mtx ] || fail "read-only folder: left $(ls -A ro)"
  rm -rf ro
else
  echo "read-only folder: skipped (running as root: a folder's permissions do not stop root)"
fi

# 4. Success replaces the file and keeps its permissions.
chmod 640 out.mtx
"$balsa" gen laplace2d --nx 10 -o out.mtx > /dev/null 2> err.txt || fail "replace: exit $?: $(cat err.txt)"
grep -q "^100 100 460$" out.mtx || fail "replace: out.mtx is not the new matrix"
[ "$(stat -c %a out.mtx)" = 640 ] || fail "replace: permissions $(stat -c %a out.mtx), expected 640"
[ -z "$(ls -A | grep balsa-tmp)" ] || fail "replace: left $(ls -A | grep balsa-tmp)"

[ $failures -eq 0 ] && echo "all passed"
exit $failures
