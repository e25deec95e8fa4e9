#!/usr/bin/env bash
# The web app's weight and its list's render time with 200 parcels (bench/webapp.py), against the release
# build, in the browser-test virtualenv (scripts/check-webapp makes it). Usage: bench/webapp.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product kuroneko >/dev/null
[ -x .build/webapp-venv/bin/python ] || { echo "webapp.sh: run scripts/check-webapp once first (it makes .build/webapp-venv)" >&2; exit 1; }
KURONEKO_BINARY="$PWD/.build/release/kuroneko" .build/webapp-venv/bin/python bench/webapp.py "$@"
