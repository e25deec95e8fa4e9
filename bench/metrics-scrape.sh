#!/usr/bin/env bash
# Does scraping /metrics during load slow the cached path? (run by hand, ~1 minute) `serve --demo`, release
# build, after 2,000 requests with random methods and paths (the label sets must stay bounded): cached GET
# with wrk -t2 -c64 -d10s, three rounds without and three with a scraper fetching /metrics every 100 ms;
# medians, and the size of one scrape.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
swift build -c release --product kuroneko >&2
.build/release/kuroneko serve --demo --port 18096 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18096/healthz && break; sleep 0.1; done
url=http://127.0.0.1:18096/v1/shipments/3277-5445-9830
curl -s -o /dev/null "$url"
python3 - <<'PY'
import random, socket
random.seed(7)
for _ in range(2000):
    method = "".join(chr(random.randint(65, 90)) for _ in range(random.randint(1, 10)))
    path = "/" + "".join(chr(random.randint(97, 122)) for _ in range(random.randint(1, 20)))
    s = socket.create_connection(("127.0.0.1", 18096))
    s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % (method, path)).encode())
    while s.recv(4096):
        pass
    s.close()
PY
echo "one scrape: $(curl -s http://127.0.0.1:18096/metrics | wc -c) bytes, $(curl -s http://127.0.0.1:18096/metrics | grep -vc '^#') samples"
run() { wrk -t2 -c64 -d10s "$url" | awk '/Requests\/sec/ { print $2 }'; }
without=(); with=()
for round in 1 2 3; do
    without+=("$(run)")
    (while true; do curl -s -o /dev/null http://127.0.0.1:18096/metrics; sleep 0.1; done) &
    scraper=$!
    with+=("$(run)")
    kill $scraper
    echo "round $round: without ${without[-1]} req/s, with a scraper ${with[-1]} req/s"
done
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
awk -v a="$(median "${without[@]}")" -v b="$(median "${with[@]}")" \
    'BEGIN { printf "median without %.0f, with %.0f req/s: %.1f%% change\n", a, b, (b - a) / a * 100 }'
