#!/usr/bin/env bash
# Builds pushliquid (release) and runs it. With no arguments: a campaign preview of the
# bundled example in Templates/ against a profile in Profiles/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
build_release
if [ $# -eq 0 ]; then set -- preview; fi
exec .build/release/pushliquid "$@"
