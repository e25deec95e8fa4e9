#!/usr/bin/env bash
# Acknowledged adds per second, as bench/watch-list.sh's first step: wrk -t2 -c16 -d2s POSTing distinct
# numbers to /v1/watches of `serve --demo` (SQLite in WAL with synchronous=NORMAL; each add also queues its
# first check), RUNS times (3 by default), each on a new database. KURONEKO_BINARY picks the binary (default
# .build/release/kuroneko, built first), so two builds can be compared the same afternoon.
#   bench/watch-adds.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "watch-adds.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "watch-adds.sh: sqlite3 is missing: apt-get install sqlite3" >&2; exit 1; }
kuroneko=${KURONEKO_BINARY:-.build/release/kuroneko}
[ -n "${KURONEKO_BINARY:-}" ] || swift build -c release --product kuroneko >&2
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for run in $(seq 1 "${1:-3}"); do
    "$kuroneko" serve --demo --port 18110 --db "$work/adds-$run.sqlite" --min-interval 0 >"$work/log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18110/healthz && break; sleep 0.1; done
    p99=$(wrk -t2 -c16 -d2s --latency -s bench/server/add-watches.lua http://127.0.0.1:18110 | awk '/ 99%/ { print $2 }')
    added=$(sqlite3 "$work/adds-$run.sqlite" 'SELECT COUNT(*) FROM watches')
    echo "run $run: $added acknowledged adds in 2 s, $((added / 2)) per second, p99 $p99"
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
done
