#!/usr/bin/env bash
# Installs the real Temporal server (not the CLI's dev server), its SQL schema tool and the Temporal UI
# server at pinned releases into .cache/temporal-server/bin/, built from their Go modules:
#   go install go.temporal.io/server/cmd/server@<TEMPORAL_SERVER_VERSION>       -> temporal-server
#   go install go.temporal.io/server/cmd/tools/sql@<TEMPORAL_SERVER_VERSION>    -> temporal-sql-tool
#   go install github.com/temporalio/ui-server/v2/cmd/server@<TEMPORAL_UI_VERSION> -> temporal-ui-server
# The server release is the one the pinned Temporal CLI's dev server runs (`temporal --version` says
# "Server 1.32.0, UI 2.54.1"), and the UI release is that CLI's UI, so `npm run topology -- up` runs
# the same server as `npm start` does, on PostgreSQL. The Go toolchain checks every module it
# downloads against sum.golang.org (GOSUMDB), so the pin is a hash pin too.
# Idempotent: does nothing when the installed binaries were built from the pinned module versions
# (`go version -m` names them). `npm run topology -- up` (src/topology/) runs them; docs/deployment.md.
#
# Usage: bash scripts/install-temporal-server.sh [--check]
#   --check  install nothing: exit 0 when the installed binaries are the pinned versions, else 1.
# Env: TEMPORAL_SERVER_INSTALL_DIR  target directory (default: <repo>/.cache/temporal-server; binaries in bin/)
#      GOMODCACHE, GOCACHE          Go caches (default: <repo>/.cache/go/mod and <repo>/.cache/go/build)
# Needs `go` on PATH: 1.26 or newer (the server module's go directive), or Go 1.21+ whose default
# GOTOOLCHAIN=auto fetches that toolchain. A cold build takes 5 to 7 minutes on 2 cores (peak about
# 2.4 GB of memory) and about 3.4 GB of Go caches.
set -euo pipefail

TEMPORAL_SERVER_VERSION=v1.32.0
TEMPORAL_UI_VERSION=v2.54.1

MODE=install
for arg in "$@"; do
  case "$arg" in
    --check) MODE=check ;;
    *) echo "install-temporal-server.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${TEMPORAL_SERVER_INSTALL_DIR:-$REPO/.cache/temporal-server}"
BIN="$TARGET/bin"
export GOMODCACHE="${GOMODCACHE:-$REPO/.cache/go/mod}" GOCACHE="${GOCACHE:-$REPO/.cache/go/build}"

if ! command -v go >/dev/null 2>&1; then
  echo "install-temporal-server.sh: ERROR: no \`go\` on PATH: install Go 1.26 or newer (https://go.dev/dl/), then run this again" >&2
  exit 1
fi

# name | Go package | module | version
PIECES=(
  "temporal-server|go.temporal.io/server/cmd/server|go.temporal.io/server|$TEMPORAL_SERVER_VERSION"
  "temporal-sql-tool|go.temporal.io/server/cmd/tools/sql|go.temporal.io/server|$TEMPORAL_SERVER_VERSION"
  "temporal-ui-server|github.com/temporalio/ui-server/v2/cmd/server|github.com/temporalio/ui-server/v2|$TEMPORAL_UI_VERSION"
)

# "<package> <module version>" of a built binary, e.g. "go.temporal.io/server/cmd/server v1.32.0".
built_from() {
  [ -x "$1" ] || return 0
  go version -m "$1" 2>/dev/null | awk -v module="$2" '
    $1 == "path" { pkg = $2 }
    $1 == "mod" && $2 == module { version = $3 }
    END { if (version != "") print pkg " " version }'
}

# The server's SQL schemas (schema/postgresql/v12/{temporal,visibility}/versioned, what
# temporal-sql-tool update-schema applies) from the same module version, next to the binaries.
SCHEMA="$TARGET/schema-$TEMPORAL_SERVER_VERSION"
schema_ok() { [ -f "$SCHEMA/postgresql/v12/temporal/versioned/v1.0/manifest.json" ] && [ -f "$SCHEMA/postgresql/v12/visibility/versioned/v1.0/manifest.json" ]; }

missing=()
for piece in "${PIECES[@]}"; do
  IFS='|' read -r name pkg module version <<<"$piece"
  if [ "$(built_from "$BIN/$name" "$module")" = "$pkg $version" ]; then
    echo "install-temporal-server.sh: $name ($module $version) already installed ($BIN/$name)"
  else
    missing+=("$piece")
  fi
done
if schema_ok; then
  echo "install-temporal-server.sh: schema of go.temporal.io/server $TEMPORAL_SERVER_VERSION already installed ($SCHEMA)"
  [ "${#missing[@]}" -eq 0 ] && exit 0
fi

if [ "$MODE" = check ]; then
  schema_ok || echo "install-temporal-server.sh: the schema of go.temporal.io/server $TEMPORAL_SERVER_VERSION is not installed at $SCHEMA" >&2
  for piece in "${missing[@]}"; do
    IFS='|' read -r name pkg module version <<<"$piece"
    echo "install-temporal-server.sh: $name ($module $version) is not installed at $BIN/$name (found: '$(built_from "$BIN/$name" "$module")')" >&2
  done
  exit 1
fi

mkdir -p "$BIN"
for piece in "${missing[@]}"; do
  IFS='|' read -r name pkg module version <<<"$piece"
  # go install names the binary after the package's last element (server, sql): build into a
  # scratch GOBIN, check it, then move it under its own name.
  scratch="$(mktemp -d "$TARGET/.build.XXXXXX")"
  echo "install-temporal-server.sh: building $name from $pkg@$version ($(go version); this takes minutes)"
  started=$(date +%s)
  if ! GOBIN="$scratch" go install "$pkg@$version"; then
    rm -rf "$scratch"
    echo "install-temporal-server.sh: ERROR: go install $pkg@$version failed (see above)" >&2
    exit 1
  fi
  built="$scratch/$(basename "$pkg")"
  if [ "$(built_from "$built" "$module")" != "$pkg $version" ]; then
    rm -rf "$scratch"
    echo "install-temporal-server.sh: ERROR: the built $name does not report \"$pkg $version\"; removed" >&2
    exit 1
  fi
  mv -f "$built" "$BIN/$name"
  rm -rf "$scratch"
  echo "install-temporal-server.sh: installed $BIN/$name ($module $version) in $(( $(date +%s) - started )) s"
done

if ! schema_ok; then
  # go mod download puts the module's source (with its schema/ folder) in GOMODCACHE; read-only there.
  src="$(go mod download -json "go.temporal.io/server@$TEMPORAL_SERVER_VERSION" | awk -F'"' '$2 == "Dir" { print $4 }')"
  if [ -z "$src" ] || [ ! -d "$src/schema/postgresql/v12" ]; then
    echo "install-temporal-server.sh: ERROR: no schema/postgresql/v12 in go.temporal.io/server@$TEMPORAL_SERVER_VERSION (looked in '$src')" >&2
    exit 1
  fi
  rm -rf "$SCHEMA"
  mkdir -p "$SCHEMA"
  cp -R "$src/schema/postgresql" "$SCHEMA/"
  chmod -R u+w "$SCHEMA"
  echo "install-temporal-server.sh: installed the PostgreSQL schema of go.temporal.io/server $TEMPORAL_SERVER_VERSION in $SCHEMA"
fi
