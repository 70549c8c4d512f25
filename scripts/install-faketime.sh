#!/usr/bin/env bash
# Installs libfaketime (Debian's package, pinned by version and sha256) into .cache/faketime/, for the
# chaos run's `clock_skew` fault (docs/chaos.md): one worker of the topology runs with it preloaded and
# its wall clock moved by the fault. Nothing is installed system-wide: `apt-get download` fetches the
# .deb (no root needed), `dpkg -x` unpacks it here. Without it the chaos run leaves `clock_skew` out and
# says so (`not_applicable`).
#
# Usage: bash scripts/install-faketime.sh [--check]
#   --check  install nothing: exit 0 when the pinned library is there, else 1.
set -euo pipefail

VERSION=0.9.10-2.1
SHA256=b09481e7690680966005330c3f907bba4b5eefc35e1faaea4783cc55655d1150
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.cache/faketime"
LIB="$DIR/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

if [ -f "$DIR/VERSION" ] && [ "$(cat "$DIR/VERSION")" = "$VERSION" ] && [ -f "$LIB" ]; then
  echo "libfaketime $VERSION: $LIB"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "libfaketime $VERSION is not installed: bash scripts/install-faketime.sh" >&2
  exit 1
fi
[ "$(dpkg --print-architecture 2>/dev/null)" = "amd64" ] || { echo "install-faketime: only amd64 Debian is pinned here" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
download() { (cd "$TMP" && apt-get download -q "libfaketime=$VERSION" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true); }
download
if ! ls "$TMP"/libfaketime_*.deb >/dev/null 2>&1; then
  # A fresh machine may have no package lists yet: read them (as root, or through sudo), then again.
  SUDO=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  $SUDO apt-get update -qq || true
  download
fi
DEB="$(ls "$TMP"/libfaketime_*.deb 2>/dev/null | head -1)"
[ -n "$DEB" ] || { echo "install-faketime: apt-get download libfaketime=$VERSION fetched nothing (is the Debian mirror reachable?)" >&2; exit 1; }
echo "$SHA256  $DEB" | sha256sum -c --quiet - || { echo "install-faketime: $DEB does not match the pinned sha256" >&2; exit 1; }
rm -rf "$DIR"
mkdir -p "$DIR"
dpkg -x "$DEB" "$DIR"
echo "$VERSION" > "$DIR/VERSION"
echo "libfaketime $VERSION: $LIB"
