#!/usr/bin/env bash
# Runs the whole test suite (Swift Testing), including the Golden Liquid conformance suite
# from ../shared/conformance/golden-liquid (required when CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
exec swift test "$@"
