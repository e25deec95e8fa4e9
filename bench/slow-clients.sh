#!/usr/bin/env bash
# Slow clients against `kuroneko serve --demo` with its defaults (run by hand): see bench/slow-clients.py.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
swift build -c release --product kuroneko >&2
ulimit -n "$(ulimit -Hn)"
.build/release/kuroneko serve --demo --port 18095 2>/tmp/slow-clients-serve.log &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18095/healthz && break; sleep 0.1; done
grep -o 'max_connections=[0-9]* receive_timeout_s=[0-9]*' /tmp/slow-clients-serve.log
python3 bench/slow-clients.py 18095
