#!/usr/bin/env bash
# Where a test file's time goes: each file given runs alone (on an otherwise idle machine), and its wall
# time is split into working (CPU of every process of the run: jest, the API and worker in it, worker
# and CLI children, PostgreSQL, the dev servers) and waiting (the rest: timers, polls, sleeps).
# The CPU of the run's set-up (global setup, servers) is measured once with a near-empty file and
# taken off each file's.
#
# Usage: bash scripts/measure-test-waits.sh test/integration/refunds.test.ts [more files...]
# Prints a Markdown table: file | wall s | working s | waiting s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NODE_OPTIONS=--experimental-vm-modules
BASELINE_FILE=test/integration/sequence-order.test.ts

# Prints "<cpu seconds> <file wall seconds>" for one file run alone.
measure() {
  local json times
  json="$(mktemp)"; times="$(mktemp)"
  /usr/bin/time -f '%U %S' -o "$times" npx jest "$1" --json --outputFile="$json" >/dev/null 2>&1 || true
  node -e '
    const [u, s] = require("fs").readFileSync(process.argv[1], "utf8").trim().split(/\s+/).map(Number);
    const r = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
    const f = r.testResults[0];
    if (!f || f.status !== "passed") { console.error(`${process.argv[3]} did not pass`); process.exit(1); }
    console.log((u + s).toFixed(1), ((f.endTime - f.startTime) / 1000).toFixed(1));
  ' "$times" "$json" "$1"
  rm -f "$json" "$times"
}

read -r base_cpu base_wall < <(measure "$BASELINE_FILE")
echo "| file | wall s | working s | waiting s |"
echo "| --- | ---: | ---: | ---: |"
for file in "$@"; do
  read -r cpu wall < <(measure "$file")
  node -e '
    const [file, cpu, wall, baseCpu] = process.argv.slice(1);
    const working = Math.max(0, Number(cpu) - Number(baseCpu));
    const w = Math.min(Number(wall), working);
    console.log(`| \`${file}\` | ${Number(wall).toFixed(0)} | ${w.toFixed(0)} | ${(Number(wall) - w).toFixed(0)} |`);
  ' "$file" "$cpu" "$wall" "$base_cpu"
done
