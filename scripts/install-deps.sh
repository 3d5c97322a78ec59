#!/usr/bin/env bash
# Install the Debian packages listed in deps/debian-packages.txt that are not
# installed yet. Needs root (apt-get); otherwise prints what to run.
#   --fuzz  also the optional set of deps/debian-packages-fuzz.txt (clang,
#           libFuzzer: scripts/fuzz.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lists=("$root/deps/debian-packages.txt")
for arg in "$@"; do
  case "$arg" in
    --fuzz) lists+=("$root/deps/debian-packages-fuzz.txt") ;;
    *) echo "install-deps.sh: unknown argument '$arg' (--fuzz)" >&2; exit 2 ;;
  esac
done
mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "${lists[@]}" | grep -v '^$')
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "balsa: all ${#wanted[@]} Debian dependencies are installed"
  exit 0
fi
echo "balsa: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "balsa: error: these packages are missing and this user cannot run apt-get:" >&2
  echo "  sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
