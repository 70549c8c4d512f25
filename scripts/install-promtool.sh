#!/usr/bin/env bash
# Installs promtool (Prometheus's rule checker) at a pinned version into .cache/promtool/bin/, built
# from its Go module: `go install github.com/prometheus/prometheus/cmd/promtool@<PROMTOOL_MODULE_VERSION>`.
# Prometheus 3.x tags its Go module v0.3MM.P (v0.316.0 is Prometheus 3.16.0). The Go toolchain checks
# every module it downloads against sum.golang.org (GOSUMDB), so the pin is a hash pin too.
# Idempotent: does nothing when the installed binary was built from the pinned module version and tags
# (`go version -m` names it). The promtool tests (test/support/promtool.ts: `promtool check rules`,
# `promtool test rules`) never skip: without it they fail, naming this script.
#
# Usage: bash scripts/install-promtool.sh [--optional | --check]
#   --optional  when promtool cannot be built here (no `go` on PATH, no network to the Go module
#               proxy) warn and exit 0; used from the npm postinstall hook, after the Temporal
#               binaries. A binary that does not report the pinned version still fails.
#   --check     install nothing: exit 0 when the installed binary is the pinned version, else 1.
# Env: PROMTOOL_INSTALL_DIR  target directory (default: <repo>/.cache/promtool; the binary is bin/promtool)
#      GOMODCACHE, GOCACHE   Go caches (default: <repo>/.cache/go/mod and <repo>/.cache/go/build, shared
#                            with scripts/install-temporal-server.sh and install-omes.sh)
#      PROMTOOL_INSTALL_SKIP=1  do nothing (e.g. in the Docker image, which runs no tests)
# Needs `go` on PATH: 1.26.7 or newer (the module's go directive), or Go 1.21+ whose default
# GOTOOLCHAIN=auto fetches that toolchain. A cold build takes about 4 minutes on 2 cores and about
# 1.8 GB of Go caches; with the caches warm, seconds. See docs/operations.md, "Metrics".
set -euo pipefail

PROMTOOL_MODULE_VERSION=v0.316.0
# Leaves out the service discovery plugins (AWS, Azure, GCE, …: promtool needs none of them to check
# rules), which would be most of the build.
PROMTOOL_BUILD_TAGS=remove_all_sd

MODE=install
OPTIONAL=false
for arg in "$@"; do
  case "$arg" in
    --optional) OPTIONAL=true ;;
    --check) MODE=check ;;
    *) echo "install-promtool.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

if [ "${PROMTOOL_INSTALL_SKIP:-}" = 1 ] && [ "$MODE" = install ]; then
  echo "install-promtool.sh: PROMTOOL_INSTALL_SKIP=1, skipping."
  exit 0
fi

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${PROMTOOL_INSTALL_DIR:-$REPO/.cache/promtool}"
BIN="$TARGET/bin"
PROMTOOL="$BIN/promtool"
export GOMODCACHE="${GOMODCACHE:-$REPO/.cache/go/mod}" GOCACHE="${GOCACHE:-$REPO/.cache/go/build}"

# Not available here: a warning under --optional (the promtool tests then fail, naming this script).
unavailable() {
  echo "install-promtool.sh: ERROR: $*" >&2
  if [ "$OPTIONAL" = true ]; then
    echo "install-promtool.sh: continuing without promtool (--optional); the promtool tests of \`npm test\` need it:" >&2
    echo "install-promtool.sh: run \`bash scripts/install-promtool.sh\` or set PROMTOOL_PATH to a promtool binary." >&2
    exit 0
  fi
  exit 1
}

if ! command -v go >/dev/null 2>&1; then
  unavailable "no \`go\` on PATH: install Go 1.26.7 or newer (https://go.dev/dl/), then run this again"
fi

# The module version and build tags the installed binary was built with, e.g. "v0.316.0 remove_all_sd".
installed_version() {
  [ -x "$PROMTOOL" ] || return 0
  go version -m "$PROMTOOL" 2>/dev/null | awk '
    $1 == "mod" && $2 == "github.com/prometheus/prometheus" { version = $3 }
    $1 == "build" && $2 ~ /^-tags=/ { tags = substr($2, 7) }
    END { if (version != "") print version " " tags }'
}
PINNED="$PROMTOOL_MODULE_VERSION $PROMTOOL_BUILD_TAGS"

if [ "$(installed_version)" = "$PINNED" ]; then
  echo "install-promtool.sh: promtool $PROMTOOL_MODULE_VERSION already installed ($PROMTOOL)"
  exit 0
fi
if [ "$MODE" = check ]; then
  echo "install-promtool.sh: promtool $PROMTOOL_MODULE_VERSION is not installed at $PROMTOOL (found: '$(installed_version)')" >&2
  exit 1
fi

mkdir -p "$BIN"
echo "install-promtool.sh: building promtool $PROMTOOL_MODULE_VERSION into $BIN ($(go version))"
started=$(date +%s)
GOBIN="$BIN" go install -tags "$PROMTOOL_BUILD_TAGS" "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL_MODULE_VERSION" \
  || unavailable "go install of promtool $PROMTOOL_MODULE_VERSION failed (output above): no network to the Go module proxy, or an older Go without GOTOOLCHAIN=auto?"
if [ "$(installed_version)" != "$PINNED" ]; then
  rm -f "$PROMTOOL"
  echo "install-promtool.sh: ERROR: the built binary does not report \"$PINNED\" (module version, build tags); removed" >&2
  exit 1
fi
echo "install-promtool.sh: installed $PROMTOOL ($PROMTOOL_MODULE_VERSION) in $(( $(date +%s) - started )) s"
