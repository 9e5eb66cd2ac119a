#!/usr/bin/env bash
# Builds and runs the benchmarks in release mode, with the malloc counter preloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
if [ ! -x /usr/bin/time ]; then
    SUDO=""; [ "$(id -u)" != "0" ] && SUDO="sudo"
    $SUDO apt-get install -y -qq time >&2   # GNU time, for the batch's peak memory
fi
swift build -c release --product pushliquid >&2
swift build -c release --package-path Benchmarks >&2
BIN=$(swift build -c release --package-path Benchmarks --show-bin-path)
LD_PRELOAD="$BIN/libMallocInterposerSwift.so" "$BIN/liquid-bench"
