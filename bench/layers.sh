#!/usr/bin/env bash
# Where a cache hit's time goes, on the wire (run by hand on an otherwise idle machine; about 9 minutes): the
# bare libmicrohttpd server in C (bench/server/bare.c), the same sending the API's seven response headers and
# copying its body (`bare PORT api-headers`), KuronekoHTTP's adapter alone (bench/BareServer), the
# API behind its first 0 to 6 middleware layers (`HitPathBenchmark serve`: request id, access log to
# /dev/null, metrics, API keys, compression, conditional requests) and `kuroneko serve --demo`, all started at
# once on ports of their own. Then ROUNDS rounds (default 15) of a 2 s wrk -t2 -c64 run against each in
# turn: the servers are compared within a round, seconds apart, which this machine's drift between runs
# (±15% over a minute) would otherwise swamp. Prints each server's median requests/s and its median ratios to
# the bare C server and to the C server sending the API's headers.
#   [ROUNDS=15] bench/layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
command -v wrk >/dev/null || { echo "layers.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
rounds=${ROUNDS:-15}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for product in kuroneko BareServer HitPathBenchmark; do swift build -c release --product "$product" >&2; done
gcc -O2 -o "$work/bare" bench/server/bare.c -lmicrohttpd

names=(bare-c bare-c-api-headers adapter layers-0 layers-1 layers-2 layers-3 layers-4 layers-5 layers-6 serve)
port=18200
declare -A ports
start() { # start COMMAND...: the server itself in the background (its own pid, for the trap to stop it)
    "$@" >/dev/null 2>&1 &
    pids+=($!)
}
for name in "${names[@]}"; do
    # A server still listening from an earlier run would answer in place of the one started now.
    if ss -ltn | grep -q "127.0.0.1:$port \|0.0.0.0:$port "; then
        echo "layers.sh: port $port is in use; stop whatever listens there (ss -ltnp)" >&2
        exit 1
    fi
    case $name in
        bare-c) start "$work/bare" "$port" ;;
        bare-c-api-headers) start "$work/bare" "$port" api-headers ;;
        adapter) start .build/release/BareServer "$port" ;;
        layers-*) start .build/release/HitPathBenchmark serve "$port" "${name#layers-}" ;;
        serve) start .build/release/kuroneko serve --demo --port "$port" ;;
    esac
    ports[$name]=$port
    port=$((port + 1))
done
url() { echo "http://127.0.0.1:${ports[$1]}/v1/shipments/3277-5445-9830"; }
for name in "${names[@]}"; do
    for _ in $(seq 1 100); do curl -s -o /dev/null "$(url "$name")" && break; sleep 0.1; done
    curl -sf -o /dev/null "$(url "$name")" || { echo "layers.sh: $name did not start" >&2; exit 1; }
    wrk -t2 -c64 -d1s "$(url "$name")" >/dev/null
done
declare -A rates ratios same
for round in $(seq 1 "$rounds"); do
    for name in "${names[@]}"; do
        rate=$(wrk -t2 -c64 -d2s "$(url "$name")" | awk '/Requests\/sec/ { printf "%.0f", $2 }')
        [ "$name" = bare-c ] && reference=$rate
        [ "$name" = bare-c-api-headers ] && same_response=$rate
        rates[$name]+="$rate "
        ratios[$name]+="$(awk -v r="$rate" -v b="$reference" 'BEGIN { printf "%.3f", r / b }') "
        [ "$name" = bare-c ] ||
            same[$name]+="$(awk -v r="$rate" -v b="$same_response" 'BEGIN { printf "%.3f", r / b }') "
    done
    echo "round $round done" >&2
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for name in "${names[@]}"; do
    printf '%-18s %7s req/s, %s of bare C' "$name" "$(median "${rates[$name]}")" "$(median "${ratios[$name]}")"
    [ "$name" = bare-c ] && echo || echo ", $(median "${same[$name]}") of C with the API's headers"
done
