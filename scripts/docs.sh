#!/usr/bin/env bash
# Builds the DocC documentation of the four library products (Liquid, Personalization,
# PushPayload, ContentViews) with the toolchain's own docc: symbol graphs from
# `swift package dump-symbol-graph`, then one .doccarchive per product in .build/docs/.
#   scripts/docs.sh            # archives in .build/docs/<Module>.doccarchive
#   scripts/docs.sh --preview  # also serves Liquid's on http://localhost:8080 (docc preview)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift package dump-symbol-graph --minimum-access-level public >&2
GRAPHS=$(find .build -type d -name symbolgraph -path "*$(uname -m)*" | head -1)
OUT=.build/docs
mkdir -p "$OUT"
for module in Liquid Personalization PushPayload ContentViews; do
    graphs=$(mktemp -d)
    cp "$GRAPHS/$module".symbols.json "$GRAPHS/$module"@*.symbols.json "$graphs"/ 2>/dev/null || true
    docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "pushliquid.$module" \
        --output-path "$OUT/$module.doccarchive" --warnings-as-errors
    rm -rf "$graphs"
    echo "docs: $OUT/$module.doccarchive"
done
if [ "${1:-}" = "--preview" ]; then
    docc preview Sources/Liquid/Liquid.docc --additional-symbol-graph-dir "$GRAPHS"
fi
