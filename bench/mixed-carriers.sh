#!/usr/bin/env bash
# 100 numbers of three carriers, none named, tracked at once against `kuroneko simulate` (which serves all
# three at their real paths), at each carrier's default politeness (Yamato: 2 at once, 1 s between starts;
# Sagawa and Japan Post: 1 at once, 1 s apart). Prints the requests each carrier received, the numbers they
# carried, and the time from the start of `kuroneko track` to its last answer. Run by hand; under a minute.
#   55 Yamato (12 digits), 15 Sagawa (12 digits starting 8) and 10 Sagawa (10 digits), 10 Japan Post
#   (12 digits starting 9), 5 Japan Post 書留 (11 digits), 5 Japan Post international (S10).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product kuroneko >&2
kuroneko=.build/release/kuroneko
work=$(mktemp -d)
trap 'kill "$simulator" 2>/dev/null || true; rm -rf "$work"' EXIT
"$kuroneko" simulate --port 18120 --start 2026-11-30T12:00:00+09:00 --speed 0 2>"$work/simulator.log" &
simulator=$!
for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18120/admin/stats && break; sleep 0.1; done
python3 - >"$work/numbers.txt" <<'PY'
def mod7(digits):
    return str(int(digits) % 7)
def s10(serial):
    total = sum(int(d) * w for d, w in zip(serial, [8, 6, 4, 2, 3, 5, 9, 7]))
    check = 11 - total % 11
    return str(0 if check == 10 else 5 if check == 11 else check)
numbers = []
numbers += [f"{e}{mod7(str(e))}" for e in (30_000_000_000 + i * 7_919 for i in range(55))]
numbers += [f"{e}{mod7(str(e))}" for e in (80_000_000_000 + i * 7_919 for i in range(15))]
numbers += [str(1_000_000_000 + i * 7_919) for i in range(10)]
numbers += [f"{e}{mod7(str(e))}" for e in (90_000_000_000 + i * 7_919 for i in range(10))]
numbers += [f"{e}{mod7(str(e))}" for e in (3_100_000_000 + i * 7_919 for i in range(5))]
numbers += [f"EN{s}{s10(s)}JP" for s in (str(41_827_365 + i * 7_919) for i in range(5))]
print("\n".join(numbers))
PY
origin=http://127.0.0.1:18120
started=$(date +%s.%N)
"$kuroneko" track --jsonl --quiet --endpoint "yamato=$origin/cgi-bin/tneko,sagawa=$origin,japanpost=$origin" \
    <"$work/numbers.txt" >"$work/answers.jsonl"
ended=$(date +%s.%N)
python3 - "$work/answers.jsonl" <<'PY'
import collections, json, sys
answers = [json.loads(line) for line in open(sys.argv[1])]
found = collections.Counter(a["carrier"] for a in answers if a["status"]["code"] != "not_found")
nobody = sum(1 for a in answers if a.get("carriers_asked"))
print(f"answers: {len(answers)}; found at yamato {found['yamato']}, sagawa {found['sagawa']}, "
      f"japanpost {found['japanpost']}; not found anywhere: {nobody}")
PY
curl -s http://127.0.0.1:18120/admin/stats >"$work/stats.json"
python3 - "$work/stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
print(f"yamato: {stats['posts']} POSTs for {stats['numbers']} numbers")
for carrier in ("sagawa", "japanpost"):
    counts = stats["carriers"].get(carrier, {"requests": 0, "numbers": 0})
    print(f"{carrier}: {counts['requests']} requests for {counts['numbers']} numbers")
PY
awk -v s="$started" -v e="$ended" 'BEGIN { printf "time to the last answer: %.1f s\n", e - s }'
