#!/usr/bin/env bash
# The whole test suite on a loaded machine (issue 42): a clone of COMMIT runs scripts/test again and again
# while a second clone of the same commit builds the package from scratch in a loop beside it
# (rm -rf .build; swift build), until RUNS have passed or one fails. One line per run goes to
# WORK/summary ("run 3: exit 0 in 1317 s at aa5dc61, ended 21:35:33"); each run's output, time-stamped, to
# WORK/run-N.log; the build loop's results to WORK/build.summary. Exits 0 when RUNS passed in a row, else
# the failing run's status.
# Usage: bench/loaded-suite.sh [COMMIT [RUNS]]   (default: HEAD, 10; KURONEKO_LOADED_WORK: default
#        /tmp/kuroneko-loaded; KURONEKO_LOADED_RELEASE=1 makes the build beside a release build; takes about
#        22 minutes a run on 2 cores)
set -u
repository=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$repository" rev-parse --verify --quiet "${1:-HEAD}^{commit}" 2>/dev/null) || {
    echo "loaded-suite: '${1:-HEAD}' is not a commit of $repository; give a commit, e.g. HEAD or aa5dc61" >&2
    exit 2
}
runs=${2:-10}
case "$runs" in
    '' | *[!0-9]* | 0) echo "loaded-suite: RUNS '$runs' must be a whole number of at least 1, e.g. 10" >&2; exit 2 ;;
esac
work=${KURONEKO_LOADED_WORK:-/tmp/kuroneko-loaded}
mkdir -p "$work"
rm -f "$work/done" "$work/summary" "$work/build.summary"

checkout() {   # a clean clone of the commit in $1, keeping its .build when asked ($2 = keep)
    mkdir -p "$1" && cd "$1" || exit 1
    [ -d .git ] || git init -q
    git fetch -q "$repository" "$commit" && git reset -q --hard "$commit" || exit 1
    if [ "${2:-}" = keep ]; then git clean -fdxq -e .build; else git clean -fdxq; fi
}

checkout "$work/suite" keep
checkout "$work/build"
(
    cd "$work/build" || exit 1
    while [ ! -e "$work/done" ]; do
        rm -rf .build
        if [ "${KURONEKO_LOADED_RELEASE:-0}" = 1 ]; then
            swift build -c release >"$work/build.log" 2>&1
        else
            swift build >"$work/build.log" 2>&1
        fi
        echo "$(date +%T) build exit $?" >>"$work/build.summary"
    done
) &
builder=$!
trap 'touch "$work/done"; kill $builder 2>/dev/null; pkill -P $builder 2>/dev/null' EXIT

short=$(git -C "$repository" rev-parse --short "$commit")
status=0
for i in $(seq 1 "$runs"); do
    cd "$work/suite" || exit 1
    start=$(date +%s)
    scripts/test 2>&1 | awk '{ print strftime("%T"), $0; fflush() }' >"$work/run-$i.log"
    status=${PIPESTATUS[0]}
    echo "run $i: exit $status in $(( $(date +%s) - start )) s at $short, ended $(date +%T)" | tee -a "$work/summary"
    [ "$status" -eq 0 ] || break
done
exit "$status"
