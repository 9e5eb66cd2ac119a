#!/usr/bin/env bash
# Measures PushLiquid against the Ruby reference (Shopify Liquid, Debian's ruby-liquid, no JIT)
# on workload W1 in one run on this machine, and prints the ratios:
#   field renders  (pushliquid bench on the Braze W1  vs  render_w1.rb render on the standard W1)
#   parsing        (pushliquid bench --parse-rounds  vs  render_w1.rb parse)
#   the batch job  (pushliquid batch, all cores      vs  render_w1.rb batch): both as whole
#                  processes (start-up, reading, rendering, writing), and ours against Ruby's
#                  timed loop alone (its start-up and `require 'liquid'` left out), the stricter one
# W1 field renders are also measured on Ruby with --yjit and with liquid-c (Shopify's C extension,
# Debian's ruby-liquid-c), installed when missing. Then the page workloads of
# Benchmarks/workloads/gen_workloads.py (W2, W2 without truncate, a 10 KB page) and, with
# --filters, every string filter on short, 1 KB ASCII and 1 KB UTF-8 input, on all four engines
# (Benchmarks/compare_pages.py), each printed as a table.
# Each figure is a median over runs of the engines taking turns (three; five for the batch).
# Usage: Benchmarks/compare-reference.sh [CONTEXTS] [--filters]   (default: 10,000 from gen_contexts.py)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
if ! command -v ruby >/dev/null || ! ruby -e 'require "liquid"; require "liquid/c"' 2>/dev/null; then
    echo "compare: installing ruby ruby-liquid ruby-liquid-c from Debian..." >&2
    SUDO=""; [ "$(id -u)" != "0" ] && SUDO="sudo"
    $SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ruby ruby-liquid ruby-liquid-c >&2
fi
BENCH=../shared/bench
COUNT=10000
FILTERS=""
for arg in "$@"; do
    case "$arg" in
        --filters) FILTERS="--filters" ;;
        *) COUNT="$arg" ;;
    esac
done
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

# This VM's speed drifts from one minute to the next: each measurement runs three times, ours
# and Ruby's taking turns (so a slow minute hits both sides), and the medians count.
W1_BRAZE="$BENCH/w1-learning-progress.braze.json"
W1_STANDARD="$BENCH/w1-learning-progress.standard.json"
RUBY_W1="ruby Benchmarks/reference/render_w1.rb $W1_STANDARD $WORK/contexts.ndjson"
: > "$WORK/render" ; : > "$WORK/parse" ; : > "$WORK/batch"
# Untimed: warms the page cache, and checks that every line rendered.
$PL batch "$WORK/w1-campaign.json" < "$WORK/contexts.ndjson" > "$WORK/out.ndjson" 2>/dev/null
rendered=$(grep -c '"status":"rendered"' "$WORK/out.ndjson" || true)
[ "$rendered" = "$COUNT" ] || { echo "compare: pushliquid batch rendered $rendered of $COUNT lines" >&2; exit 1; }
for _ in 1 2 3; do
    echo "ours $($PL bench --templates "$W1_BRAZE" --contexts "$WORK/contexts.ndjson" | value render_seconds)" >> "$WORK/render"
    echo "ruby $($RUBY_W1 render | value render_seconds)" >> "$WORK/render"
    echo "yjit $(ruby --yjit Benchmarks/reference/render_w1.rb "$W1_STANDARD" "$WORK/contexts.ndjson" render | value render_seconds)" >> "$WORK/render"
    echo "liquidc $($RUBY_W1 render liquid-c | value render_seconds)" >> "$WORK/render"
    echo "ours $($PL bench --templates "$W1_BRAZE" --contexts "$WORK/contexts.ndjson" --parse-rounds 2000 | value parse_seconds)" >> "$WORK/parse"
    echo "ruby $($RUBY_W1 parse | value parse_seconds)" >> "$WORK/parse"
done
# The batch as whole processes (start-up, reading, rendering, writing), Ruby's timed loop too;
# whole processes are the noisiest figure, so five turns. Both write their lines to /dev/null
# (the Ruby script's batch mode does), so neither pays for a file system.
for _ in 1 2 3 4 5; do
    start=$(date +%s.%N); $PL batch "$WORK/w1-campaign.json" < "$WORK/contexts.ndjson" > /dev/null 2>/dev/null; end=$(date +%s.%N)
    echo "ours $(awk "BEGIN { print $end - $start }")" >> "$WORK/batch"
    start=$(date +%s.%N); inner=$($RUBY_W1 batch | value batch_seconds); end=$(date +%s.%N)
    echo "ruby $(awk "BEGIN { print $end - $start }")" >> "$WORK/batch"
    echo "loop $inner" >> "$WORK/batch"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
pick() { awk -v who="$1" '$1 == who { print $2 }' "$WORK/$2" | median; }
ours_render=$(pick ours render); ruby_render=$(pick ruby render)
ours_parse=$(pick ours parse); ruby_parse=$(pick ruby parse)
ours_batch=$(pick ours batch); ruby_batch_process=$(pick ruby batch); ruby_batch=$(pick loop batch)

ratio() { awk "BEGIN { printf \"%.1f\", $2 / $1 }"; }
printf "renders  (%d contexts x 9 fields): pushliquid %.4f s, ruby %.4f s, ratio %sx\n" "$COUNT" "$ours_render" "$ruby_render" "$(ratio "$ours_render" "$ruby_render")"
yjit_render=$(pick yjit render); liquidc_render=$(pick liquidc render)
printf "renders  against ruby --yjit %.4f s, ratio %sx; against liquid-c %.4f s, ratio %sx\n" "$yjit_render" "$(ratio "$ours_render" "$yjit_render")" "$liquidc_render" "$(ratio "$ours_render" "$liquidc_render")"
printf "parse    (2000 x 9 fields):         pushliquid %.4f s, ruby %.4f s, ratio %sx\n" "$ours_parse" "$ruby_parse" "$(ratio "$ours_parse" "$ruby_parse")"
printf "batch    (%d lines, whole process):  pushliquid %.4f s, ruby %.4f s, ratio %sx\n" "$COUNT" "$ours_batch" "$ruby_batch_process" "$(ratio "$ours_batch" "$ruby_batch_process")"
printf "batch    (our whole process vs ruby's timed loop only): ruby %.4f s, ratio %sx\n" "$ruby_batch" "$(ratio "$ours_batch" "$ruby_batch")"

echo
python3 Benchmarks/workloads/gen_workloads.py "$WORK/workloads" > /dev/null
python3 Benchmarks/compare_pages.py "$PL" "$WORK/workloads" 3 $FILTERS
