#!/usr/bin/env bash
# Installs promtool (Prometheus's rule checker) at a pinned version into .cache/promtool/bin/, built
# from its Go module: `go install github.com/prometheus/prometheus/cmd/promtool@<PROMTOOL_MODULE_VERSION>`.
# Prometheus 3.x tags its Go module v0.3MM.P (v0.316.0 is Prometheus 3.16.0). The Go toolchain checks
# every module it downloads against sum.golang.org (GOSUMDB), so the pin is a hash pin too.
# Idempotent: does nothing when the installed binary was built from the pinned module version and tags
# (`go version -m` names it). test/unit/monitoring-promtool.test.ts runs `promtool check rules`.
#
# Usage: bash scripts/install-promtool.sh [--check]
#   --check  install nothing: exit 0 when the installed binary is the pinned version, else 1.
# Env: PROMTOOL_INSTALL_DIR  target directory (default: <repo>/.cache/promtool; the binary is bin/promtool)
# Needs `go` on PATH: 1.26.7 or newer (the module's go directive), or Go 1.21+ whose default
# GOTOOLCHAIN=auto fetches that toolchain. A cold build takes about 4 minutes on 2 cores and about
# 1.8 GB of Go caches; see docs/operations.md, "Metrics".
set -euo pipefail

PROMTOOL_MODULE_VERSION=v0.316.0
# Leaves out the service discovery plugins (AWS, Azure, GCE, …: promtool needs none of them to check
# rules), which would be most of the build.
PROMTOOL_BUILD_TAGS=remove_all_sd

MODE=install
for arg in "$@"; do
  case "$arg" in
    --check) MODE=check ;;
    *) echo "install-promtool.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${PROMTOOL_INSTALL_DIR:-$REPO/.cache/promtool}"
BIN="$TARGET/bin"
PROMTOOL="$BIN/promtool"

if ! command -v go >/dev/null 2>&1; then
  echo "install-promtool.sh: ERROR: no \`go\` on PATH: install Go 1.26.7 or newer (https://go.dev/dl/), then run this again" >&2
  exit 1
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
GOBIN="$BIN" go install -tags "$PROMTOOL_BUILD_TAGS" "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL_MODULE_VERSION"
if [ "$(installed_version)" != "$PINNED" ]; then
  rm -f "$PROMTOOL"
  echo "install-promtool.sh: ERROR: the built binary does not report \"$PINNED\" (module version, build tags); removed" >&2
  exit 1
fi
echo "install-promtool.sh: installed $PROMTOOL ($PROMTOOL_MODULE_VERSION) in $(( $(date +%s) - started )) s"
