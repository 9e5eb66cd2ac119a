#!/usr/bin/env bash
# Builds and runs the benchmarks in release mode, with the malloc counter preloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
if [ ! -x /usr/bin/time ]; then
    SUDO=""; [ "$(id -u)" != "0" ] && SUDO="sudo"
    $SUDO apt-get install -y -qq time >&2   # GNU time, for the batch's peak memory
fi
build_release
# SwiftPM can keep a stale list of the root package's files in this nested package's build
# (a file added to Sources/ is then "not in scope"): clean once and retry before giving up.
if ! swift build -c release --package-path Benchmarks >&2; then
    echo "benchmarks: build failed; cleaning the nested package's build and retrying" >&2
    swift package --package-path Benchmarks clean >&2
    swift build -c release --package-path Benchmarks >&2
fi
BIN=$(swift build -c release --package-path Benchmarks --show-bin-path)
LD_PRELOAD="$BIN/libMallocInterposerSwift.so" "$BIN/liquid-bench"
