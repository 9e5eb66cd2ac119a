#!/usr/bin/env bash
# Installs what the build needs and is not in the toolchain: PCRE2 (Debian's libpcre2-dev).
# Sourced by scripts/run.sh and scripts/test.sh; safe to run again.
set -euo pipefail
if ! pkg-config --exists libpcre2-8 2>/dev/null; then
    echo "bootstrap: installing libpcre2-dev (PCRE2) from Debian..." >&2
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq >&2
    $SUDO apt-get install -y -qq libpcre2-dev pkg-config >&2
fi
if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /opt/swift/bin; do
        if [ -x "$dir/swift" ]; then export PATH="$dir:$PATH"; fi
    done
fi
