#!/usr/bin/env bash
# The cached lookup beside nginx (run by hand on an otherwise idle machine; about 4 minutes plus release builds):
# `kuroneko serve --demo` at HEAD and at a reference commit, and nginx (Debian's, one worker per core) serving
# the same JSON body as a static file, the yardstick both are divided by. Cached GET with wrk -t2 -c64 -d10s
# --latency, ROUNDS rounds (default 3), the three servers in turn in each round; the median of each, and each
# build's ratio to nginx in each round (the spread of those ratios is the run's noise).
#   [ROUNDS=3] bench/beside-nginx.sh [REFERENCE_COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
for tool in wrk nginx; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "beside-nginx.sh: $tool is missing: apt-get install $tool" >&2; exit 1; }
done
reference=${1:-b41e517}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; git worktree remove --force "$work/reference" 2>/dev/null || true; rm -rf "$work"' EXIT

swift build -c release --product kuroneko >&2
cp .build/release/kuroneko "$work/kuroneko-head"
git worktree add --detach "$work/reference" "$reference" >&2
(cd "$work/reference" && scripts/package-mirrors 2>/dev/null || true; cd "$work/reference" && swift build -c release --product kuroneko >&2)
cp "$work/reference/.build/release/kuroneko" "$work/kuroneko-reference"

target=/v1/shipments/3277-5445-9830
start() { # start PORT COMMAND...: runs a server in the background and waits for its port
    local port=$1; shift
    "$@" >"$work/server.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && return; sleep 0.1; done
    echo "beside-nginx.sh: $* did not start" >&2; exit 1
}
measure() { # measure URL: requests/s and p99 (ms) of a 10 s run
    curl -s -o /dev/null "$1"
    wrk -t2 -c64 -d10s --latency "$1" |
        awk '/Requests\/sec/ { rps = $2 } / 99%/ { p99 = $2 }
             END { if (p99 ~ /us$/) { sub(/us/, "", p99); p99 /= 1000 } else if (p99 ~ /ms$/) { sub(/ms/, "", p99) }
                   else { sub(/s/, "", p99); p99 *= 1000 }
                   printf "%.0f %.2f\n", rps, p99 }'
}

# nginx serves the body the cached lookup answers, with the same content type.
start 18091 "$work/kuroneko-head" serve --demo --port 18091
curl -s "http://127.0.0.1:18091$target" >"$work/answer.json"
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
mkdir -p "$work/www/v1/shipments"
cp "$work/answer.json" "$work/www/v1/shipments/3277-5445-9830"
cat >"$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    types { application/json json; }
    default_type application/json;
    server {
        listen 127.0.0.1:18092;
        root $work/www;
        location = / { return 200 "ok"; }
    }
}
CONF
nginx=$(command -v nginx || echo /usr/sbin/nginx)

declare -A results
for round in $(seq 1 "$rounds"); do
    for server in head reference nginx; do
        if [ "$server" = nginx ]; then
            "$nginx" -c "$work/nginx.conf" -p "$work" -g 'daemon on;'
            for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18092/ && break; sleep 0.1; done
            line=$(measure "http://127.0.0.1:18092$target")
            kill "$(cat "$work/nginx.pid")"; while [ -f "$work/nginx.pid" ]; do sleep 0.1; done
        else
            start 18090 "$work/kuroneko-$server" serve --demo --port 18090
            line=$(measure "http://127.0.0.1:18090$target")
            kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
        fi
        results[$server]+="${line%% *} "
        echo "round $round $server: ${line%% *} req/s, p99 ${line##* } ms" >&2
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| server | req/s per round | median |"
echo "|---|---|---|"
for server in head reference nginx; do
    echo "| $server | ${results[$server]} | $(echo "${results[$server]}" | median) |"
done
read -ra head <<<"${results[head]}"; read -ra ref <<<"${results[reference]}"; read -ra ngx <<<"${results[nginx]}"
ratios_head=""; ratios_ref=""
for i in "${!ngx[@]}"; do
    ratios_head+="$(awk -v a="${head[$i]}" -v b="${ngx[$i]}" 'BEGIN { printf "%.3f", a / b }') "
    ratios_ref+="$(awk -v a="${ref[$i]}" -v b="${ngx[$i]}" 'BEGIN { printf "%.3f", a / b }') "
done
echo
echo "HEAD / nginx per round: $ratios_head(median $(echo "$ratios_head" | median))"
echo "$reference / nginx per round: $ratios_ref(median $(echo "$ratios_ref" | median))"
