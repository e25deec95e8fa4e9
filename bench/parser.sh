#!/usr/bin/env bash
# Parser benchmark: µs per page for Kuroneko's parser, libxml2's bare parse of the same bytes, and the
# Python + lxml and Python + BeautifulSoup parsers of the same fields. Prints a Markdown table.
# Usage: bench/parser.sh   (takes about two minutes; run on an otherwise idle machine)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
python3 -c 'import lxml, bs4' 2>/dev/null || python3 -m pip install --quiet lxml beautifulsoup4
swift build -c release --product ParserBenchmark >&2
pages=$(ls Tests/Fixtures/yamato/current/*.html)
swift_rows=$(.build/release/ParserBenchmark $pages)
python_rows=$(cd bench/python && python3 bench_python.py $(for p in $pages; do echo "../../$p"; done))

echo "| page | bytes | kuroneko µs | bare libxml2 µs | ratio | Python + lxml µs | Python + bs4 µs | vs lxml | vs bs4 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
join -t $'\t' <(echo "$swift_rows" | tail -n +2 | sort) <(echo "$python_rows" | tail -n +2 | sort) |
    awk -F'\t' '{ printf "| %s | %d | %.0f | %.0f | %.2f× | %.0f | %.0f | %.1f× faster | %.0f× faster |\n",
        $1, $2, $3, $4, $5, $6, $7, $6 / $3, $7 / $3 }'
echo
echo "$(swift --version 2>&1 | head -1); libxml2 $(pkg-config --modversion libxml-2.0);" \
    "$(python3 --version); lxml $(python3 -c 'import lxml; print(lxml.__version__)');" \
    "beautifulsoup4 $(python3 -c 'import bs4; print(bs4.__version__)')"
