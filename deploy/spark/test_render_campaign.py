#!/usr/bin/env python3
"""The Spark job (render_campaign.py) on Spark in local mode, checked recipient by recipient
against one `pushliquid batch` run:

1. 100,000 generated contexts (../shared/bench/gen_contexts.py), 2 cores, 4 partitions: every
   line's result once, each equal to the single run's.
2. The same with one partition's `pushliquid` killed midway on its first attempt: Spark retries
   the task, and the results are still every line once, each equal to the single run's.
3. Parquet in and out (2,000 contexts): the same results.
4. Promotion codes across two executors and a killed, retried partition: every recipient one
   code, no code twice, the shared record holding exactly one code per recipient.

    test_render_campaign.py PUSHLIQUID_BINARY

Local mode is `local[2,4]`: two cores, and a failed task tried up to four times (a cluster's
default is four too). Exit 1 on the first check that fails; the times are printed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SHARED = ROOT.parent / "shared"
JOB = ROOT / "deploy/spark/render_campaign.py"
BINARY = Path(sys.argv[1]).resolve()
MASTER = "local[2,4]"
work = Path(tempfile.mkdtemp(prefix="spark-test-"))
times = {}


def fail(message):
    print(f"spark-test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def spark_submit(*args, name):
    started = time.monotonic()
    r = subprocess.run(["spark-submit", "--master", MASTER, "--conf", "spark.ui.enabled=false", str(JOB), *map(str, args)],
                       capture_output=True, text=True)
    times[name] = time.monotonic() - started
    if r.returncode != 0:
        fail(f"{name}: spark-submit exited {r.returncode}:\n" + r.stderr[-4000:])
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    return summary, r.stderr


def results_of(folder):
    """Every result line of a JSON-lines output, by its line number; a line twice is a failure."""
    by_line = {}
    for part in sorted(Path(folder).glob("part-*")):
        for raw in part.read_text(encoding="utf-8").splitlines():
            result = json.loads(raw)
            check(result["line"] not in by_line, f"line {result['line']} is in the output twice")
            by_line[result["line"]] = result
    return by_line


def single_run(contexts, workspace, campaign):
    started = time.monotonic()
    with open(contexts, "rb") as stdin:
        r = subprocess.run([str(BINARY), "batch", campaign, "--templates", str(workspace / "Templates"), "--dry-run"],
                           stdin=stdin, capture_output=True)
    times.setdefault("single pushliquid batch", time.monotonic() - started)
    check(r.returncode == 0, f"the single batch run failed: {r.stderr.decode()[-2000:]}")
    return {json.loads(line)["line"]: json.loads(line) for line in r.stdout.decode().splitlines()}


def same(expected, actual, name):
    check(sorted(actual) == list(range(1, len(expected) + 1)), f"{name}: the output has {len(actual)} lines, not every line 1...{len(expected)} once")
    for line, result in expected.items():
        if actual[line] != result:
            fail(f"{name}: line {line} differs from the single run:\n  single: {json.dumps(result)[:400]}\n  spark:  {json.dumps(actual[line])[:400]}")


# The segment, and a workspace with the bundled campaigns.
contexts = work / "segment.ndjson"
with open(contexts, "w") as out:
    subprocess.run([sys.executable, str(SHARED / "bench/gen_contexts.py"), "100000", "7"], stdout=out, check=True)
workspace = work / "workspace"
for folder in ["Templates", "Profiles", "Catalogs", "PromotionCodes"]:
    shutil.copytree(ROOT / folder, workspace / folder, ignore=shutil.ignore_patterns("*.used"))
reference = single_run(contexts, workspace, "learning-progress")
check(len(reference) == 100_000, "the single run has a result per line")

# 1. Two cores, four partitions.
summary, _ = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress",
                          "--input", contexts, "--output", work / "out1", "--partitions", 4, name="spark, 100,000 recipients")
check(summary["lines"] == 100_000 and summary["rendered"] == sum(r["status"] == "rendered" for r in reference.values()),
      f"the job's summary: {summary}")
same(reference, results_of(work / "out1"), "spark")

# 2. One partition's pushliquid killed midway on its first attempt.
marker = work / "killed.txt"
summary, log = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress",
                            "--input", contexts, "--output", work / "out2", "--partitions", 4,
                            "--fail-partition", 2, "--fail-after", 5000, "--fail-marker", marker, name="spark, a partition killed and retried")
check(marker.exists() and marker.read_text().count("killed") == 1, "partition 2's first attempt was killed once")
check("Lost task 2.0 in stage" in log and "Finished task 2.1 in stage" in log, "Spark lost partition 2's first attempt and finished its second")
same(reference, results_of(work / "out2"), "spark after a killed partition")

# 3. Parquet in and out.
small = work / "small.ndjson"
small.write_text("".join(contexts.read_text(encoding="utf-8").splitlines(keepends=True)[:2000]), encoding="utf-8")
converter = work / "to_parquet.py"
converter.write_text(
    "import sys\nfrom pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.getOrCreate()\n"
    "s.read.json(sys.argv[1]).coalesce(1).write.mode('overwrite').parquet(sys.argv[2])\n", encoding="utf-8")
r = subprocess.run(["spark-submit", "--master", "local[1]", "--conf", "spark.ui.enabled=false", str(converter), str(small), str(work / "segment.parquet")],
                   capture_output=True, text=True)
check(r.returncode == 0, f"writing the Parquet segment: {r.stderr[-2000:]}")
spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress", "--input", work / "segment.parquet",
             "--input-format", "parquet", "--output", work / "out3", "--output-format", "parquet", "--partitions", 2, name="spark, Parquet")
dump = work / "from_parquet.py"
dump.write_text(
    "import sys\nfrom pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.getOrCreate()\n"
    "for row in s.read.parquet(sys.argv[1]).orderBy('line').collect(): print(row['result'])\n", encoding="utf-8")
r = subprocess.run(["spark-submit", "--master", "local[1]", "--conf", "spark.ui.enabled=false", str(dump), str(work / "out3")],
                   capture_output=True, text=True)
check(r.returncode == 0, f"reading the Parquet results: {r.stderr[-2000:]}")
parquet_results = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
check(len(parquet_results) == 2000, f"2,000 Parquet results, got {len(parquet_results)}")
for result in parquet_results:
    # (Parquet keeps the documents' values; the payloads are the single run's.)
    expected = reference[result["line"]]
    check(result["status"] == expected["status"] and result.get("payload") == expected.get("payload"),
          f"Parquet line {result['line']} differs from the single run")

# 4. Promotion codes: two executors, a partition killed and retried, one shared record.
promo = work / "promo"
shutil.copytree(workspace, promo)
codes = [f"SPRING-{i:06d}" for i in range(1, 12_001)]
(promo / "PromotionCodes/course_offer.csv").write_text("code\n" + "\n".join(codes) + "\n", encoding="utf-8")
few = work / "promo.ndjson"
few.write_text("".join(contexts.read_text(encoding="utf-8").splitlines(keepends=True)[:10_000]), encoding="utf-8")
ledger = work / "ledger"
marker = work / "killed-promo.txt"
summary, _ = spark_submit("--binary", BINARY, "--workspace", promo, "--campaign", "course-offer", "--input", few,
                          "--output", work / "out4", "--partitions", 4, "--ledger", ledger, "--campaign-info", "dispatch_id=d-1",
                          "--fail-partition", 1, "--fail-after", 700, "--fail-marker", marker, name="spark, promotion codes")
check(marker.exists(), "the promotion run's partition was killed")
results = results_of(work / "out4")
check(sorted(results) == list(range(1, 10_001)), "every recipient once")
given = {}
for line, result in results.items():
    check(result["status"] == "rendered", f"line {line} rendered: {result}")
    code = result["payload"]["promo_code"]
    check(result["payload"]["aps"]["alert"]["body"].count(code) == 1, f"line {line}: the body shows its code")
    given[result["external_id"]] = code
check(len(set(given.values())) == 10_000, f"10,000 recipients, {len(set(given.values()))} distinct codes: a code was handed out twice")
record = [json.loads(line) for line in (ledger / "course_offer.used").read_text(encoding="utf-8").splitlines()]
check(len(record) == 10_000, f"the record holds {len(record)} codes for 10,000 recipients (a retried recipient got a second code?)")
check({code for code, _ in record} == set(given.values()), "the record is the codes the payloads show")

shutil.rmtree(work, ignore_errors=True)
print("spark-test: every check passed")
for name, seconds in times.items():
    print(f"spark-test: {name}: {seconds:.1f} s")
