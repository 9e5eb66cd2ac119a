#!/usr/bin/env bash
# The studio's browser test (scripts/studio-browser-test.py): installs what it needs when it is
# missing (Debian's chromium and chromium-driver, Selenium from PyPI), builds pushliquid and
# drives the studio in headless chromium. Screenshots go to .build/artifacts/studio/.
# With CI=true a browser that cannot be had is a failure; elsewhere the test is skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh

missing() {
    local fail=0
    command -v chromium >/dev/null 2>&1 || fail=1
    command -v chromedriver >/dev/null 2>&1 || fail=1
    python3 -c "import selenium" >/dev/null 2>&1 || fail=1
    return $((1 - fail))
}

if missing; then
    echo "studio-test: installing chromium, chromium-driver (Debian) and selenium (PyPI)..." >&2
    apt_install chromium chromium-driver || true
    python3 -m pip install -q selenium >&2 || true
fi
if missing; then
    if [ "${CI:-}" = "true" ]; then
        echo "studio-test: FAILED: chromium, chromedriver or selenium is missing and could not be installed (CI=true: no skipping)" >&2
        exit 1
    fi
    echo "studio-test: SKIPPED: chromium, chromedriver or selenium is missing and could not be installed" >&2
    exit 0
fi
swift build --product pushliquid >&2
start=$(date +%s.%N)
python3 scripts/studio-browser-test.py .build/debug/pushliquid .build/artifacts/studio
echo "studio-test: the browser test took $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s (chromium $(chromium --version 2>/dev/null | awk '{print $2}'))" >&2
