#!/usr/bin/env bash
# Watch-list benchmarks (run by hand on an otherwise idle machine; about 5 minutes):
#  1. acknowledged adds per second: wrk -t2 -c16 -d2s POSTing distinct numbers to /v1/watches of
#     `serve --demo` (SQLite in WAL with synchronous=NORMAL; each add also queues its first check);
#  2. the poller with 10,000 watches (added in 30 s, then 30 s to settle) against `kuroneko simulate` on a
#     fast clock (--speed and --poll-speed both $SPEED, default 30): POSTs per polled number, changes found over
#     60 s, and how late each was found (bench/watch-latency.py);
#  3. cached GET p99 with and without the poller running (wrk -t2 -c64 -d10s);
#  4. the same at the default politeness (1 s between POSTs), 10,000 watches already due (seeded in the file),
#     the poller running all along: the API beside a steady poll, as a shop's server would be.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
command -v wrk >/dev/null || { echo "watch-list.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "watch-list.sh: sqlite3 is missing: apt-get install sqlite3" >&2; exit 1; }
swift build -c release --product kuroneko >&2
kuroneko=.build/release/kuroneko
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
start() { # start PORT COMMAND...
    local port=$1; shift
    "$@" >"$work/log-$port" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && return; sleep 0.1; done
    echo "watch-list.sh: $* did not start" >&2; exit 1
}
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 == name { print $2 }'; }

echo "## acknowledged adds per second"
start 18110 "$kuroneko" serve --demo --port 18110 --db "$work/adds.sqlite" --min-interval 0
# Two seconds, well under the 10,000 watches one owner may have: every add in the file was acknowledged.
wrk -t2 -c16 -d2s --latency -s bench/server/add-watches.lua http://127.0.0.1:18110 | awk '/ 99%/ { print "add p99: " $2 }'
added=$(sqlite3 "$work/adds.sqlite" 'SELECT COUNT(*) FROM watches')
echo "acknowledged adds in 2 s: $added, $((added / 2)) per second"
kill "${pids[-1]}"

speed=${SPEED:-30}
echo "## the poller: 10,000 watches, simulate --speed $speed, --poll-speed $speed"
start 18111 "$kuroneko" simulate --port 18111 --speed "$speed"
# The simulated Yamato answers at once and serve's politeness is cut to 10 ms between POSTs, so the
# 10,000 first checks (1,000 POSTs) are done within the settling time; the poller then runs on its own.
start 18112 "$kuroneko" serve --port 18112 --endpoint http://127.0.0.1:18111/cgi-bin/tneko \
    --db "$work/poll.sqlite" --poll-speed "$speed" --queue-capacity 20000 --queue-deadline 600 --min-interval 0.01
START=60000000000 LIMIT=5000 wrk -t2 -c2 -d30s -s bench/server/add-watches.lua http://127.0.0.1:18112 >/dev/null
sleep 30
count=$(sqlite3 "$work/poll.sqlite" 'SELECT COUNT(*) FROM watches')
echo "watches: $count"
before_posts=$(curl -s http://127.0.0.1:18111/admin/stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["posts"])')
before_checks=$(metric 18112 kuroneko_poller_checks_total)
before_changes=$(sqlite3 "$work/poll.sqlite" 'SELECT COUNT(*) FROM changes')
echo "cached GET while polling: $(wrk -t2 -c64 -d10s --latency http://127.0.0.1:18112/v1/shipments/3277-5445-9830 | awk '/Requests\/sec/ { r = $2 } / 99%/ { p = $2 } END { print r " req/s, p99 " p }')"
sleep 50
after_posts=$(curl -s http://127.0.0.1:18111/admin/stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["posts"])')
after_checks=$(metric 18112 kuroneko_poller_checks_total)
after_changes=$(sqlite3 "$work/poll.sqlite" 'SELECT COUNT(*) FROM changes')
awk -v p=$((after_posts - before_posts)) -v c=$((after_checks - before_checks)) -v ch=$((after_changes - before_changes)) \
    'BEGIN { printf "over 60 s: %d POSTs for %d polled numbers: %.3f POSTs per polled number; %d changes found\n", p, c, (c > 0 ? p / c : 0), ch }'
python3 bench/watch-latency.py "$work/poll.sqlite" http://127.0.0.1:18111
kill "${pids[-1]}"
start 18113 "$kuroneko" serve --port 18113 --endpoint http://127.0.0.1:18111/cgi-bin/tneko --db "$work/idle.sqlite"
echo "cached GET without a poller: $(wrk -t2 -c64 -d10s --latency http://127.0.0.1:18113/v1/shipments/3277-5445-9830 | awk '/Requests\/sec/ { r = $2 } / 99%/ { p = $2 } END { print r " req/s, p99 " p }')"

echo "## default politeness, 10,000 due watches seeded"
"$kuroneko" keys list --db "$work/seeded.sqlite" >/dev/null
sqlite3 "$work/seeded.sqlite" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
    INSERT INTO watches (owner, number, created_at, active, status_label, next_check_at)
    SELECT 'local', printf('%011d%d', 70000000000 + i * 7919, (70000000000 + i * 7919) % 7), strftime('%s', 'now'),
           1, '輸送中', 0 FROM n"
start 18114 "$kuroneko" serve --port 18114 --endpoint http://127.0.0.1:18111/cgi-bin/tneko --db "$work/seeded.sqlite"
curl -s -o /dev/null http://127.0.0.1:18114/v1/shipments/3277-5445-9830
sleep 5
echo "cached GET while polling at 1 POST/s: $(wrk -t2 -c64 -d10s --latency http://127.0.0.1:18114/v1/shipments/3277-5445-9830 | awk '/Requests\/sec/ { r = $2 } / 99%/ { p = $2 } END { print r " req/s, p99 " p }')"
echo "poller checks so far: $(metric 18114 kuroneko_poller_checks_total), upstream POSTs: $(curl -s http://127.0.0.1:18111/admin/stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["posts"])')"
