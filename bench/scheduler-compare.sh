#!/usr/bin/env bash
# The cached-lookup path side by side (run by hand on an otherwise idle machine; about 7 minutes plus a
# release build of the reference commit): `kuroneko serve --demo` at HEAD with its access log written to a
# file, the same with the log sent to /dev/null (what the middleware costs, without the disk), at a reference
# commit (default the last one before the upstream scheduler; `none` leaves it out), the HTTP adapter alone
# from Swift (bench/BareServer: KuronekoHTTP answering a fixed 1.5 KB body, no routing or middleware), and a
# bare libmicrohttpd server in C (bench/server/bare.c, same thread pool, the same body). Cached GET with
# wrk -t2 -c64 -d10s --latency, ROUNDS rounds (default 5), the servers in turn in each round; medians. Then the
# 1,000-lookup / 200-number burst (bench/server/burst.py) through HEAD against `kuroneko simulate`, with the
# default 10 s queue deadline and with 60 s.
#   [ROUNDS=5] bench/scheduler-compare.sh [REFERENCE_COMMIT|none]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
command -v wrk >/dev/null || { echo "scheduler-compare.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
reference=${1:-fb7d644}
rounds=${ROUNDS:-5}
servers=(head head-quiet reference bare-swift bare)
[ "$reference" = none ] && servers=(head head-quiet bare-swift bare)
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; git worktree remove --force "$work/reference" 2>/dev/null || true; rm -rf "$work"' EXIT

swift build -c release --product kuroneko >&2
swift build -c release --product BareServer >&2
cp .build/release/kuroneko "$work/kuroneko-head"
cp .build/release/BareServer "$work/bare-swift"
if [ "$reference" != none ]; then
    git worktree add --detach "$work/reference" "$reference" >&2
    (cd "$work/reference" && swift build -c release --product kuroneko >&2)
    cp "$work/reference/.build/release/kuroneko" "$work/kuroneko-reference"
fi
gcc -O2 -o "$work/bare" bench/server/bare.c -lmicrohttpd

start() { # start PORT COMMAND...: runs a server in the background (output to $log) and waits for its port
    local port=$1; shift
    "$@" >"${log:-$work/server.log}" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && return; sleep 0.1; done
    echo "scheduler-compare.sh: $* did not start" >&2; exit 1
}
measure() { # measure PORT: requests/s and p99 (ms) of a 10 s cached-GET run
    curl -s -o /dev/null "http://127.0.0.1:$1/v1/shipments/3277-5445-9830"
    wrk -t2 -c64 -d10s --latency "http://127.0.0.1:$1/v1/shipments/3277-5445-9830" |
        awk '/Requests\/sec/ { rps = $2 } / 99%/ { p99 = $2 }
             END { if (p99 ~ /us$/) { sub(/us/, "", p99); p99 /= 1000 } else if (p99 ~ /ms$/) { sub(/ms/, "", p99) }
                   else { sub(/s/, "", p99); p99 *= 1000 }
                   printf "%.0f %.2f\n", rps, p99 }'
}
declare -A results
for round in $(seq 1 "$rounds"); do
    for server in "${servers[@]}"; do
        case $server in
            bare) start 18090 "$work/bare" 18090 ;;
            bare-swift) start 18090 "$work/bare-swift" 18090 ;;
            head-quiet) log=/dev/null start 18090 "$work/kuroneko-head" serve --demo --port 18090 ;;
            *) start 18090 "$work/kuroneko-$server" serve --demo --port 18090 ;;
        esac
        line=$(measure 18090)
        kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
        results[$server]+="$line;"
        echo "round $round $server: ${line% *} req/s, p99 ${line#* } ms"
    done
done
median() { tr ';' '\n' <<<"${results[$1]}" | grep . | sort -n -k"$2" | sed -n "$(((rounds + 1) / 2))p" | cut -d' ' -f"$2"; }
for server in "${servers[@]}"; do
    echo "median $server: $(median "$server" 1) req/s, p99 $(median "$server" 2) ms"
done
for server in head head-quiet; do
    awk -v h="$(median "$server" 1)" -v s="$(median bare-swift 1)" -v b="$(median bare 1)" -v n="$server" \
        'BEGIN { printf "%s / Swift adapter alone %.3f, %s / bare C %.3f\n", n, h / s, n, h / b }'
done
[ "$reference" = none ] ||
    awk -v h="$(median head 1)" -v r="$(median reference 1)" 'BEGIN { printf "head / reference %.3f\n", h / r }'

for deadline in 10 60; do
    start 18091 "$work/kuroneko-head" simulate --port 18091
    start 18092 "$work/kuroneko-head" serve --port 18092 --endpoint http://127.0.0.1:18091/cgi-bin/tneko \
        --queue-deadline "$deadline" --connections-per-client 2000
    echo "burst, queue deadline $deadline s: $(python3 bench/server/burst.py http://127.0.0.1:18092); upstream $(curl -s \
        http://127.0.0.1:18091/admin/stats)"
    kill "${pids[-1]}" "${pids[-2]}"
done
