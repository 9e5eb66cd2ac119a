#!/usr/bin/env bash
# Runs the whole test suite (Swift Testing), including the Golden Liquid conformance suite
# from ../shared/conformance/golden-liquid (required when CI=true), then the studio in a real
# browser (scripts/studio-test.sh: headless chromium, installed when missing), the Spark job in
# local mode (scripts/spark-test.sh: pyspark, installed when missing), then builds the
# DocC documentation with warnings as errors (a broken symbol link fails the run).
#   scripts/test.sh              # everything
#   scripts/test.sh ARGS...      # swift test ARGS... only (say --filter CLITests)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift test "$@"
if [ $# -eq 0 ]; then
    scripts/studio-test.sh
    scripts/spark-test.sh
    scripts/docs.sh
fi
