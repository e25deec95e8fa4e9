#!/usr/bin/env bash
# Builds the page parser with libFuzzer and AddressSanitizer and fuzzes it, seeded with the fixture pages.
# Usage: bench/fuzz/run.sh [SECONDS]   (default 600). Crashes land in bench/fuzz/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-600}
build=.build/fuzz
corpus=bench/fuzz/corpus
mkdir -p "$build" "$corpus" bench/fuzz/out
scripts/bootstrap

swiftc -sanitize=fuzzer,address -O -parse-as-library -module-name KuronekoFuzz \
    -I Sources/CLibXML2 $(pkg-config --cflags-only-I libxml-2.0 | sed 's/-I/-Xcc -I/g') \
    $(find Sources/Kuroneko -name '*.swift' | sort) bench/fuzz/ParserFuzzer.swift \
    -o "$build/parser-fuzzer"

cp Tests/Fixtures/yamato/current/*.html "$corpus/"
if [ -d ../shared/fixtures/yamato/real ]; then
    find ../shared/fixtures/yamato/real -type f \( -name '*.html' -o -name '*.txt' \) -exec cp {} "$corpus/" \;
fi

"$build/parser-fuzzer" "$corpus" -max_total_time="$seconds" -max_len=131072 -rss_limit_mb=4096 \
    -artifact_prefix=bench/fuzz/out/ -print_final_stats=1
