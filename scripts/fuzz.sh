#!/usr/bin/env bash
# Builds a libFuzzer target of the nested package Fuzz/ with -sanitize=fuzzer,address and runs
# it for SECONDS with a corpus seeded from ../shared/conformance (Golden Liquid, liquid-spec),
# the bundled campaigns and profiles.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   TARGET: fuzz-template | fuzz-json | fuzz-campaign | fuzz-batch-line
# The corpus grows in Fuzz/corpus/TARGET (not committed); a crashing input is written to
# Fuzz/crashes/TARGET/ and the script exits non-zero. FUZZ_JOBS=N runs N processes at once.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]" >&2
    echo "targets: fuzz-template fuzz-json fuzz-campaign fuzz-batch-line" >&2
    exit 2
fi
TARGET=$1 SECONDS_TO_RUN=$2
shift 2
case "$TARGET" in
    fuzz-template|fuzz-json|fuzz-campaign|fuzz-batch-line) ;;
    *) echo "fuzz: unknown target '$TARGET'" >&2; exit 2 ;;
esac
source scripts/bootstrap.sh
SHARED=${PUSHLIQUID_SHARED:-../shared}
# ld.gold fails on these objects (an internal error in its DWARF reader): link with lld.
FLAGS=(-c release --package-path Fuzz --product "$TARGET" -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
# SwiftPM can keep a stale list of the root package's files in this nested package's build
# (a file added to Sources/ is then "not in scope"): clean once and retry before giving up.
if ! swift build "${FLAGS[@]}" >&2; then
    echo "fuzz: build failed; cleaning the nested package's build and retrying" >&2
    swift package --package-path Fuzz clean >&2
    swift build "${FLAGS[@]}" >&2
fi
BIN="$(swift build "${FLAGS[@]}" --show-bin-path)/$TARGET"
CORPUS=Fuzz/corpus/$TARGET SEEDS=Fuzz/corpus/$TARGET-seeds CRASHES=Fuzz/crashes/$TARGET
mkdir -p "$CORPUS" "$CRASHES"
python3 scripts/fuzz-seeds.py "$TARGET" "$SEEDS" "$SHARED"
# Swift's backtracer would catch a trap before libFuzzer sees it; leaks at exit are the
# globals the targets keep (compiled templates), not findings.
export SWIFT_BACKTRACE=enable=no
# A small quarantine keeps ASan's memory (and the fuzzer's speed) steady over millions of runs.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=16:malloc_context_size=5}
JOBS=${FUZZ_JOBS:-1}
# Inputs up to 4 KB: templates, documents and campaign files of that size reach every path
# (and longer ones only make each run slower).
ARGS=(-max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=4096 -timeout=20 -detect_leaks=0 -max_len=4096
      -artifact_prefix="$CRASHES/" -print_final_stats=1)
if [ "$JOBS" -gt 1 ]; then ARGS+=(-fork="$JOBS"); fi
"$BIN" "${ARGS[@]}" "$@" "$CORPUS" "$SEEDS"
