#!/usr/bin/env bash
# Installs what the build needs and is not in the toolchain: PCRE2 (Debian's libpcre2-dev).
# Sourced by scripts/run.sh, scripts/test.sh and the benchmark scripts; safe to run again.
# `build_release` builds the release pushliquid (and installs what that link needs).
set -euo pipefail

# Installs Debian packages (as root, or with sudo).
apt_install() {
    local SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >&2
}

if ! pkg-config --exists libpcre2-8 2>/dev/null; then
    echo "bootstrap: installing libpcre2-dev (PCRE2) from Debian..." >&2
    apt_install libpcre2-dev pkg-config
fi
if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /opt/swift/bin; do
        if [ -x "$dir/swift" ]; then export PATH="$dir:$PATH"; fi
    done
fi

# Builds .build/release/pushliquid. On Linux the Swift runtime and Foundation are linked
# statically, so that the tool starts in ~6 ms instead of ~20 ms (fifty shared libraries fewer
# to load and relocate: a seventh of a 10,000-line batch). libcurl is not linked at all: the
# HTTP client loads it on the first Connected Content request (`--online`). Debug builds and the
# tests link dynamically.
build_release() {
    local flags=(-c release --product pushliquid)
    if [ "$(uname -s)" = "Linux" ]; then flags+=(-Xswiftc -static-stdlib); fi
    swift build "${flags[@]}" >&2
}
