#!/bin/sh
# The import's peak resident memory and time for 64 MiB of valid rows and for hostile shapes (issue 35): a
# 1 GiB sparse file, 20 MB of carriage returns, 30 MB of commas, a 60 MB unclosed quote, 1,000,000 invalid rows.
# Valid rows repeat 1,000 numbers (a real 64 MiB sheet would take days of polite requests); the simulator answers
# them at --min-interval 0. Usage: bench/import-memory.sh   (KURONEKO_BINARY: default the release build)
set -eu
cd "$(dirname "$0")/.."
binary=${KURONEKO_BINARY:-.build/release/kuroneko}
work=$(mktemp -d /tmp/kuroneko-import-bench.XXXXXX)
trap 'kill $simulator 2>/dev/null; rm -rf "$work"' EXIT
"$binary" simulate --port 18499 >/dev/null 2>&1 &
simulator=$!
sleep 1
python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
def digit(eleven): return str(int(eleven) % 7)
numbers = [f"{31000000000 + i * 7919}" for i in range(1000)]
numbers = [n + digit(n) for n in numbers]
with open(f"{work}/valid.csv", "w") as f:
    f.write("order,tracking_no,memo\n")
    size, i = 0, 0
    while size < 64 * 1048576 - 200:
        line = f"A-{i:08d},{numbers[i % 1000]},株式会社サンプル様\n"
        size += len(line.encode())
        if size >= 64 * 1048576:
            break
        f.write(line)
        i += 1
with open(f"{work}/sparse.csv", "wb") as f:
    f.truncate(1 << 30)
with open(f"{work}/crs.csv", "wb") as f:
    f.write(b"no\n" + b"\r" * 20_000_000)
with open(f"{work}/commas.csv", "wb") as f:
    f.write(b"no\n" + b"," * 30_000_000)
with open(f"{work}/quote.csv", "wb") as f:
    f.write(b"no\n\"" + b"x" * 60_000_000)
with open(f"{work}/invalid.csv", "w") as f:
    f.write("no\n" + "12\n" * 1_000_000)
PY
for name in valid sparse crs commas quote invalid; do
    column=1
    [ "$name" = valid ] && column=2
    /usr/bin/time -f "$name: peak %M KiB, %e s, exit %x" "$binary" import "$work/$name.csv" --column "$column" -q \
        --endpoint "http://127.0.0.1:18499/cgi-bin/tneko" --min-interval 0 >/dev/null 2>"$work/$name.err" || true
    tail -1 "$work/$name.err"
done
echo "baseline (kuroneko --version): $(/usr/bin/time -f '%M' "$binary" --version 2>&1 >/dev/null | tail -1) KiB"
