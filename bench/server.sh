#!/usr/bin/env bash
# Server benchmarks (run by hand, on an otherwise idle machine; about 6 minutes):
#  1. cached GET /v1/shipments/{number} against `serve --demo` with wrk -t2, 10 s, 64 and 256 connections,
#     three runs each (the median is the figure), and resident memory idle and under load;
#  2. a realistic workload (64 connections, 30 s, random numbers out of 100) through `serve` and through a
#     Flask + requests + BeautifulSoup baseline, both against `kuroneko simulate --latency-ms 300`:
#     throughput, p50/p99, and the upstream POSTs the simulator received;
#  3. 1,000 concurrent lookups over 200 distinct uncached numbers: upstream POSTs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
command -v wrk >/dev/null || { echo "server.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
python3 -c 'import flask, gunicorn, requests, bs4' 2>/dev/null ||
    python3 -m pip install --quiet flask gunicorn requests beautifulsoup4
swift build -c release --product kuroneko >&2
kuroneko=.build/release/kuroneko
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

start() { # start NAME PORT COMMAND...: runs a server in the background and waits for its port
    local name=$1 port=$2; shift 2
    "$@" >"/tmp/bench-$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && return; sleep 0.1; done
    echo "server.sh: $name did not start" >&2; exit 1
}
rss() { ps -o rss= -p "$1" | awk '{ printf "%.1f MB", $1 / 1024 }'; }
wrk_line() { # summary line from wrk --latency output: requests/s, p50, p99, errors
    awk '/Requests\/sec/ { rps = $2 } / 50%/ { p50 = $2 } / 99%/ { p99 = $2 }
         /Non-2xx|Socket errors/ { errors = errors " " $0 }
         END { printf "%s req/s, p50 %s, p99 %s%s\n", rps, p50, p99, (errors == "" ? ", no errors" : "," errors) }'
}

echo "## cached GET, serve --demo"
start serve 18080 "$kuroneko" serve --demo --port 18080
serve_pid=${pids[-1]}
curl -s -o /dev/null http://127.0.0.1:18080/v1/shipments/3277-5445-9830
echo "idle resident memory: $(rss "$serve_pid")"
for connections in 64 256; do
    for run in 1 2 3; do
        (sleep 5; echo "  resident memory at 5 s: $(rss "$serve_pid")") &
        sampler=$!
        echo "c=$connections run $run: $(wrk -t2 -c"$connections" -d10s --latency \
            http://127.0.0.1:18080/v1/shipments/3277-5445-9830 | wrk_line)"
        wait "$sampler"
    done
done
kill "$serve_pid"

echo "## realistic workload: 64 connections, 30 s, 100 numbers, upstream latency 300 ms"
start simulate 18081 "$kuroneko" simulate --port 18081 --latency-ms 300
start serve 18082 "$kuroneko" serve --port 18082 --endpoint http://127.0.0.1:18081/cgi-bin/tneko
echo "kuroneko serve: $(NUMBERS=100 wrk -t2 -c64 -d30s --latency -s bench/server/random-numbers.lua \
    http://127.0.0.1:18082 | wrk_line); upstream $(curl -s http://127.0.0.1:18081/admin/stats)"
kill "${pids[-1]}" "${pids[-2]}"
start simulate 18083 "$kuroneko" simulate --port 18083 --latency-ms 300
start flask 18084 env UPSTREAM=http://127.0.0.1:18083/cgi-bin/tneko \
    python3 -m gunicorn --chdir bench/baseline -w 2 --threads 32 -b 127.0.0.1:18084 app:app
echo "Flask baseline (gunicorn -w 2 --threads 32): $(NUMBERS=100 wrk -t2 -c64 -d30s --latency \
    -s bench/server/random-numbers.lua http://127.0.0.1:18084 | wrk_line); upstream $(curl -s \
    http://127.0.0.1:18083/admin/stats)"
kill "${pids[-1]}" "${pids[-2]}"

echo "## 1,000 concurrent lookups over 200 distinct uncached numbers"
start simulate 18085 "$kuroneko" simulate --port 18085
start serve 18086 "$kuroneko" serve --port 18086 --endpoint http://127.0.0.1:18085/cgi-bin/tneko
echo "$(python3 bench/server/burst.py http://127.0.0.1:18086); upstream $(curl -s http://127.0.0.1:18085/admin/stats)"
