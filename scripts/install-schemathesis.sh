#!/usr/bin/env bash
# Installs schemathesis (the API fuzzer that scripts/schemathesis.sh runs) into a venv of its own,
# .cache/schemathesis/venv, from PyPI with `pip install --require-hashes`: the version of every
# package and the sha256 of its files are pinned in scripts/schemathesis-requirements.txt.
# Idempotent: does nothing when the venv's `st` already reports the pinned version.
#
# Usage: bash scripts/install-schemathesis.sh [--check]
#   --check  install nothing: exit 0 when the venv's schemathesis is the pinned version.
# Env: SCHEMATHESIS_VENV  the venv (default: <repo>/.cache/schemathesis/venv)
# Needs: python3 >= 3.11 with the venv module (Debian: apt-get install python3-venv).
set -euo pipefail

MODE=install
for arg in "$@"; do
  case "$arg" in
    --check) MODE=check ;;
    *) echo "install-schemathesis.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUIREMENTS="$REPO/scripts/schemathesis-requirements.txt"
VENV="${SCHEMATHESIS_VENV:-$REPO/.cache/schemathesis/venv}"
PINNED="$(sed -n 's/^schemathesis==\([0-9][0-9.]*\).*/\1/p' "$REQUIREMENTS")"
[ -n "$PINNED" ] || { echo "install-schemathesis.sh: ERROR: $REQUIREMENTS does not pin schemathesis" >&2; exit 1; }

installed_version() {
  [ -x "$VENV/bin/python" ] || return 0
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null || true
}

got="$(installed_version)"
if [ "$got" = "$PINNED" ] && [ -x "$VENV/bin/st" ]; then
  echo "install-schemathesis.sh: schemathesis $PINNED in $VENV"
  exit 0
fi
if [ "$MODE" = check ]; then
  echo "install-schemathesis.sh: ERROR: schemathesis in $VENV is '${got:-missing}', pinned $PINNED. Run \`bash scripts/install-schemathesis.sh\`." >&2
  exit 1
fi

command -v python3 >/dev/null 2>&1 \
  || { echo "install-schemathesis.sh: ERROR: python3 not found; install Python 3.11+ with venv (e.g. apt-get install python3-venv)." >&2; exit 1; }
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || { echo "install-schemathesis.sh: ERROR: $(python3 --version 2>&1) is too old; $REQUIREMENTS is resolved for Python 3.11+." >&2; exit 1; }

echo "install-schemathesis.sh: installing schemathesis==$PINNED into $VENV (hashes: $REQUIREMENTS)"
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
python3 -m venv "$VENV" \
  || { echo "install-schemathesis.sh: ERROR: python3 -m venv failed; install the venv module (e.g. apt-get install python3-venv)." >&2; exit 1; }
# --isolated: no user/site pip config (find-links, indexes) changes what is installed; the hashes decide.
"$VENV/bin/python" -m pip install --isolated --disable-pip-version-check --quiet \
  --require-hashes --no-deps -r "$REQUIREMENTS"
got="$(installed_version)"
if [ "$got" != "$PINNED" ] || [ ! -x "$VENV/bin/st" ]; then
  echo "install-schemathesis.sh: ERROR: after installing, schemathesis in $VENV is '${got:-missing}', pinned $PINNED" >&2
  exit 1
fi
echo "install-schemathesis.sh: installed schemathesis $PINNED in $VENV ($VENV/bin/st)"
