#!/usr/bin/env bash
# Installs what the build needs and is not in the toolchain: PCRE2 (Debian's libpcre2-dev) and,
# for linking release builds, libcurl's development files (Debian's libcurl4-openssl-dev).
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
# Release builds of pushliquid link the Swift runtime statically (RELEASE_BUILD below); the
# link needs the system libcurl's development symlink, from Debian's libcurl4-openssl-dev.
if [ "$(uname -s)" = "Linux" ] && ! pkg-config --exists libcurl 2>/dev/null; then
    echo "bootstrap: installing libcurl4-openssl-dev (for linking release builds) from Debian..." >&2
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq >&2
    $SUDO apt-get install -y -qq libcurl4-openssl-dev pkg-config >&2
fi
if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /opt/swift/bin; do
        if [ -x "$dir/swift" ]; then export PATH="$dir:$PATH"; fi
    done
fi
# How the scripts build the release pushliquid: on Linux with the Swift runtime and Foundation
# linked statically, so that the tool starts in ~10 ms instead of ~20 ms (fifty shared libraries
# fewer to load and relocate: a seventh of a 10,000-line batch). FoundationNetworking still
# links the system libcurl dynamically.
RELEASE_BUILD=(-c release --product pushliquid)
if [ "$(uname -s)" = "Linux" ]; then RELEASE_BUILD+=(-Xswiftc -static-stdlib); fi
