#!/usr/bin/env bash
# Fuzzes the API with schemathesis (issue 32, "Hostile input"): starts `npm start` (src/main.ts) on a
# throwaway data dir and free ports, runs `st run <sandbox>/v1/openapi.json --checks all` with the demo
# merchant's sandbox key, every phase (examples, coverage, fuzzing, stateful through the document's
# links), config scripts/schemathesis.toml (422 accepted as a business refusal; hooks), then stops
# npm start. Exits non-zero when schemathesis finds any failure or cannot run.
#
# Usage: bash scripts/schemathesis.sh [--max-examples N] [--seed S] [other `st run` options]
#   default --max-examples 10 (the short run of .ci/run); docs/reliability.md gives the long run's command.
# Needs: Node 24 and the Temporal CLI (as npm start), and schemathesis: bash scripts/install-schemathesis.sh
# Env: SCHEMATHESIS_REPORT_DIR  where st writes its JUnit report (default: a temp dir, removed)
#      RATE_LIMIT_SANDBOX        the sandbox listener's limit for the run (default 2000 req/s: the
#                                fuzzer tests the API, not the limiter, which its own tests cover)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SCHEMATHESIS_VENV:-$REPO/.cache/schemathesis/venv}"
if ! bash "$REPO/scripts/install-schemathesis.sh" --check >/dev/null 2>&1; then
  echo "schemathesis.sh: ERROR: schemathesis is not installed in $VENV; run \`bash scripts/install-schemathesis.sh\`." >&2
  exit 1
fi

ARGS=("$@")
if ! printf '%s\n' "${ARGS[@]+"${ARGS[@]}"}" | grep -qE '^(-n|--max-examples)'; then ARGS=(--max-examples 10 "${ARGS[@]+"${ARGS[@]}"}"); fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/schemathesis-run-XXXXXX")"
chmod 0777 "$WORK" # embedded PostgreSQL runs as user postgres when started by root
# Ports from src/support/free-port.ts (10000-16999, outside the kernel's ephemeral range): a port that
# listen(0) hands out can be taken by an outgoing connection before npm start binds it (seen in a
# .ci/run beside other test runs: EADDRINUSE on the sandbox port, and the run stopped).
free_port() { (cd "$REPO" && node --import tsx -e 'import("./src/support/free-port.ts").then(async (m) => console.log(await m.freePort()))'); }
PORT="$(free_port)"
PID=""
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "schemathesis.sh: starting npm start (sandbox on 127.0.0.1:$PORT, data in $WORK)"
# Its own process group (setsid), so that everything it started can be stopped with it.
( cd "$REPO" && exec env DATA_DIR="$WORK/data" PORT="$PORT" LIVE_PORT="$(free_port)" WEB_PORT="$(free_port)" DOCS_PORT=0 \
    EMBEDDED_PG_PORT="$(free_port)" TEMPORAL_DEV_PORT="$(free_port)" TEMPORAL_UI_PORT=0 CODEC_PORT=0 \
    METRICS_PORT=0 WORKER_METRICS_PORT=0 RATE_LIMIT_SANDBOX="${RATE_LIMIT_SANDBOX:-2000}" \
    setsid node --import tsx src/main.ts >"$WORK/npm-start.out" 2>"$WORK/npm-start.err" ) &
PID=$!
for _ in $(seq 240); do
  grep -q 'Sandbox key' "$WORK/npm-start.out" 2>/dev/null && break
  kill -0 "$PID" 2>/dev/null || { echo "schemathesis.sh: ERROR: npm start exited:" >&2; cat "$WORK/npm-start.out" "$WORK/npm-start.err" >&2; exit 1; }
  sleep 0.5
done
KEY="$(sed -n 's/.*Sandbox key *\(svc_test_[A-Za-z0-9]*\).*/\1/p' "$WORK/npm-start.out" | head -n 1)"
[ -n "$KEY" ] || { echo "schemathesis.sh: ERROR: npm start printed no sandbox key within 120 s" >&2; cat "$WORK/npm-start.out" "$WORK/npm-start.err" >&2; exit 1; }

REPORT_DIR="${SCHEMATHESIS_REPORT_DIR:-$WORK/report}"
echo "schemathesis.sh: st run --checks all ${ARGS[*]}"
set +e
( cd "$WORK" && PYTHONPATH="$REPO/scripts" "$VENV/bin/st" --config-file "$REPO/scripts/schemathesis.toml" run \
    "http://127.0.0.1:$PORT/v1/openapi.json" --checks all -H "Authorization: Bearer $KEY" \
    --report junit --report-dir "$REPORT_DIR" --output-sanitize true "${ARGS[@]}" )
STATUS=$?
set -e
echo "schemathesis.sh: st exited $STATUS"
exit "$STATUS"
