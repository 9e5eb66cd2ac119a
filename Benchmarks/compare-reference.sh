#!/usr/bin/env bash
# Measures PushLiquid against the Ruby reference (Shopify Liquid, Debian's ruby-liquid, no JIT)
# on workload W1 in one run on this machine, and prints the ratios:
#   field renders  (pushliquid bench on the Braze W1  vs  render_w1.rb render on the standard W1)
#   parsing        (pushliquid bench --parse-rounds  vs  render_w1.rb parse)
#   the batch job  (pushliquid batch, all cores      vs  render_w1.rb batch): both as whole
#                  processes (start-up, reading, rendering, writing), and ours against Ruby's
#                  timed loop alone (its start-up and `require 'liquid'` left out), the stricter one
# Usage: Benchmarks/compare-reference.sh [CONTEXTS]   (default: 10,000 from gen_contexts.py)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
if ! command -v ruby >/dev/null || ! ruby -e 'require "liquid"' 2>/dev/null; then
    echo "compare: installing ruby ruby-liquid from Debian..." >&2
    SUDO=""; [ "$(id -u)" != "0" ] && SUDO="sudo"
    $SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ruby ruby-liquid >&2
fi
BENCH=../shared/bench
COUNT=${1:-10000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$BENCH/gen_contexts.py" "$COUNT" 42 > "$WORK/contexts.ndjson"
python3 - "$BENCH/w1-learning-progress.braze.json" "$WORK/w1-campaign.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1])); spec = {"name": "w1-learning-progress", **spec}
json.dump(spec, open(sys.argv[2], "w"))
PY
build_release
PL=.build/release/pushliquid
echo "ruby: $(ruby -e 'require "liquid"; print "ruby #{RUBY_VERSION}, liquid #{Liquid::VERSION}"')"
value() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | tail -1; }

ours_render=$($PL bench --templates "$BENCH/w1-learning-progress.braze.json" --contexts "$WORK/contexts.ndjson" | value render_seconds)
ruby_render=$(ruby Benchmarks/reference/render_w1.rb "$BENCH/w1-learning-progress.standard.json" "$WORK/contexts.ndjson" render | value render_seconds)
ours_parse=$($PL bench --templates "$BENCH/w1-learning-progress.braze.json" --contexts "$WORK/contexts.ndjson" --parse-rounds 2000 | value parse_seconds)
ruby_parse=$(ruby Benchmarks/reference/render_w1.rb "$BENCH/w1-learning-progress.standard.json" "$WORK/contexts.ndjson" parse | value parse_seconds)
# Whole processes are noisier (start-up, page cache): each side runs three times after
# one untimed run, and the median counts.
median3() { sort -n | sed -n 2p; }
$PL batch "$WORK/w1-campaign.json" < "$WORK/contexts.ndjson" > /dev/null 2>&1
ours_batch=$(for _ in 1 2 3; do
    start=$(date +%s.%N); $PL batch "$WORK/w1-campaign.json" < "$WORK/contexts.ndjson" > "$WORK/out.ndjson" 2>/dev/null; end=$(date +%s.%N)
    awk "BEGIN { print $end - $start }"
done | median3)
ruby_runs=$(for _ in 1 2 3; do
    start=$(date +%s.%N)
    inner=$(ruby Benchmarks/reference/render_w1.rb "$BENCH/w1-learning-progress.standard.json" "$WORK/contexts.ndjson" batch | value batch_seconds)
    end=$(date +%s.%N)
    echo "$(awk "BEGIN { print $end - $start }") $inner"
done)
ruby_batch_process=$(echo "$ruby_runs" | awk '{print $1}' | median3)
ruby_batch=$(echo "$ruby_runs" | awk '{print $2}' | median3)

ratio() { awk "BEGIN { printf \"%.1f\", $2 / $1 }"; }
printf "renders  (%d contexts x 9 fields): pushliquid %.4f s, ruby %.4f s, ratio %sx\n" "$COUNT" "$ours_render" "$ruby_render" "$(ratio "$ours_render" "$ruby_render")"
printf "parse    (2000 x 9 fields):         pushliquid %.4f s, ruby %.4f s, ratio %sx\n" "$ours_parse" "$ruby_parse" "$(ratio "$ours_parse" "$ruby_parse")"
printf "batch    (%d lines, whole process):  pushliquid %.4f s, ruby %.4f s, ratio %sx\n" "$COUNT" "$ours_batch" "$ruby_batch_process" "$(ratio "$ours_batch" "$ruby_batch_process")"
printf "batch    (our whole process vs ruby's timed loop only): ruby %.4f s, ratio %sx\n" "$ruby_batch" "$(ratio "$ours_batch" "$ruby_batch")"
