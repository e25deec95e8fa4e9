#!/bin/sh
# The shipping-mail reader on hostile mail (issue 42): each shape bench/hostile-mail.py writes, at the upload's
# largest (4 MiB) and the mailbox's (25 MiB), read by `kuroneko intake --json`; its wall time and peak resident
# memory (process start included) as /usr/bin/time measures them, the best of three.
# Usage: bench/hostile-mail.sh   (KURONEKO_BINARY: default the release build)
set -eu
cd "$(dirname "$0")/.."
binary=${KURONEKO_BINARY:-.build/release/kuroneko}
work=$(mktemp -d /tmp/kuroneko-hostile-mail.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "binary: $binary"
for size in 4194304 26214400; do
    mkdir -p "$work/$size"
    python3 bench/hostile-mail.py "$work/$size" "$size"
    for mail in "$work/$size"/*.eml; do
        best=""; memory=""
        for run in 1 2 3; do
            /usr/bin/time -f "%e %M" -o "$work/time" "$binary" intake --json "$mail" > "$work/out" 2> "$work/err" || true
            read seconds kilobytes < "$work/time"
            if [ -z "$best" ] || [ "$(echo "$seconds < $best" | bc)" = 1 ]; then best=$seconds; memory=$kilobytes; fi
        done
        printf "%-9s %-18s %6s s %8s KiB peak  %s parcels\n" "$size" "$(basename "$mail" .eml)" "$best" "$memory" "$(wc -l < "$work/out")"
    done
done
