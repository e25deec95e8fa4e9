#!/usr/bin/env bash
# A cache hit through the API and its middleware in one process (bench/HitPathBenchmark): nanoseconds per
# answer with warm caches, with cold ones and on two threads at once, five rounds. Run by hand on an otherwise
# idle machine (~1 minute).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap
swift build -c release --product HitPathBenchmark >&2
.build/release/HitPathBenchmark
