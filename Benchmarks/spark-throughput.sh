#!/usr/bin/env bash
# Recipients per second of the Spark job (deploy/spark/render_campaign.py) in local mode with 1
# and 2 executor cores, against the plain `pushliquid batch` command with as many workers, over
# COUNT generated contexts (default 1,000,000: enough that the JVM's warm-up is not the figure)
# of the bundled learning-progress campaign; release binary. Needs pyspark (scripts/spark-test.sh
# installs it).
#   Benchmarks/spark-throughput.sh [COUNT] [ROUNDS]
# Prints a table, each figure the median of ROUNDS runs (default 3): the whole command (JVM and
# Spark start included), and the job's stages: numbering (one pass counting the segment's rows),
# rendering and writing (the pipe into pushliquid and the committed output), and the check of
# what was committed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
COUNT=${1:-1000000}
ROUNDS=${2:-3}
build_release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 ../shared/bench/gen_contexts.py "$COUNT" 7 > "$WORK/segment.ndjson"
python3 - "$WORK" "$COUNT" "$ROUNDS" <<'PY'
import json, statistics, subprocess, sys, time
work, count, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
binary = ".build/release/pushliquid"
def plain(workers):
    t = time.monotonic()
    with open(f"{work}/segment.ndjson", "rb") as i, open(f"{work}/plain.ndjson", "wb") as o:
        subprocess.run([binary, "batch", "learning-progress", "--workers", str(workers)], stdin=i, stdout=o, stderr=subprocess.DEVNULL, check=True)
    s = time.monotonic() - t
    return {"wall": s, "render": s}
def spark(cores):
    t = time.monotonic()
    r = subprocess.run(["spark-submit", "--master", f"local[{cores},4]", "--conf", "spark.ui.enabled=false",
                        "deploy/spark/render_campaign.py", "--binary", binary, "--workspace", ".", "--campaign", "learning-progress",
                        "--input", f"{work}/segment.ndjson", "--output", f"{work}/out"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stdout[-3000:] + r.stderr[-3000:])
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    return {"wall": time.monotonic() - t, "count": summary["count_seconds"], "render": summary["render_seconds"],
            "check": summary["check_seconds"], "partitions": summary["partitions"]}
rows = [(f"`pushliquid batch --workers {c}`", lambda c=c: plain(c)) for c in (1, 2)] + \
       [(f"Spark `local[{c}]`", lambda c=c: spark(c)) for c in (1, 2)]
print(f"| {count:,} recipients | whole command | recipients/s | numbering | render and write | recipients/s | check |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name, run in rows:
    runs = [run() for _ in range(rounds)]
    m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    cell = lambda k: f"{m[k]:.2f} s" if k in m else "–"
    parts = f" ({int(m['partitions'])} partitions)" if "partitions" in m else ""
    print(f"| {name}{parts} | {m['wall']:.2f} s | {count / m['wall']:,.0f} | {cell('count')} | {m['render']:.2f} s | "
          f"{count / m['render']:,.0f} | {cell('check')} |")
PY
