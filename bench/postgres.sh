#!/usr/bin/env bash
# Three servers on one PostgreSQL (run by hand on an otherwise idle machine; about 3 minutes):
#   30,000 watches seeded due in the database; `kuroneko simulate --speed $SPEED` as Yamato; three
#   `serve --db postgres://… --poll-speed $SPEED --min-interval $INTERVAL` polling them (defaults 60, 0.1).
#   1. upstream POSTs a second over 60 s against the single budget's ceiling (1 / INTERVAL), numbers per POST;
#   2. database time per polled number: pg_stat_statements' execution time over the same 60 s (every
#      statement of the three servers: claims, records, the budget) over the numbers polled;
#   3. cached GET on one of the three while they poll (wrk -t2 -c64 -d10s), against one server on SQLite
#      polling its own 30,000 seeded watches the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap --test
command -v wrk >/dev/null || { echo "postgres.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "postgres.sh: sqlite3 is missing: apt-get install sqlite3" >&2; exit 1; }
swift build -c release --product kuroneko >&2
kuroneko=.build/release/kuroneko
speed=${SPEED:-60}
interval=${INTERVAL:-0.1}
work=$(mktemp -d)
cluster=$(mktemp -d /tmp/kuroneko-pg-bench.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; scripts/test-postgres stop "$cluster"; rm -rf "$work"' EXIT
POSTGRES_OPTIONS="-c shared_preload_libraries=pg_stat_statements" scripts/test-postgres start "$cluster"
psql() { command psql "host=$cluster user=postgres dbname=${DB:-bench}" -qAtX "$@"; }
DB=postgres psql -c "CREATE DATABASE bench"
psql -c "CREATE EXTENSION pg_stat_statements"
url="postgresql://postgres@/bench?host=$cluster"
start() { # start PORT COMMAND...
    local port=$1; shift
    "$@" >"$work/log-$port" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && return; sleep 0.1; done
    echo "postgres.sh: $* did not start" >&2; cat "$work/log-$port" >&2; exit 1
}
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 == name { print $2 }'; }
posts() { curl -s http://127.0.0.1:18120/admin/stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["posts"])'; }
wrk_line() { wrk -t2 -c64 -d10s --latency "$1" | awk '/Requests\/sec/ { r = $2 } / 99%/ { p = $2 } END { print r " req/s, p99 " p }'; }

"$kuroneko" keys list --db "$url" >/dev/null   # creates the tables
psql -c "INSERT INTO watches (owner, number, created_at, active, status_label, next_check_at)
    SELECT 'local', lpad((70000000000 + i * 7919)::text, 11, '0') || ((70000000000 + i * 7919) % 7)::text,
           extract(epoch FROM now()), 1, '輸送中', 0 FROM generate_series(0, 29999) AS i"
# Statistics for the planner, as autovacuum would gather them on a table that grew by itself.
psql -c "ANALYZE"
echo "watches seeded: $(psql -c 'SELECT COUNT(*) FROM watches')"

start 18120 "$kuroneko" simulate --port 18120 --speed "$speed"
for port in 18121 18122 18123; do
    start "$port" "$kuroneko" serve --port "$port" --endpoint http://127.0.0.1:18120/cgi-bin/tneko --db "$url" \
        --poll-speed "$speed" --min-interval "$interval" --no-web-app
done
curl -s -o /dev/null http://127.0.0.1:18121/v1/shipments/3277-5445-9830
sleep 10
psql -c "SELECT pg_stat_statements_reset()" >/dev/null
before_posts=$(posts)
before_checks=0
for port in 18121 18122 18123; do before_checks=$((before_checks + $(metric $port kuroneko_poller_checks_total))); done
sleep 60
after_posts=$(posts)
after_checks=0
for port in 18121 18122 18123; do after_checks=$((after_checks + $(metric $port kuroneko_poller_checks_total))); done
database_ms=$(psql -c "SELECT round(sum(total_exec_time)::numeric, 1) FROM pg_stat_statements")
awk -v p=$((after_posts - before_posts)) -v c=$((after_checks - before_checks)) -v ms="$database_ms" -v i="$interval" \
    'BEGIN { printf "over 60 s: %d POSTs (%.2f a second; the single budget allows %.2f), %d numbers polled, %.2f numbers per POST; database %.0f ms in all, %.3f ms per polled number\n", p, p / 60, 1 / i, c, (p > 0 ? c / p : 0), ms, (c > 0 ? ms / c : 0) }'
echo "the statements that took longest:"
psql -F ' | ' -c "SELECT calls, round(total_exec_time::numeric, 1) AS ms, left(regexp_replace(query, '\s+', ' ', 'g'), 90)
    FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 6" | sed 's/^/    /'
echo "at the simulator, whole run: $(curl -s http://127.0.0.1:18120/admin/stats | python3 -c 'import json,sys; s=json.load(sys.stdin); print({k: v for k, v in s.items() if not isinstance(v, dict)})')"
echo "cached GET on one of three servers polling: $(wrk_line http://127.0.0.1:18121/v1/shipments/3277-5445-9830)"
for _ in 1 2 3; do kill "${pids[-1]}"; unset 'pids[-1]'; done

"$kuroneko" keys list --db "$work/alone.sqlite" >/dev/null
sqlite3 "$work/alone.sqlite" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 29999)
    INSERT INTO watches (owner, number, created_at, active, status_label, next_check_at)
    SELECT 'local', printf('%011d%d', 70000000000 + i * 7919, (70000000000 + i * 7919) % 7), strftime('%s', 'now'),
           1, '輸送中', 0 FROM n"
start 18124 "$kuroneko" serve --port 18124 --endpoint http://127.0.0.1:18120/cgi-bin/tneko --db "$work/alone.sqlite" \
    --poll-speed "$speed" --min-interval "$interval" --no-web-app
curl -s -o /dev/null http://127.0.0.1:18124/v1/shipments/3277-5445-9830
sleep 10
echo "cached GET on one server on SQLite polling: $(wrk_line http://127.0.0.1:18124/v1/shipments/3277-5445-9830)"
