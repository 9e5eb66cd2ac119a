#!/usr/bin/env bash
# Recipients per second of the Spark job (deploy/spark/render_campaign.py) in local mode with 1
# and 2 executor cores, against the plain `pushliquid batch` command, over COUNT generated
# contexts (default 100,000) of the bundled learning-progress campaign; release binary.
#   Benchmarks/spark-throughput.sh [COUNT] [ROUNDS]
# Prints a table: wall time of the whole command (JVM and Spark start included) and of the
# render-and-write stage alone, each the median of ROUNDS runs (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
COUNT=${1:-100000}
ROUNDS=${2:-3}
build_release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 ../shared/bench/gen_contexts.py "$COUNT" 7 > "$WORK/segment.ndjson"
python3 - "$WORK" "$COUNT" "$ROUNDS" <<'PY'
import json, statistics, subprocess, sys, time
work, count, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
binary = ".build/release/pushliquid"
def plain():
    t = time.monotonic()
    with open(f"{work}/segment.ndjson", "rb") as i, open("/dev/null", "wb") as o:
        subprocess.run([binary, "batch", "learning-progress"], stdin=i, stdout=o, stderr=subprocess.DEVNULL, check=True)
    s = time.monotonic() - t
    return s, s
def spark(cores):
    t = time.monotonic()
    r = subprocess.run(["spark-submit", "--master", f"local[{cores},4]", "--conf", "spark.ui.enabled=false",
                        "deploy/spark/render_campaign.py", "--binary", binary, "--workspace", ".", "--campaign", "learning-progress",
                        "--input", f"{work}/segment.ndjson", "--output", f"{work}/out", "--partitions", str(2 * cores)],
                       capture_output=True, text=True, check=True)
    return time.monotonic() - t, json.loads(r.stdout.strip().splitlines()[-1])["render_seconds"]
rows = [("pushliquid batch (2 cores, one process)", plain)] + [(f"Spark local[{c}] ({2 * c} partitions)", lambda c=c: spark(c)) for c in (1, 2)]
print(f"| {count:,} recipients | whole command | recipients/s | render and write stage | recipients/s |")
print("| --- | --- | --- | --- | --- |")
for name, run in rows:
    runs = [run() for _ in range(rounds)]
    wall = statistics.median(r[0] for r in runs); stage = statistics.median(r[1] for r in runs)
    print(f"| {name} | {wall:.2f} s | {count / wall:,.0f} | {stage:.2f} s | {count / stage:,.0f} |")
PY
