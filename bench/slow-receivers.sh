#!/bin/sh
# How soon a healthy channel is told while one channel's receiver accepts and never answers and another's
# trickles a byte a second (issue 33). Runs the test that holds it (a real OutboxDeliverer, the libcurl sender,
# receivers on 127.0.0.1) RUNS times and prints the delays it measured, from queuing an announcement to its
# delivery being recorded. Usage: bench/slow-receivers.sh [RUNS]   (after `swift build --build-tests`)
set -eu
runs=${1:-5}
cd "$(dirname "$0")/.."
i=0
while [ "$i" -lt "$runs" ]; do
    swift test --skip-build --filter healthyChannelBesideSlowOnes 2>&1 | grep '^beside a hanging' || {
        echo "run $i failed" >&2
        exit 1
    }
    i=$((i + 1))
done
